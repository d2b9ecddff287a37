package io.blocktarget.bench;

import io.blocktarget.protocol.nvme.ConnectCommand;
import io.blocktarget.protocol.nvme.ConnectData;
import io.blocktarget.protocol.nvme.ControllerRegister;
import io.blocktarget.protocol.nvme.Cqe;
import io.blocktarget.protocol.nvme.FabricsCommandType;
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
import io.blocktarget.protocol.nvmetcp.NvmeTcpDataPdu;
import io.blocktarget.protocol.nvmetcp.NvmeTcpDigests;
import io.blocktarget.protocol.nvmetcp.NvmeTcpFraming;
import io.blocktarget.protocol.nvmetcp.NvmeTcpHeader;
import io.blocktarget.protocol.nvmetcp.NvmeTcpPdu;
import io.blocktarget.protocol.nvmetcp.NvmeTcpPduType;
import io.blocktarget.protocol.nvmetcp.PduOptions;
import io.blocktarget.protocol.nvmetcp.R2T;
import io.blocktarget.protocol.nvmetcp.TermReq;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.io.IOException;
import java.util.HexFormat;

/**
 * One NVMe/TCP queue (NVMe/TCP §3.3, one connection = one queue, like the Linux host): ICReq, fabrics Connect,
 * and — on the admin queue — Property Get/Set and Identify for setup; on an I/O queue, Read/Write with the slot
 * index as CID. Write data ≤ the in-capsule size (IOCCSZ) travels in the capsule, larger writes wait for R2T and
 * go in H2CData PDUs of at most MAXH2CDATA; C2HData with the SUCCESS flag completes a read without a CQE.
 */
final class NvmeConnection extends Connection {
    static final String HOSTNQN = "nqn.2014-08.org.nvmexpress:uuid:6c6f6164-6765-6e00-8000-626c6b746774";
    /** The UUID of {@link #HOSTNQN}: a host that identifies the same way in both places. */
    static final byte[] HOSTID = HexFormat.of().parseHex("6c6f616467656e008000626c6b746774");
    /** CC: EN, IOSQES 6 (64-byte SQEs), IOCQES 4 (16-byte CQEs), NVM command set, 4 KiB pages (Base §3.1.4.5). */
    static final int CC_ENABLE = 1 | 6 << 16 | 4 << 20;
    static final int MAX_C2H_DATA = 16 << 20;
    private static final int CONTROL_CID = 0xF000;
    /** SLBA within a CapsuleCmd: CH (8) + SQE CDW10 (byte 40) — Base §3.3.3.2 / NVM Command Set Read/Write. */
    static final int OFFSET_CAPSULE_SLBA = CapsuleCmd.OFFSET_SQE + 40;
    /** CQE bytes 12..13 (CID) and 14..15 (status and phase) within a CapsuleResp (NVMe/TCP §3.6.2.7). */
    static final int OFFSET_RESP_CID = 8 + 12;
    static final int OFFSET_RESP_STATUS = 8 + 14;
    /** Send batch: the capsules issued while one burst of completions is handled go out in one buffer. */
    static final int BATCH_BYTES = 64 * 1024;
    /** Write data below this is copied into the batch (one iovec); larger data goes as a slice (no copy). */
    static final int COPY_BELOW = 16 * 1024;

    /** A setup command's completion and the data it returned. */
    record Reply(Cqe cqe, byte[] data) {
        boolean ok() {
            return cqe.status().isSuccess();
        }
    }

    private final boolean digests;
    private final String hostNqn;
    private NvmeTcpFraming framing = NvmeTcpFraming.host(MAX_C2H_DATA);
    private PduOptions sendOptions = PduOptions.NONE;
    private long maxH2CData = 4096;
    private int nsid;
    /** Largest write carried in the capsule; 0 before the queue is connected. */
    private int inCapsuleLimit;
    private int controlCid = CONTROL_CID;
    private byte[] controlData = new byte[0];
    private ByteBuf batch;

    NvmeConnection(String identity, int ioSize, boolean digests, String hostNqn) {
        super(identity, ioSize);
        this.digests = digests;
        this.hostNqn = hostNqn;
    }

    // ---------------------------------------------------------------- setup (main thread)

