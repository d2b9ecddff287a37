package io.blocktarget.nvme;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.fault.FaultBlockDevice;
import io.blocktarget.block.fault.FaultStatus;
import io.blocktarget.block.fault.LunFaults;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.block.trace.TraceRecord;
import io.blocktarget.block.trace.TraceRing;
import io.blocktarget.block.trace.Tracer;
import io.blocktarget.config.ConfigLoader;
import io.blocktarget.nvme.TestSupport.Reply;
import io.blocktarget.protocol.nvme.CqeStatus;
import io.blocktarget.protocol.nvme.NvmOpcode;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.server.FaultRules;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A status rule's {@code nvme-status} reaches the host exactly (issue 11): any SCT / SC pair, named by
 * {@link NvmeStatus} or not, with the DNR, CRD and M the rule chose (NVMe Base 2.x §4.2.3, Figure "Completion Queue
 * Entry: Status Field": bits 15 DNR, 14 M, 13:12 CRD, 11:9 SCT, 8:1 SC of CQE bytes 14..15), and the Error
 * Information log entry (Base §5.16.1.2) carries that Status Field, the first LBA in the rule's range, the NSID,
 * SQID and CID. The rules go through the config reader and {@link FaultRules}, as a LUN file's do.
 */
class RawStatusFaultsNvmeTest {
    private static final String NQN = "nqn.2026-11.io.blocktarget:raw";
    private static final int LBS = 4096;

    private final LunState state = new LunState("raw");
    private final LunFaults faults = state.faults();
    private final BlockDevice device = FaultBlockDevice.wrap(TestSupport.ram("raw", LBS, LBS, 2048), faults);
    private final NvmeSubsystems target = NvmeSubsystems.of(List.of(new NamespaceSpec(NQN, 1, "raw", device, state)),
            List.of(), NvmeLimits.DEFAULT, new ManualClock(), Map.of());
    private final TestHost host = TestHost.enabled(target, NQN);
    private final NvmeQueue io = host.connectIo(1);

    /** What the transport gets: the exact Status Field, and whether it came by {@link NvmeCompletion#completeRaw}. */
    private record Done(CqeStatus status, NvmeStatus reason, boolean raw) {
    }

    @AfterEach
    void tearDown() {
        assertThat(state.inFlight().count()).as("commands still counted in flight").isZero();
        host.admin.close();
        device.close();
    }

    private void rule(String json) throws Exception {
        faults.add(FaultRules.of(ConfigLoader.readFaultRule(json, faults.nextId())));
    }

    /** A Read of {@code blocks} at {@code slba} as the transport submits it (both completion methods). */
    private Done read(int cid, long slba, int blocks) throws Exception {
        CompletableFuture<Done> done = new CompletableFuture<>();
        io.submit(TestHost.rw(NvmOpcode.READ, cid, 1, slba, blocks, LBS, false), null, new NvmeCompletion() {
            @Override
            public void complete(NvmeStatus status, int dw0, int dw1, ByteBuf dataIn) {
                release(dataIn);
                assertThat(done.complete(new Done(status.toCqeStatus(), status, false))).as("once").isTrue();
            }

            @Override
            public void completeRaw(CqeStatus status, NvmeStatus reason, int dw0, int dw1, ByteBuf dataIn) {
                release(dataIn);
                assertThat(done.complete(new Done(status, reason, true))).as("once").isTrue();
            }
        });
        return done.get(30, TimeUnit.SECONDS);
    }

    private static void release(ByteBuf data) {
        if (data != null) {
            data.release();
        }
    }

    @Test
    void pairsNoRowNamesCompleteWithExactlyTheirBitsAndTheDnrChosen() throws Exception {
        rule("{\"lba\": \"10\", \"action\": \"status\", \"nvme-status\": \"1/c0\", \"nvme-dnr\": true}");
        rule("{\"lba\": \"11\", \"action\": \"status\", \"nvme-status\": \"1/c0\", \"nvme-dnr\": false}");
        rule("{\"lba\": \"12\", \"action\": \"status\", \"nvme-status\": \"3/04\", \"nvme-dnr\": true}");
        rule("{\"lba\": \"13\", \"action\": \"status\", \"nvme-status\": \"3/04\", \"nvme-dnr\": false}");
        rule("{\"lba\": \"14\", \"action\": \"status\", \"nvme-status\": \"7/ff\", \"nvme-dnr\": true,"
                + " \"nvme-crd\": 3, \"nvme-more\": true}");
        rule("{\"lba\": \"15\", \"action\": \"status\", \"nvme-status\": \"7/ff\"}");
        // CQE bytes 14..15 written out from the figure: DNR 15, M 14, CRD 13:12, SCT 11:9, SC 8:1, phase 0
        assertThat(read(1, 10, 1).status().encode(0)).as("1/C0h DNR").isEqualTo(0x8000 | 0x200 | 0xC0 << 1);
        assertThat(read(2, 11, 1).status().encode(0)).as("1/C0h").isEqualTo(0x0200 | 0xC0 << 1);
        assertThat(read(3, 12, 1).status().encode(0)).as("3/04h DNR").isEqualTo(0x8608);
        assertThat(read(4, 13, 1).status().encode(0)).as("3/04h").isEqualTo(0x0608);
        assertThat(read(5, 14, 1).status().encode(0)).as("7/FFh DNR M CRD 3: every bit but the phase tag")
                .isEqualTo(0xFFFE);
        assertThat(read(6, 15, 1).status().encode(0)).as("7/FFh: no row, DNR clear").isEqualTo(0x0FFE);
        Done d = read(7, 12, 1);
        assertThat(d.raw()).isTrue();
        assertThat(d.status()).isEqualTo(new CqeStatus(0x04, 3, 0, false, true));
        assertThat(d.reason()).as("for completions that know only rows: the condition's default")
                .isEqualTo(NvmeStatus.UNRECOVERED_READ_ERROR);
    }

    @Test
    void aNamedPairTakesTheRowsDnrUnlessTheRuleSaysOtherwise() throws Exception {
        rule("{\"lba\": \"20\", \"action\": \"status\", \"nvme-status\": \"2/85\"}");
        rule("{\"lba\": \"21\", \"action\": \"status\", \"nvme-status\": \"2/85\", \"nvme-dnr\": false}");
        rule("{\"lba\": \"22\", \"action\": \"status\", \"nvme-status\": \"2/81\", \"nvme-dnr\": true}");
        rule("{\"lba\": \"23\", \"action\": \"status\", \"nvme-status\": \"0/82\", \"nvme-dnr\": false}");
        Done compare = read(1, 20, 1);
        assertThat(compare.raw()).as("the row says it all: the ordinary path").isFalse();
        assertThat(compare.reason()).isEqualTo(NvmeStatus.COMPARE_FAILURE);
        assertThat(compare.status().encode(0)).isEqualTo(0x8000 | 0x400 | 0x85 << 1);
        assertThat(read(2, 21, 1).status().encode(0)).as("Compare Failure without DNR")
                .isEqualTo(0x0400 | 0x85 << 1);
        Done unrecovered = read(3, 22, 1);
        assertThat(unrecovered.raw()).isTrue();
        assertThat(unrecovered.status().encode(0)).as("Unrecovered Read Error with DNR").isEqualTo(0x8502);
        assertThat(read(4, 23, 1).raw()).as("Namespace Not Ready's own DNR (clear): the row").isFalse();
    }

    @Test
    void theErrorLogEntryCarriesTheExactStatusFieldAndTheFirstLbaInTheRange() throws Exception {
        rule("{\"lba\": \"100-199\", \"action\": \"status\", \"nvme-status\": \"3/04\", \"nvme-dnr\": true}");
        rule("{\"lba\": \"300\", \"action\": \"status\", \"nvme-status\": \"0/07\", \"nvme-dnr\": true}");
        assertThat(read(0x51, 95, 10).status().encode(0)).isEqualTo(0x8608);
        // Command Abort Requested is not an error the log keeps (ErrorLog.records), whatever its DNR
        assertThat(read(0x52, 300, 1).status().encode(0)).isEqualTo(0x8000 | 0x07 << 1);
        Reply log = host.getLogPage(1, 0, 0, 128, false);
        assertThat(log.status()).isEqualTo(NvmeStatus.SUCCESS);
        ByteBuf page = log.data();
        try {
            assertThat(page.getLongLE(0)).as("Error Count").isEqualTo(1);
            assertThat(page.getUnsignedShortLE(8)).as("SQID").isEqualTo(1);
            assertThat(page.getUnsignedShortLE(10)).as("CID").isEqualTo(0x51);
            assertThat(page.getUnsignedShortLE(12)).as("Status Field, phase tag 0").isEqualTo(0x8608);
            assertThat(page.getLongLE(16)).as("LBA: first in the rule's range").isEqualTo(100);
            assertThat(page.getIntLE(24)).as("NSID").isEqualTo(1);
            assertThat(page.getLongLE(64)).as("no second entry").isZero();
        } finally {
            page.release();
        }
    }

    @Test
    void theLogKeepsByStatusCodeAsForRows() {
        for (NvmeStatus s : NvmeStatus.values()) {
            CqeStatus row = s.toCqeStatus();
            CqeStatus flipped = new CqeStatus(row.sc(), row.sct(), 1, !row.more(), !row.dnr());
            assertThat(ErrorLog.records(row)).as(s.name()).isEqualTo(ErrorLog.records(s));
            assertThat(ErrorLog.records(flipped)).as(s.name() + " other bits").isEqualTo(ErrorLog.records(s));
        }
        assertThat(ErrorLog.records(new CqeStatus(0xFF, 7, 0, false, false))).isTrue();
    }

    @Test
    void theStatusFieldOfAFaultStatus() {
        assertThat(NvmeFaults.statusField(FaultStatus.of(FaultStatus.Condition.MEDIUM_ERROR))).isNull();
        assertThat(NvmeFaults.statusField(new FaultStatus(FaultStatus.Condition.EXPLICIT, -1, 0, 0, 0, 0x06)))
                .as("Internal Error as its row has it").isNull();
        assertThat(NvmeFaults.statusField(new FaultStatus(FaultStatus.Condition.EXPLICIT, -1, 0, 0, 0, 0x06, 1, 0,
                false))).isEqualTo(new CqeStatus(0x06, 0, 0, false, true));
        assertThat(NvmeFaults.statusField(new FaultStatus(FaultStatus.Condition.EXPLICIT, -1, 0, 0, 0, 0x06, -1, 1,
                false))).as("a CRD of its own").isEqualTo(new CqeStatus(0x06, 0, 1, false, false));
        assertThat(NvmeFaults.statusField(new FaultStatus(FaultStatus.Condition.EXPLICIT, -1, 0, 0, 3, 0x04)))
                .isEqualTo(new CqeStatus(0x04, 3, 0, false, false));
    }

    @Test
    void aCompletionThatKnowsOnlyRowsGetsTheReason() throws Exception {
        rule("{\"lba\": \"30\", \"action\": \"status\", \"nvme-status\": \"3/04\"}");
        Reply r = host.read(io, 1, 30, 1, LBS);
        assertThat(r.status()).isEqualTo(NvmeStatus.UNRECOVERED_READ_ERROR);
    }

    @Test
    void theTraceRecordsTheStatusTheHostSaw() throws Exception {
        rule("{\"lba\": \"40\", \"action\": \"status\", \"nvme-status\": \"7/ff\", \"nvme-dnr\": true}");
        rule("{\"lba\": \"41\", \"action\": \"status\", \"nvme-status\": \"2/81\", \"nvme-dnr\": true}");
        Tracer tracer = new Tracer(16, LBS, LBS, 1 << 20, state.clock());
        state.startTrace(tracer);
        read(0x61, 40, 1);
        read(0x62, 41, 1);
        state.stopTrace();
        List<TraceRecord> records = new ArrayList<>();
        tracer.ring().reader().poll(100, new TraceRing.Sink() {
            @Override
            public void record(TraceRecord record) {
                records.add(record);
            }

            @Override
            public void dropped(long count) {
                throw new AssertionError("dropped " + count);
            }
        });
        assertThat(records).extracting(TraceRecord::tag).containsExactly(0x61L, 0x62L);
        assertThat(records).extracting(TraceRecord::status)
                .containsExactly("SCT 7h SC FFh", "UNRECOVERED READ ERROR");
        assertThat(records).extracting(TraceRecord::sct).containsExactly(7, 2);
        assertThat(records).extracting(TraceRecord::sc).containsExactly(0xFF, 0x81);
        assertThat(records).extracting(TraceRecord::dnr).containsExactly(true, true);
        assertThat(records).extracting(TraceRecord::ok).containsExactly(false, false);
        assertThat(records).extracting(TraceRecord::lba).containsExactly(40L, 41L);
    }
}
