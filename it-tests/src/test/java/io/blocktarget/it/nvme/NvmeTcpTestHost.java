package io.blocktarget.it.nvme;

import io.blocktarget.protocol.nvme.ConnectCommand;
import io.blocktarget.protocol.nvme.ConnectData;
import io.blocktarget.protocol.nvme.ControllerRegister;
import io.blocktarget.protocol.nvme.Cqe;
import io.blocktarget.protocol.nvme.FabricsCommandType;
import io.blocktarget.protocol.nvme.GetLogPageCommand;
import io.blocktarget.protocol.nvme.IdentifyCommand;
import io.blocktarget.protocol.nvme.IdentifyController;
import io.blocktarget.protocol.nvme.IdentifyNamespace;
import io.blocktarget.protocol.nvme.NvmOpcode;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.PropertyCommand;
import io.blocktarget.protocol.nvme.ReadWriteCommand;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.protocol.nvmetcp.C2HData;
import io.blocktarget.protocol.nvmetcp.CapsuleCmd;
import io.blocktarget.protocol.nvmetcp.CapsuleResp;
import io.blocktarget.protocol.nvmetcp.H2CData;
import io.blocktarget.protocol.nvmetcp.ICReq;
import io.blocktarget.protocol.nvmetcp.ICResp;
import io.blocktarget.protocol.nvmetcp.NvmeTcpFraming;
import io.blocktarget.protocol.nvmetcp.NvmeTcpHeader;
import io.blocktarget.protocol.nvmetcp.NvmeTcpPdu;
import io.blocktarget.protocol.nvmetcp.NvmeTcpProtocolException;
import io.blocktarget.protocol.nvmetcp.PduOptions;
import io.blocktarget.protocol.nvmetcp.R2T;
import io.blocktarget.protocol.nvmetcp.TermReq;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.util.HexFormat;

/**
 * A small blocking NVMe/TCP host for loopback tests, built on the protocol module's codecs: one socket = one
 * queue, like the Linux host. In-capsule data up to {@link #inCapsuleLimit}, larger writes answered R2T by R2T
 * in H2CData PDUs of at most MAXH2CDATA; C2HData is gathered by DATAO.
 */
final class NvmeTcpTestHost implements AutoCloseable {
    static final String HOSTNQN = "nqn.2014-08.org.nvmexpress:uuid:0b7a3c61-9d2e-4f0a-8c55-2d1e0f4a6b7c";
    static final byte[] HOSTID = HexFormat.of().parseHex("0b7a3c619d2e4f0a8c552d1e0f4a6b7c");
    /** CC: EN, IOSQES 6 (64-byte SQEs), IOCQES 4 (16-byte CQEs), NVM command set, 4 KiB pages. */
    static final int CC_ENABLE = 1 | 6 << 16 | 4 << 20;

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final PduOptions options;
    private final NvmeTcpFraming framing;
    private final long maxH2CData;
    private int nextCid = 1;
    /** Bytes of write data sent in the capsule (the controller's IOCCSZ / admin size); 0 forces R2T. */
    int inCapsuleLimit = 8192;
    int qid = -1;
    /** HOSTNQN of the Connect data; SPDK's host sends an empty one unless told otherwise. */
    String hostnqn = HOSTNQN;

    /** The result of one command: its CQE (synthesized for a C2HData SUCCESS flag) and its C2H data. */
    record Reply(Cqe cqe, byte[] data) {
        boolean ok() {
            return cqe.status().isSuccess();
        }

        boolean is(NvmeStatus s) {
            return cqe.status().equals(s.toCqeStatus());
        }
    }

    private NvmeTcpTestHost(int port, boolean hdgst, boolean ddgst) throws IOException {
        this(port, hdgst, ddgst, null);
    }