    /** ICReq → ICResp (NVMe/TCP §3.6.2.2): digests as asked, no data alignment padding. */
    void initialize() throws IOException {
        ICResp resp = (ICResp) call(() -> send(new ICReq(ICReq.PFV_1_0, 0, digests, digests, 0), PduOptions.NONE));
        if (resp.hdgstEnable() != digests || resp.ddgstEnable() != digests) {
            throw new IOException(identity + ": the controller did not grant digests " + (digests ? "on" : "off"));
        }
        if (resp.cpda() != 0) {
            throw new IOException(identity + ": CPDA " + resp.cpda() + " is not supported");
        }
    }

    /**
     * Fabrics Connect (Base §6.3); returns the CNTLID. {@code cattr}: Connect attributes, e.g.
     * {@link ConnectCommand#CATTR_DISABLE_SQ_FLOW_CONTROL} (Linux's {@code nvme connect --disable-sqflow}), which
     * lets the controller end a read with a C2HData carrying SUCCESS instead of a CapsuleResp (NVMe/TCP §3.6.2.8).
     */
    int connect(String subnqn, int qid, int sqsize, int cntlid, int cattr) throws IOException {
        ByteBuf data = Unpooled.buffer(ConnectData.SIZE);
        new ConnectData(HOSTID, cntlid, subnqn, hostNqn).encode(data);
        Sqe sqe = new ConnectCommand(0, 0, qid, sqsize, cattr, 0, SglDescriptor.inCapsule(0, ConnectData.SIZE))
                .toSqe();
        Reply r = execute(sqe, data, 0);
        if (!r.ok()) {
            throw new IOException(identity + ": Connect to " + subnqn + " queue " + qid + " refused: "
                    + r.cqe().status());
        }
        return r.cqe().dw0() & 0xFFFF;
    }

    /** Runs one setup command; {@code dataOut} (owned, released here) goes in the capsule. */
    Reply execute(Sqe template, ByteBuf dataOut, int dataInLength) throws IOException {
        return (Reply) call(() -> {
            int cid = ++controlCid;
            controlData = new byte[dataInLength];
            SglDescriptor dptr = dataOut != null ? SglDescriptor.inCapsule(0, dataOut.readableBytes())
                    : SglDescriptor.transportDataBlock(dataInLength);
            Sqe sqe = new Sqe(template.opcode(), template.fuse(), template.psdt(), cid, template.nsid(),
                    template.cdw2(), template.cdw3(), template.mptr(), dptr, template.cdw10(), template.cdw11(),
                    template.cdw12(), template.cdw13(), template.cdw14(), template.cdw15());
            CapsuleCmd capsule = dataOut != null ? new CapsuleCmd(sqe, dataOut) : new CapsuleCmd(sqe);
            send(capsule, sendOptions);
            capsule.release();
        });
    }

    private Reply require(Reply r, String what) throws IOException {
        if (!r.ok()) {
            throw new IOException(identity + ": " + what + " failed: " + r.cqe().status());
        }
        return r;
    }

    long propertyGet(ControllerRegister register) throws IOException {
        Reply r = require(execute(new PropertyCommand(0, FabricsCommandType.PROPERTY_GET, register, 0).toSqe(),
                null, 0), "Property Get " + register);
        return Integer.toUnsignedLong(r.cqe().dw0()) | (long) r.cqe().dw1() << 32;
    }

