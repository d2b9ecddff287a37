package io.blocktarget.transport.iscsi;

import io.blocktarget.protocol.iscsi.Bhs;
import io.blocktarget.protocol.iscsi.DataIn;
import io.blocktarget.protocol.iscsi.DataOut;
import io.blocktarget.protocol.iscsi.Digest;
import io.blocktarget.protocol.iscsi.IscsiFraming;
import io.blocktarget.protocol.iscsi.LoginResponse;
import io.blocktarget.protocol.iscsi.LoginStage;
import io.blocktarget.protocol.iscsi.LogoutReason;
import io.blocktarget.protocol.iscsi.LogoutRequest;
import io.blocktarget.protocol.iscsi.LogoutResponse;
import io.blocktarget.protocol.iscsi.LogoutResponseCode;
import io.blocktarget.protocol.iscsi.NopIn;
import io.blocktarget.protocol.iscsi.NopOut;
import io.blocktarget.protocol.iscsi.R2t;
import io.blocktarget.protocol.iscsi.Reject;
import io.blocktarget.protocol.iscsi.RejectReason;
import io.blocktarget.protocol.iscsi.ScsiResponse;
import io.blocktarget.protocol.iscsi.SnackRequest;
import io.blocktarget.protocol.iscsi.SnackType;
import io.blocktarget.protocol.iscsi.TaskManagementRequest;
import io.blocktarget.protocol.iscsi.TaskManagementResponse;
import io.blocktarget.protocol.iscsi.TextParameters;
import io.blocktarget.protocol.iscsi.TextRequest;
import io.blocktarget.protocol.iscsi.TextResponse;
import io.blocktarget.protocol.iscsi.TmfFunction;
import io.blocktarget.protocol.iscsi.TmfResponse;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static io.blocktarget.transport.iscsi.Harness.INITIATOR;
import static io.blocktarget.transport.iscsi.Harness.TARGET;
import static org.assertj.core.api.Assertions.assertThat;

/** Full feature phase outside data transfer: CmdSN window, NOP, TMF, logout, Reject, digests, text (timers: IscsiTimersTest). */
class FullFeaturePhaseTest {
    private final RamTestTarget target = new RamTestTarget(TARGET, 512, 64);
    private Harness h;

    @AfterEach
    void tearDown() {
        h.close();
        target.releaseHeld();
        assertThat(target.unreleased()).as("buffers the transport did not release").isEmpty();
    }

    private void login(IscsiSettings settings, String... keys) {
        h = new Harness(Harness.transport(settings, target));
        h.login(keys).release();
    }

    private ScsiResponse tur() {
        h.send(h.command(new byte[6], false, false, 0, Unpooled.EMPTY_BUFFER, true));
        return h.receive() instanceof ScsiResponse r ? r : null;
    }

    @Test
    void statSnAndCmdSnWindowAdvance() {
        login(IscsiSettings.defaults().withQueueDepth(8));
        ScsiResponse first = tur();
        ScsiResponse second = tur();
        assertThat(second.statSN()).isEqualTo(first.statSN() + 1);
        assertThat(second.expCmdSN()).isEqualTo(first.expCmdSN() + 1);
        assertThat(second.maxCmdSN() - second.expCmdSN()).isEqualTo(7); // no task outstanding
        first.release();
        second.release();
    }

    @Test
    void commandOutsideTheWindowIsDroppedAndOneAheadIsHeldUntilTheGapFills() {
        login(IscsiSettings.defaults().withQueueDepth(8));
        int exp = h.cmdSN;
        h.cmdSN = exp + 100;
        h.send(h.command(new byte[6], false, false, 0, Unpooled.EMPTY_BUFFER, true));
        assertThat(h.receive()).isNull();
        h.cmdSN = exp + 1;
        h.send(h.command(new byte[6], false, false, 0, Unpooled.EMPTY_BUFFER, true));
        assertThat(h.receive()).isNull();
        h.cmdSN = exp;
        h.send(h.command(new byte[6], false, false, 0, Unpooled.EMPTY_BUFFER, true));
        ScsiResponse a = h.expect(ScsiResponse.class);
        ScsiResponse b = h.expect(ScsiResponse.class);
        assertThat(b.expCmdSN()).isEqualTo(exp + 2);
        a.release();
        b.release();
    }

