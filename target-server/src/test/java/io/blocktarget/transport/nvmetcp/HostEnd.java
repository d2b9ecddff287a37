package io.blocktarget.transport.nvmetcp;

import io.blocktarget.nvme.NvmeLimits;
import io.blocktarget.protocol.nvme.ConnectCommand;
import io.blocktarget.protocol.nvme.ConnectData;
import io.blocktarget.protocol.nvme.Cqe;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.protocol.nvmetcp.CapsuleCmd;
import io.blocktarget.protocol.nvmetcp.CapsuleResp;
import io.blocktarget.protocol.nvmetcp.ICReq;
import io.blocktarget.protocol.nvmetcp.ICResp;
import io.blocktarget.protocol.nvmetcp.NvmeTcpFraming;
import io.blocktarget.protocol.nvmetcp.NvmeTcpPdu;
import io.blocktarget.protocol.nvmetcp.NvmeTcpProtocolException;
import io.blocktarget.protocol.nvmetcp.NvmeTcpPduType;
import io.blocktarget.protocol.nvmetcp.PduOptions;
import io.blocktarget.protocol.nvmetcp.TermReq;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The host end of an {@link EmbeddedChannel} running the transport's pipeline: encodes host PDUs with the
 * protocol records, collects what the controller wrote and decodes it with host-side framing.
 */
final class HostEnd implements AutoCloseable {
    static final String HOSTNQN = "nqn.2014-08.org.nvmexpress:uuid:6e1c2f3a-3b1d-4c8e-9a55-1a2b3c4d5e6f";
    static final byte[] HOSTID = HexFormat.of().parseHex("6e1c2f3a3b1d4c8e9a551a2b3c4d5e6f");

    final FakeTarget target;
    private final boolean ownsTarget;
    final EmbeddedChannel channel = new EmbeddedChannel();
    private final ByteBuf received = Unpooled.buffer();
    /** Everything the host sent and the controller wrote, for replaying a session at other splits. */
    final ByteBuf sentLog = Unpooled.buffer();
    final ByteBuf receivedLog = Unpooled.buffer();
    private NvmeTcpFraming framing = NvmeTcpFraming.host(1 << 22);
    private PduOptions options = PduOptions.NONE;
    /** Set by {@link #startTls}: the host's TLS engine every byte goes through. */
    private org.bouncycastle.tls.TlsClientProtocol tls;

    HostEnd(NvmeLimits limits, boolean discoveryOnly) {
        this(limits, discoveryOnly, CidReusePolicy.RETIRE_STALE_ASYNC_EVENT_REQUEST);
    }

    HostEnd(NvmeLimits limits, boolean discoveryOnly, CidReusePolicy cidReuse) {
        target = new FakeTarget();
        ownsTarget = true;
        new NvmeTcpTransport(target, limits, cidReuse).install(channel.pipeline(), null, discoveryOnly);
    }

    /** A connection to {@code target} (owned: released on close), e.g. one that offers TLS. */
    HostEnd(FakeTarget target) {
        this.target = target;
        ownsTarget = true;
        new NvmeTcpTransport(target, NvmeLimits.DEFAULT).install(channel.pipeline(), null, false);
    }

    /** Another connection of a shared transport (and its shared target, released by the test). */
    HostEnd(NvmeTcpTransport transport) {
        target = (FakeTarget) transport.target();
        ownsTarget = false;
        transport.install(channel.pipeline(), null, false);
    }

    /** The controller side of this channel (taken before a close: the pipeline forgets its handlers then). */
    NvmeTcpConnection connection() {
        return channel.pipeline().get(NvmeTcpConnection.class);
    }

    static HostEnd open(NvmeLimits limits) {
        return new HostEnd(limits, false);
    }

    /** The PDUs a Linux host sent, from the protocol module's capture (provenance in the file). */
    static Map<String, byte[]> captured() throws IOException {
        Map<String, byte[]> pdus = new LinkedHashMap<>();
        Path file = Path.of("../protocol/src/test/resources/nvme/linux-host-pdus.txt");
        for (String line : Files.readString(file, StandardCharsets.US_ASCII).split("\n")) {
            if (!line.isBlank() && !line.startsWith("#")) {
                String[] f = line.split(" ");
                pdus.put(f[0], HexFormat.of().parseHex(f[1]));
            }
        }
        return pdus;
    }

