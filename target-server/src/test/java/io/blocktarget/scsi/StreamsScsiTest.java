package io.blocktarget.scsi;

import io.blocktarget.block.lun.LunState;
import io.blocktarget.block.placement.Placement;
import io.blocktarget.block.placement.PlacementSpec;
import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.protocol.scsi.ScsiStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import static io.blocktarget.scsi.Scsi.A;
import static io.blocktarget.scsi.Scsi.cdb;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * SCSI permanent streams of a LUN with data placement (SBC-5 §4.32, issue 32), as Linux sd reads them: VPD 00h lists
 * 86h and B7h, B7h with RSCS and the stream limits, 86h with GROUP_SUP, the IO Advice Hints Grouping mode page with a
 * stream descriptor per GROUP NUMBER 0..streams-1, GET STREAM STATUS with permanent streams, and each WRITE's GROUP
 * NUMBER counted on its stream. A LUN without placement shows none of it.
 */
class StreamsScsiTest {

    private record Lu(RamBlockDevice device, ScsiTarget target, LunState state) implements AutoCloseable {
        /** 1024 blocks of {@code lbs}, physical {@code pbs}; {@code streams} > 0: a placement with that many. */
        static Lu of(int lbs, int pbs, int streams) {
            RamBlockDevice device = Scsi.ram("st", lbs, pbs, 1024L * lbs);
            LunState state = new LunState("st", null, Optional.empty());
            if (streams > 0) {
                state.placement(Placement.create(new PlacementSpec(64L * lbs, 8, streams, 700), lbs, 1024, () -> 0));
            }
            ScsiTarget target = ScsiTargetDevices.createTargets(List.of(new LogicalUnitSpec(Scsi.TARGET, 0, "st",
                    device, state))).get(Scsi.TARGET);
            Scsi.ready(target, A, 0);
            return new Lu(device, target, state);
        }

        Scsi.Reply run(byte[] cdb, byte[] dataOut) {
            return Scsi.run(target, A, 0, cdb, dataOut);
        }

        @Override
        public void close() {
            device.close();
        }
    }

    /** GET STREAM STATUS: SERVICE ACTION IN(16) 9Eh / 16h, STARTING STREAM IDENTIFIER, ALLOCATION LENGTH. */
    static byte[] getStreamStatus(int start, int allocation) {
        byte[] c = new byte[16];
        c[0] = (byte) 0x9E;
        c[1] = 0x16;
        c[4] = (byte) (start >> 8);
        c[5] = (byte) start;
        c[10] = (byte) (allocation >>> 24);
        c[11] = (byte) (allocation >>> 16);
        c[12] = (byte) (allocation >>> 8);
        c[13] = (byte) allocation;
        return c;
    }

    /** The SERVICE ACTION IN(16) service actions an all-commands RSOC answer lists. */
    static List<Integer> serviceActionsIn16(byte[] d) {
        List<Integer> out = new ArrayList<>();
        for (int at = 4; at < 4 + Scsi.u32(d, 0); at += 8) {
            if ((d[at] & 0xFF) == 0x9E) {
                out.add(Scsi.u16(d, at + 2));
            }
        }
        return out;
    }