    @Test
    void theWindowOpensOnlyAsTasksComplete() {
        login(IscsiSettings.defaults().withQueueDepth(2));
        target.hold();
        h.send(h.command(Harness.read10(0, 1), true, false, 512, Unpooled.EMPTY_BUFFER, true));
        h.send(h.command(Harness.read10(1, 1), true, false, 512, Unpooled.EMPTY_BUFFER, true));
        h.send(h.command(Harness.read10(2, 1), true, false, 512, Unpooled.EMPTY_BUFFER, true)); // beyond MaxCmdSN
        assertThat(h.receive()).isNull();
        target.releaseHeld();
        DataIn first = h.expect(DataIn.class);
        DataIn second = h.expect(DataIn.class);
        assertThat(h.receive()).isNull();
        assertThat(first.maxCmdSN()).isEqualTo(first.expCmdSN());
        assertThat(second.maxCmdSN()).isEqualTo(second.expCmdSN() + 1);
        first.release();
        second.release();
    }

    @Test
    void immediateCommandsBeyondTheQueueDepthAreRejected() {
        login(IscsiSettings.defaults().withQueueDepth(1));
        target.hold();
        h.send(immediateRead(0x31));
        h.send(immediateRead(0x32));
        io.blocktarget.protocol.iscsi.Reject r = h.expect(io.blocktarget.protocol.iscsi.Reject.class);
        assertThat(r.reason()).isEqualTo(RejectReason.IMMEDIATE_COMMAND_REJECT);
        assertThat(r.data().getInt(16)).isEqualTo(0x32);
        r.release();
        target.releaseHeld();
        DataIn d = h.expect(DataIn.class);
        assertThat(d.itt()).isEqualTo(0x31);
        d.release();
    }

    private io.blocktarget.protocol.iscsi.ScsiCommand immediateRead(int itt) {
        return new io.blocktarget.protocol.iscsi.ScsiCommand(true, true, true, false,
                io.blocktarget.protocol.iscsi.TaskAttribute.SIMPLE, 0, itt, 512, h.cmdSN, 0, Harness.read10(0, 1),
                java.util.OptionalLong.empty(), Unpooled.EMPTY_BUFFER);
    }

    @Test
    void immediateNopOutIsAnsweredWithItsDataAndDoesNotAdvanceExpCmdSn() {
        login(IscsiSettings.defaults());
        h.send(new NopOut(true, 0, 0x55, Bhs.RESERVED_TAG, h.cmdSN, 0, Unpooled.wrappedBuffer(new byte[] {1, 2, 3})));
        NopIn in = h.expect(NopIn.class);
        assertThat(in.itt()).isEqualTo(0x55);
        assertThat(in.ttt()).isEqualTo(Bhs.RESERVED_TAG);
        assertThat(in.expCmdSN()).isEqualTo(h.cmdSN);
        assertThat(Harness.ascii(in.data())).isEqualTo("\1\2\3");
        in.release();
    }

    @Test
    void abortTaskAnswersOnlyOnceTheTaskHasStoppedAndSuppressesItsResponse() {
        login(IscsiSettings.defaults());
        target.hold();
        h.send(h.command(Harness.read10(0, 1), true, false, 512, Unpooled.EMPTY_BUFFER, true));
        int victim = h.itt - 1;
        h.send(new TaskManagementRequest(true, TmfFunction.ABORT_TASK, 0, 0x900, victim, h.cmdSN, 0, h.cmdSN - 1, 0));
        // SAM-5 §7.2: FUNCTION COMPLETE means the task is gone; it is still executing in the device server
        assertThat(h.receive()).as("no answer while the task executes").isNull();
        target.releaseHeld();
        TaskManagementResponse r = h.expect(TaskManagementResponse.class);
        assertThat(r.response()).isEqualTo(TmfResponse.FUNCTION_COMPLETE);
        assertThat(r.itt()).isEqualTo(0x900);
        r.release();
        assertThat(h.receive()).as("no response for the aborted task (§11.5.1)").isNull();
    }

    @Test
    void abortOfAnUnknownTaskSaysTaskDoesNotExist() {
        login(IscsiSettings.defaults());
        h.send(new TaskManagementRequest(true, TmfFunction.ABORT_TASK, 0, 0x901, 0x4242, h.cmdSN, 0, h.cmdSN + 5, 0));
        TaskManagementResponse r = h.expect(TaskManagementResponse.class);
        assertThat(r.response()).isEqualTo(TmfResponse.TASK_DOES_NOT_EXIST);
        r.release();
    }

