package io.blocktarget.transport.nvmetcp;

import io.blocktarget.config.TlsPsk;
import io.blocktarget.nvme.TlsSession;
import io.blocktarget.transport.tcp.PeerLogLimiter;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;
import org.bouncycastle.tls.AlertDescription;
import org.bouncycastle.tls.TlsClient;
import org.bouncycastle.tls.TlsClientProtocol;
import org.bouncycastle.tls.TlsFatalAlertReceived;
import org.bouncycastle.tls.TlsProtocol;
import org.bouncycastle.tls.TlsServerProtocol;
import org.bouncycastle.tls.crypto.impl.jcajce.JcaTlsCryptoProvider;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * TLS 1.3 with a PSK under NVMe/TCP (NVMe/TCP Transport §3.6), at the socket end of the pipeline. The first byte
 * decides (§3.6.1: the host starts TLS before ICReq): 16h, a TLS handshake record (RFC 8446 §5.1), starts TLS; anything
 * else is plain NVMe/TCP (an ICReq starts with PDU type 00h) and this handler leaves the pipeline, so plain connections
 * pay nothing after their first read. Whether a subsystem requires TLS is checked at Connect.
 *
 * <p>Bouncy Castle's non-blocking engine takes ciphertext as {@code byte[]} (one copy in) and hands plaintext and
 * records out into {@link ByteBuffer}s, here the memory of fresh Netty buffers (no further copy); outbound plaintext is
 * copied once into a scratch array the engine encrypts from. One outbound write gives one ciphertext write, so write
 * promises map one to one.
 *
 * <p>The same record path serves the host end ({@link #client}), for the project's load generator and test hosts:
 * it starts the handshake when the channel becomes active and completes a future when the handshake is done or
 * failed, instead of detecting, logging and handing the session on. The role is fixed at construction and only
 * the handshake's start and end look at it, so the server's record path is the one it had without the client.
 */
public final class TlsHandler extends ChannelDuplexHandler {
    private static final System.Logger LOG = System.getLogger("blocktarget.nvmetcp");
    /** RFC 8446 §5.1 ContentType handshake. */
    private static final int TLS_HANDSHAKE_RECORD = 0x16;
    private static final SecureRandom RANDOM = new SecureRandom();
    /**
     * The record cipher and key schedule from the JDK's providers (AES-GCM with AES-NI / GHASH intrinsics) rather than
     * Bouncy Castle's lightweight Java AES, which costs several times the CPU per byte (bench/nvme-ab BENCH_TLS=1);
     * Bouncy Castle still runs the TLS 1.3 protocol and its external PSKs.
     */
    private static final JcaTlsCryptoProvider JCA = new JcaTlsCryptoProvider();

    /** DETECT: the server before the first byte; the client starts in HANDSHAKE (ClientHello at channelActive). */
    private enum State { DETECT, HANDSHAKE, OPEN, CLOSED }

    /** Which end of the connection this handler is (NVMe/TCP §3.6.1: the host starts TLS). */
    private enum Role { SERVER, CLIENT }

    private final Role role;
    private final Function<String, Optional<TlsPsk>> psks;
    private final Consumer<TlsSession> established;
    private final PeerLogLimiter errorLog;
    private final TlsClient client;
    private final CompletableFuture<Void> handshake;
    private State state;
    private TlsProtocol protocol;
    private NvmeTlsServer server;
    private byte[] scratch = new byte[16 * 1024];

    /**
     * @param psks        the configured PSK of a subsystem NQN
     * @param established told the PSK's host and subsystem once the handshake completed (on the event loop)
     */
    TlsHandler(Function<String, Optional<TlsPsk>> psks, Consumer<TlsSession> established, PeerLogLimiter errorLog) {
        this.role = Role.SERVER;
        this.psks = psks;
        this.established = established;
        this.errorLog = errorLog;
        this.client = null;
        this.handshake = null;
        this.state = State.DETECT;
    }

    private TlsHandler(TlsClient client, CompletableFuture<Void> handshake) {
        this.role = Role.CLIENT;
        this.psks = null;
        this.established = null;
        this.errorLog = null;
        this.client = client;
        this.handshake = handshake;
        this.state = State.HANDSHAKE;
    }

    /**
     * The host end: sends the ClientHello of {@code client} (e.g. a {@link TlsPskClient}) once the channel is
     * active; {@code handshake} completes on the event loop when the handshake is done, or exceptionally with an
     * {@link IOException} naming the alert or the close that ended it (the channel is then closed). Nothing must
     * be written before it completed.
     */
    public static TlsHandler client(TlsClient client, CompletableFuture<Void> handshake) {
        return new TlsHandler(client, handshake);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (role == Role.CLIENT && ctx.channel().isActive()) {
            startClient(ctx);
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        if (role == Role.CLIENT && protocol == null) {
            startClient(ctx);
        }
        super.channelActive(ctx);
    }

    /** RFC 8446 §4.1.2: the engine queues the ClientHello; it goes out at once. */
    private void startClient(ChannelHandlerContext ctx) {
        TlsClientProtocol clientProtocol = new TlsClientProtocol();
        protocol = clientProtocol;
        try {
            clientProtocol.connect(client);
        } catch (IOException e) {
            fail(ctx, e);
            return;
        }
        if (drainOutput(ctx, null)) {
            ctx.flush();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (role == Role.CLIENT) {
            // no effect once the handshake completed or failed with its own reason
            handshake.completeExceptionally(new IOException("TLS handshake failed: the target closed the connection"));
            state = State.CLOSED;
        }
        super.channelInactive(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (!(msg instanceof ByteBuf in)) {
            ctx.fireChannelRead(msg);
            return;
        }
        switch (state) {
            case DETECT -> {
                if (!in.isReadable()) {
                    in.release();
                    return;
                }
                if (in.getUnsignedByte(in.readerIndex()) != TLS_HANDSHAKE_RECORD) {
                    ctx.pipeline().remove(this);
                    ctx.fireChannelRead(in);
                    return;
                }
                server = new NvmeTlsServer(JCA.create(RANDOM), psks);
                TlsServerProtocol serverProtocol = new TlsServerProtocol();
                protocol = serverProtocol;
                try {
                    serverProtocol.accept(server);
                } catch (IOException e) {
                    in.release();
                    fail(ctx, e);
                    return;
                }
                state = State.HANDSHAKE;
                offer(ctx, in);
            }
            case HANDSHAKE, OPEN -> offer(ctx, in);
            case CLOSED -> in.release();
        }
    }

    private void offer(ChannelHandlerContext ctx, ByteBuf in) {
        try {
            int n = in.readableBytes();
            byte[] bytes = scratch(n);
            in.readBytes(bytes, 0, n);
            protocol.offerInput(bytes, 0, n);
        } catch (IOException e) {
            fail(ctx, e);
            return;
        } finally {
            in.release();
        }
        boolean wrote = drainOutput(ctx, null);
        if (wrote) {
            ctx.flush();
        }
        if (state == State.HANDSHAKE && protocol.isConnected() && !protocol.isHandshaking()) {
            state = State.OPEN;
            if (role == Role.SERVER) {
                TlsSession session = server.session();
                LOG.log(Level.INFO, "NVMe/TCP {0}: TLS 1.3 with the PSK of {1} for {2}", peer(ctx),
                        session.subsystemNqn(), session.hostNqn());
                established.accept(session);
            } else {
                handshake.complete(null);
            }
        }
        int available = protocol.getAvailableInputBytes();
        if (available > 0 && state == State.OPEN) {
            ByteBuf plain = ctx.alloc().directBuffer(available);
            int read = protocol.readInput(plain.nioBuffer(0, available), available);
            plain.writerIndex(read);
            ctx.fireChannelRead(plain);
        }
        if (state == State.OPEN && protocol.isClosed()) {
            state = State.CLOSED;
            ctx.close();
        }
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (state == State.DETECT) {
            ctx.write(msg, promise);
            return;
        }
        if (state != State.OPEN || !(msg instanceof ByteBuf out)) {
            ReferenceCountUtil.release(msg);
            promise.setFailure(new IOException("TLS connection not open"));
            return;
        }
        try {
            int n = out.readableBytes();
            byte[] bytes = scratch(n);
            out.getBytes(out.readerIndex(), bytes, 0, n);
            protocol.writeApplicationData(bytes, 0, n);
        } catch (IOException e) {
            promise.setFailure(e);
            fail(ctx, e);
            return;
        } finally {
            out.release();
        }
        if (!drainOutput(ctx, promise)) {
            promise.setSuccess();
        }
    }

    /** Sends what the engine has for the peer; true when something was written (then {@code promise} went with it). */
    private boolean drainOutput(ChannelHandlerContext ctx, ChannelPromise promise) {
        int available = protocol.getAvailableOutputBytes();
        if (available == 0) {
            return false;
        }
        ByteBuf records = ctx.alloc().directBuffer(available);
        int read = protocol.readOutput(records.nioBuffer(0, available), available);
        records.writerIndex(read);
        if (promise == null) {
            ctx.write(records);
        } else {
            ctx.write(records, promise);
        }
        return true;
    }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) throws Exception {
        if (state == State.OPEN) {
            state = State.CLOSED;
            try {
                protocol.close();      // close_notify (RFC 8446 §6.1)
                if (drainOutput(ctx, null)) {
                    ctx.flush();
                }
            } catch (IOException e) {
                // the connection goes anyway
            }
        }
        state = State.CLOSED;
        if (role == Role.CLIENT) {
            handshake.completeExceptionally(new IOException("TLS handshake failed: the connection was closed"));
        }
        ctx.close(promise);
    }

    /** A failed handshake or a bad record (RFC 8446 §6: the engine sent its alert): one line, then the socket closes. */
    private void fail(ChannelHandlerContext ctx, IOException e) {
        if (state == State.CLOSED) {
            return;
        }
        boolean duringHandshake = state != State.OPEN;
        state = State.CLOSED;
        if (protocol != null && drainOutput(ctx, null)) {
            ctx.flush();
        }
        if (role == Role.CLIENT) {
            String why = e instanceof TlsFatalAlertReceived received
                    ? "the target sent alert " + AlertDescription.getName(received.getAlertDescription())
                    : String.valueOf(e.getMessage());
            IOException failure = new IOException("TLS " + (duringHandshake ? "handshake" : "record") + " failed: "
                    + why, e);
            if (duringHandshake) {
                handshake.completeExceptionally(failure);
            } else {
                ctx.fireExceptionCaught(failure);
            }
            ctx.close();
            return;
        }
        if (errorLog.admit(ctx.channel().remoteAddress())) {
            String why = server != null && server.failure() != null ? server.failure() : String.valueOf(e.getMessage());
            LOG.log(Level.WARNING, "NVMe/TCP {0}: TLS {1} failed, closing: {2}", peer(ctx),
                    duringHandshake ? "handshake" : "record", why);
        }
        ctx.close();
    }

    private byte[] scratch(int n) {
        if (scratch.length < n) {
            scratch = new byte[Math.max(n, scratch.length * 2)];
        }
        return scratch;
    }

    private static String peer(ChannelHandlerContext ctx) {
        return String.valueOf(ctx.channel().remoteAddress());
    }
}
