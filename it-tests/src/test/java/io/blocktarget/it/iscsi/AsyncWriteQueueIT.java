package io.blocktarget.it.iscsi;

import io.blocktarget.protocol.iscsi.ResidualFlag;
import io.blocktarget.transport.iscsi.IscsiSettings;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.ByteBuffer;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A queue of asynchronous writes on one session, the way libiscsi's test_async_write issues them: 1000 WRITE(10)s
 * of 32 KiB to a 4 KiB LUN, each sent as soon as the CmdSN window allows, with the negotiated ImmediateData /
 * FirstBurstLength, then the initiator waits for all. Every one must end GOOD, and the data must be on the LUN.
 */
@Tag("loopback")
class AsyncWriteQueueIT {
    private static final String FILE = LoopbackTarget.FILE_TARGET;
    private static final int WRITES = 1000;
    private static final int BLOCKS = 8;
    private static LoopbackTarget server;
    private static long nextIsid = 0x400000010001L;

    @BeforeAll
    static void start() throws Exception {
        server = new LoopbackTarget(IscsiSettings.defaults());
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    static byte[] write10(long lba, int blocks) {
        return ByteBuffer.allocate(10).put((byte) 0x2a).put((byte) 0).putInt((int) lba).put((byte) 0)
                .putShort((short) blocks).put((byte) 0).array();
    }

    /**
     * What the reported failure was on the wire (libiscsi 1.19 iscsi-test-cu SCSI.Write10 Async against a 4 KiB LUN,
     * captured through a logging proxy): test_async_write computes its transfer with a fixed 512-byte block size, so
     * each WRITE(10) asks for 8 blocks (32 KiB on this LUN) but declares an Expected Data Transfer Length of 4096 and
     * sends 4096 bytes of immediate data. Before the write-residual fix every one of them ended in CHECK CONDITION,
     * INVALID FIELD IN COMMAND INFORMATION UNIT. RFC 7143 §11.4.5.1 / SAM-5 §5.4.3: the target transfers what both
     * allow — the one whole block that arrived — and answers GOOD with Residual Overflow, residual 28672.
     */
    @org.junit.jupiter.api.Test
    void libiscsiAsyncWritesWithAShortExpectedLengthAllEndGoodWithTheOverflowResidual() throws Exception {
        try (IscsiTestInitiator i = IscsiTestInitiator.connect(server.address(), nextIsid++)) {
            i.login("iqn.2026-11.io.blocktarget:ram-4096", null, "InitialR2T", "No", "ImmediateData", "Yes",
                    "FirstBurstLength", "262144", "MaxBurstLength", "262144");
            i.clearUnitAttention();
            byte[] data = IscsiLoopbackIT.pattern(4096, 79);
            IscsiTestInitiator.Result[] results = i.pipelinedWrites(WRITES, n -> write10((long) n * BLOCKS, BLOCKS),
                    data);
            for (int n = 0; n < WRITES; n++) {
                assertThat(results[n].status()).as("write %d", n).isZero();
                assertThat(results[n].residual()).as("write %d", n).isEqualTo(ResidualFlag.OVERFLOW);
                assertThat(results[n].residualCount()).as("write %d", n).isEqualTo(BLOCKS * 4096 - 4096);
            }
            IscsiTestInitiator.Result r = i.command(0, IscsiLoopbackIT.rw16(false, (WRITES - 1) * BLOCKS, 1),
                    4096, null);
            assertThat(r.status()).isZero();
            assertThat(Arrays.equals(r.data(), data)).as("the block that arrived is on the LUN").isTrue();
            i.logout();
        }
    }

    /**
     * The other way a queue of writes fails, also seen with test_async_write: it writes LBAs 0 .. 7999 and its guard
     * against a small LUN never fires for iSCSI devices (libiscsi issue #479). Writes past the last LBA must end in
     * ILLEGAL REQUEST, LOGICAL BLOCK ADDRESS OUT OF RANGE (SBC-4 §4.5); every write inside the capacity is GOOD.
     */
    @org.junit.jupiter.api.Test
    void onALunSmallerThanTheQueueWritesPastTheEndAreLbaOutOfRangeAndTheRestGood() throws Exception {
        try (IscsiTestInitiator i = IscsiTestInitiator.connect(server.address(), nextIsid++)) {
            i.login(LoopbackTarget.SMALL_TARGET, null, "InitialR2T", "No", "ImmediateData", "Yes",
                    "FirstBurstLength", "262144", "MaxBurstLength", "262144");
            i.clearUnitAttention();
            long blocks = LoopbackTarget.SMALL_LUN_BYTES / 4096;
            byte[] data = IscsiLoopbackIT.pattern(BLOCKS * 4096, 78);
            IscsiTestInitiator.Result[] results = i.pipelinedWrites(WRITES, n -> write10((long) n * BLOCKS, BLOCKS),
                    data);
            for (int n = 0; n < WRITES; n++) {
                IscsiTestInitiator.Result r = results[n];
                if ((long) (n + 1) * BLOCKS <= blocks) {
                    assertThat(r.status()).as("write %d inside the capacity", n).isZero();
                } else {
                    assertThat(r.status()).as("write %d past the end", n).isEqualTo(0x02);
                    // fixed-format sense: key in byte 2, ASC / ASCQ in bytes 12-13
                    assertThat(new int[] {r.sense()[2] & 0x0f, r.sense()[12] & 0xff, r.sense()[13]})
                            .containsExactly(0x05, 0x21, 0x00);
                }
            }
            i.logout();
        }
    }

    @ParameterizedTest(name = "{0} InitialR2T={1} ImmediateData={2} FirstBurstLength={3}")
    @CsvSource({
            // libiscsi's offers: InitialR2T=No, ImmediateData=Yes, FirstBurstLength = MaxBurstLength = 256 KiB
            "iqn.2026-11.io.blocktarget:ram-4096, No, Yes, 262144,",
            FILE + ", No, Yes, 262144,",
            "iqn.2026-11.io.blocktarget:ram-4096, Yes, Yes, 8192,",
            FILE + ", Yes, Yes, 8192,",
            "iqn.2026-11.io.blocktarget:ram-4096, No, Yes, 8192,",
            FILE + ", No, Yes, 8192,",
            "iqn.2026-11.io.blocktarget:ram-4096, No, No, 16384,",
            FILE + ", Yes, No, 16384,",
            "iqn.2026-11.io.blocktarget:ram-4096, No, Yes, 262144, CRC32C",
            FILE + ", No, Yes, 262144, CRC32C",
            "iqn.2026-11.io.blocktarget:ram-4096, Yes, Yes, 8192, CRC32C",
    })
    void thousandQueuedWritesAllSucceed(String target, String initialR2T, String immediateData, String firstBurst,
                                        String digest) throws Exception {
        String digests = digest == null ? "None" : digest;
        try (IscsiTestInitiator i = IscsiTestInitiator.connect(server.address(), nextIsid++)) {
            i.login(target, null, "InitialR2T", initialR2T, "ImmediateData", immediateData, "FirstBurstLength",
                    firstBurst, "MaxBurstLength", "262144", "HeaderDigest", digests, "DataDigest", digests);
            i.clearUnitAttention();
            byte[] data = IscsiLoopbackIT.pattern(BLOCKS * 4096, 77);
            IscsiTestInitiator.Result[] results = i.pipelinedWrites(WRITES, n -> write10((long) n * BLOCKS, BLOCKS),
                    data);
            assertThat(Arrays.stream(results).mapToInt(IscsiTestInitiator.Result::status).toArray())
                    .as("status of each write").isEqualTo(new int[WRITES]);
            IscsiTestInitiator.Result r = i.command(0, IscsiLoopbackIT.rw16(false, (WRITES - 1) * BLOCKS, BLOCKS),
                    data.length, null);
            assertThat(r.status()).isZero();
            assertThat(Arrays.equals(r.data(), data)).isTrue();
            i.logout();
        }
    }
}
