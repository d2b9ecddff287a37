package io.blocktarget.bench;

import io.blocktarget.protocol.iscsi.AsyncEvent;
import io.blocktarget.protocol.iscsi.AsyncMessage;
import io.blocktarget.protocol.iscsi.Bhs;
import io.blocktarget.protocol.iscsi.DataIn;
import io.blocktarget.protocol.iscsi.DataOut;
import io.blocktarget.protocol.iscsi.Digest;
import io.blocktarget.protocol.iscsi.FrameLayout;
import io.blocktarget.protocol.iscsi.FrameLimits;
import io.blocktarget.protocol.iscsi.InitiatorPdu;
import io.blocktarget.protocol.iscsi.IscsiFraming;
import io.blocktarget.protocol.iscsi.LoginFlags;
import io.blocktarget.protocol.iscsi.LoginRequest;
import io.blocktarget.protocol.iscsi.LoginResponse;
import io.blocktarget.protocol.iscsi.LoginStage;
import io.blocktarget.protocol.iscsi.LoginStatus;
import io.blocktarget.protocol.iscsi.LogoutReason;
import io.blocktarget.protocol.iscsi.LogoutRequest;
import io.blocktarget.protocol.iscsi.LogoutResponse;
import io.blocktarget.protocol.iscsi.NopIn;
import io.blocktarget.protocol.iscsi.NopOut;
import io.blocktarget.protocol.iscsi.PduSource;
import io.blocktarget.protocol.iscsi.R2t;
import io.blocktarget.protocol.iscsi.Reject;
import io.blocktarget.protocol.iscsi.ScsiCommand;
import io.blocktarget.protocol.iscsi.ScsiResponse;
import io.blocktarget.protocol.iscsi.SerialNumbers;
import io.blocktarget.protocol.iscsi.TargetPdu;
import io.blocktarget.protocol.iscsi.TaskAttribute;
import io.blocktarget.protocol.iscsi.TextParameters;
import io.blocktarget.protocol.scsi.ScsiLun;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * One iSCSI session of one connection (RFC 7143, ErrorRecoveryLevel 0, AuthMethod None): login offering
 * ImmediateData=Yes, InitialR2T=No and a 256 KiB MaxRecvDataSegmentLength, then READ(16)/WRITE(16) with the
 * slot index as ITT. CmdSN never passes MaxCmdSN (§4.2.2.1); write data goes as immediate data, unsolicited
 * Data-Out up to FirstBurstLength, then as R2T asks — each Data-Out a retained slice of the slot's pooled
 * payload, never a copy. Data-In is checked (with --verify) straight from the receive cumulation.
 */
final class IscsiConnection extends Connection {
    static final String INITIATOR_NAME = "iqn.2026-11.io.blocktarget:loadgen";
    static final int OUR_MAX_RECV = 256 * 1024;
    private static final int CONTROL_ITT = 0x4000_0000;
    private static final int OP_READ_16 = 0x88;
    private static final int OP_WRITE_16 = 0x8A;
    private static final int OP_SERVICE_ACTION_IN_16 = 0x9E;
    private static final int SA_READ_CAPACITY_16 = 0x10;

    /** A setup command's outcome: SCSI status and the data it returned. */
    record ControlResult(int status, byte[] data) {
    }

    /** One Login Response, copied out of its PDU. */
    record LoginAnswer(LoginStatus status, boolean transit, int tsih, TextParameters keys) {
    }

    private final long isid;
    private final long lunField;
    private final String targetName;
    private final boolean digests;
    private FrameLimits limits = new FrameLimits(PduSource.TARGET, OUR_MAX_RECV, Bhs.MAX_AHS_LENGTH, Digest.NONE,
            Digest.NONE);
    private Digest headerDigest = Digest.NONE;
    private Digest dataDigest = Digest.NONE;
    private final Map<String, String> negotiated = new HashMap<>();
    private int targetMaxRecv = 8192;
    private int firstBurst = 65536;
    private boolean immediateData = true;
    private boolean initialR2T = true;
    private int tsih;
    private int cmdSN = 1;
    private int maxCmdSN = 1;
    private int expStatSN;
    private int controlItt = CONTROL_ITT;
    private final ByteArrayOutputStream controlData = new ByteArrayOutputStream();
    private final byte[] cdb = new byte[16];

    IscsiConnection(String identity, int ioSize, String targetName, int lun, int job, boolean digests) {
        super(identity, ioSize);
        this.targetName = targetName;
        this.lunField = ScsiLun.encode(lun);
        // ISID type 10b "random" (RFC 7143 §10.12.5): this process and the job number
        this.isid = 0x8000_0000_0000L | (ProcessHandle.current().pid() & 0xFF_FFFFL) << 16 | job & 0xFFFF;
        this.digests = digests;
    }