    void sendBytes(byte[] bytes) {
        sendBytes(Unpooled.wrappedBuffer(bytes));
    }

    void sendBytes(ByteBuf bytes) {
        sentLog.writeBytes(bytes, bytes.readerIndex(), bytes.readableBytes());
        if (tls == null) {
            channel.writeInbound(bytes);
            return;
        }
        try {
            byte[] plain = new byte[bytes.readableBytes()];
            bytes.readBytes(plain);
            bytes.release();
            tls.writeApplicationData(plain, 0, plain.length);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        tlsToController();
    }

    /**
     * Runs a TLS 1.3 handshake as the host (NVMe/TCP §3.6: before ICReq) with {@code client}; afterwards every PDU
     * goes encrypted. Returns whether the handshake completed (false: the controller sent an alert or closed).
     */
    boolean startTls(TlsPskClient client) {
        tls = new org.bouncycastle.tls.TlsClientProtocol();
        try {
            tls.connect(client);
            for (int round = 0; round < 10 && tls.isHandshaking() && channel.isOpen(); round++) {
                tlsToController();
                tlsFromController();
            }
        } catch (IOException e) {
            return false;
        }
        return tls.isConnected() && !tls.isHandshaking();
    }

    private void tlsToController() {
        int n = tls.getAvailableOutputBytes();
        if (n > 0) {
            byte[] out = new byte[n];
            tls.readOutput(out, 0, n);
            channel.writeInbound(Unpooled.wrappedBuffer(out));
        }
    }

    /** Feeds the controller's records to the client engine; decrypted bytes go to {@link #received}. */
    private void tlsFromController() throws IOException {
        channel.runPendingTasks();
        for (Object o; (o = channel.readOutbound()) != null; ) {
            ByteBuf b = (ByteBuf) o;
            byte[] bytes = new byte[b.readableBytes()];
            b.readBytes(bytes);
            b.release();
            tls.offerInput(bytes);
        }
        int n = tls.getAvailableInputBytes();
        if (n > 0) {
            byte[] plain = new byte[n];
            tls.readInput(plain, 0, n);
            receivedLog.writeBytes(plain);
            received.writeBytes(plain);
        }
    }

    /** A host PDU as bytes, with the negotiated digests. */
    ByteBuf encode(NvmeTcpPdu pdu) {
        ByteBuf out = Unpooled.buffer();
        pdu.encode(out, options);
        return out;
    }

    byte[] encodeBytes(NvmeTcpPdu pdu) {
        ByteBuf b = encode(pdu);
        byte[] out = new byte[b.readableBytes()];
        b.readBytes(out);
        b.release();
        return out;
    }

    /** Asserts the controller's last PDU is a C2HTermReq with {@code fes}/{@code fei} and the channel closed. */
    TermReq assertTerminated(int fes, long fei) {
        List<NvmeTcpPdu> out = drain();
        assertThat(out).as("PDUs up to the C2HTermReq").isNotEmpty();
        NvmeTcpPdu last = out.getLast();
        out.forEach(NvmeTcpPdu::release);
        assertThat(last).isInstanceOf(TermReq.class);
        TermReq t = (TermReq) last;
        assertThat(t.type()).isEqualTo(NvmeTcpPduType.C2H_TERM_REQ);
        assertThat(t.fes()).as("FES").isEqualTo(fes);
        assertThat(t.fei()).as("FEI").isEqualTo(fei);
        assertThat(channel.isOpen()).as("closed after the C2HTermReq").isFalse();
        return t;
    }

    void send(NvmeTcpPdu pdu) {
        sendBytes(encode(pdu));
    }

    void icReq(boolean hdgst, boolean ddgst) {
        send(new ICReq(0, 0, hdgst, ddgst, 0));
        NvmeTcpPdu resp = next();
        assertThat(resp).isInstanceOf(ICResp.class);
        assertThat(((ICResp) resp).cpda()).isZero();
    }

    /** ICReq + Connect of queue {@code qid} with {@code sqsize}, CATTR as given; returns the CQE. */
    Cqe connect(int qid, int sqsize, int cattr, String subnqn) {
        ByteBuf data = Unpooled.buffer(ConnectData.SIZE);
        new ConnectData(HOSTID, 0xFFFF, subnqn, HOSTNQN).encode(data);
        ConnectCommand cc = new ConnectCommand(0x42, 0, qid, sqsize, cattr, qid == 0 ? 5000 : 0,
                SglDescriptor.inCapsule(0, ConnectData.SIZE));
        send(new CapsuleCmd(cc.toSqe(), data));
        data.release();
        return response();
    }

    Cqe open(int qid, int sqsize, int cattr) {
        icReq(false, false);
        Cqe cqe = connect(qid, sqsize, cattr, FakeTarget.SUBNQN);
        assertThat(cqe.status().sc()).isZero();
        return cqe;
    }

    /** A command without data (Flush 00h on NSID 1, Keep Alive 18h on the admin queue, ...). */
    void noData(int opcode, int cid) {
        capsule(Sqe.of(opcode, cid, opcode == 0x18 ? 0 : 1, SglDescriptor.transportDataBlock(0)));
    }

    void capsule(Sqe sqe) {
        send(new CapsuleCmd(sqe));
    }

    void capsule(Sqe sqe, byte[] inCapsule) {
        ByteBuf data = Unpooled.wrappedBuffer(inCapsule);
        send(new CapsuleCmd(sqe, data));
        data.release();
    }

    /** The next controller PDU (fails when none). */
    NvmeTcpPdu next() {
        NvmeTcpPdu pdu = poll();
        assertThat(pdu).as("a PDU from the controller").isNotNull();
        return pdu;
    }

    Cqe response() {
        NvmeTcpPdu pdu = next();
        assertThat(pdu).isInstanceOf(CapsuleResp.class);
        return ((CapsuleResp) pdu).cqe();
    }

    /** The next complete controller PDU or null. */
    NvmeTcpPdu poll() {
        // completions outside a read (held, AER, abort) are flushed by a task the flush consolidation schedules
        channel.runPendingTasks();
        if (tls != null) {
            try {
                tlsFromController();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        for (Object o; (o = channel.readOutbound()) != null; ) {
            ByteBuf b = (ByteBuf) o;
            receivedLog.writeBytes(b, b.readerIndex(), b.readableBytes());
            received.writeBytes(b);
            b.release();
        }
        try {
            int n = framing.frameLength(received);
            if (n < 0 || received.readableBytes() < n) {
                return null;
            }
            // a copy: the PDU's data is a slice of what it was decoded from, and received gets compacted
            ByteBuf frame = received.readBytes(n);
            received.discardReadBytes();
            NvmeTcpPdu pdu;
            try {
                pdu = NvmeTcpPdu.decode(frame);
            } finally {
                frame.release(); // also when the decode fails (a wrong digest a test provoked)
            }
            if (pdu instanceof ICResp resp) {
                options = new PduOptions(resp.hdgstEnable(), resp.ddgstEnable(), 0);
                framing = framing.established(options);
            }
            return pdu;
        } catch (NvmeTcpProtocolException e) {
            throw new AssertionError(e);
        }
    }

    /** Every PDU the controller has written so far. */
    List<NvmeTcpPdu> drain() {
        List<NvmeTcpPdu> all = new ArrayList<>();
        for (NvmeTcpPdu p; (p = poll()) != null; ) {
            all.add(p);
        }
        return all;
    }

    /** Bytes the controller wrote and the host did not decode yet. */
    int undecodedBytes() {
        poll();
        return received.readableBytes();
    }

    @Override
    public void close() {
        channel.finishAndReleaseAll();
        received.release();
        sentLog.release();
        receivedLog.release();
        if (ownsTarget) {
            // every slice of the storage handed out as read data was released by the transport
            assertThat(target.storage.refCnt()).as("storage references left").isEqualTo(1);
            target.release();
        }
    }
}
