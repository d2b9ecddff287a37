package io.blocktarget.transport.iscsi;

import io.blocktarget.protocol.iscsi.Bhs;
import io.blocktarget.protocol.iscsi.DataOut;
import io.blocktarget.protocol.iscsi.LoginResponse;
import io.blocktarget.protocol.iscsi.R2t;
import io.blocktarget.protocol.iscsi.ScsiResponse;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.blocktarget.transport.iscsi.Harness.TARGET;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 11 {@code session:} knobs of an iSCSI target: the MaxRecvDataSegmentLength it declares (RFC 7143 §13.12), the
 * MaxBurstLength / FirstBurstLength it offers and accepts (§13.13, §13.14), and the CmdSN window (§4.2.2.1), each at
 * its limit and one past it; another target keeps the server's values; a change reaches new sessions only.
 */
class SessionKnobsIscsiTest {
    private static final String OTHER = "iqn.2026-11.io.blocktarget:other";
    /** 8 KiB segments, 64 KiB bursts, 16 KiB first burst, 4 commands. */
    private static final IscsiSettings.SessionLimits SMALL = new IscsiSettings.SessionLimits(8192, 65536, 16384, 4);
    /** What open-iscsi offers by default (iscsid.conf): the target's values win where they are smaller. */
    private static final String[] OPEN_ISCSI = {"MaxRecvDataSegmentLength", "262144", "MaxBurstLength", "16776192",
            "FirstBurstLength", "262144", "ImmediateData", "Yes", "InitialR2T", "No"};

    private final RamTestTarget target = new RamTestTarget(TARGET, 512, 1024);
    private final RamTestTarget other = new RamTestTarget(OTHER, 512, 64);
    private final List<Harness> harnesses = new ArrayList<>();
    private IscsiTransport transport;
    private Harness h;

    @AfterEach
    void tearDown() {
        harnesses.forEach(Harness::close);
        target.releaseHeld();
        assertThat(target.unreleased()).as("buffers the transport did not release").isEmpty();
    }

    private Harness connect() {
        Harness harness = new Harness(transport);
        harnesses.add(harness);
        return harness;
    }

    private LoginResponse login(Map<String, IscsiSettings.SessionLimits> limits, String... keys) {
        transport = Harness.transport(IscsiSettings.defaults().withSessionLimits(limits), target, other);
        h = connect();
        return h.login(keys);
    }

    private static String text(LoginResponse response) {
        return response.data().toString(response.data().readerIndex(), response.data().readableBytes(),
                StandardCharsets.US_ASCII);
    }

    @Test
    void theTargetsValuesAreOfferedAndDeclaredByteExact() {
        LoginResponse response = login(Map.of(TARGET, SMALL), OPEN_ISCSI);
        // TargetPortalGroupTag first (§13.9), the answers in the order offered (§13.13/§13.14: the minimum of the
        // offer and ours), then our declaration (§13.12 declarative: 8192 whatever the initiator declared) and
        // TargetAlias (§13.6). Keys are NUL-terminated key=value pairs (§6.1).
        assertThat(text(response)).isEqualTo("TargetPortalGroupTag=1\0MaxBurstLength=65536\0"
                + "FirstBurstLength=16384\0ImmediateData=Yes\0InitialR2T=No\0MaxRecvDataSegmentLength=8192\0"
                + "TargetAlias=test\0");
        // §4.2.2.1: the window the final Login Response opens is the queue depth
        assertThat(response.maxCmdSN() - response.expCmdSN() + 1).isEqualTo(4);
        response.release();
    }