    /**
     * RFC 7143 §11.5.1 c): a task that already completed (its CmdSN is below ExpCmdSN, outside the valid CmdSN window)
     * is "Task does not exist" — the answer libiscsi's AbortTaskSimpleAsync expects when the write's GOOD came first.
     * "Function complete" for a task not there is only for a RefCmdSN still inside the window (never received, §11.5.1 b).
     */
    @Test
    void abortOfATaskThatAlreadyCompletedSaysTaskDoesNotExist() {
        login(IscsiSettings.defaults());
        h.send(h.command(Harness.write10(0, 1), false, true, 512, Unpooled.wrappedBuffer(new byte[512]), true));
        int done = h.itt - 1;
        ScsiResponse w = h.expect(ScsiResponse.class);
        assertThat(w.status()).isZero();
        w.release();
        h.send(new TaskManagementRequest(true, TmfFunction.ABORT_TASK, 0, 0x90A, done, h.cmdSN, 0, h.cmdSN - 1, 0));
        TaskManagementResponse r = h.expect(TaskManagementResponse.class);
        assertThat(r.response()).isEqualTo(TmfResponse.TASK_DOES_NOT_EXIST);
        r.release();
    }

    @Test
    void abortOfAWriteWaitingForDataFreesItAndDiscardsLaterDataOut() {
        login(IscsiSettings.defaults(), "ImmediateData", "No", "InitialR2T", "Yes");
        h.send(h.command(Harness.write10(0, 8), false, true, 4096, Unpooled.EMPTY_BUFFER, true));
        R2t r2t = h.expect(R2t.class);
        h.send(new TaskManagementRequest(true, TmfFunction.ABORT_TASK_SET, 0, 0x902, Bhs.RESERVED_TAG, h.cmdSN, 0,
                0, 0));
        TaskManagementResponse r = h.expect(TaskManagementResponse.class);
        assertThat(r.response()).isEqualTo(TmfResponse.FUNCTION_COMPLETE);
        r.release();
        h.send(new DataOut(true, 0, r2t.itt(), r2t.ttt(), 0, 0, 0, Unpooled.wrappedBuffer(new byte[4096])));
        assertThat(h.receive()).isNull();
        assertThat(h.open()).isTrue();
    }

    @Test
    void lunAndTargetResetsReachTheDeviceServer() {
        login(IscsiSettings.defaults());
        h.send(new TaskManagementRequest(true, TmfFunction.LOGICAL_UNIT_RESET, 0, 0x903, Bhs.RESERVED_TAG, h.cmdSN,
                0, 0, 0));
        TaskManagementResponse lun = h.expect(TaskManagementResponse.class);
        assertThat(lun.response()).isEqualTo(TmfResponse.FUNCTION_COMPLETE);
        lun.release();
        h.send(new TaskManagementRequest(true, TmfFunction.TARGET_WARM_RESET, 0, 0x904, Bhs.RESERVED_TAG, h.cmdSN,
                0, 0, 0));
        h.expect(TaskManagementResponse.class).release();
        assertThat(target.events()).contains("lun reset 0", "target reset");
        h.send(new TaskManagementRequest(true, TmfFunction.LOGICAL_UNIT_RESET, 5L << 48, 0x905, Bhs.RESERVED_TAG,
                h.cmdSN, 0, 0, 0));
        TaskManagementResponse missing = h.expect(TaskManagementResponse.class);
        assertThat(missing.response()).isEqualTo(TmfResponse.LUN_DOES_NOT_EXIST);
        missing.release();
    }

    @Test
    void targetColdResetDropsEverySessionOfTheTarget() {
        IscsiTransport transport = Harness.transport(IscsiSettings.defaults(), target);
        h = new Harness(transport);
        h.login().release();
        try (Harness other = new Harness(transport)) {
            other.isid = Harness.ISID + 1;
            other.login().release();
            assertThat(h.open()).isTrue();
            h.send(new TaskManagementRequest(true, TmfFunction.TARGET_COLD_RESET, 0, 0x908, Bhs.RESERVED_TAG,
                    h.cmdSN, 0, 0, 0));
            TaskManagementResponse r = h.expect(TaskManagementResponse.class);
            assertThat(r.response()).isEqualTo(TmfResponse.FUNCTION_COMPLETE);
            r.release();
            assertThat(h.open()).isFalse();
            assertThat(other.open()).isFalse();
            assertThat(target.events()).contains("target reset");
        }
    }