    // ---------------------------------------------------------------- setup (main thread)

    /** Login: security stage with AuthMethod None, then the operational offers, until full feature phase. */
    void login() throws IOException {
        TextParameters security = TextParameters.of("InitiatorName", INITIATOR_NAME, "SessionType", "Normal",
                "TargetName", targetName, "AuthMethod", "None");
        LoginAnswer first = loginStep(LoginStage.SECURITY_NEGOTIATION, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION,
                security);
        String digest = digests ? "CRC32C" : "None";
        TextParameters ops = TextParameters.of("HeaderDigest", digest, "DataDigest", digest,
                "MaxRecvDataSegmentLength", Integer.toString(OUR_MAX_RECV), "ImmediateData", "Yes",
                "InitialR2T", "No", "FirstBurstLength", Integer.toString(OUR_MAX_RECV),
                "MaxBurstLength", Integer.toString(1 << 20), "MaxOutstandingR2T", "1", "ErrorRecoveryLevel", "0",
                "DataPDUInOrder", "Yes", "DataSequenceInOrder", "Yes");
        LoginAnswer answer = first.transit() && first.status() == LoginStatus.SUCCESS ? null : first;
        for (int step = 0; step < 4; step++) {
            answer = loginStep(LoginStage.LOGIN_OPERATIONAL_NEGOTIATION, LoginStage.FULL_FEATURE_PHASE,
                    step == 0 ? ops : TextParameters.EMPTY);
            if (answer.transit()) {
                break;
            }
        }
        if (!answer.transit()) {
            throw new IOException(identity + ": the target did not move to full feature phase");
        }
        tsih = answer.tsih();
        applyNegotiated();
    }

    private LoginAnswer loginStep(LoginStage csg, LoginStage nsg, TextParameters keys) throws IOException {
        LoginAnswer answer = (LoginAnswer) call(() -> {
            ByteBuf data = Unpooled.buffer();
            keys.encode(data);
            send(new LoginRequest(new LoginFlags(true, false, csg, nsg), 0, 0, isid, tsih, 0, 0, cmdSN, expStatSN,
                    data));
        });
        if (answer.status() != LoginStatus.SUCCESS) {
            throw new IOException(identity + ": login to " + targetName + " refused: " + answer.status());
        }
        answer.keys().entries().forEach(e -> negotiated.put(e.key(), e.value()));
        return answer;
    }

    private void applyNegotiated() throws IOException {
        headerDigest = "CRC32C".equals(negotiated.get("HeaderDigest")) ? Digest.CRC32C : Digest.NONE;
        dataDigest = "CRC32C".equals(negotiated.get("DataDigest")) ? Digest.CRC32C : Digest.NONE;
        if (digests && (headerDigest == Digest.NONE || dataDigest == Digest.NONE)) {
            throw new IOException(identity + ": the target refused CRC32C digests");
        }
        targetMaxRecv = number("MaxRecvDataSegmentLength", 8192);
        firstBurst = number("FirstBurstLength", 65536);
        immediateData = !"No".equals(negotiated.get("ImmediateData"));
        initialR2T = !"No".equals(negotiated.get("InitialR2T"));
        FrameLimits next = limits.withDigests(headerDigest, dataDigest);
        ctx.executor().execute(() -> limits = next);
    }

    /** The keys the target answered during login (the negotiated values), sorted, as {@code K=V} separated by spaces. */
    String negotiatedKeys() {
        StringBuilder b = new StringBuilder();
        new java.util.TreeMap<>(negotiated).forEach((k, v) -> b.append(b.isEmpty() ? "" : " ").append(k).append('=').append(v));
        return b.toString();
    }

    private int number(String key, int fallback) {
        String v = negotiated.get(key);
        return v == null || !v.chars().allMatch(Character::isDigit) || v.isEmpty() ? fallback : Integer.parseInt(v);
    }

    /** One SCSI command outside the run (TEST UNIT READY, READ CAPACITY). */
    ControlResult command(byte[] commandCdb, int readLength) throws IOException {
        return (ControlResult) call(() -> {
            controlData.reset();
            send(new ScsiCommand(false, true, readLength > 0, false, TaskAttribute.SIMPLE, lunField, ++controlItt,
                    readLength, cmdSN, expStatSN, commandCdb, OptionalLong.empty(), Unpooled.EMPTY_BUFFER));
            cmdSN++;
        });
    }