    /** With {@code tls}: a TLS 1.3 handshake first (NVMe/TCP §3.6), then every PDU over it. */
    private NvmeTcpTestHost(int port, boolean hdgst, boolean ddgst, io.blocktarget.transport.nvmetcp.TlsPskClient tls)
            throws IOException {
        socket = new Socket(InetAddress.getLoopbackAddress(), port);
        socket.setSoTimeout(15_000);
        socket.setTcpNoDelay(true);
        if (tls == null) {
            in = new DataInputStream(socket.getInputStream());
            out = socket.getOutputStream();
        } else {
            org.bouncycastle.tls.TlsClientProtocol protocol =
                    new org.bouncycastle.tls.TlsClientProtocol(socket.getInputStream(), socket.getOutputStream());
            try {
                protocol.connect(tls);
            } catch (IOException e) {
                socket.close();
                throw e;
            }
            in = new DataInputStream(protocol.getInputStream());
            out = protocol.getOutputStream();
        }
        write(new ICReq(0, 0, hdgst, ddgst, 0), PduOptions.NONE);
        NvmeTcpPdu first = read(NvmeTcpFraming.host(16 << 20));
        if (!(first instanceof ICResp resp)) {
            throw new IOException("expected ICResp, got " + first);
        }
        if (resp.hdgstEnable() != hdgst || resp.ddgstEnable() != ddgst || resp.cpda() != 0) {
            throw new IOException("ICResp does not grant what was asked: " + resp);
        }
        options = resp.hostSendOptions();
        framing = NvmeTcpFraming.host(16 << 20).established(new PduOptions(hdgst, ddgst, 0));
        maxH2CData = resp.maxh2cdata();
    }

    static NvmeTcpTestHost open(int port, boolean hdgst, boolean ddgst) throws IOException {
        return new NvmeTcpTestHost(port, hdgst, ddgst);
    }

    /** ICReq after a TLS 1.3 handshake with {@code tls}; the handshake's failure is the IOException (an alert). */
    static NvmeTcpTestHost openTls(int port, io.blocktarget.transport.nvmetcp.TlsPskClient tls) throws IOException {
        return new NvmeTcpTestHost(port, false, false, tls);
    }

    // ------------------------------------------------------------------ wire

    private void write(NvmeTcpPdu pdu, PduOptions o) throws IOException {
        ByteBuf b = Unpooled.buffer();
        pdu.encode(b, o);
        byte[] bytes = new byte[b.readableBytes()];
        b.readBytes(bytes);
        b.release();
        out.write(bytes);
        out.flush();
    }

    void send(NvmeTcpPdu pdu) throws IOException {
        write(pdu, options);
    }

    void sendRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    private NvmeTcpPdu read(NvmeTcpFraming f) throws IOException {
        byte[] header = new byte[NvmeTcpHeader.SIZE];
        in.readFully(header);
        try {
            int length = f.frameLength(Unpooled.wrappedBuffer(header));
            byte[] frame = new byte[length];
            System.arraycopy(header, 0, frame, 0, header.length);
            in.readFully(frame, header.length, length - header.length);
            return NvmeTcpPdu.decode(Unpooled.wrappedBuffer(frame));
        } catch (NvmeTcpProtocolException e) {
            throw new IOException("controller sent a bad PDU: " + e.getMessage(), e);
        }
    }

    NvmeTcpPdu read() throws IOException {
        return read(framing);
    }

    /**
     * What the controller does next after a protocol violation: its C2HTermReq (then the close), or null when
     * it closed without one. Fails if it sends anything else or keeps the connection open.
     */
    TermReq awaitTermination() throws IOException {
        try {
            NvmeTcpPdu pdu = read();
            if (!(pdu instanceof TermReq t)) {
                throw new IOException("expected C2HTermReq, got " + pdu);
            }
            if (in.read() != -1) {
                throw new IOException("still open after the C2HTermReq");
            }
            return t;
        } catch (EOFException | SocketException e) {
            return null;
        }
    }

    /** True when the controller closed the connection (EOF or reset) within the socket timeout. */
    boolean closedByController() throws IOException {
        try {
            return in.read() == -1;
        } catch (SocketException e) {
            return true;
        }
    }

    // ------------------------------------------------------------------ commands

    private static Sqe withCid(Sqe s, int cid, SglDescriptor dptr) {
        return new Sqe(s.opcode(), s.fuse(), s.psdt(), cid, s.nsid(), s.cdw2(), s.cdw3(), s.mptr(), dptr, s.cdw10(),
                s.cdw11(), s.cdw12(), s.cdw13(), s.cdw14(), s.cdw15());
    }

    /** Runs one command: {@code dataOut} goes in-capsule or by R2T; up to {@code dataInLength} bytes come back. */
    Reply execute(Sqe template, byte[] dataOut, int dataInLength) throws IOException {
        int cid = nextCid;
        nextCid = nextCid % 0xFFFE + 1;
        return execute(template, dataOut, dataInLength, cid);
    }

