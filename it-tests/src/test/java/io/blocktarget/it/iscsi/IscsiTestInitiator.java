package io.blocktarget.it.iscsi;

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
import io.blocktarget.protocol.iscsi.ResidualFlag;
import io.blocktarget.protocol.iscsi.ScsiCommand;
import io.blocktarget.protocol.iscsi.ScsiResponse;
import io.blocktarget.protocol.iscsi.TargetPdu;
import io.blocktarget.protocol.iscsi.TaskAttribute;
import io.blocktarget.protocol.iscsi.TaskManagementRequest;
import io.blocktarget.protocol.iscsi.TaskManagementResponse;
import io.blocktarget.protocol.iscsi.TextParameters;
import io.blocktarget.protocol.iscsi.TextRequest;
import io.blocktarget.protocol.iscsi.TextResponse;
import io.blocktarget.protocol.iscsi.TmfFunction;
import io.blocktarget.protocol.iscsi.TmfResponse;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * A small blocking iSCSI initiator for loopback tests (RFC 7143, ErrorRecoveryLevel 0): login with
 * AuthMethod None or CHAP (optionally mutual), discovery, SCSI commands with immediate data, unsolicited
 * Data-Out and R2T, task management, NOP and logout, all through the protocol module's codecs.
 */
public final class IscsiTestInitiator implements AutoCloseable {
    static final String INITIATOR_NAME = "iqn.2026-11.org.example:java-initiator";
    static final int OUR_MAX_RECV = 65536;

    /** A login the target refused. */
    static final class LoginRefused extends IOException {
        final LoginStatus status;

        LoginRefused(LoginStatus status) {
            super("login refused: " + status);
            this.status = status;
        }
    }

    /** What a SCSI command returned. */
    public record Result(int status, byte[] data, byte[] sense, ResidualFlag residual, long residualCount) {
    }

    /** CHAP secrets the initiator uses; {@code targetSecret} non-null asks for mutual CHAP. */
    public record ChapSecrets(String user, String secret, String targetUser, String targetSecret) {
    }

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final long isid;
    private Digest headerDigest = Digest.NONE;
    private Digest dataDigest = Digest.NONE;
    private int cmdSN = 1;
    private int expStatSN;
    /** The target's MaxCmdSN from its last response (RFC 7143 §4.2.2.1); commands beyond it wait. */
    private int maxCmdSN = 1;
    private int itt = 1;
    private int tsih;
    private final Map<String, String> negotiated = new LinkedHashMap<>();
    private String initiatorName = INITIATOR_NAME;