    @Test
    void unsupportedFunctionsAreSaidSo() {
        login(IscsiSettings.defaults());
        h.send(new TaskManagementRequest(true, 0x30, 0, 0x906, Bhs.RESERVED_TAG, h.cmdSN, 0, 0, 0));
        TaskManagementResponse r = h.expect(TaskManagementResponse.class);
        assertThat(r.response()).isEqualTo(TmfResponse.FUNCTION_NOT_SUPPORTED);
        r.release();
        h.send(new TaskManagementRequest(true, TmfFunction.TASK_REASSIGN, 0, 0x907, 1, h.cmdSN, 0, 0, 0));
        TaskManagementResponse reassign = h.expect(TaskManagementResponse.class);
        assertThat(reassign.response()).isEqualTo(TmfResponse.TASK_ALLEGIANCE_REASSIGNMENT_NOT_SUPPORTED);
        reassign.release();
    }

    @Test
    void logoutAnswersThenClosesAndTellsTheDeviceServer() {
        login(IscsiSettings.defaults());
        h.send(new LogoutRequest(true, LogoutReason.CLOSE_SESSION, 0x77, 0, h.cmdSN, 0));
        LogoutResponse r = h.expect(LogoutResponse.class);
        assertThat(r.response()).isEqualTo(LogoutResponseCode.CONNECTION_OR_SESSION_CLOSED);
        assertThat(r.itt()).isEqualTo(0x77);
        r.release();
        assertThat(h.open()).isFalse();
        assertThat(target.events()).anyMatch(e -> e.startsWith("nexus lost " + INITIATOR + ",i,0x400001370000"));
        assertThat(h.transport.registry().sessions()).isEmpty();
    }

    @Test
    void logoutForRecoveryIsNotSupportedAtErl0() {
        login(IscsiSettings.defaults());
        h.send(new LogoutRequest(true, LogoutReason.REMOVE_CONNECTION_FOR_RECOVERY, 0x78, 0, h.cmdSN, 0));
        LogoutResponse r = h.expect(LogoutResponse.class);
        assertThat(r.response()).isEqualTo(LogoutResponseCode.CONNECTION_RECOVERY_NOT_SUPPORTED);
        r.release();
        assertThat(h.open()).isTrue();
    }

    @Test
    void snackIsRejectedAtErl0() {
        login(IscsiSettings.defaults());
        h.send(new SnackRequest(SnackType.DATA_R2T, 0, 0x10, Bhs.RESERVED_TAG, 0, 0, 0));
        Reject r = h.expect(Reject.class);
        assertThat(r.reason()).isEqualTo(RejectReason.PROTOCOL_ERROR);
        assertThat(r.data().readableBytes()).isEqualTo(Bhs.LENGTH);
        assertThat(r.data().getByte(0) & 0x3f).isEqualTo(0x10);
        r.release();
        assertThat(h.open()).isTrue();
    }

    @Test
    void reservedOpcodeIsRejectedAndTheConnectionGoesOn() {
        login(IscsiSettings.defaults());
        byte[] bhs = new byte[Bhs.LENGTH];
        bhs[0] = 0x1a; // reserved initiator opcode
        h.sendRaw(bhs);
        Reject r = h.expect(Reject.class);
        assertThat(r.reason()).isEqualTo(RejectReason.COMMAND_NOT_SUPPORTED);
        r.release();
        ScsiResponse ok = tur();
        assertThat(ok.status()).isZero();
        ok.release();
    }

    @Test
    void oversizedDataSegmentClosesBeforeAnythingIsBuffered() {
        login(IscsiSettings.defaults());
        byte[] bhs = new byte[Bhs.LENGTH];
        bhs[0] = 0x05; // Data-Out
        bhs[5] = 0x7f; // DataSegmentLength 0x7f0000: above our MaxRecvDataSegmentLength
        h.sendRaw(bhs);
        assertThat(h.open()).isFalse();
    }

    @Test
    void randomBytesCloseTheConnection() {
        login(IscsiSettings.defaults());
        byte[] junk = new byte[4096];
        new Random(42).nextBytes(junk);
        h.sendRaw(junk);
        h.receiveAll().forEach(p -> p.release());
        assertThat(h.open()).isFalse();
    }