    /** As {@link #execute(Sqe, byte[], int)} with a CID of the caller's choosing (hosts that reuse CIDs). */
    Reply execute(Sqe template, byte[] dataOut, int dataInLength, int cid) throws IOException {
        if (dataOut != null && dataOut.length <= inCapsuleLimit) {
            ByteBuf data = Unpooled.wrappedBuffer(dataOut);
            send(new CapsuleCmd(withCid(template, cid, SglDescriptor.inCapsule(0, dataOut.length)), data));
        } else {
            int length = dataOut != null ? dataOut.length : dataInLength;
            send(new CapsuleCmd(withCid(template, cid, SglDescriptor.transportDataBlock(length))));
        }
        ByteArrayOutputStream dataIn = new ByteArrayOutputStream();
        byte[] gathered = new byte[dataInLength];
        int received = 0;
        while (true) {
            NvmeTcpPdu pdu = read();
            switch (pdu) {
                case R2T r2t -> answer(r2t, dataOut);
                case C2HData c -> {
                    if (c.cccid() != cid) {
                        throw new IOException("C2HData for CID " + c.cccid() + ", expected " + cid);
                    }
                    c.data().getBytes(c.data().readerIndex(), gathered, (int) c.datao(), c.data().readableBytes());
                    received = (int) Math.max(received, c.datao() + c.data().readableBytes());
                    if (c.success()) {
                        dataIn.write(gathered, 0, received);
                        return new Reply(Cqe.of(cid, Math.max(qid, 0), 0, NvmeStatus.SUCCESS, 0), dataIn.toByteArray());
                    }
                }
                case CapsuleResp r -> {
                    if (r.cqe().cid() != cid) {
                        throw new IOException("CQE for CID " + r.cqe().cid() + ", expected " + cid);
                    }
                    dataIn.write(gathered, 0, received);
                    return new Reply(r.cqe(), dataIn.toByteArray());
                }
                case TermReq t -> throw new IOException("controller terminated: " + t + " FES " + t.fes());
                default -> throw new IOException("unexpected " + pdu);
            }
        }
    }

    /**
     * A fused pair (Base §3.4.2): {@code first} and {@code second} sent back to back as two capsules (in-capsule data
     * or by R2T, as {@link #execute} does), then every R2T answered and both CQEs collected, in whatever order they
     * come; returns them as [first, second].
     */
    Cqe[] fused(Sqe first, byte[] firstData, Sqe second, byte[] secondData) throws IOException {
        int cid1 = nextCid;
        int cid2 = nextCid % 0xFFFE + 1;
        nextCid = cid2 % 0xFFFE + 1;
        java.util.Map<Integer, byte[]> data = java.util.Map.of(cid1, firstData, cid2, secondData);
        for (int cid : new int[] {cid1, cid2}) {
            Sqe template = cid == cid1 ? first : second;
            byte[] bytes = data.get(cid);
            if (bytes.length <= inCapsuleLimit) {
                ByteBuf b = Unpooled.wrappedBuffer(bytes);
                send(new CapsuleCmd(withCid(template, cid, SglDescriptor.inCapsule(0, bytes.length)), b));
            } else {
                send(new CapsuleCmd(withCid(template, cid, SglDescriptor.transportDataBlock(bytes.length))));
            }
        }
        Cqe[] cqes = new Cqe[2];
        while (cqes[0] == null || cqes[1] == null) {
            switch (read()) {
                case R2T r2t -> answer(r2t, data.get(r2t.cccid()));
                case CapsuleResp r -> cqes[r.cqe().cid() == cid1 ? 0 : 1] = r.cqe();
                case NvmeTcpPdu p -> throw new IOException("unexpected " + p);
            }
        }
        return cqes;
    }

    /**
     * Sends {@code count} reads of {@code blocks} blocks at SLBA i × blocks back to back, then collects every
     * C2HData and CQE in whatever order they come; returns the data per read.
     */
    byte[][] pipelinedReads(int nsid, int count, int blocks, int lbs) throws IOException {
        int length = blocks * lbs;
        for (int i = 0; i < count; i++) {
            Sqe sqe = new ReadWriteCommand(NvmOpcode.READ, 0, nsid, (long) i * blocks, blocks - 1, false, false, 0, 0,
                    null).toSqe();
            send(new CapsuleCmd(withCid(sqe, 1000 + i, SglDescriptor.transportDataBlock(length))));
        }
        byte[][] data = new byte[count][length];
        for (int done = 0; done < count; ) {
            switch (read()) {
                case C2HData c -> c.data().getBytes(c.data().readerIndex(), data[c.cccid() - 1000], (int) c.datao(),
                        c.data().readableBytes());
                case CapsuleResp r -> {
                    require(new Reply(r.cqe(), null), "pipelined read " + r.cqe().cid());
                    done++;
                }
                case NvmeTcpPdu p -> throw new IOException("unexpected " + p);
            }
        }
        return data;
    }