    private IscsiTestInitiator(Socket socket, long isid) throws IOException {
        this.socket = socket;
        this.isid = isid;
        socket.setSoTimeout(20_000);
        socket.setTcpNoDelay(true);
        this.in = new DataInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    public static IscsiTestInitiator connect(InetSocketAddress address, long isid) throws IOException {
        Socket s = new Socket();
        s.connect(address, 5000);
        return new IscsiTestInitiator(s, isid);
    }

    /** Logs in as {@code name} (InitiatorName, RFC 7143 §13.6) from now on instead of the default. */
    public IscsiTestInitiator as(String name) {
        this.initiatorName = name;
        return this;
    }

    public int tsih() {
        return tsih;
    }

    Map<String, String> negotiated() {
        return negotiated;
    }

    int nextItt() {
        return itt++;
    }

    public int cmdSN() {
        return cmdSN;
    }

    /** MaxCmdSN of the target's last response: with {@link #cmdSN()} the window it opened (RFC 7143 §4.2.2.1). */
    int maxCmdSN() {
        return maxCmdSN;
    }

    // ---- framing ------------------------------------------------------------------------------------

    void send(InitiatorPdu pdu) throws IOException {
        ByteBuf wire = Unpooled.buffer();
        try {
            IscsiFraming.encode(pdu, wire, headerDigest, dataDigest);
            byte[] bytes = new byte[wire.readableBytes()];
            wire.readBytes(bytes);
            out.write(bytes);
            out.flush();
        } finally {
            pdu.release();
            wire.release();
        }
    }

    void sendRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** The next PDU from the target; the caller releases it. */
    public TargetPdu receive() throws IOException {
        byte[] bhs = new byte[Bhs.LENGTH];
        in.readFully(bhs);
        FrameLimits limits = new FrameLimits(PduSource.TARGET, Bhs.MAX_DATA_SEGMENT_LENGTH, Bhs.MAX_AHS_LENGTH,
                headerDigest, dataDigest);
        FrameLayout layout = IscsiFraming.layout(Unpooled.wrappedBuffer(bhs), limits);
        byte[] frame = new byte[layout.totalLength()];
        System.arraycopy(bhs, 0, frame, 0, Bhs.LENGTH);
        in.readFully(frame, Bhs.LENGTH, frame.length - Bhs.LENGTH);
        ByteBuf wire = Unpooled.wrappedBuffer(frame);
        TargetPdu pdu;
        try {
            pdu = (TargetPdu) IscsiFraming.decode(wire, limits);
        } finally {
            wire.release();
        }
        trackStatSN(pdu);
        return pdu;
    }

    private void trackStatSN(TargetPdu pdu) {
        int sn = switch (pdu) {
            case ScsiResponse r -> r.statSN();
            case DataIn d when d.status().isPresent() -> d.statSN();
            case NopIn n when n.itt() != Bhs.RESERVED_TAG -> n.statSN();
            case TextResponse t -> t.statSN();
            case TaskManagementResponse t -> t.statSN();
            case LogoutResponse l -> l.statSN();
            case LoginResponse l -> l.statSN();
            case Reject r -> r.statSN();
            default -> expStatSN - 1;
        };
        expStatSN = sn + 1;
        int max = switch (pdu) {
            case ScsiResponse r -> r.maxCmdSN();
            case DataIn d -> d.maxCmdSN();
            case R2t r -> r.maxCmdSN();
            case NopIn n -> n.maxCmdSN();
            case TaskManagementResponse t -> t.maxCmdSN();
            case LoginResponse l -> l.maxCmdSN();
            case Reject r -> r.maxCmdSN();
            default -> maxCmdSN;
        };
        // §4.2.2.1: a MaxCmdSN below ExpCmdSN - 1 is ignored
        if (io.blocktarget.protocol.iscsi.SerialNumbers.lessThan(maxCmdSN, max)) {
            maxCmdSN = max;
        }
    }

    /** True when the target closed the connection (EOF or reset) within the socket timeout. */
    boolean closedByTarget() {
        try {
            while (true) {
                TargetPdu p = receive();
                p.release();
            }
        } catch (IOException e) {
            return true;
        }
    }

    // ---- login ------------------------------------------------------------------------------------

    private LoginResponse loginStep(boolean transit, LoginStage csg, LoginStage nsg, TextParameters keys)
            throws IOException {
        ByteBuf data = Unpooled.buffer();
        keys.encode(data);
        send(new LoginRequest(new LoginFlags(transit, false, csg, nsg), 0, 0, isid, 0, 0, 0, cmdSN, expStatSN, data));
        TargetPdu pdu = receive();
        if (!(pdu instanceof LoginResponse r)) {
            pdu.release();
            throw new IOException("expected a Login Response, got " + pdu.opcode());
        }
        if (r.status() != LoginStatus.SUCCESS) {
            r.release();
            throw new LoginRefused(r.status());
        }
        TextParameters answers = TextParameters.decode(r.data());
        answers.entries().forEach(e -> negotiated.put(e.key(), e.value()));
        return r;
    }

    /** Logs in to {@code target} (null: a discovery session) with the given operational offers. */
    public void login(String target, ChapSecrets chap, String... operational) throws IOException {
        TextParameters first = TextParameters.of("InitiatorName", initiatorName,
                "SessionType", target == null ? "Discovery" : "Normal",
                "AuthMethod", chap == null ? "None" : "CHAP,None");
        if (target != null) {
            first = first.with("TargetName", target);
        }
        if (chap == null) {
            loginStep(true, LoginStage.SECURITY_NEGOTIATION, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION, first).release();
        } else {
            chapExchange(first, chap);
        }
        TextParameters ops = TextParameters.of("MaxRecvDataSegmentLength", Integer.toString(OUR_MAX_RECV));
        for (int i = 0; i < operational.length; i += 2) {
            ops = ops.with(operational[i], operational[i + 1]);
        }
        LoginResponse last = loginStep(true, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION, LoginStage.FULL_FEATURE_PHASE,
                ops);
        tsih = last.tsih();
        last.release();
        headerDigest = "CRC32C".equals(negotiated.get("HeaderDigest")) ? Digest.CRC32C : Digest.NONE;
        dataDigest = "CRC32C".equals(negotiated.get("DataDigest")) ? Digest.CRC32C : Digest.NONE;
    }

    private void chapExchange(TextParameters first, ChapSecrets chap) throws IOException {
        LoginResponse r1 = loginStep(false, LoginStage.SECURITY_NEGOTIATION, LoginStage.SECURITY_NEGOTIATION, first);
        r1.release();
        LoginResponse r2 = loginStep(false, LoginStage.SECURITY_NEGOTIATION, LoginStage.SECURITY_NEGOTIATION,
                TextParameters.of("CHAP_A", "5"));
        r2.release();
        int id = Integer.parseInt(negotiated.get("CHAP_I"));
        byte[] challenge = HexFormat.of().parseHex(negotiated.get("CHAP_C").substring(2));
        TextParameters answer = TextParameters.of("CHAP_N", chap.user(),
                "CHAP_R", "0x" + HexFormat.of().formatHex(md5(id, chap.secret(), challenge)));
        byte[] ours = new byte[16];
        new java.security.SecureRandom().nextBytes(ours);
        if (chap.targetSecret() != null) {
            answer = answer.with("CHAP_I", "17").with("CHAP_C", "0x" + HexFormat.of().formatHex(ours));
        }
        LoginResponse r3 = loginStep(true, LoginStage.SECURITY_NEGOTIATION, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION,
                answer);
        r3.release();
        if (chap.targetSecret() != null) {
            String expected = "0x" + HexFormat.of().formatHex(md5(17, chap.targetSecret(), ours));
            if (!chap.targetUser().equals(negotiated.get("CHAP_N")) || !expected.equals(negotiated.get("CHAP_R"))) {
                throw new IOException("the target failed mutual CHAP");
            }
        }
    }

    static byte[] md5(int id, String secret, byte[] challenge) {
        try {
            MessageDigest md = MessageDigest.getInstance("MD5");
            md.update((byte) id);
            md.update(secret.getBytes(StandardCharsets.UTF_8));
            md.update(challenge);
            return md.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private int number(String key, int fallback) {
        String v = negotiated.get(key);
        return v == null || v.equals("Irrelevant") ? fallback : Integer.parseInt(v);
    }

    private boolean yes(String key, boolean fallback) {
        String v = negotiated.get(key);
        return v == null ? fallback : v.equals("Yes");
    }

    // ---- full feature phase -----------------------------------------------------------------------

    /** SendTargets=value; the raw text answer with NULs turned into newlines. */
    public String sendTargets(String value) throws IOException {
        ByteBuf data = Unpooled.buffer();
        TextParameters.of("SendTargets", value).encode(data);
        send(new TextRequest(false, true, false, 0, nextItt(), Bhs.RESERVED_TAG, cmdSN++, expStatSN, data));
        StringBuilder text = new StringBuilder();
        while (true) {
            TargetPdu pdu = receive();
            if (!(pdu instanceof TextResponse t)) {
                pdu.release();
                throw new IOException("expected a Text Response, got " + pdu.opcode());
            }
            text.append(t.data().toString(StandardCharsets.UTF_8).replace('\0', '\n'));
            t.release();
            if (t.finalBit()) {
                return text.toString();
            }
            send(new TextRequest(false, true, false, 0, t.itt(), t.ttt(), cmdSN, expStatSN, Unpooled.EMPTY_BUFFER));
        }
    }

    /** Runs one SCSI command to completion. {@code dataOut} non-null makes it a write of EDTL = its length. */
    public Result command(long lun, byte[] cdb, int readLength, byte[] dataOut) throws IOException {
        int task = nextItt();
        boolean write = dataOut != null;
        int edtl = write ? dataOut.length : readLength;
        int targetMaxRecv = number("MaxRecvDataSegmentLength", 8192);
        int firstBurst = Math.min(edtl, number("FirstBurstLength", 65536));
        int immediate = write && yes("ImmediateData", true) ? Math.min(firstBurst, targetMaxRecv) : 0;
        int unsolicitedEnd = write && !yes("InitialR2T", true) ? firstBurst : immediate;
        ByteBuf imm = immediate > 0 ? Unpooled.wrappedBuffer(dataOut, 0, immediate) : Unpooled.EMPTY_BUFFER;
        send(new ScsiCommand(false, unsolicitedEnd == immediate, !write && readLength > 0, write,
                TaskAttribute.SIMPLE, lun, task, edtl, cmdSN++, expStatSN, cdb, OptionalLong.empty(), imm));
        if (unsolicitedEnd > immediate) {
            sendData(lun, task, Bhs.RESERVED_TAG, dataOut, immediate, unsolicitedEnd - immediate, targetMaxRecv);
        }
        ByteArrayOutputStream read = new ByteArrayOutputStream();
        while (true) {
            TargetPdu pdu = receive();
            try {
                switch (pdu) {
                    case R2t r -> sendData(lun, task, r.ttt(), dataOut, (int) r.bufferOffset(),
                            (int) r.desiredDataTransferLength(), targetMaxRecv);
                    case DataIn d -> {
                        if (d.bufferOffset() != read.size()) {
                            throw new IOException("Data-In at " + d.bufferOffset() + ", expected " + read.size());
                        }
                        byte[] chunk = new byte[d.data().readableBytes()];
                        d.data().getBytes(d.data().readerIndex(), chunk);
                        read.writeBytes(chunk);
                        if (d.status().isPresent()) {
                            return new Result(d.status().getAsInt(), read.toByteArray(), new byte[0], d.residual(),
                                    d.residualCount());
                        }
                    }
                    case ScsiResponse r -> {
                        ByteBuf s = r.senseData();
                        byte[] sense = new byte[s.readableBytes()];
                        s.getBytes(s.readerIndex(), sense);
                        return new Result(r.status(), read.toByteArray(), sense, r.residual(), r.residualCount());
                    }
                    case NopIn n -> answerPing(n);
                    case Reject r -> throw new IOException("Reject " + r.reason());
                    default -> throw new IOException("unexpected " + pdu.opcode());
                }
            } finally {
                pdu.release();
            }
        }
    }

    /**
     * Queues {@code count} writes the way libiscsi's asynchronous API does: each command goes out as soon as its
     * CmdSN is inside the target's window (CmdSN <= MaxCmdSN), with its immediate data and unsolicited Data-Out
     * per the negotiated ImmediateData / InitialR2T / FirstBurstLength; R2Ts are answered as they come. Returns
     * the outcomes in command order, once every command has its response.
     */
    public Result[] pipelinedWrites(int count, java.util.function.IntFunction<byte[]> cdb, byte[] dataOut)
            throws IOException {
        Result[] status = new Result[count];
        Map<Integer, Integer> byItt = new java.util.HashMap<>();
        int targetMaxRecv = number("MaxRecvDataSegmentLength", 8192);
        int firstBurst = Math.min(dataOut.length, number("FirstBurstLength", 65536));
        int immediate = yes("ImmediateData", true) ? Math.min(firstBurst, targetMaxRecv) : 0;
        int unsolicitedEnd = !yes("InitialR2T", true) ? firstBurst : immediate;
        int sent = 0;
        int done = 0;
        while (done < count) {
            while (sent < count && !io.blocktarget.protocol.iscsi.SerialNumbers.lessThan(maxCmdSN, cmdSN)) {
                int task = nextItt();
                byItt.put(task, sent);
                ByteBuf imm = immediate > 0 ? Unpooled.wrappedBuffer(dataOut, 0, immediate) : Unpooled.EMPTY_BUFFER;
                send(new ScsiCommand(false, unsolicitedEnd == immediate, false, true, TaskAttribute.SIMPLE, 0, task,
                        dataOut.length, cmdSN++, expStatSN, cdb.apply(sent), OptionalLong.empty(), imm));
                if (unsolicitedEnd > immediate) {
                    sendData(0, task, Bhs.RESERVED_TAG, dataOut, immediate, unsolicitedEnd - immediate, targetMaxRecv);
                }
                sent++;
            }
            TargetPdu pdu = receive();
            try {
                switch (pdu) {
                    case R2t r -> sendData(0, r.itt(), r.ttt(), dataOut, (int) r.bufferOffset(),
                            (int) r.desiredDataTransferLength(), targetMaxRecv);
                    case ScsiResponse r -> {
                        Integer which = byItt.remove(r.itt());
                        if (which == null) {
                            throw new IOException("response for unknown ITT " + r.itt());
                        }
                        ByteBuf s = r.senseData();
                        byte[] sense = new byte[s.readableBytes()];
                        s.getBytes(s.readerIndex(), sense);
                        status[which] = new Result(r.status(), new byte[0], sense, r.residual(), r.residualCount());
                        done++;
                    }
                    case NopIn n -> answerPing(n);
                    case Reject r -> throw new IOException("Reject " + r.reason());
                    default -> throw new IOException("unexpected " + pdu.opcode());
                }
            } finally {
                pdu.release();
            }
        }
        return status;
    }

    /** TEST UNIT READY until GOOD: a new nexus first sees the POWER ON / RESET unit attention (SAM-5 §5.14). */
    public void clearUnitAttention() throws IOException {
        for (int attempt = 0; attempt < 4; attempt++) {
            if (command(0, new byte[6], 0, null).status() == 0) {
                return;
            }
        }
        throw new IOException("TEST UNIT READY keeps failing");
    }

    private void sendData(long lun, int task, int ttt, byte[] data, int offset, int length, int segment)
            throws IOException {
        int dataSN = 0;
        for (int off = offset; off < offset + length; off += segment) {
            int n = Math.min(segment, offset + length - off);
            send(new DataOut(off + n == offset + length, lun, task, ttt, expStatSN, dataSN++, off,
                    Unpooled.wrappedBuffer(data, off, n)));
        }
    }

    public void answerPing(NopIn ping) throws IOException {
        if (ping.ttt() != Bhs.RESERVED_TAG) {
            send(new NopOut(true, ping.lun(), Bhs.RESERVED_TAG, ping.ttt(), cmdSN, expStatSN, Unpooled.EMPTY_BUFFER));
        }
    }

    /** Answers {@code r2t} with {@code data} in one final Data-Out PDU (for a task the target may have aborted). */
    public void answerR2t(io.blocktarget.protocol.iscsi.R2t r2t, byte[] data) throws IOException {
        send(new DataOut(true, r2t.lun(), r2t.itt(), r2t.ttt(), expStatSN, 0, r2t.bufferOffset(),
                Unpooled.wrappedBuffer(data)));
    }

    /** Sends a SCSI Command and returns its ITT without waiting (for task management tests). */
    public int startCommand(long lun, byte[] cdb, int edtl, boolean write) throws IOException {
        int task = nextItt();
        send(new ScsiCommand(false, true, !write, write, TaskAttribute.SIMPLE, lun, task, edtl, cmdSN++, expStatSN,
                cdb, OptionalLong.empty(), Unpooled.EMPTY_BUFFER));
        return task;
    }

    public TmfResponse taskManagement(TmfFunction function, long lun, int referencedTaskTag, int refCmdSN)
            throws IOException {
        send(new TaskManagementRequest(true, function, lun, nextItt(), referencedTaskTag, cmdSN, expStatSN, refCmdSN,
                0));
        while (true) {
            TargetPdu pdu = receive();
            try {
                if (pdu instanceof TaskManagementResponse r) {
                    return r.response();
                }
                if (!(pdu instanceof R2t) && !(pdu instanceof NopIn)) {
                    throw new IOException("unexpected " + pdu.opcode() + " before the TMF response");
                }
            } finally {
                pdu.release();
            }
        }
    }

    /** NOP-Out ping with data; returns the echoed data. */
    byte[] ping(byte[] data) throws IOException {
        int task = nextItt();
        send(new NopOut(false, 0, task, Bhs.RESERVED_TAG, cmdSN++, expStatSN, Unpooled.wrappedBuffer(data)));
        while (true) {
            TargetPdu pdu = receive();
            try {
                if (pdu instanceof NopIn n && n.itt() == task) {
                    byte[] echo = new byte[n.data().readableBytes()];
                    n.data().getBytes(n.data().readerIndex(), echo);
                    return echo;
                }
                if (pdu instanceof NopIn n) {
                    answerPing(n);
                } else {
                    throw new IOException("unexpected " + pdu.opcode());
                }
            } finally {
                pdu.release();
            }
        }
    }

    /** Expects the next PDU to be a Reject; returns its reason code. */
    int expectReject() throws IOException {
        TargetPdu pdu = receive();
        try {
            if (pdu instanceof Reject r) {
                return r.reason().code();
            }
            throw new IOException("expected a Reject, got " + pdu.opcode());
        } finally {
            pdu.release();
        }
    }

    public void logout() throws IOException {
        send(new LogoutRequest(true, LogoutReason.CLOSE_SESSION, nextItt(), 0, cmdSN, expStatSN));
        while (true) {
            TargetPdu pdu = receive();
            pdu.release();
            if (pdu instanceof LogoutResponse) {
                return;
            }
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