    /** TEST UNIT READY until GOOD: a new I_T nexus first reports POWER ON OCCURRED (SAM-5 §5.14). */
    void clearUnitAttention() throws IOException {
        for (int attempt = 0; attempt < 4; attempt++) {
            if (command(new byte[6], 0).status() == 0) {
                return;
            }
        }
        throw new IOException(identity + ": TEST UNIT READY keeps failing");
    }

    /** READ CAPACITY(16) (SBC-4 §5.20): {lastLba + 1, logical block length}. */
    long[] readCapacity() throws IOException {
        byte[] rc16 = new byte[16];
        rc16[0] = (byte) OP_SERVICE_ACTION_IN_16;
        rc16[1] = SA_READ_CAPACITY_16;
        rc16[13] = 32;
        ControlResult r = command(rc16, 32);
        if (r.status() != 0 || r.data().length < 12) {
            throw new IOException(identity + ": READ CAPACITY(16) failed, status " + r.status());
        }
        ByteBuf b = Unpooled.wrappedBuffer(r.data());
        return new long[] {b.getLong(0) + 1, b.getUnsignedInt(8)};
    }

    void logout() throws IOException {
        call(() -> send(new LogoutRequest(true, LogoutReason.CLOSE_SESSION, ++controlItt, 0, cmdSN, expStatSN)));
        closeQuietly();
    }

    // ---------------------------------------------------------------- run (event loop)

    @Override
    protected boolean canSubmit() {
        return SerialNumbers.lessOrEqual(cmdSN, maxCmdSN);
    }

    @Override
    protected void issue(Slot s) {
        int blocks = blockSize / lbs;
        cdb[0] = (byte) (s.write ? OP_WRITE_16 : OP_READ_16);
        for (int i = 0; i < 8; i++) {
            cdb[2 + i] = (byte) (s.lba >>> (56 - 8 * i));
        }
        for (int i = 0; i < 4; i++) {
            cdb[10 + i] = (byte) (blocks >>> (24 - 8 * i));
        }
        if (!s.write) {
            send(new ScsiCommand(false, true, true, false, TaskAttribute.SIMPLE, lunField, s.index, blockSize,
                    cmdSN++, expStatSN, cdb, OptionalLong.empty(), Unpooled.EMPTY_BUFFER));
            return;
        }
        // RFC 7143 §13.11/§13.14: immediate data up to FirstBurstLength (and the target's MaxRecvDataSegmentLength);
        // with InitialR2T=No, unsolicited Data-Out continues up to FirstBurstLength; R2T asks for the rest.
        int immediate = immediateData ? Math.min(blockSize, Math.min(firstBurst, targetMaxRecv)) : 0;
        int unsolicitedEnd = initialR2T ? immediate : Math.min(blockSize, firstBurst);
        ByteBuf imm = immediate > 0 ? s.data.retainedSlice(0, immediate) : Unpooled.EMPTY_BUFFER;
        send(new ScsiCommand(false, unsolicitedEnd == immediate, false, true, TaskAttribute.SIMPLE, lunField, s.index,
                blockSize, cmdSN++, expStatSN, cdb, OptionalLong.empty(), imm));
        if (unsolicitedEnd > immediate) {
            sendData(s, Bhs.RESERVED_TAG, immediate, unsolicitedEnd - immediate);
        }
    }

    /** Data-Out PDUs of at most the target's MaxRecvDataSegmentLength; DataSN restarts per sequence (§11.7.5). */
    private void sendData(Slot s, int ttt, int offset, int length) {
        int end = offset + length;
        int dataSN = 0;
        for (int off = offset; off < end; off += targetMaxRecv) {
            int n = Math.min(targetMaxRecv, end - off);
            send(new DataOut(off + n == end, lunField, s.index, ttt, expStatSN, dataSN++, off,
                    s.data.retainedSlice(off, n)));
        }
    }

    /** BHS (+ header digest) in a small pooled buffer, then the data segment itself (ownership passes to Netty). */
    private void send(InitiatorPdu pdu) {
        ByteBuf header = ctx.alloc().directBuffer(Bhs.LENGTH + Digest.CRC32C.length());
        IscsiFraming.encodeHeader(pdu, header, headerDigest);
        ctx.write(header, ctx.voidPromise());
        ByteBuf data = pdu.data();
        int n = data.readableBytes();
        if (n == 0) {
            pdu.release();
            return;
        }
        int pad = Bhs.padding(n);
        int digest = dataDigest == Digest.CRC32C ? IscsiFraming.dataDigest(data, pad) : 0;
        ctx.write(data, ctx.voidPromise());
        if (pad > 0 || dataDigest == Digest.CRC32C) {
            ByteBuf tail = ctx.alloc().directBuffer(8);
            tail.writeZero(pad);
            if (dataDigest == Digest.CRC32C) {
                tail.writeIntLE(digest);
            }
            ctx.write(tail, ctx.voidPromise());
        }
    }