    @Test
    void theWindowIsTheTargetsFromTheFirstLoginResponseOn() {
        // an initiator ignores a MaxCmdSN below the one it holds (§4.2.2.1 b): a security stage answered with the
        // server's 128 would leave it a window of 128 whatever the final response says
        transport = Harness.transport(IscsiSettings.defaults().withSessionLimits(Map.of(TARGET, SMALL)), target,
                other);
        h = connect();
        h.send(h.loginRequest(true, io.blocktarget.protocol.iscsi.LoginStage.SECURITY_NEGOTIATION,
                io.blocktarget.protocol.iscsi.LoginStage.LOGIN_OPERATIONAL_NEGOTIATION,
                io.blocktarget.protocol.iscsi.TextParameters.of("InitiatorName", Harness.INITIATOR, "TargetName",
                        TARGET, "SessionType", "Normal", "AuthMethod", "None")));
        LoginResponse security = h.expect(LoginResponse.class);
        assertThat(security.maxCmdSN() - security.expCmdSN() + 1).isEqualTo(4);
        security.release();
        h.send(h.loginRequest(true, io.blocktarget.protocol.iscsi.LoginStage.LOGIN_OPERATIONAL_NEGOTIATION,
                io.blocktarget.protocol.iscsi.LoginStage.FULL_FEATURE_PHASE,
                io.blocktarget.protocol.iscsi.TextParameters.of("MaxBurstLength", "16776192")));
        LoginResponse last = h.expect(LoginResponse.class);
        assertThat(last.maxCmdSN() - last.expCmdSN() + 1).isEqualTo(4);
        assertThat(text(last)).contains("MaxBurstLength=65536\0");
        last.release();
    }

    @Test
    void aTargetWithoutKnobsKeepsTheServersValues() {
        transport = Harness.transport(IscsiSettings.defaults().withSessionLimits(Map.of(TARGET, SMALL)), target,
                other);
        Harness plain = connect();
        LoginResponse response = plainLogin(plain, OTHER);
        assertThat(text(response)).contains("MaxRecvDataSegmentLength=262144\0", "MaxBurstLength=1048576\0",
                "FirstBurstLength=262144\0");
        assertThat(response.maxCmdSN() - response.expCmdSN() + 1).isEqualTo(128);
        response.release();
    }

    private static LoginResponse plainLogin(Harness harness, String targetName) {
        io.blocktarget.protocol.iscsi.TextParameters keys = io.blocktarget.protocol.iscsi.TextParameters.of(
                "InitiatorName", Harness.INITIATOR, "TargetName", targetName, "SessionType", "Normal");
        for (int i = 0; i < OPEN_ISCSI.length; i += 2) {
            keys = keys.with(OPEN_ISCSI[i], OPEN_ISCSI[i + 1]);
        }
        harness.send(harness.loginRequest(true, io.blocktarget.protocol.iscsi.LoginStage.LOGIN_OPERATIONAL_NEGOTIATION,
                io.blocktarget.protocol.iscsi.LoginStage.FULL_FEATURE_PHASE, keys));
        return harness.expect(LoginResponse.class);
    }

    @Test
    void aDataSegmentAtOurMaxRecvDataSegmentLengthIsTakenOnePastClosesTheConnection() {
        login(Map.of(TARGET, SMALL), OPEN_ISCSI).release();
        h.send(h.command(Harness.write10(0, 16), false, true, 8192, Unpooled.wrappedBuffer(new byte[8192]), true));
        ScsiResponse ok = h.expect(ScsiResponse.class);
        assertThat(ok.status()).isZero();
        ok.release();
        // 8193 bytes: the frame decoder refuses it before buffering (§13.12: the receiver's limit)
        byte[] bhs = new byte[Bhs.LENGTH];
        bhs[0] = 0x05;                  // Data-Out
        bhs[5] = 0x00;
        bhs[6] = 0x20;
        bhs[7] = 0x01;                  // DataSegmentLength 0x002001 = 8193
        h.sendRaw(bhs);
        assertThat(h.open()).isFalse();
    }

    @Test
    void unsolicitedDataUpToFirstBurstLengthThenR2tOfMaxBurstLength() {
        login(Map.of(TARGET, SMALL), OPEN_ISCSI).release();
        byte[] content = Harness.pattern(147456, 5);  // 16 KiB unsolicited + 2 × 64 KiB solicited
        h.send(h.command(Harness.write10(0, 288), false, true, content.length, Unpooled.copiedBuffer(content, 0, 8192),
                false));
        h.send(new DataOut(true, 0, h.itt - 1, Bhs.RESERVED_TAG, 0, 0, 8192, Unpooled.copiedBuffer(content, 8192,
                8192)));                                  // exactly FirstBurstLength in all
        R2t first = h.expect(R2t.class);
        assertThat(first.bufferOffset()).isEqualTo(16384);
        assertThat(first.desiredDataTransferLength()).isEqualTo(65536);   // MaxBurstLength, not 1 MiB
        sendData(first, content);
        R2t second = h.expect(R2t.class);
        assertThat(second.desiredDataTransferLength()).isEqualTo(65536);
        sendData(second, content);
        ScsiResponse done = h.expect(ScsiResponse.class);
        assertThat(done.status()).isZero();
        done.release();
        assertThat(java.util.Arrays.copyOfRange(target.store(), 0, content.length)).isEqualTo(content);
    }