    @Test
    void digestsProtectReadsAndWrites() {
        login(IscsiSettings.defaults(), "HeaderDigest", "CRC32C,None", "DataDigest", "CRC32C,None");
        assertThat(h.headerDigest).isEqualTo(Digest.CRC32C);
        assertThat(h.dataDigest).isEqualTo(Digest.CRC32C);
        byte[] content = Harness.pattern(1536, 5);
        h.send(h.command(Harness.write10(1, 3), false, true, 1536, Unpooled.copiedBuffer(content), true));
        ScsiResponse w = h.expect(ScsiResponse.class);
        assertThat(w.status()).isZero();
        w.release();
        h.send(h.command(Harness.read10(1, 3), true, false, 1536, Unpooled.EMPTY_BUFFER, true));
        DataIn r = h.expect(DataIn.class);
        assertThat(DataTransferTest.Bytes.of(r.data())).isEqualTo(content);
        r.release();
    }

    @Test
    void headerDigestErrorCloses() {
        login(IscsiSettings.defaults(), "HeaderDigest", "CRC32C", "DataDigest", "None");
        ByteBuf wire = Harness.frame(new NopOut(true, 0, 1, Bhs.RESERVED_TAG, h.cmdSN, 0, Unpooled.EMPTY_BUFFER),
                Digest.CRC32C, Digest.NONE);
        wire.setByte(Bhs.LENGTH, wire.getByte(Bhs.LENGTH) ^ 0x01);
        h.channel.writeInbound(wire);
        assertThat(h.receive()).isNull();
        assertThat(h.open()).isFalse();
    }

    @Test
    void dataDigestErrorOnDataOutRejectsAndFailsTheTask() {
        login(IscsiSettings.defaults(), "HeaderDigest", "None", "DataDigest", "CRC32C", "ImmediateData", "No");
        h.send(h.command(Harness.write10(0, 1), false, true, 512, Unpooled.EMPTY_BUFFER, true));
        R2t r2t = h.expect(R2t.class);
        ByteBuf wire = Harness.frame(new DataOut(true, 0, r2t.itt(), r2t.ttt(), 0, 0, 0,
                Unpooled.wrappedBuffer(new byte[512])), Digest.NONE, Digest.CRC32C);
        wire.setByte(wire.writerIndex() - 1, wire.getByte(wire.writerIndex() - 1) ^ 0x10);
        h.channel.writeInbound(wire);
        Reject reject = h.expect(Reject.class);
        assertThat(reject.reason()).isEqualTo(RejectReason.DATA_DIGEST_ERROR);
        reject.release();
        Harness.assertCheckCondition(h.expect(ScsiResponse.class), 0x0b, 0x47);
        assertThat(h.open()).isTrue();
    }

    @Test
    void dataDigestErrorOnADataOutWithoutTheFBitFailsTheTaskOnlyAfterTheLastOne() {
        login(IscsiSettings.defaults(), "HeaderDigest", "None", "DataDigest", "CRC32C", "ImmediateData", "No");
        h.send(h.command(Harness.write10(0, 2), false, true, 1024, Unpooled.EMPTY_BUFFER, true));
        R2t r2t = h.expect(R2t.class);
        ByteBuf wire = Harness.frame(new DataOut(false, 0, r2t.itt(), r2t.ttt(), 0, 0, 0,
                Unpooled.wrappedBuffer(new byte[512])), Digest.NONE, Digest.CRC32C);
        wire.setByte(wire.writerIndex() - 1, wire.getByte(wire.writerIndex() - 1) ^ 0x10);
        h.channel.writeInbound(wire);
        Reject reject = h.expect(Reject.class);
        assertThat(reject.reason()).isEqualTo(RejectReason.DATA_DIGEST_ERROR);
        reject.release();
        // §7.8 option b: "it MUST wait to receive all the data" before the SCSI Response
        assertThat(h.receive()).isNull();
        h.dataDigest = Digest.CRC32C;
        h.send(new DataOut(true, 0, r2t.itt(), r2t.ttt(), 0, 1, 512, Unpooled.wrappedBuffer(new byte[512])));
        Harness.assertCheckCondition(h.expect(ScsiResponse.class), 0x0b, 0x47);
        assertThat(target.events()).doesNotContain("op 2a");
        assertThat(h.open()).isTrue();
    }