    @Override
    protected boolean decodeFrame(ByteBuf in) {
        if (in.readableBytes() < Bhs.LENGTH) {
            return false;
        }
        FrameLayout layout = IscsiFraming.layout(in, limits);
        if (in.readableBytes() < layout.totalLength()) {
            return false;
        }
        ByteBuf wire = in.readRetainedSlice(layout.totalLength());
        TargetPdu pdu;
        try {
            pdu = (TargetPdu) IscsiFraming.decode(wire, limits);
        } finally {
            wire.release();
        }
        try {
            handle(pdu);
        } finally {
            pdu.release();
        }
        return true;
    }

    private void handle(TargetPdu pdu) {
        switch (pdu) {
            case DataIn d -> {
                if (d.status().isPresent()) {
                    expStatSN = d.statSN() + 1;
                }
                window(d.expCmdSN(), d.maxCmdSN());
                Slot s = slot(d.itt());
                if (s == null) {
                    controlDataIn(d);
                    return;
                }
                checkRead(s, d.data(), d.bufferOffset());
                s.received += d.data().readableBytes();
                if (d.status().isPresent()) {
                    complete(s, d.status().getAsInt() == 0 && s.received == blockSize);
                }
            }
            case ScsiResponse r -> {
                expStatSN = r.statSN() + 1;
                window(r.expCmdSN(), r.maxCmdSN());
                Slot s = slot(r.itt());
                if (s == null) {
                    reply(new ControlResult(r.response() == 0 ? r.status() : 0x100 | r.response(),
                            controlData.toByteArray()));
                    return;
                }
                complete(s, r.response() == ScsiResponse.RESPONSE_COMMAND_COMPLETED && r.status() == 0
                        && (s.write || s.received == blockSize));
            }
            case R2t r -> {
                window(r.expCmdSN(), r.maxCmdSN());
                Slot s = slot(r.itt());
                if (s == null || !s.write || r.bufferOffset() + r.desiredDataTransferLength() > blockSize) {
                    fail("R2T for ITT 0x" + Integer.toHexString(r.itt()) + " that has no such write outstanding");
                    return;
                }
                sendData(s, r.ttt(), (int) r.bufferOffset(), (int) r.desiredDataTransferLength());
            }
            case NopIn n -> {
                window(n.expCmdSN(), n.maxCmdSN());
                if (n.ttt() != Bhs.RESERVED_TAG) {
                    // a ping from the target: answer at once (§11.18), immediate, CmdSN not advanced
                    send(new NopOut(true, n.lun(), Bhs.RESERVED_TAG, n.ttt(), cmdSN, expStatSN,
                            Unpooled.EMPTY_BUFFER));
                }
            }
            case LoginResponse l -> {
                maxCmdSN = l.maxCmdSN();
                expStatSN = l.statSN() + 1;
                reply(new LoginAnswer(l.status(), l.flags().transit(), l.tsih(), TextParameters.decode(l.data())));
            }
            case LogoutResponse l -> reply(l.response());
            case AsyncMessage a -> {
                window(a.expCmdSN(), a.maxCmdSN());
                if (a.asyncEvent() != AsyncEvent.SCSI_ASYNC_EVENT) {
                    fail("target sent asynchronous event " + a.asyncEvent());
                }
            }
            case Reject r -> fail("target rejected a PDU: " + r.reason());
            default -> fail("unexpected " + pdu.opcode());
        }
    }

    private void controlDataIn(DataIn d) {
        ByteBuf data = d.data();
        byte[] chunk = new byte[data.readableBytes()];
        data.getBytes(data.readerIndex(), chunk);
        controlData.writeBytes(chunk);
        if (d.status().isPresent()) {
            reply(new ControlResult(d.status().getAsInt(), controlData.toByteArray()));
        }
    }

    /** ExpCmdSN/MaxCmdSN from the target: only a larger MaxCmdSN moves the window (§4.2.2.1); it may open slots. */
    private void window(int expCmdSN, int newMaxCmdSN) {
        if (SerialNumbers.greaterThan(newMaxCmdSN, maxCmdSN)
                && !SerialNumbers.lessThan(newMaxCmdSN, expCmdSN - 1)) {
            maxCmdSN = newMaxCmdSN;
            pump();
        }
    }
}