    @Test
    void unsolicitedDataOnePastFirstBurstLengthIsAProtocolError() {
        login(Map.of(TARGET, SMALL), OPEN_ISCSI).release();
        h.send(h.command(Harness.write10(0, 64), false, true, 32768, Unpooled.wrappedBuffer(new byte[8192]), false));
        // 8192 + 8704 = 16896 > FirstBurstLength 16384: §13.14 the initiator must not send it; at ERL 0 the
        // connection ends (§7.1.4 protocol error)
        h.send(new DataOut(true, 0, h.itt - 1, Bhs.RESERVED_TAG, 0, 0, 8192, Unpooled.wrappedBuffer(new byte[8192 + 512])));
        assertThat(h.open()).isFalse();
    }

    @Test
    void commandsUpToMaxCmdSnAreTakenOnePastIsDropped() {
        login(Map.of(TARGET, SMALL), OPEN_ISCSI).release();
        int exp = h.cmdSN;
        h.cmdSN = exp + 4;              // MaxCmdSN + 1 (window exp .. exp + 3): silently dropped (§4.2.2.1)
        h.send(h.command(new byte[6], false, false, 0, Unpooled.EMPTY_BUFFER, true));
        assertThat(h.receive()).isNull();
        h.cmdSN = exp + 3;              // MaxCmdSN: held until the gap fills
        h.send(h.command(new byte[6], false, false, 0, Unpooled.EMPTY_BUFFER, true));
        assertThat(h.receive()).isNull();
        for (int sn = exp; sn < exp + 3; sn++) {
            h.cmdSN = sn;
            h.send(h.command(new byte[6], false, false, 0, Unpooled.EMPTY_BUFFER, true));
        }
        List<ScsiResponse> responses = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            responses.add(h.expect(ScsiResponse.class));
        }
        assertThat(h.receive()).as("the dropped command never runs").isNull();
        ScsiResponse last = responses.getLast();
        assertThat(last.expCmdSN()).isEqualTo(exp + 4);
        assertThat(last.maxCmdSN()).isEqualTo(exp + 7);
        responses.forEach(ScsiResponse::release);
    }

    @Test
    void aChangeReachesNewSessionsOnlyExistingOnesKeepWhatTheyNegotiated() {
        login(Map.of(), OPEN_ISCSI).release();
        Harness old = h;

        transport.targets(List.of(target, other), Map.of(), Map.of(), Map.of(TARGET, SMALL));

        // the logged-in session keeps its window (128) and its 256 KiB segments
        old.send(old.command(Harness.write10(0, 512), false, true, 262144, Unpooled.wrappedBuffer(new byte[262144]),
                true));
        ScsiResponse kept = old.expect(ScsiResponse.class);
        assertThat(kept.status()).isZero();
        assertThat(kept.maxCmdSN() - kept.expCmdSN() + 1).isEqualTo(128);
        kept.release();
        // a new session negotiates with the new values
        Harness fresh = connect();
        LoginResponse response = fresh.login(OPEN_ISCSI);
        assertThat(text(response)).contains("MaxRecvDataSegmentLength=8192\0", "MaxBurstLength=65536\0");
        assertThat(response.maxCmdSN() - response.expCmdSN() + 1).isEqualTo(4);
        response.release();
    }

    private void sendData(R2t r2t, byte[] content) {
        long end = r2t.bufferOffset() + r2t.desiredDataTransferLength();
        int dataSN = 0;
        for (long off = r2t.bufferOffset(); off < end; off += 8192) {
            int n = (int) Math.min(8192, end - off);
            h.send(new DataOut(off + n == end, 0, r2t.itt(), r2t.ttt(), 0, dataSN++, off,
                    Unpooled.copiedBuffer(content, (int) off, n)));
        }
    }
}
