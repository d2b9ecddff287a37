package io.blocktarget.it.iscsi;

import io.blocktarget.protocol.iscsi.Bhs;
import io.blocktarget.protocol.iscsi.LoginStatus;
import io.blocktarget.protocol.iscsi.ResidualFlag;
import io.blocktarget.protocol.iscsi.TmfFunction;
import io.blocktarget.protocol.iscsi.TmfResponse;
import io.blocktarget.transport.iscsi.Chap;
import io.blocktarget.transport.iscsi.IscsiSettings;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static io.blocktarget.it.iscsi.LoopbackTarget.targetName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The iSCSI transport over loopback with the Java test initiator and the real SCSI device server on RAM LUNs. */
@Tag("loopback")
class IscsiLoopbackIT {
    private static final String CHAP_TARGET = targetName(2048);
    private static LoopbackTarget server;
    private static long nextIsid = 0x400000000001L;

    @BeforeAll
    static void start() throws Exception {
        server = new LoopbackTarget(IscsiSettings.defaults()
                .withChap(Map.of(CHAP_TARGET, Chap.mutual("java-user", "java-secret-123", "target-user",
                        "target-secret-456"))));
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    private static synchronized IscsiTestInitiator connect() throws Exception {
        return IscsiTestInitiator.connect(server.address(), nextIsid++);
    }

    private static IscsiTestInitiator session(int lbs, String... keys) throws Exception {
        IscsiTestInitiator i = connect();
        i.login(targetName(lbs), null, keys);
        i.clearUnitAttention();
        return i;
    }

    static byte[] readCapacity16() {
        byte[] cdb = new byte[16];
        cdb[0] = (byte) 0x9e;
        cdb[1] = 0x10;
        cdb[13] = 32;
        return cdb;
    }

    static byte[] rw16(boolean write, long lba, int blocks) {
        ByteBuffer b = ByteBuffer.allocate(16);
        b.put((byte) (write ? 0x8a : 0x88)).put((byte) 0).putLong(lba).putInt(blocks).put((byte) 0).put((byte) 0);
        return b.array();
    }

    static byte[] pattern(int length, long seed) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static void writeAndReadBack(IscsiTestInitiator i, int lbs, long lba, int bytes, long seed)
            throws Exception {
        byte[] data = pattern(bytes, seed);
        IscsiTestInitiator.Result w = i.command(0, rw16(true, lba, bytes / lbs), 0, data);
        assertThat(w.status()).as("write status, sense %s", java.util.HexFormat.of().formatHex(w.sense())).isZero();
        IscsiTestInitiator.Result r = i.command(0, rw16(false, lba, bytes / lbs), bytes, null);
        assertThat(r.status()).isZero();
        assertThat(r.data()).isEqualTo(data);
    }

    @Test
    void discoveryListsEveryTargetWithItsPortal() throws Exception {
        try (IscsiTestInitiator i = connect()) {
            i.login(null, null);
            String all = i.sendTargets("All");
            for (int lbs : LoopbackTarget.BLOCK_SIZES) {
                assertThat(all).contains("TargetName=" + targetName(lbs) + "\nTargetAddress=127.0.0.1:"
                        + server.address().getPort() + ",1\n");
            }
            assertThat(i.sendTargets(targetName(4096))).isEqualTo("TargetName=" + targetName(4096)
                    + "\nTargetAddress=127.0.0.1:" + server.address().getPort() + ",1\n");
            i.logout();
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {512, 1024, 2048, 4096, 8192, 16384, 32768, 65536})
    void readCapacityAtEveryLogicalBlockSize(int lbs) throws Exception {
        IscsiTestInitiator.ChapSecrets chap = lbs == 2048 ? new IscsiTestInitiator.ChapSecrets("java-user",
                "java-secret-123", "target-user", "target-secret-456") : null;
        try (IscsiTestInitiator i = connect()) {
            i.login(targetName(lbs), chap);
            i.clearUnitAttention();
            IscsiTestInitiator.Result r = i.command(0, readCapacity16(), 32, null);
            assertThat(r.status()).isZero();
            ByteBuffer b = ByteBuffer.wrap(r.data());
            assertThat(b.getLong(0)).isEqualTo(LoopbackTarget.LUN_BYTES / lbs - 1);
            assertThat(b.getInt(8)).isEqualTo(lbs);
            i.logout();
        }
    }

    @Test
    void patternsCrossingPduAndBurstBoundaries() throws Exception {
        try (IscsiTestInitiator i = session(4096, "MaxBurstLength", "65536", "FirstBurstLength", "16384")) {
            assertThat(i.negotiated()).containsEntry("MaxBurstLength", "65536");
            writeAndReadBack(i, 4096, 3, 1024 * 1024 + 3 * 4096, 1);
            writeAndReadBack(i, 4096, 1000, 4096, 2);
            writeAndReadBack(i, 4096, 7, 20 * 4096, 3);
            i.logout();
        }
        try (IscsiTestInitiator i = session(65536, "MaxBurstLength", "131072", "FirstBurstLength", "65536")) {
            writeAndReadBack(i, 65536, 5, 16 * 65536, 4);
            i.logout();
        }
    }

    @Test
    void fileBackendCompletionsHopBackToTheConnection() throws Exception {
        try (IscsiTestInitiator i = connect()) {
            i.login(LoopbackTarget.FILE_TARGET, null, "MaxBurstLength", "65536");
            i.clearUnitAttention();
            for (int round = 0; round < 4; round++) {
                writeAndReadBack(i, 4096, round * 700L, 512 * 1024 + round * 4096, 20 + round);
            }
            i.logout();
        }
    }

    @Test
    void immediateDataNoAndInitialR2tYes() throws Exception {
        try (IscsiTestInitiator i = session(512, "ImmediateData", "No", "InitialR2T", "Yes")) {
            assertThat(i.negotiated()).containsEntry("ImmediateData", "No").containsEntry("InitialR2T", "Yes");
            writeAndReadBack(i, 512, 17, 300 * 512, 5);
            i.logout();
        }
    }

    @Test
    void unsolicitedDataOutWithInitialR2tNo() throws Exception {
        try (IscsiTestInitiator i = session(8192, "ImmediateData", "Yes", "InitialR2T", "No",
                "FirstBurstLength", "131072")) {
            assertThat(i.negotiated()).containsEntry("InitialR2T", "No");
            writeAndReadBack(i, 8192, 0, 64 * 8192, 6);
            i.logout();
        }
    }

    @Test
    void digestsOn() throws Exception {
        try (IscsiTestInitiator i = session(16384, "HeaderDigest", "CRC32C", "DataDigest", "CRC32C")) {
            assertThat(i.negotiated()).containsEntry("HeaderDigest", "CRC32C").containsEntry("DataDigest", "CRC32C");
            writeAndReadBack(i, 16384, 9, 40 * 16384, 7);
            assertThat(i.ping(new byte[] {9, 8, 7})).containsExactly(9, 8, 7);
            i.logout();
        }
    }

    @Test
    void residualWhenTheInitiatorExpectsMore() throws Exception {
        try (IscsiTestInitiator i = session(512)) {
            IscsiTestInitiator.Result r = i.command(0, rw16(false, 0, 2), 4096, null);
            assertThat(r.status()).isZero();
            assertThat(r.data()).hasSize(1024);
            assertThat(r.residual()).isEqualTo(ResidualFlag.UNDERFLOW);
            assertThat(r.residualCount()).isEqualTo(3072);
            i.logout();
        }
    }

    @Test
    void abortOfATaskWaitingForData() throws Exception {
        try (IscsiTestInitiator i = session(4096, "ImmediateData", "No", "InitialR2T", "Yes")) {
            int refCmdSN = i.cmdSN();
            int task = i.startCommand(0, rw16(true, 0, 4), 16384, true);
            assertThat(i.taskManagement(TmfFunction.ABORT_TASK, 0, task, refCmdSN))
                    .isEqualTo(TmfResponse.FUNCTION_COMPLETE);
            assertThat(i.taskManagement(TmfFunction.ABORT_TASK, 0, 0x7654, i.cmdSN() + 3))
                    .isEqualTo(TmfResponse.TASK_DOES_NOT_EXIST);
            assertThat(i.taskManagement(TmfFunction.LOGICAL_UNIT_RESET, 0, Bhs.RESERVED_TAG, 0))
                    .isEqualTo(TmfResponse.FUNCTION_COMPLETE);
            // After a LUN reset SPC reports a unit attention once; then the session works as before.
            i.clearUnitAttention();
            writeAndReadBack(i, 4096, 0, 4 * 4096, 8);
            i.logout();
        }
    }

    @Test
    void chapWrongSecretIsRefusedAndOtherSessionsCarryOn() throws Exception {
        try (IscsiTestInitiator good = connect()) {
            good.login(CHAP_TARGET, new IscsiTestInitiator.ChapSecrets("java-user", "java-secret-123", null, null));
            good.clearUnitAttention();
            try (IscsiTestInitiator bad = connect()) {
                assertThatThrownBy(() -> bad.login(CHAP_TARGET, new IscsiTestInitiator.ChapSecrets("java-user",
                        "not-the-secret", null, null)))
                        .isInstanceOfSatisfying(IscsiTestInitiator.LoginRefused.class,
                                e -> assertThat(e.status).isEqualTo(LoginStatus.AUTHENTICATION_FAILURE));
                assertThat(bad.closedByTarget()).isTrue();
            }
            try (IscsiTestInitiator none = connect()) {
                assertThatThrownBy(() -> none.login(CHAP_TARGET, null))
                        .isInstanceOfSatisfying(IscsiTestInitiator.LoginRefused.class,
                                e -> assertThat(e.status).isEqualTo(LoginStatus.AUTHENTICATION_FAILURE));
            }
            good.clearUnitAttention();
            writeAndReadBack(good, 2048, 1, 8 * 2048, 9);
            good.logout();
        }
    }

    @Test
    void unknownTargetIsNotFound() throws Exception {
        try (IscsiTestInitiator i = connect()) {
            assertThatThrownBy(() -> i.login("iqn.2026-11.io.blocktarget:missing", null))
                    .isInstanceOfSatisfying(IscsiTestInitiator.LoginRefused.class,
                            e -> assertThat(e.status).isEqualTo(LoginStatus.NOT_FOUND));
        }
    }

    @Test
    void manyConcurrentSessions() throws Exception {
        int sessions = 24;
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> results = new ArrayList<>();
            for (int s = 0; s < sessions; s++) {
                int n = s;
                results.add(pool.submit(() -> {
                    int lbs = n % 2 == 0 ? 4096 : 512;
                    try (IscsiTestInitiator i = session(lbs, "MaxBurstLength", "32768")) {
                        for (int round = 0; round < 3; round++) {
                            writeAndReadBack(i, lbs, 2000L + n * 64L, 64 * 512, n * 10L + round);
                        }
                        i.logout();
                    }
                    return null;
                }));
            }
            for (Future<?> f : results) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void malformedPdusAndGarbageLeaveOtherSessionsAlone() throws Exception {
        try (IscsiTestInitiator bystander = session(4096)) {
            try (IscsiTestInitiator garbage = connect()) {
                garbage.sendRaw(pattern(10000, 99));
                assertThat(garbage.closedByTarget()).isTrue();
            }
            try (IscsiTestInitiator loggedInGarbage = session(512)) {
                loggedInGarbage.sendRaw(pattern(5000, 98));
                assertThat(loggedInGarbage.closedByTarget()).isTrue();
            }
            try (IscsiTestInitiator rejected = session(512)) {
                byte[] bhs = new byte[Bhs.LENGTH];
                bhs[0] = 0x1c; // reserved opcode: Reject, the connection stays
                rejected.sendRaw(bhs);
                assertThat(rejected.expectReject()).isEqualTo(0x05);
                writeAndReadBack(rejected, 512, 0, 4096, 10);
                byte[] huge = new byte[Bhs.LENGTH];
                huge[0] = 0x05;
                huge[5] = (byte) 0xff; // DataSegmentLength ~16 MiB: closed before anything is buffered
                rejected.sendRaw(huge);
                assertThat(rejected.closedByTarget()).isTrue();
            }
            writeAndReadBack(bystander, 4096, 50, 8 * 4096, 11);
            bystander.logout();
        }
        try (IscsiTestInitiator after = session(1024)) {
            writeAndReadBack(after, 1024, 0, 4096, 12);
            after.logout();
        }
    }

    @Test
    void logoutClosesTheConnection() throws Exception {
        try (IscsiTestInitiator i = session(32768)) {
            i.logout();
            assertThat(i.closedByTarget()).isTrue();
        }
    }
}