    private void answer(R2T r2t, byte[] data) throws IOException {
        long end = r2t.r2to() + r2t.r2tl();
        for (long off = r2t.r2to(); off < end; off += maxH2CData) {
            int n = (int) Math.min(maxH2CData, end - off);
            ByteBuf b = Unpooled.wrappedBuffer(data, (int) off, n);
            send(new H2CData(r2t.cccid(), r2t.ttag(), off, off + n == end, b));
        }
    }

    Reply connect(String subnqn, int queueId, int sqsize, int cntlid, long katoMillis, int cattr) throws IOException {
        ByteBuf data = Unpooled.buffer(ConnectData.SIZE);
        new ConnectData(HOSTID, cntlid, subnqn, hostnqn).encode(data);
        byte[] bytes = new byte[ConnectData.SIZE];
        data.readBytes(bytes);
        Sqe sqe = new ConnectCommand(0, 0, queueId, sqsize, cattr, katoMillis,
                SglDescriptor.inCapsule(0, ConnectData.SIZE)).toSqe();
        int limit = inCapsuleLimit;
        inCapsuleLimit = ConnectData.SIZE;
        Reply r = execute(sqe, bytes, 0);
        inCapsuleLimit = limit;
        if (r.ok()) {
            qid = queueId;
        }
        return r;
    }

    long propertyGet(ControllerRegister register) throws IOException {
        Reply r = execute(new PropertyCommand(0, FabricsCommandType.PROPERTY_GET, register, 0).toSqe(), null, 0);
        require(r, "Property Get " + register);
        return Integer.toUnsignedLong(r.cqe().dw0()) | (long) r.cqe().dw1() << 32;
    }

    void propertySet(ControllerRegister register, long value) throws IOException {
        require(execute(new PropertyCommand(0, FabricsCommandType.PROPERTY_SET, register, value).toSqe(), null, 0),
                "Property Set " + register);
    }

    /**
     * CC.EN = 1, then polls CSTS.RDY (Base §3.5.1) for up to 10 s; each Property Get is a round trip to
     * the controller, the only pacing a poll needs (blocktarget sets RDY before it answers the Property Set).
     */
    void enable() throws IOException {
        propertySet(ControllerRegister.CC, CC_ENABLE);
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        do {
            if ((propertyGet(ControllerRegister.CSTS) & 1) == 1) {
                return;
            }
        } while (System.nanoTime() < deadline);
        throw new IOException("CSTS.RDY never became 1");
    }

    IdentifyController identifyController() throws IOException {
        Reply r = execute(new IdentifyCommand(0, 0, IdentifyCommand.CNS_CONTROLLER, 0, 0, 0, 0, null).toSqe(), null,
                IdentifyCommand.DATA_SIZE);
        require(r, "Identify Controller");
        return IdentifyController.get(Unpooled.wrappedBuffer(r.data()));
    }

    IdentifyNamespace identifyNamespace(int nsid) throws IOException {
        Reply r = execute(new IdentifyCommand(0, nsid, IdentifyCommand.CNS_NAMESPACE, 0, 0, 0, 0, null).toSqe(), null,
                IdentifyCommand.DATA_SIZE);
        require(r, "Identify Namespace");
        return IdentifyNamespace.get(Unpooled.wrappedBuffer(r.data()));
    }

    Reply getLogPage(int lid, long offset, int length) throws IOException {
        return execute(new GetLogPageCommand(0, 0, lid, 0, false, length / 4 - 1, 0, offset, false, 0, null).toSqe(),
                null, length);
    }

    Reply setFeature(int fid, int cdw11) throws IOException {
        return execute(Sqe.of(0x09, 0, 0, null, fid, cdw11), null, 0);
    }

    Reply keepAlive() throws IOException {
        return execute(Sqe.of(0x18, 0, 0, null), null, 0);
    }

    Reply write(int nsid, long slba, int blocks, byte[] data) throws IOException {
        return execute(new ReadWriteCommand(NvmOpcode.WRITE, 0, nsid, slba, blocks - 1, false, false, 0, 0, null)
                .toSqe(), data, 0);
    }

    Reply read(int nsid, long slba, int blocks, int length) throws IOException {
        return execute(new ReadWriteCommand(NvmOpcode.READ, 0, nsid, slba, blocks - 1, false, false, 0, 0, null)
                .toSqe(), null, length);
    }

    static void require(Reply r, String what) throws IOException {
        if (!r.ok()) {
            throw new IOException(what + " failed: " + r.cqe().status());
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
