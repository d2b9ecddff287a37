package io.blocktarget.transport.nvmetcp;

import io.blocktarget.config.TlsPsk;
import io.blocktarget.nvme.TlsSession;
import io.blocktarget.transport.tcp.PeerLogLimiter;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;
import org.bouncycastle.tls.TlsServerProtocol;
import org.bouncycastle.tls.crypto.impl.bc.BcTlsCrypto;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.Optional;
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
 */
final class TlsHandler extends ChannelDuplexHandler {
    private static final System.Logger LOG = System.getLogger("blocktarget.nvmetcp");
    /** RFC 8446 §5.1 ContentType handshake. */
    private static final int TLS_HANDSHAKE_RECORD = 0x16;
    private static final SecureRandom RANDOM = new SecureRandom();

    private enum State { DETECT, HANDSHAKE, OPEN, CLOSED }

    private final Function<String, Optional<TlsPsk>> psks;
    private final Consumer<TlsSession> established;
    private final PeerLogLimiter errorLog;
    private State state = State.DETECT;
    private TlsServerProtocol protocol;
    private NvmeTlsServer server;
    private byte[] scratch = new byte[16 * 1024];

    /**
     * @param psks        the configured PSK of a subsystem NQN
     * @param established told the PSK's host and subsystem once the handshake completed (on the event loop)
     */
    TlsHandler(Function<String, Optional<TlsPsk>> psks, Consumer<TlsSession> established, PeerLogLimiter errorLog) {
        this.psks = psks;
        this.established = established;
        this.errorLog = errorLog;
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
                server = new NvmeTlsServer(new BcTlsCrypto(RANDOM), psks);
                protocol = new TlsServerProtocol();
                try {
                    protocol.accept(server);
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
            TlsSession session = server.session();
            LOG.log(Level.INFO, "NVMe/TCP {0}: TLS 1.3 with the PSK of {1} for {2}", peer(ctx), session.subsystemNqn(),
                    session.hostNqn());
            established.accept(session);
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
        ctx.close(promise);
    }

    /** A failed handshake or a bad record (RFC 8446 §6: the engine sent its alert): one line, then the socket closes. */
    private void fail(ChannelHandlerContext ctx, IOException e) {
        if (state == State.CLOSED) {
            return;
        }
        boolean handshake = state != State.OPEN;
        state = State.CLOSED;
        if (protocol != null && drainOutput(ctx, null)) {
            ctx.flush();
        }
        if (errorLog.admit(ctx.channel().remoteAddress())) {
            String why = server != null && server.failure() != null ? server.failure() : String.valueOf(e.getMessage());
            LOG.log(Level.WARNING, "NVMe/TCP {0}: TLS {1} failed, closing: {2}", peer(ctx),
                    handshake ? "handshake" : "record", why);
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