    /** CC.EN = 1, then CSTS.RDY = 1 within 1 s (Base §3.5.1). */
    void enable() throws IOException {
        require(execute(new PropertyCommand(0, FabricsCommandType.PROPERTY_SET, ControllerRegister.CC, CC_ENABLE)
                .toSqe(), null, 0), "Property Set CC");
        for (int i = 0; i < 100; i++) {
            if ((propertyGet(ControllerRegister.CSTS) & 1) == 1) {
                return;
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
        }
        throw new IOException(identity + ": CSTS.RDY never became 1");
    }

    IdentifyController identifyController() throws IOException {
        Reply r = require(execute(new IdentifyCommand(0, 0, IdentifyCommand.CNS_CONTROLLER, 0, 0, 0, 0, null).toSqe(),
                null, IdentifyCommand.DATA_SIZE), "Identify Controller");
        return IdentifyController.get(Unpooled.wrappedBuffer(r.data()));
    }

    IdentifyNamespace identifyNamespace(int namespace) throws IOException {
        Reply r = require(execute(new IdentifyCommand(0, namespace, IdentifyCommand.CNS_NAMESPACE, 0, 0, 0, 0, null)
                .toSqe(), null, IdentifyCommand.DATA_SIZE), "Identify Namespace " + namespace);
        return IdentifyNamespace.get(Unpooled.wrappedBuffer(r.data()));
    }

    /** Set Features Number of Queues (Base §5.27.1.5); returns how many I/O submission queues were granted. */
    int requestQueues(int count) throws IOException {
        Reply r = require(execute(Sqe.of(0x09, 0, 0, null, 0x07, (count - 1) | (count - 1) << 16), null, 0),
                "Set Features Number of Queues");
        return (r.cqe().dw0() & 0xFFFF) + 1;
    }

    /** After an I/O queue Connect: which namespace to address and the largest in-capsule write. */
    void ioQueue(int namespace, long ioccsz) {
        ctx.executor().execute(() -> {
            nsid = namespace;
            inCapsuleLimit = (int) Math.max(0, Math.min(Integer.MAX_VALUE, ioccsz * 16 - Sqe.SIZE));
        });
    }

    // ---------------------------------------------------------------- run (event loop)

    /**
     * Each slot's Read and Write capsule headers, encoded once by the protocol module's records with the slot
     * index as CID and SLBA 0; {@link #issue} copies one and patches SLBA.
     */
    @Override
    protected void prepareSlots() {
        int nlb = blockSize / lbs - 1;
        for (Slot s : slots) {
            s.readCapsule = capsuleHeader(new ReadWriteCommand(NvmOpcode.READ, s.index, nsid, 0, nlb, false, false,
                    0, 0, SglDescriptor.transportDataBlock(blockSize)).toSqe(), 0);
            boolean inCapsule = blockSize <= inCapsuleLimit;
            s.writeCapsule = capsuleHeader(new ReadWriteCommand(NvmOpcode.WRITE, s.index, nsid, 0, nlb, false, false,
                    0, 0, inCapsule ? SglDescriptor.inCapsule(0, blockSize) : SglDescriptor.transportDataBlock(blockSize))
                    .toSqe(), inCapsule ? blockSize : 0);
        }
    }

    /** CH + SQE (+ HDGST and PAD) of a CapsuleCmd carrying {@code inCapsule} bytes, as the record encodes it. */
    private byte[] capsuleHeader(Sqe sqe, int inCapsule) {
        ByteBuf data = inCapsule == 0 ? Unpooled.EMPTY_BUFFER : Unpooled.buffer(inCapsule).writerIndex(inCapsule);
        ByteBuf out = Unpooled.buffer(128);
        new CapsuleCmd(sqe, data).encodeHeader(out, sendOptions);
        byte[] header = new byte[out.readableBytes()];
        out.readBytes(header);
        return header;
    }

    @Override
    protected boolean canSubmit() {
        return true;
    }

    /**
     * Appends the slot's capsule to the send batch: its header with this I/O's SLBA (and, with digests, a fresh
     * HDGST), then in-capsule write data — copied into the batch up to {@link #COPY_BELOW}, a retained slice of the
     * slot's buffer above — and its DDGST.
     */
    @Override
    protected void issue(Slot s) {
        byte[] template = s.write ? s.writeCapsule : s.readCapsule;
        ByteBuf out = batch(template.length);
        int start = out.writerIndex();
        out.writeBytes(template);
        out.setLongLE(start + OFFSET_CAPSULE_SLBA, s.lba);
        if (sendOptions.headerDigest()) {
            out.writerIndex(start + NvmeTcpPduType.CAPSULE_CMD.hlen());
            NvmeTcpDigests.writeHeaderDigest(out, start);
            out.writerIndex(start + template.length);
        }
        if (s.write && blockSize <= inCapsuleLimit) {
            appendData(s.data, 0, blockSize);
        }
    }

    /** Data after a header in the batch: copied when small, else the batch goes out and a slice follows it. */
    private void appendData(ByteBuf data, int offset, int length) {
        if (length < COPY_BELOW) {
            batch(length).writeBytes(data, offset, length);
        } else {
            writeBatch();
            ctx.write(data.retainedSlice(offset, length), ctx.voidPromise());
        }
        if (sendOptions.dataDigest()) {
            NvmeTcpDigests.writeDataDigest(batch(PduOptions.DIGEST_LENGTH), data.slice(offset, length));
        }
    }

    /** The send batch with room for {@code bytes} more; a full one goes to the channel first. */
    private ByteBuf batch(int bytes) {
        if (batch != null && batch.writableBytes() >= bytes) {
            return batch;
        }
        writeBatch();
        int size = Math.max(BATCH_BYTES, bytes);
        batch = ctx.alloc().directBuffer(size, size);
        return batch;
    }

    /** Hands the batch (if any bytes wait in it) to the channel, unflushed. */
    private void writeBatch() {
        ByteBuf b = batch;
        batch = null;
        if (b == null) {
            return;
        }
        if (b.isReadable()) {
            ctx.write(b, ctx.voidPromise());
        } else {
            b.release();
        }
    }

    @Override
    protected void flushBatch() {
        writeBatch();
        ctx.flush();
    }

    @Override
    protected void releaseBatch() {
        if (batch != null) {
            batch.release();
            batch = null;
        }
    }

    /**
     * Setup PDUs and anything off the hot path: header into a small pooled buffer, data as a retained slice (no
     * copy), then its digest. Whatever is batched goes first, so the stream keeps the order of the calls.
     */
    private void send(NvmeTcpPdu pdu, PduOptions options) {
        writeBatch();
        ByteBuf header = ctx.alloc().directBuffer(128);
        if (!(pdu instanceof NvmeTcpDataPdu withData) || !withData.data().isReadable()) {
            pdu.encode(header, options);
            ctx.write(header, ctx.voidPromise());
            return;
        }
        ByteBuf data = withData.data();
        withData.encodeHeader(header, options);
        ctx.write(header, ctx.voidPromise());
        ctx.write(data.retainedSlice(), ctx.voidPromise());
        if (options.dataDigest()) {
            ByteBuf digest = ctx.alloc().directBuffer(4);
            NvmeTcpDigests.writeDataDigest(digest, data);
            ctx.write(digest, ctx.voidPromise());
        }
    }

    @Override
    protected boolean decodeFrame(ByteBuf in) throws Exception {
        int run = runPduLength(in);
        if (run < 0) {
            return false;
        }
        if (run > 0 && handleRunPdu(in, run)) {
            in.skipBytes(run);
            return true;
        }
        int length = framing.frameLength(in);
        if (length < 0 || in.readableBytes() < length) {
            return false;
        }
        ByteBuf frame = in.readRetainedSlice(length);
        NvmeTcpPdu pdu;
        try {
            pdu = NvmeTcpPdu.decode(frame);
        } finally {
            frame.release();
        }
        try {
            handle(pdu);
        } finally {
            pdu.release();
        }
        return true;
    }

    /**
     * During the run without digests: the length of a CapsuleResp, C2HData or R2T at the reader index when all of
     * it is there (0 for anything else, which {@link NvmeTcpFraming} frames and checks), -1 while its bytes are
     * still arriving.
     */
    private int runPduLength(ByteBuf in) {
        if (digests || slots == null || in.readableBytes() < NvmeTcpHeader.SIZE) {
            return 0;
        }
        int i = in.readerIndex();
        int type = in.getUnsignedByte(i);
        long plen = in.getUnsignedIntLE(i + NvmeTcpHeader.OFFSET_PLEN);
        boolean run = type == NvmeTcpPduType.CAPSULE_RESP.code() || type == NvmeTcpPduType.R2T.code()
                || type == NvmeTcpPduType.C2H_DATA.code();
        if (!run || plen < NvmeTcpPduType.CAPSULE_RESP.hlen() || plen > MAX_C2H_DATA) {
            return 0;
        }
        return in.readableBytes() < plen ? -1 : (int) plen;
    }

    /**
     * The run's PDUs read in place, without decoding into records (a framed PDU without digests, {@code length}
     * bytes at the reader index): CapsuleResp, C2HData and R2T of a slot's I/O in exactly the shape this host
     * negotiated. Returns false for anything else — setup answers, TermReq, odd headers — which the full decoder
     * then checks and handles.
     */
    private boolean handleRunPdu(ByteBuf in, int length) {
        int i = in.readerIndex();
        int type = in.getUnsignedByte(i);
        int flags = in.getUnsignedByte(i + NvmeTcpHeader.OFFSET_FLAGS);
        int hlen = in.getUnsignedByte(i + NvmeTcpHeader.OFFSET_HLEN);
        int pdo = in.getUnsignedByte(i + NvmeTcpHeader.OFFSET_PDO);
        if (type == NvmeTcpPduType.CAPSULE_RESP.code()) {
            Slot s = slot(in.getUnsignedShortLE(i + OFFSET_RESP_CID));
            if (s == null || flags != 0 || hlen != length || pdo != 0) {
                return false;
            }
            int status = in.getUnsignedShortLE(i + OFFSET_RESP_STATUS) >>> 1;
            complete(s, status == 0 && (s.write || s.received == blockSize));
            return true;
        }
        if (type == NvmeTcpPduType.C2H_DATA.code()) {
            Slot s = slot(in.getUnsignedShortLE(i + 8));
            int datal = length - pdo;
            if (s == null || s.write || hlen != NvmeTcpPduType.C2H_DATA.hlen() || pdo != hlen || datal <= 0
                    || (flags & ~(NvmeTcpHeader.FLAG_LAST_PDU | NvmeTcpHeader.FLAG_SUCCESS)) != 0
                    || flags == NvmeTcpHeader.FLAG_SUCCESS
                    || in.getUnsignedIntLE(i + C2HData.OFFSET_DATAL) != datal) {
                return false;
            }
            long datao = in.getUnsignedIntLE(i + 12);
            if (verify) {
                checkRead(s, in.slice(i + pdo, datal), datao);
            }
            s.received += datal;
            if ((flags & NvmeTcpHeader.FLAG_SUCCESS) != 0) {
                complete(s, s.received == blockSize);
            }
            return true;
        }
        if (type == NvmeTcpPduType.R2T.code()) {
            Slot s = slot(in.getUnsignedShortLE(i + 8));
            long r2to = in.getUnsignedIntLE(i + 12);
            long r2tl = in.getUnsignedIntLE(i + 16);
            if (s == null || !s.write || flags != 0 || hlen != length || pdo != 0 || r2tl == 0
                    || r2to + r2tl > blockSize) {
                return false;
            }
            answer(s, in.getUnsignedShortLE(i + 8), in.getUnsignedShortLE(i + 10), r2to, r2tl);
            return true;
        }
        return false;
    }

    private void handle(NvmeTcpPdu pdu) {
        switch (pdu) {
            case C2HData c -> {
                Slot s = slot(c.cccid());
                if (s == null) {
                    controlData(c);
                    return;
                }
                checkRead(s, c.data(), c.datao());
                s.received += c.data().readableBytes();
                if (c.success()) {
                    complete(s, !s.write && s.received == blockSize);
                }
            }
            case CapsuleResp r -> {
                Cqe cqe = r.cqe();
                Slot s = slot(cqe.cid());
                if (s == null) {
                    reply(new Reply(cqe, controlData));
                    return;
                }
                complete(s, cqe.status().isSuccess() && (s.write || s.received == blockSize));
            }
            case R2T r -> {
                Slot s = slot(r.cccid());
                if (s == null || !s.write || r.r2to() + r.r2tl() > blockSize) {
                    fail("R2T for CID " + r.cccid() + " that has no such write outstanding");
                    return;
                }
                answer(s, r.cccid(), r.ttag(), r.r2to(), r.r2tl());
            }
            case ICResp r -> {
                framing = framing.established(new PduOptions(digests, digests, 0));
                sendOptions = r.hostSendOptions();
                maxH2CData = r.maxh2cdata();
                reply(r);
            }
            case TermReq t -> fail("controller terminated the connection: FES " + t.fes() + " FEI " + t.fei());
            default -> fail("unexpected " + pdu.type());
        }
    }

    /** H2CData PDUs of at most MAXH2CDATA covering the R2T's range (NVMe/TCP §3.6.2.8), headers in the batch. */
    private void answer(Slot s, int cccid, int ttag, long r2to, long r2tl) {
        long end = r2to + r2tl;
        int headerLength = sendOptions.dataOffset(NvmeTcpPduType.H2C_DATA);
        for (long off = r2to; off < end; off += maxH2CData) {
            int n = (int) Math.min(maxH2CData, end - off);
            H2CData.encodeHeader(batch(headerLength), sendOptions, cccid, ttag, off, n, off + n == end);
            appendData(s.data, (int) off, n);
        }
    }

    private void controlData(C2HData c) {
        ByteBuf data = c.data();
        int n = data.readableBytes();
        if (c.datao() + n <= controlData.length) {
            data.getBytes(data.readerIndex(), controlData, (int) c.datao(), n);
        }
        if (c.success()) {
            reply(new Reply(Cqe.of(c.cccid(), 0, 0, NvmeStatus.SUCCESS, 0), controlData));
        }
    }
}