    @Test
    void aLunWithoutPlacementShowsNoStreams() {
        try (Lu lu = Lu.of(512, 4096, 0)) {
            byte[] pages = lu.run(Scsi.inquiry(true, 0x00, 255), null).assertGood().data();
            assertThat(Arrays.copyOfRange(pages, 4, pages.length)).isEqualTo(cdb(0x00, 0x80, 0x83, 0xB0, 0xB1, 0xB2));
            assertThat(lu.run(Scsi.inquiry(true, 0xB7, 255), null).status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
            assertThat(lu.run(Scsi.inquiry(true, 0x86, 255), null).status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
            Scsi.Reply sense = lu.run(Scsi.modeSense10(0x08, 0x0A, 0x05, 512), null);
            assertThat(sense.status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
            Scsi.Reply status = lu.run(getStreamStatus(0, 64), null);
            assertThat(status.status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
            assertThat(status.senseKey()).isEqualTo(0x05);                           // ILLEGAL REQUEST
            assertThat(serviceActionsIn16(lu.run(SpcCommandsTest.rsoc(0, 0, 0, 8192), null).data()))
                    .containsExactly(0x10, 0x12);
        }
    }

    @Test
    void vpdPagesListAndEncodeTheStreams() {
        try (Lu lu = Lu.of(512, 4096, 6)) {
            byte[] pages = lu.run(Scsi.inquiry(true, 0x00, 255), null).assertGood().data();
            assertThat(Arrays.copyOfRange(pages, 4, pages.length))
                    .isEqualTo(cdb(0x00, 0x80, 0x83, 0x86, 0xB0, 0xB1, 0xB2, 0xB7));
            byte[] b7 = lu.run(Scsi.inquiry(true, 0xB7, 255), null).assertGood().data();
            assertThat(b7).hasSize(64);
            assertThat(Arrays.copyOfRange(b7, 0, 14)).isEqualTo(cdb(
                    0x00, 0xB7, 0x00, 0x3C,
                    0x00, 0x01,                 // RSCS
                    0x00, 0x06,                 // MAXIMUM NUMBER OF STREAMS
                    0x00, 0x08,                 // OPTIMAL STREAM WRITE SIZE: the 4 KiB physical block
                    0x00, 0x00, 0x00, 0x08));   // STREAM GRANULARITY SIZE: 64 blocks / 8
            assertThat(Arrays.copyOfRange(b7, 14, 64)).isEqualTo(new byte[50]);
            byte[] x86 = lu.run(Scsi.inquiry(true, 0x86, 255), null).assertGood().data();
            assertThat(x86).hasSize(64);
            assertThat(Arrays.copyOfRange(x86, 0, 14)).isEqualTo(cdb(
                    0x00, 0x86, 0x00, 0x3C,
                    0x00,                       // no protection checks
                    0x17,                       // GROUP_SUP, HEADSUP, ORDSUP, SIMPSUP
                    0x00,                       // no volatile cache (ram): V_SUP = 0
                    0x01,                       // LUICLR
                    0, 0, 0, 0, 0, 0));
        }
    }

    /** B7h at the stream limit (63) and a reclaim unit the physical block does not divide. */
    @Test
    void blockLimitsExtensionAtTheLimits() {
        try (Lu lu = Lu.of(4096, 4096, 63)) {
            byte[] b7 = lu.run(Scsi.inquiry(true, 0xB7, 255), null).assertGood().data();
            assertThat(Arrays.copyOfRange(b7, 4, 14)).isEqualTo(cdb(0, 1, 0, 63, 0, 1, 0, 0, 0, 64));
        }
    }

    /** The mode page as sd asks for it (MODE SENSE(10), DBD, 512 bytes), and MODE SENSE(6). */
    @ParameterizedTest
    @ValueSource(ints = {1, 6, 30, 63})
    void ioAdviceHintsGroupingModePage(int streams) {
        try (Lu lu = Lu.of(512, 4096, streams)) {
            int pageLength = 12 + 16 * streams;
            byte[] data = lu.run(Scsi.modeSense10(0x08, 0x0A, 0x05, 4096), null).assertGood().data();
            assertThat(data).hasSize(8 + 4 + pageLength);
            assertThat(Scsi.u16(data, 0)).isEqualTo(data.length - 2);                  // MODE DATA LENGTH
            assertThat(Scsi.u16(data, 6)).isZero();                                    // no block descriptor
            assertThat(Arrays.copyOfRange(data, 8, 12)).isEqualTo(cdb(0x4A, 0x05, pageLength >> 8, pageLength));
            assertThat(Arrays.copyOfRange(data, 12, 24)).isEqualTo(new byte[12]);
            for (int g = 0; g < streams; g++) {
                int at = 24 + 16 * g;
                assertThat(data[at]).as("group %d", g).isEqualTo((byte) 0x04);         // ST_ENBLE
                assertThat(Arrays.copyOfRange(data, at + 1, at + 16)).isEqualTo(new byte[15]);
            }
            byte[] changeable = lu.run(Scsi.modeSense10(0x08, 0x4A, 0x05, 4096), null).assertGood().data();
            assertThat(changeable).hasSize(data.length);
            assertThat(Arrays.copyOfRange(changeable, 12, changeable.length)).isEqualTo(new byte[pageLength - 8 + 8]);
            byte[] six = lu.run(Scsi.modeSense6(0x08, 0x0A, 0x05, 255), null).assertGood().data();
            assertThat(six[0] & 0xFF).isEqualTo(Math.min(4 + 4 + pageLength - 1, 0xFF));
            assertThat(six.length).isEqualTo(Math.min(4 + 4 + pageLength, 255));
            assertThat(six[4] & 0xFF).isEqualTo(0x4A);
        }
    }

    /**
     * 3Fh / FFh (every page and subpage) and 0Ah / FFh (page 0Ah and its subpages) take the IO Advice Hints Grouping
     * subpage after page 0Ah, byte for byte as asked alone; 3Fh / 00h (page_0 pages only) does not. Without placement
     * 3Fh / FFh is 3Fh / 00h.
     */
    @Test
    void allPagesAndSubpagesIncludeTheGroupingSubpage() {
        try (Lu lu = Lu.of(512, 4096, 6)) {
            byte[] page0 = lu.run(Scsi.modeSense10(0x08, 0x3F, 0x00, 4096), null).assertGood().data();
            byte[] sub = lu.run(Scsi.modeSense10(0x08, 0x0A, 0x05, 4096), null).assertGood().data();
            byte[] subpage = Arrays.copyOfRange(sub, 8, sub.length);
            assertThat(subpage).hasSize(4 + 12 + 16 * 6);
            // page_0 pages: caching 08h (20 bytes), control 0Ah (12), informational exceptions 1Ch (12)
            assertThat(pageCodes(page0, 8)).containsExactly(0x08, 0x0A, 0x1C);
            int afterControl = 8 + 20 + 12;
            byte[] all = lu.run(Scsi.modeSense10(0x08, 0x3F, 0xFF, 4096), null).assertGood().data();
            byte[] expected = concat(Arrays.copyOfRange(page0, 0, afterControl), subpage,
                    Arrays.copyOfRange(page0, afterControl, page0.length));
            expected[0] = (byte) (expected.length - 2 >> 8);
            expected[1] = (byte) (expected.length - 2);
            assertThat(all).isEqualTo(expected);
            byte[] control = lu.run(Scsi.modeSense10(0x08, 0x0A, 0xFF, 4096), null).assertGood().data();
            byte[] expectedControl = concat(Arrays.copyOfRange(page0, 0, 8),
                    Arrays.copyOfRange(page0, 28, afterControl), subpage);
            expectedControl[1] = (byte) (expectedControl.length - 2);
            assertThat(control).isEqualTo(expectedControl);
            // MODE SENSE(6): one-byte MODE DATA LENGTH, the same pages
            byte[] six = lu.run(Scsi.modeSense6(0x08, 0x3F, 0xFF, 255), null).assertGood().data();
            assertThat(six[0] & 0xFF).isEqualTo(4 + 20 + 12 + subpage.length + 12 - 1);
            assertThat(Arrays.copyOfRange(six, 4 + 32, 4 + 32 + subpage.length)).isEqualTo(subpage);
        }
        try (Lu lu = Lu.of(512, 4096, 0)) {
            byte[] page0 = lu.run(Scsi.modeSense10(0x08, 0x3F, 0x00, 4096), null).assertGood().data();
            assertThat(lu.run(Scsi.modeSense10(0x08, 0x3F, 0xFF, 4096), null).assertGood().data()).isEqualTo(page0);
        }
    }

    /**
     * Fault rules with {@code queries:} (issue 32 item 6) fail each query sd sends — INQUIRY B7h, MODE SENSE 0Ah /
     * 05h, GET STREAM STATUS — and not their neighbours (INQUIRY 00h / B0h, MODE SENSE 08h, READ CAPACITY(16), which
     * shares GET STREAM STATUS's operation code).
     */
    @Test
    void faultRulesFailEachStreamsQuery() throws Exception {
        try (Lu lu = Lu.of(512, 4096, 6)) {
            var faults = lu.state().faults();
            faults.add(io.blocktarget.server.FaultRules.of(io.blocktarget.config.ConfigLoader.readFaultRule(
                    "{\"queries\": [\"block-limits-extension\", \"io-advice-hints\", \"stream-status\"],"
                            + " \"action\": \"status\", \"sense\": \"5/24/00\"}", faults.nextId())));
            for (byte[] cdb : List.of(Scsi.inquiry(true, 0xB7, 255), Scsi.modeSense10(0x08, 0x0A, 0x05, 512),
                    getStreamStatus(0, 64))) {
                Scsi.Reply r = lu.run(cdb, null);
                assertThat(r.status()).as("opcode %02x", cdb[0]).isEqualTo(ScsiStatus.CHECK_CONDITION);
                assertThat(r.senseKey()).isEqualTo(0x05);
            }
            byte[] readCapacity16 = new byte[16];
            readCapacity16[0] = (byte) 0x9E;
            readCapacity16[1] = 0x10;
            readCapacity16[13] = 32;
            for (byte[] cdb : List.of(Scsi.inquiry(true, 0x00, 255), Scsi.inquiry(true, 0xB0, 255),
                    Scsi.modeSense10(0x08, 0x08, 0x00, 512), readCapacity16)) {
                lu.run(cdb, null).assertGood();
            }
        }
    }

    /** The page codes of the pages from {@code at} on (SPF: the subpage's page length is two bytes). */
    private static List<Integer> pageCodes(byte[] data, int at) {
        List<Integer> codes = new ArrayList<>();
        while (at < data.length) {
            codes.add(data[at] & 0x3F);
            at += (data[at] & 0x40) != 0 ? 4 + Scsi.u16(data, at + 2) : 2 + (data[at + 1] & 0xFF);
        }
        return codes;
    }

    private static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] out = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }

    @Test
    void getStreamStatusReportsPermanentStreams() {
        try (Lu lu = Lu.of(512, 4096, 6)) {
            byte[] all = lu.run(getStreamStatus(0, 1024), null).assertGood().data();
            assertThat(all).hasSize(8 + 6 * 8);
            assertThat(Scsi.u32(all, 0)).isEqualTo(6 * 8);                             // PARAMETER DATA LENGTH
            assertThat(Scsi.u16(all, 6)).isZero();                                     // NUMBER OF OPEN STREAMS
            for (int id = 0; id < 6; id++) {
                int at = 8 + 8 * id;
                assertThat(Arrays.copyOfRange(all, at, at + 8)).isEqualTo(cdb(0x80, 0, 0, id, 0, 0, 0, 0));
            }
            // as sd asks: one descriptor from each stream identifier; the last one and one past it
            byte[] last = lu.run(getStreamStatus(5, 16), null).assertGood().data();
            assertThat(last).isEqualTo(cdb(0, 0, 0, 8, 0, 0, 0, 0, 0x80, 0, 0, 5, 0, 0, 0, 0));
            byte[] past = lu.run(getStreamStatus(6, 16), null).assertGood().data();
            assertThat(past).isEqualTo(cdb(0, 0, 0, 0, 0, 0, 0, 0));
            // a reserved byte set: INVALID FIELD IN CDB
            byte[] bad = getStreamStatus(0, 16);
            bad[14] = 1;
            assertThat(lu.run(bad, null).senseKey()).isEqualTo(0x05);
            assertThat(serviceActionsIn16(lu.run(SpcCommandsTest.rsoc(0, 0, 0, 8192), null).data()))
                    .containsExactly(0x10, 0x12, 0x16);
        }
    }

    /** The other commands that write count on the default placement (handle 0): COMPARE AND WRITE, WRITE SAME. */
    @Test
    void otherWritesLandOnTheDefaultPlacement() {
        try (Lu lu = Lu.of(512, 4096, 6)) {
            byte[] caw = new byte[16];
            caw[0] = (byte) 0x89;
            caw[9] = 40;                                                                // LBA 40
            caw[13] = 1;                                                                // one block
            lu.run(caw, new byte[2 * 512]).assertGood();                                // zeros compare equal
            lu.run(Scsi.ten(0x41, 0, 50, 4), new byte[512]).assertGood();               // WRITE SAME(10), zeros
            byte[] pattern = new byte[512];
            pattern[0] = 7;
            lu.run(Scsi.ten(0x41, 0, 60, 3), pattern).assertGood();                     // a pattern, in pieces
            Placement placement = lu.state().placement();
            assertThat(placement.stats().handles().get(0).hostBytes()).isEqualTo((1L + 4 + 3) * 512);
            assertThat(placement.stats().total().hostBytes()).isEqualTo((1L + 4 + 3) * 512);
        }
    }

    /** RSOC one-command: the GROUP NUMBER bits of WRITE(10/12/16) are used only where there are streams. */
    @Test
    void cdbUsageDataShowsTheGroupNumberOnlyWithStreams() {
        try (Lu on = Lu.of(512, 4096, 6); Lu off = Lu.of(512, 4096, 0)) {
            int[][] cases = {{0x2A, 6}, {0xAA, 10}, {0x8A, 14}};
            for (int[] c : cases) {
                byte[] with = on.run(SpcCommandsTest.rsoc(1, c[0], 0, 64), null).assertGood().data();
                byte[] without = off.run(SpcCommandsTest.rsoc(1, c[0], 0, 64), null).assertGood().data();
                assertThat(with[4 + c[1]]).as("op %x", c[0]).isEqualTo((byte) 0x3F);
                assertThat(without[4 + c[1]]).as("op %x", c[0]).isZero();
                with[4 + c[1]] = 0;
                assertThat(with).isEqualTo(without);
            }
        }
    }

    /** sd's GROUP NUMBER: WRITE(10) byte 6, WRITE(16) byte 14; 0 and past the last stream: the default placement. */
    @Test
    void writeGroupNumbersLandOnTheirStreams() {
        try (Lu lu = Lu.of(512, 4096, 6)) {
            byte[] w10 = Scsi.ten(0x2A, 0, 0, 4);
            w10[6] = 2;
            lu.run(w10, new byte[4 * 512]).assertGood();
            byte[] w16 = Scsi.sixteen(0x8A, 0, 8, 2);
            w16[14] = 5;
            lu.run(w16, new byte[2 * 512]).assertGood();
            byte[] w12 = Scsi.twelve(0xAA, 0, 16, 1);
            w12[10] = 1;
            lu.run(w12, new byte[512]).assertGood();
            byte[] past = Scsi.sixteen(0x8A, 0, 20, 3);
            past[14] = 6;                                                               // names no stream
            lu.run(past, new byte[3 * 512]).assertGood();
            lu.run(Scsi.ten(0x2A, 0, 30, 1), new byte[512]).assertGood();               // GROUP NUMBER 0
            Placement placement = lu.state().placement();
            List<Long> streams = new ArrayList<>();
            placement.stats().streams().forEach(s -> streams.add(s.hostBytes()));
            assertThat(streams).containsExactly(1L * 512, 4L * 512, 0L, 0L, 2L * 512, 0L);
            assertThat(placement.stats().handles().get(0).hostBytes()).isEqualTo(4L * 512);
        }
    }
}