    @Test
    void discoverySessionListsTargetsAndRefusesScsi() {
        h = new Harness(Harness.transport(IscsiSettings.defaults().withPortals(java.util.List.of("0.0.0.0:3260",
                "192.0.2.7:3260")), target, new RamTestTarget("iqn.2026-11.io.blocktarget:other", 512, 8)));
        h.send(h.loginRequest(true, LoginStage.SECURITY_NEGOTIATION, LoginStage.FULL_FEATURE_PHASE,
                TextParameters.of("InitiatorName", INITIATOR, "SessionType", "Discovery", "AuthMethod", "None",
                        "MaxBurstLength", "4096")));
        LoginResponse login = h.expect(LoginResponse.class);
        assertThat(login.tsih()).isNotZero();
        assertThat(Harness.keys(login).get("MaxBurstLength")).contains("Irrelevant");
        login.release();
        h.send(new TextRequest(true, true, false, 0, 0x20, Bhs.RESERVED_TAG, h.cmdSN, 0,
                Harness.text(TextParameters.of("SendTargets", "All"))));
        TextResponse text = h.expect(TextResponse.class);
        assertThat(text.finalBit()).isTrue();
        assertThat(Harness.ascii(text.data())).isEqualTo(
                "TargetName=iqn.2026-11.io.blocktarget:other\0TargetAddress=127.0.0.1:3260,1\0"
                        + "TargetAddress=192.0.2.7:3260,1\0"
                        + "TargetName=iqn.2026-11.io.blocktarget:test\0TargetAddress=127.0.0.1:3260,1\0"
                        + "TargetAddress=192.0.2.7:3260,1\0");
        text.release();
        h.send(h.command(new byte[6], false, false, 0, Unpooled.EMPTY_BUFFER, true));
        Reject reject = h.expect(Reject.class);
        assertThat(reject.reason()).isEqualTo(RejectReason.PROTOCOL_ERROR);
        reject.release();
    }

    @Test
    void longSendTargetsAnswerIsContinuedWithTheCBit() {
        java.util.List<RamTestTarget> many = new java.util.ArrayList<>();
        for (int i = 0; i < 20; i++) {
            many.add(new RamTestTarget("iqn.2026-11.io.blocktarget:a-rather-long-target-name-number-" + i, 512, 1));
        }
        many.add(target);
        h = new Harness(Harness.transport(IscsiSettings.defaults(), many.toArray(RamTestTarget[]::new)));
        h.send(h.loginRequest(true, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION, LoginStage.FULL_FEATURE_PHASE,
                TextParameters.of("InitiatorName", INITIATOR, "SessionType", "Discovery",
                        "MaxRecvDataSegmentLength", "512")));
        h.expect(LoginResponse.class).release();
        h.send(new TextRequest(true, true, false, 0, 0x21, Bhs.RESERVED_TAG, h.cmdSN, 0,
                Harness.text(TextParameters.of("SendTargets", "All"))));
        StringBuilder all = new StringBuilder();
        int parts = 0;
        while (true) {
            TextResponse part = h.expect(TextResponse.class);
            parts++;
            assertThat(part.data().readableBytes()).isLessThanOrEqualTo(512);
            all.append(Harness.ascii(part.data()));
            boolean last = part.finalBit();
            int ttt = part.ttt();
            part.release();
            if (last) {
                assertThat(ttt).isEqualTo(Bhs.RESERVED_TAG);
                break;
            }
            assertThat(ttt).isNotEqualTo(Bhs.RESERVED_TAG);
            h.send(new TextRequest(true, true, false, 0, 0x21, ttt, h.cmdSN, 0, Unpooled.EMPTY_BUFFER));
        }
        assertThat(parts).isGreaterThan(3);
        assertThat(all.toString().split("\0")).hasSize(42).contains("TargetName=" + TARGET);
    }

    @Test
    void framingSurvivesOneByteAtATime() {
        h = new Harness(Harness.transport(IscsiSettings.defaults(), target));
        ByteBuf wire = Harness.frame(h.loginRequest(true, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION,
                LoginStage.FULL_FEATURE_PHASE, TextParameters.of("InitiatorName", INITIATOR, "TargetName", TARGET)),
                Digest.NONE, Digest.NONE);
        while (wire.isReadable()) {
            h.channel.writeInbound(wire.readRetainedSlice(1));
        }
        wire.release();
        LoginResponse r = h.expect(LoginResponse.class);
        assertThat(r.tsih()).isNotZero();
        r.release();
    }
}
