package io.blocktarget.nvme;

import io.blocktarget.nvme.TestSupport.Reply;
import io.blocktarget.nvme.TestSupport.TestConnection;
import io.blocktarget.protocol.nvme.ControllerRegister;
import io.blocktarget.protocol.nvme.Dhchap;
import io.blocktarget.protocol.nvme.FabricsCommandType;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.security.KeyPair;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * DH-HMAC-CHAP on the controller (NVMe Base 2.2 §8.3.4; message flow as Linux nvmet's fabrics-cmd-auth.c): a Java
 * host built from the spec's formulas (and the vectors of DhchapCryptoTest) authenticates through Authentication
 * Send / Receive on the admin and I/O queues; every failure answers AUTH_Failure1 with the spec's reason code
 * explanation and leaves the queue unusable (Authentication Required).
 */
class AuthenticationTest {
    static final String NQN = DhchapCryptoTest.SUBSYSTEM;
    static final String HOST = TestSupport.HOST_NQN;
    static final DhchapKeys.Key HOST_KEY = new DhchapKeys.Key(1, bytes(0x10, 32));
    static final DhchapKeys.Key CTRL_KEY = new DhchapKeys.Key(3, bytes(0x70, 64));
    static final DhchapKeys.Key WRONG_KEY = new DhchapKeys.Key(1, bytes(0x11, 32));

    private final NvmeSubsystems target = NvmeSubsystems.of(List.of(
                    new NamespaceSpec(NQN, 1, "a", TestSupport.ram("a", 512, 512, 64))),
            List.of(), NvmeLimits.DEFAULT, new ManualClock(), Map.of());

    AuthenticationTest() {
        target.dhchap(NQN, Optional.of(new DhchapKeys(HOST_KEY, Optional.of(CTRL_KEY))));
    }

    static byte[] bytes(int from, int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (from + i);
        }
        return b;
    }

    // ---- a host, from the spec ---------------------------------------------------------------------------------

    private int cid;

    private Reply send(NvmeQueue queue, byte[] message) {
        Sqe sqe = new Sqe(Sqe.OPCODE_FABRICS, 0, Sqe.PSDT_SGL_MPTR_ADDRESS, ++cid,
                FabricsCommandType.AUTHENTICATION_SEND.code(), 0, 0, 0, SglDescriptor.inCapsule(0, message.length),
                Dhchap.cdw10(), message.length, 0, 0, 0, 0);
        return TestSupport.submit(queue, sqe, Unpooled.wrappedBuffer(message));
    }

    private Reply receiveRaw(NvmeQueue queue, int cdw10, int al) {
        Sqe sqe = new Sqe(Sqe.OPCODE_FABRICS, 0, Sqe.PSDT_SGL_MPTR_ADDRESS, ++cid,
                FabricsCommandType.AUTHENTICATION_RECEIVE.code(), 0, 0, 0, SglDescriptor.transportDataBlock(al),
                cdw10, al, 0, 0, 0, 0);
        return TestSupport.submit(queue, sqe, null);
    }

    private byte[] receive(NvmeQueue queue) {
        Reply r = receiveRaw(queue, Dhchap.cdw10(), 4096);
        assertThat(r.status()).isEqualTo(NvmeStatus.SUCCESS);
        byte[] m = new byte[r.data().readableBytes()];
        r.data().readBytes(m);
        r.release();
        assertThat(m).hasSize(4096);
        return m;
    }

    /** What one transaction ended in, as the host saw it. */
    record Outcome(int authId, int explanation, Dhchap.Challenge challenge, Optional<byte[]> r2) {
    }

    /** A Linux-like host: Negotiate, Challenge, Reply (with C2 when {@code bidirectional}), Success1, Success2. */
    private Outcome authenticate(NvmeQueue queue, int tid, int hash, int group, DhchapKeys.Key hostKey,
                                 boolean bidirectional) {
        return authenticate(queue, HOST, CTRL_KEY, tid, hash, group, hostKey, bidirectional);
    }

    /** As {@code hostNqn}, expecting R2 made with {@code ctrlKey} when {@code bidirectional}. */
    private Outcome authenticate(NvmeQueue queue, String hostNqn, DhchapKeys.Key ctrlKey, int tid, int hash,
                                 int group, DhchapKeys.Key hostKey, boolean bidirectional) {
        assertThat(send(queue, new Dhchap.Negotiate(tid, 0, List.of(hash), List.of(group)).encode()).status())
                .isEqualTo(NvmeStatus.SUCCESS);
        byte[] m = receive(queue);
        if (Dhchap.id(m) == Dhchap.ID_FAILURE1) {
            return new Outcome(Dhchap.ID_FAILURE1, m[7] & 0xFF, null, Optional.empty());
        }
        Dhchap.Challenge challenge;
        try {
            challenge = Dhchap.Challenge.parse(m);
        } catch (Dhchap.Invalid e) {
            throw new AssertionError(e);
        }
        assertThat(challenge.tid()).isEqualTo(tid);
        assertThat(challenge.hashId()).isEqualTo(hash);
        assertThat(challenge.dhGroupId()).isEqualTo(group);
        assertThat(challenge.seqnum()).isNotZero();
        int hl = DhchapCrypto.hashLength(hash);
        assertThat(challenge.c1()).hasSize(hl);
        byte[] c1 = challenge.c1();
        byte[] ours = new byte[0];
        byte[] sessionKey = null;
        if (group != 0) {
            DhchapCrypto.DhGroup g = DhchapCrypto.group(group).orElseThrow();
            assertThat(challenge.dhValue()).hasSize(g.valueLength());
            KeyPair pair = g.generate();
            ours = g.publicValue(pair);
            sessionKey = g.sessionKey(pair, challenge.dhValue()).orElseThrow();
            c1 = DhchapCrypto.augmentedChallenge(hash, sessionKey, c1);
        } else {
            assertThat(challenge.dhValue()).isEmpty();
        }
        byte[] r1 = DhchapCrypto.hostResponse(hash, DhchapCrypto.transformKey(hostKey, hostNqn), c1,
                challenge.seqnum(), tid, hostNqn, NQN);
        byte[] c2 = bidirectional ? DhchapCrypto.random(hl) : new byte[hl];
        int s2 = bidirectional ? 0x5A5A0001 : 0;
        assertThat(send(queue, new Dhchap.Reply(tid, bidirectional, s2, r1, c2, ours).encode()).status())
                .isEqualTo(NvmeStatus.SUCCESS);
        m = receive(queue);
        if (Dhchap.id(m) == Dhchap.ID_FAILURE1) {
            return new Outcome(Dhchap.ID_FAILURE1, m[7] & 0xFF, challenge, Optional.empty());
        }
        Dhchap.Success1 success1;
        try {
            success1 = Dhchap.Success1.parse(m);
        } catch (Dhchap.Invalid e) {
            throw new AssertionError(e);
        }
        assertThat(success1.tid()).isEqualTo(tid);
        assertThat(success1.hl()).isEqualTo(hl);
        if (bidirectional) {
            byte[] challenge2 = sessionKey == null ? c2 : DhchapCrypto.augmentedChallenge(hash, sessionKey, c2);
            byte[] expected = DhchapCrypto.controllerResponse(hash, DhchapCrypto.transformKey(ctrlKey, NQN),
                    challenge2, s2, tid, NQN, hostNqn);
            assertThat(success1.r2()).as("R2").hasValueSatisfying(r2 -> assertThat(r2).isEqualTo(expected));
            assertThat(send(queue, Dhchap.success2(tid)).status()).isEqualTo(NvmeStatus.SUCCESS);
        } else {
            assertThat(success1.r2()).isEmpty();
        }
        return new Outcome(Dhchap.ID_SUCCESS1, 0, challenge, success1.r2());
    }

    private TestHost connected() {
        TestHost host = TestHost.connect(target, NQN, 0);
        return host;
    }

    /** Every hash with the null group and ffdhe2048..4096 (the quick tier). */
    static List<int[]> everyHashAndGroup() {
        return hashesWithGroups(0, 3);
    }

    /** Every hash with ffdhe6144 and ffdhe8192: seconds of key generation each (the stress tier). */
    static List<int[]> everyHashAndLargeGroup() {
        return hashesWithGroups(4, 5);
    }

    private static List<int[]> hashesWithGroups(int firstGroup, int lastGroup) {
        List<int[]> all = new ArrayList<>();
        for (int hash = 1; hash <= 3; hash++) {
            for (int group = firstGroup; group <= lastGroup; group++) {
                all.add(new int[] {hash, group});
            }
        }
        return all;
    }

    // ---- the tests ---------------------------------------------------------------------------------------------

    @Test
    void connectSaysAuthenticationIsRequiredAndOtherCommandsWaitForIt() {
        TestSupport.TestConnection connection = new TestConnection();
        var result = TestSupport.connect(target, 0, 31, 0, 0xFFFF, NQN, HOST, connection);
        assertThat(result.status()).isEqualTo(NvmeStatus.SUCCESS);
        // Connect response DW0: CNTLID in 15:0, AUTHREQ.ATR (bit 17) set.
        assertThat(result.dw0() & 0xFFFF).isEqualTo(result.queue().cntlid());
        assertThat(result.dw0() & ~0xFFFF).isEqualTo(Dhchap.CONNECT_ATR).isEqualTo(0x20000);
        TestHost host = new TestHostView(target, result.queue()).host;
        assertThat(host.property(FabricsCommandType.PROPERTY_GET, ControllerRegister.CAP, 0).status())
                .isEqualTo(NvmeStatus.AUTHENTICATION_REQUIRED);
        assertThat(NvmeStatus.AUTHENTICATION_REQUIRED.dnr()).isTrue();
    }

    @ParameterizedTest
    @MethodSource("everyHashAndGroup")
    void everyHashAndGroupAuthenticatesBothWays(int[] hashAndGroup) {
        authenticatesBothWays(hashAndGroup);
    }

    @ParameterizedTest
    @MethodSource("everyHashAndLargeGroup")
    @Tag("stress")
    void everyHashAndLargeGroupAuthenticatesBothWays(int[] hashAndGroup) {
        authenticatesBothWays(hashAndGroup);
    }

    private void authenticatesBothWays(int[] hashAndGroup) {
        TestHost host = connected();
        Outcome o = authenticate(host.admin, 7, hashAndGroup[0], hashAndGroup[1], HOST_KEY, true);
        assertThat(o.authId()).isEqualTo(Dhchap.ID_SUCCESS1);
        assertThat(host.propertySet(ControllerRegister.CC, TestHost.CC_ENABLE)).isEqualTo(NvmeStatus.SUCCESS);
    }

    @Test
    void unidirectionalNeedsNoControllerKey() {
        target.dhchap(NQN, Optional.of(new DhchapKeys(HOST_KEY, Optional.empty())));
        TestHost host = connected();
        Outcome o = authenticate(host.admin, 1, DhchapCrypto.SHA256, 1, HOST_KEY, false);
        assertThat(o.authId()).isEqualTo(Dhchap.ID_SUCCESS1);
        assertThat(host.propertySet(ControllerRegister.CC, TestHost.CC_ENABLE)).isEqualTo(NvmeStatus.SUCCESS);
    }

    @Test
    void aWrongHostKeyIsFailure1FailedAndTheQueueStaysLocked() {
        TestHost host = connected();
        Outcome o = authenticate(host.admin, 3, DhchapCrypto.SHA256, 0, WRONG_KEY, false);
        assertThat(o.authId()).isEqualTo(Dhchap.ID_FAILURE1);
        assertThat(o.explanation()).isEqualTo(Dhchap.Failure.FAILED.code());
        assertThat(host.propertySet(ControllerRegister.CC, TestHost.CC_ENABLE))
                .isEqualTo(NvmeStatus.AUTHENTICATION_REQUIRED);
    }

    @Test
    void bidirectionalWithoutAControllerKeyIsFailed() {
        target.dhchap(NQN, Optional.of(new DhchapKeys(HOST_KEY, Optional.empty())));
        TestHost host = connected();
        Outcome o = authenticate(host.admin, 3, DhchapCrypto.SHA256, 0, HOST_KEY, true);
        assertThat(o.authId()).isEqualTo(Dhchap.ID_FAILURE1);
        assertThat(o.explanation()).isEqualTo(Dhchap.Failure.FAILED.code());
    }

    @Test
    void aReplayedReplyFromAnEarlierTransactionDoesNotVerify() {
        TestHost host = connected();
        assertThat(send(host.admin, new Dhchap.Negotiate(9, 0, List.of(1), List.of(0)).encode()).status())
                .isEqualTo(NvmeStatus.SUCCESS);
        Dhchap.Challenge first = parse(receive(host.admin));
        byte[] r1 = DhchapCrypto.hostResponse(1, DhchapCrypto.transformKey(HOST_KEY, HOST), first.c1(),
                first.seqnum(), 9, HOST, NQN);
        byte[] reply = new Dhchap.Reply(9, false, 0, r1, new byte[32], new byte[0]).encode();
        assertThat(send(host.admin, reply).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(Dhchap.id(receive(host.admin))).isEqualTo(Dhchap.ID_SUCCESS1);
        // An eavesdropper replays the same Reply on a new connection: C1 and S1 are new, it cannot verify.
        TestHost other = connected();
        assertThat(send(other.admin, new Dhchap.Negotiate(9, 0, List.of(1), List.of(0)).encode()).status())
                .isEqualTo(NvmeStatus.SUCCESS);
        Dhchap.Challenge second = parse(receive(other.admin));
        assertThat(second.c1()).isNotEqualTo(first.c1());
        assertThat(second.seqnum()).isNotEqualTo(first.seqnum());
        assertThat(send(other.admin, reply).status()).isEqualTo(NvmeStatus.SUCCESS);
        byte[] answer = receive(other.admin);
        assertThat(Dhchap.id(answer)).isEqualTo(Dhchap.ID_FAILURE1);
        assertThat(answer[7]).isEqualTo((byte) Dhchap.Failure.FAILED.code());
    }

    @Test
    void failure1BytesAreTheLinuxLayout() {
        TestHost host = connected();
        assertThat(send(host.admin, new Dhchap.Negotiate(0x1234, 0, List.of(9), List.of(0)).encode()).status())
                .isEqualTo(NvmeStatus.SUCCESS);
        byte[] m = receive(host.admin);
        // auth_type 00h, auth_id F1h, rsvd, t_id LE, rescode 01h, rescode_exp 04h (hash unusable), zero padding.
        assertThat(java.util.Arrays.copyOf(m, 10)).containsExactly(0x00, 0xF1, 0, 0, 0x34, 0x12, 0x01, 0x04, 0, 0);
    }

    @Test
    void reasonCodeExplanations() {
        assertThat(negotiateFails(new Dhchap.Negotiate(1, 0, List.of(7), List.of(0)))).isEqualTo(0x04);
        assertThat(negotiateFails(new Dhchap.Negotiate(1, 0, List.of(1), List.of(6, 7)))).isEqualTo(0x05);
        assertThat(negotiateFails(new Dhchap.Negotiate(1, 1, List.of(1), List.of(0)))).isEqualTo(0x03);
        // A Reply before any Negotiate: incorrect protocol message.
        TestHost host = connected();
        byte[] reply = new Dhchap.Reply(1, false, 0, new byte[32], new byte[32], new byte[0]).encode();
        assertThat(send(host.admin, reply).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(receive(host.admin)[7]).isEqualTo((byte) 0x07);
    }

    private int negotiateFails(Dhchap.Negotiate negotiate) {
        TestHost host = connected();
        assertThat(send(host.admin, negotiate.encode()).status()).isEqualTo(NvmeStatus.SUCCESS);
        byte[] m = receive(host.admin);
        assertThat(Dhchap.id(m)).isEqualTo(Dhchap.ID_FAILURE1);
        return m[7] & 0xFF;
    }

    @Test
    void aReplyWithTheWrongTransactionIdIsIncorrectPayload() {
        TestHost host = connected();
        send(host.admin, new Dhchap.Negotiate(5, 0, List.of(1), List.of(0)).encode());
        Dhchap.Challenge c = parse(receive(host.admin));
        byte[] r1 = DhchapCrypto.hostResponse(1, DhchapCrypto.transformKey(HOST_KEY, HOST), c.c1(), c.seqnum(), 5,
                HOST, NQN);
        send(host.admin, new Dhchap.Reply(6, false, 0, r1, new byte[32], new byte[0]).encode());
        assertThat(receive(host.admin)[7]).isEqualTo((byte) Dhchap.Failure.INCORRECT_PAYLOAD.code());
    }

    @Test
    void aWrongDhValueLengthIsIncorrectPayloadAndADegenerateValueIsDhGroupUnusable() {
        for (byte[] value : List.of(new byte[255], new byte[256])) {
            TestHost host = connected();
            send(host.admin, new Dhchap.Negotiate(5, 0, List.of(1), List.of(1)).encode());
            Dhchap.Challenge c = parse(receive(host.admin));
            send(host.admin, new Dhchap.Reply(5, false, 0, new byte[32], new byte[32], value).encode());
            byte[] m = receive(host.admin);
            assertThat(m[7]).as("value of %d bytes", value.length).isEqualTo((byte) (value.length == 255
                    ? Dhchap.Failure.INCORRECT_PAYLOAD.code() : Dhchap.Failure.DHGROUP_UNUSABLE.code()));
            assertThat(c.dhValue()).hasSize(256);
        }
    }

    @Test
    void theHostRefusingTheControllerWithFailure2LeavesTheQueueLocked() {
        TestHost host = connected();
        send(host.admin, new Dhchap.Negotiate(2, 0, List.of(1), List.of(0)).encode());
        Dhchap.Challenge c = parse(receive(host.admin));
        byte[] r1 = DhchapCrypto.hostResponse(1, DhchapCrypto.transformKey(HOST_KEY, HOST), c.c1(), c.seqnum(), 2,
                HOST, NQN);
        send(host.admin, new Dhchap.Reply(2, true, 77, r1, DhchapCrypto.random(32), new byte[0]).encode());
        assertThat(Dhchap.id(receive(host.admin))).isEqualTo(Dhchap.ID_SUCCESS1);
        send(host.admin, new Dhchap.FailureMessage(Dhchap.ID_FAILURE2, 2, 1, 1).encode());
        assertThat(host.propertySet(ControllerRegister.CC, TestHost.CC_ENABLE))
                .isEqualTo(NvmeStatus.AUTHENTICATION_REQUIRED);
    }

    @Test
    void ioQueuesAuthenticateToo() {
        TestHost host = connected();
        assertThat(authenticate(host.admin, 1, 1, 0, HOST_KEY, false).authId()).isEqualTo(Dhchap.ID_SUCCESS1);
        assertThat(host.propertySet(ControllerRegister.CC, TestHost.CC_ENABLE)).isEqualTo(NvmeStatus.SUCCESS);
        var io = host.tryConnectIo(1, 127, new TestConnection());
        assertThat(io.status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(io.dw0() & Dhchap.CONNECT_ATR).isEqualTo(Dhchap.CONNECT_ATR);
        NvmeQueue queue = io.queue();
        assertThat(host.read(queue, 1, 0, 1, 512).status()).isEqualTo(NvmeStatus.AUTHENTICATION_REQUIRED);
        assertThat(authenticate(queue, 2, 2, 1, HOST_KEY, true).authId()).isEqualTo(Dhchap.ID_SUCCESS1);
        Reply read = host.read(queue, 1, 0, 1, 512);
        assertThat(read.status()).isEqualTo(NvmeStatus.SUCCESS);
        read.release();
    }

    @Test
    void reauthenticationKeepsTheQueueWorkingAndAFailedOneLocksIt() {
        TestHost host = connected();
        assertThat(authenticate(host.admin, 1, 1, 0, HOST_KEY, false).authId()).isEqualTo(Dhchap.ID_SUCCESS1);
        assertThat(host.propertySet(ControllerRegister.CC, TestHost.CC_ENABLE)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(authenticate(host.admin, 2, 3, 2, HOST_KEY, true).authId()).isEqualTo(Dhchap.ID_SUCCESS1);
        assertThat(host.keepAlive().status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(authenticate(host.admin, 3, 1, 0, WRONG_KEY, false).authId()).isEqualTo(Dhchap.ID_FAILURE1);
        assertThat(host.keepAlive().status()).isEqualTo(NvmeStatus.AUTHENTICATION_REQUIRED);
    }

    @Test
    void commandFieldsAreChecked() {
        TestHost host = connected();
        int wrongSecp = 0xEA << 24 | 1 << 16 | 1 << 8;
        assertThat(receiveRaw(host.admin, wrongSecp, 4096).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        assertThat(receiveRaw(host.admin, Dhchap.SECP << 24 | 2 << 16 | 1 << 8, 4096).status())
                .isEqualTo(NvmeStatus.INVALID_FIELD);
        assertThat(receiveRaw(host.admin, Dhchap.cdw10(), 0).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        // A challenge does not fit in 16 bytes: Invalid Field, and the step stays for a retry with room.
        send(host.admin, new Dhchap.Negotiate(4, 0, List.of(1), List.of(0)).encode());
        assertThat(receiveRaw(host.admin, Dhchap.cdw10(), 16).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        assertThat(Dhchap.id(receive(host.admin))).isEqualTo(Dhchap.ID_CHALLENGE);
    }

    @Test
    void aSubsystemWithoutKeysAsksForNothing() {
        target.dhchap(NQN, Optional.empty());
        var result = TestSupport.connect(target, 0, 31, 0, 0xFFFF, NQN, HOST, new TestConnection());
        assertThat(result.dw0()).isEqualTo(result.queue().cntlid());
        TestHost host = new TestHostView(target, result.queue()).host;
        assertThat(host.propertySet(ControllerRegister.CC, TestHost.CC_ENABLE)).isEqualTo(NvmeStatus.SUCCESS);
    }

    // ---- keys per host NQN (issue 14: access.dhchap per host per subsystem) ------------------------------------

    static final String HOST_B = "nqn.2014-08.org.nvmexpress:uuid:0b0b0b0b-2222-4333-8444-555566667777";
    static final String HOST_C = "nqn.2026-12.org.example:host-c";
    static final DhchapKeys.Key HOST_B_KEY = new DhchapKeys.Key(2, bytes(0x30, 48));
    static final DhchapKeys.Key CTRL_B_KEY = new DhchapKeys.Key(0, bytes(0x90, 32));

    /** HOST with HOST_KEY / CTRL_KEY, HOST_B with its own pair, nobody else. */
    private static DhchapKeys perHost(Optional<DhchapKeys.HostKeys> others) {
        Map<String, DhchapKeys.HostKeys> hosts = new java.util.LinkedHashMap<>();
        hosts.put(HOST, new DhchapKeys.HostKeys(HOST_KEY, Optional.of(CTRL_KEY)));
        hosts.put(HOST_B, new DhchapKeys.HostKeys(HOST_B_KEY, Optional.of(CTRL_B_KEY)));
        return new DhchapKeys(hosts, others);
    }

    /** An admin queue connected as {@code hostNqn}; the Connect asks for authentication (ATR). */
    private TestHost connectedAs(String hostNqn) {
        var result = TestSupport.connect(target, 0, 31, 0, 0xFFFF, NQN, hostNqn, new TestConnection());
        assertThat(result.status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(result.dw0() & Dhchap.CONNECT_ATR).isEqualTo(Dhchap.CONNECT_ATR);
        return new TestHostView(target, result.queue()).host;
    }

    @Test
    void eachHostProvesItsOwnKeyAndTheControllerAnswersWithThatHostsKey() {
        target.dhchap(NQN, Optional.of(perHost(Optional.empty())));
        TestHost a = connectedAs(HOST);
        TestHost b = connectedAs(HOST_B);
        assertThat(authenticate(a.admin, HOST, CTRL_KEY, 1, DhchapCrypto.SHA256, 0, HOST_KEY, true).authId())
                .isEqualTo(Dhchap.ID_SUCCESS1);
        // authenticate() checks R2 against CTRL_B_KEY transformed for this subsystem: B's controller key, not A's.
        assertThat(authenticate(b.admin, HOST_B, CTRL_B_KEY, 2, DhchapCrypto.SHA384, 1, HOST_B_KEY, true).authId())
                .isEqualTo(Dhchap.ID_SUCCESS1);
        assertThat(a.propertySet(ControllerRegister.CC, TestHost.CC_ENABLE)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(b.propertySet(ControllerRegister.CC, TestHost.CC_ENABLE)).isEqualTo(NvmeStatus.SUCCESS);
    }

    @Test
    void aHostProvingTheOtherHostsKeyIsRefusedWhileTheFirstHostsIoGoesOn() {
        target.dhchap(NQN, Optional.of(perHost(Optional.empty())));
        TestHost a = connected();
        assertThat(authenticate(a.admin, 1, 1, 0, HOST_KEY, false).authId()).isEqualTo(Dhchap.ID_SUCCESS1);
        assertThat(a.propertySet(ControllerRegister.CC, TestHost.CC_ENABLE)).isEqualTo(NvmeStatus.SUCCESS);
        var io = a.tryConnectIo(1, 127, new TestConnection());
        NvmeQueue queue = io.queue();
        assertThat(authenticate(queue, 2, 1, 0, HOST_KEY, false).authId()).isEqualTo(Dhchap.ID_SUCCESS1);
        // B knows A's key (and A's key transformed with B's NQN is what it sends): not B's key, refused.
        TestHost b = connectedAs(HOST_B);
        Outcome o = authenticate(b.admin, HOST_B, CTRL_B_KEY, 3, DhchapCrypto.SHA256, 0, HOST_KEY, false);
        assertThat(o.authId()).isEqualTo(Dhchap.ID_FAILURE1);
        assertThat(o.explanation()).isEqualTo(Dhchap.Failure.FAILED.code());
        assertThat(b.propertySet(ControllerRegister.CC, TestHost.CC_ENABLE))
                .isEqualTo(NvmeStatus.AUTHENTICATION_REQUIRED);
        Reply read = a.read(queue, 1, 0, 1, 512);
        assertThat(read.status()).isEqualTo(NvmeStatus.SUCCESS);
        read.release();
        assertThat(a.keepAlive().status()).isEqualTo(NvmeStatus.SUCCESS);
    }

    @Test
    void aHostWithoutAKeyGetsAChallengeAndIsRefusedAsAWrongKeyIs() {
        target.dhchap(NQN, Optional.of(perHost(Optional.empty())));
        TestHost c = connectedAs(HOST_C);
        for (DhchapKeys.Key key : List.of(HOST_KEY, HOST_B_KEY)) {
            Outcome o = authenticate(c.admin, HOST_C, CTRL_KEY, 4, DhchapCrypto.SHA256, 1, key, false);
            // The Challenge came (no hint that the NQN has no key), then AUTH_Failure1 01h / 01h.
            assertThat(o.challenge()).isNotNull();
            assertThat(o.authId()).isEqualTo(Dhchap.ID_FAILURE1);
            assertThat(o.explanation()).isEqualTo(Dhchap.Failure.FAILED.code());
        }
        assertThat(c.keepAlive().status()).isEqualTo(NvmeStatus.AUTHENTICATION_REQUIRED);
    }

    @Test
    void theKeyForEveryOtherHostServesHostsNotNamedOnly() {
        DhchapKeys.Key others = new DhchapKeys.Key(3, bytes(0x44, 64));
        target.dhchap(NQN, Optional.of(perHost(Optional.of(new DhchapKeys.HostKeys(others, Optional.empty())))));
        TestHost c = connectedAs(HOST_C);
        assertThat(authenticate(c.admin, HOST_C, CTRL_KEY, 5, DhchapCrypto.SHA512, 0, others, false).authId())
                .isEqualTo(Dhchap.ID_SUCCESS1);
        // No controller key for the other hosts: bidirectional is refused for them.
        assertThat(authenticate(c.admin, HOST_C, CTRL_KEY, 6, DhchapCrypto.SHA512, 0, others, true).explanation())
                .isEqualTo(Dhchap.Failure.FAILED.code());
        // A named host does not fall back to the others' key.
        TestHost b = connectedAs(HOST_B);
        assertThat(authenticate(b.admin, HOST_B, CTRL_B_KEY, 7, DhchapCrypto.SHA256, 0, others, false).authId())
                .isEqualTo(Dhchap.ID_FAILURE1);
    }

    @Test
    void keysChangedForTheSubsystemApplyToTheNextConnect() {
        TestHost before = connectedAs(HOST_B);
        // The subsystem's keys from the constructor: one pair for every host, so B proves HOST_KEY.
        target.dhchap(NQN, Optional.of(perHost(Optional.empty())));
        TestHost after = connectedAs(HOST_B);
        assertThat(authenticate(before.admin, HOST_B, CTRL_KEY, 8, 1, 0, HOST_KEY, false).authId())
                .isEqualTo(Dhchap.ID_SUCCESS1);
        assertThat(authenticate(after.admin, HOST_B, CTRL_B_KEY, 9, 1, 0, HOST_KEY, false).authId())
                .isEqualTo(Dhchap.ID_FAILURE1);
        assertThat(authenticate(after.admin, HOST_B, CTRL_B_KEY, 10, 1, 0, HOST_B_KEY, false).authId())
                .isEqualTo(Dhchap.ID_SUCCESS1);
    }

    private static Dhchap.Challenge parse(byte[] m) {
        try {
            return Dhchap.Challenge.parse(m);
        } catch (Dhchap.Invalid e) {
            throw new AssertionError(e);
        }
    }

    /** A TestHost around an admin queue connected here (TestHost.connect asserts DW0 = CNTLID). */
    private static final class TestHostView {
        final TestHost host;

        TestHostView(NvmeTarget target, NvmeQueue admin) {
            this.host = TestHost.wrap(target, NQN, admin);
        }
    }
}
