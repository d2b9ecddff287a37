package io.blocktarget.scsi;

import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.nil.NullBlockDevice;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.protocol.scsi.Cdb;
import io.blocktarget.protocol.scsi.ScsiOpcode;
import io.blocktarget.protocol.scsi.ScsiStatus;
import io.blocktarget.protocol.scsi.WriteSameCdb;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.blocktarget.scsi.Scsi.inquiry;
import static io.blocktarget.scsi.Scsi.sixteen;
import static io.blocktarget.scsi.Scsi.ten;
import static io.blocktarget.scsi.Scsi.twelve;
import static io.blocktarget.scsi.Scsi.u16;
import static io.blocktarget.scsi.Scsi.u32;
import static io.blocktarget.scsi.Scsi.u64;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 10 item 4: every limit the logical unit advertises (Block Limits VPD B0h, Logical Block
 * Provisioning VPD B2h, REPORT SUPPORTED OPERATION CODES) is honoured at the limit and enforced at
 * limit + 1. The limits are read from the device's own answers, never restated here, so a test fails
 * when advertising and enforcing drift apart (UnitLimits is the one place both read).
 */
class AdvertisedLimitsTest {
    private static final int READ_10 = 0x28, READ_12 = 0xA8, READ_16 = 0x88, WRITE_10 = 0x2A, WRITE_16 = 0x8A;
    private static final int VERIFY_16 = 0x8F, WRITE_AND_VERIFY_16 = 0x8E, CAW = 0x89;
    private static final int WRITE_SAME_10 = 0x41, WRITE_SAME_16 = 0x93, PRE_FETCH_16 = 0x90;

    private static Scsi.Unit unit(int lbs) {
        int pbs = Math.max(lbs, 4096);
        return Scsi.Unit.of(new RamBlockDevice("lim" + lbs, new BlockGeometry(lbs, pbs, (2L << 30) / lbs), false,
                new MemoryBudget(1L << 30)));
    }

    private static byte[] blockLimits(Scsi.Unit u) {
        return u.run(inquiry(true, 0xB0, 255), null).assertGood().data();
    }

    @ParameterizedTest
    @ValueSource(ints = {512, 4096, 65536})
    void maximumTransferLengthIsHonouredAtTheLimitAndEnforcedAbove(int lbs) {
        try (Scsi.Unit u = unit(lbs)) {
            long max = u32(blockLimits(u), 8);
            assertThat(max * lbs).isEqualTo(8 << 20);
            byte[] data = Scsi.pattern(lbs, (int) max * lbs);
            u.run(sixteen(WRITE_16, 0, 0, max), data).assertGood();
            assertThat(u.run(sixteen(READ_16, 0, 0, max), null).assertGood().data()).isEqualTo(data);
            // at the limit without BYTCHK: an 8 MiB byte compare costs seconds under paranoid leak detection
            u.run(sixteen(VERIFY_16, 0, 0, max), null).assertGood();
            u.run(sixteen(WRITE_AND_VERIFY_16, 0, 0, max), data).assertGood();
            byte[] oneMore = new byte[(int) (max + 1) * lbs];
            u.run(sixteen(READ_16, 0, 0, max + 1), null).assertCheck(0x5, 0x24, 0x00).assertCdbField(10, 7);
            u.run(twelve(READ_12, 0, 0, max + 1), null).assertCheck(0x5, 0x24, 0x00).assertCdbField(6, 7);
            u.run(ten(READ_10, 0, 0, (int) max + 1), null).assertCheck(0x5, 0x24, 0x00).assertCdbField(7, 7);
            u.run(sixteen(WRITE_16, 0, 0, max + 1), oneMore).assertCheck(0x5, 0x24, 0x00).assertCdbField(10, 7);
            u.run(ten(WRITE_10, 0, 0, (int) max + 1), oneMore).assertCheck(0x5, 0x24, 0x00).assertCdbField(7, 7);
            u.run(sixteen(VERIFY_16, 0x02, 0, max + 1), oneMore).assertCheck(0x5, 0x24, 0x00).assertCdbField(10, 7);
            // VERIFY without a compare is a command of the table too (SBC-4 §6.6.4): the limit holds
            u.run(sixteen(VERIFY_16, 0, 0, max + 1), null).assertCheck(0x5, 0x24, 0x00).assertCdbField(10, 7);
            u.run(sixteen(WRITE_AND_VERIFY_16, 0x02, 0, max + 1), oneMore)
                    .assertCheck(0x5, 0x24, 0x00).assertCdbField(10, 7);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {512, 4096, 65536})
    void maximumCompareAndWriteLengthIsHonouredAtTheLimitAndEnforcedAbove(int lbs) {
        try (Scsi.Unit u = unit(lbs)) {
            int max = blockLimits(u)[5] & 0xFF;
            assertThat(max).isPositive();
            byte[] caw = sixteen(CAW, 0, 0, 0);
            caw[13] = (byte) max;
            u.run(caw, new byte[2 * max * lbs]).assertGood();       // zeros compare equal to unwritten blocks
            if (max < 255) {                                         // 255 fills the 8-bit field: nothing above
                caw[13] = (byte) (max + 1);
                u.run(caw, new byte[2 * (max + 1) * lbs]).assertCheck(0x5, 0x24, 0x00).assertCdbField(13, 7);
            } else {
                assertThat(lbs).isLessThanOrEqualTo(4096);
            }
        }
    }

    @Test
    void maximumCompareAndWriteLengthBelowTheFieldWidthIsEnforcedAt64k() {
        try (Scsi.Unit u = unit(65536)) {
            assertThat(blockLimits(u)[5] & 0xFF).isEqualTo(64);      // 8 MiB / 64 KiB / 2 halves
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {512, 4096, 65536})
    void maximumUnmapBlockDescriptorCountIsHonouredAtTheLimitAndEnforcedAbove(int lbs) {
        try (Scsi.Unit u = unit(lbs)) {
            int max = (int) u32(blockLimits(u), 24);
            assertThat(max).isEqualTo(256);
            byte[] atLimit = ProvisioningTest.unmapList(descriptors(max));
            u.run(ProvisioningTest.unmapCdb(0, atLimit.length), atLimit).assertGood();
            byte[] above = ProvisioningTest.unmapList(descriptors(max + 1));
            u.run(ProvisioningTest.unmapCdb(0, above.length), above).assertCheck(0x5, 0x26, 0x00)
                    .assertParameterField(2, 7);
        }
    }

    private static long[] descriptors(int n) {
        long[] d = new long[2 * n];
        for (int i = 0; i < n; i++) {
            d[2 * i] = 2L * i;
            d[2 * i + 1] = 1;
        }
        return d;
    }

    /** FFFFFFFFh = no limit per command; still, the sum of the descriptors may not pass it. */
    @Test
    void maximumUnmapLbaCountIsHonouredAtTheLimitAndEnforcedAbove() {
        try (Scsi.Unit u = Scsi.Unit.of(new NullBlockDevice("big", new BlockGeometry(512, 512, 1L << 34), false))) {
            long max = u32(blockLimits(u), 20);
            assertThat(max).isEqualTo(0xFFFF_FFFFL);
            byte[] atLimit = ProvisioningTest.unmapList(0, max - 1, 1L << 33, 1);
            u.run(ProvisioningTest.unmapCdb(0, atLimit.length), atLimit).assertGood();
            byte[] above = ProvisioningTest.unmapList(0, max, 1L << 33, 1);
            u.run(ProvisioningTest.unmapCdb(0, above.length), above).assertCheck(0x5, 0x26, 0x00)
                    .assertParameterField(32, 7);
        }
    }

    /**
     * OPTIMAL UNMAP GRANULARITY / UNMAP GRANULARITY ALIGNMENT are hints (SBC-4 §4.7.3.5): a range smaller
     * than the granularity and off the alignment is still unmapped, and with LBPRZ = 001b (B2h) it reads
     * zeros while its neighbours keep their data.
     */
    @ParameterizedTest
    @ValueSource(ints = {512, 4096})
    void unmapBelowTheGranularityAndOffTheAlignmentReadsZeros(int lbs) {
        try (Scsi.Unit u = Scsi.Unit.of(new RamBlockDevice("gran" + lbs, new BlockGeometry(lbs, 16384, 4096), false,
                new MemoryBudget(1L << 30)))) {
            byte[] b0 = blockLimits(u);
            long granularity = u32(b0, 28);
            assertThat(granularity).isEqualTo(16384 / lbs);
            assertThat(u32(b0, 32)).isEqualTo(0x8000_0000L);                    // UGAVALID, alignment 0
            assertThat((u.run(inquiry(true, 0xB2, 255), null).data()[5] >> 2) & 0x7).isEqualTo(1); // LBPRZ
            byte[] data = Scsi.pattern(lbs + 1, 16 * lbs);
            u.run(ten(WRITE_10, 0, 0, 16), data).assertGood();
            byte[] list = ProvisioningTest.unmapList(3, 1);
            u.run(ProvisioningTest.unmapCdb(0, list.length), list).assertGood();
            byte[] expected = data.clone();
            java.util.Arrays.fill(expected, 3 * lbs, 4 * lbs, (byte) 0);
            assertThat(u.run(ten(READ_10, 0, 0, 16), null).data()).isEqualTo(expected);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {512, 4096})
    void maximumWriteSameLengthIsHonouredAtTheLimitAndEnforcedAbove(int lbs) {
        try (Scsi.Unit u = unit(lbs)) {
            long max = u64(blockLimits(u), 36);
            assertThat(max * lbs).isEqualTo(1L << 30);
            byte[] zeros = new byte[lbs];
            u.run(sixteen(WRITE_SAME_16, 0x08, 0, max), zeros).assertGood();
            u.run(sixteen(WRITE_SAME_16, 0x01, 0, max), null).assertGood();              // NDOB
            u.run(sixteen(WRITE_SAME_16, 0x08, 0, max + 1), zeros).assertCheck(0x5, 0x24, 0x00).assertCdbField(10, 7);
            u.run(sixteen(WRITE_SAME_16, 0, 0, max + 1), zeros).assertCheck(0x5, 0x24, 0x00).assertCdbField(10, 7);
            // WSNZ = 1: zero blocks is refused
            assertThat(blockLimits(u)[4] & 0x01).isEqualTo(1);
            u.run(ten(WRITE_SAME_10, 0, 0, 0), zeros).assertCheck(0x5, 0x24, 0x00).assertCdbField(7, 7);
        }
    }

    /**
     * LBPWS / LBPWS10 (B2h byte 5 bits 6, 5), RSOC and MAXIMUM WRITE SAME LENGTH tell one story at each
     * block size, and the commands behave as it says.
     */
    @ParameterizedTest
    @ValueSource(ints = {512, 4096, 16384, 65536})
    void writeSameIsExecutedExactlyWhereItIsAdvertised(int lbs) {
        try (Scsi.Unit u = unit(lbs)) {
            byte[] b2 = u.run(inquiry(true, 0xB2, 255), null).assertGood().data();
            boolean lbpws = (b2[5] & 0x40) != 0;
            boolean lbpws10 = (b2[5] & 0x20) != 0;
            boolean ws16Listed = u.run(SpcCommandsTest.rsoc(1, WRITE_SAME_16, 0, 64), null).data()[1] == 0x03;
            boolean ws10Listed = u.run(SpcCommandsTest.rsoc(1, WRITE_SAME_10, 0, 64), null).data()[1] == 0x03;
            long mwsl = u64(blockLimits(u), 36);
            assertThat(lbpws).isEqualTo(ws16Listed).isEqualTo(lbs <= 4096);
            assertThat(lbpws10).isEqualTo(ws10Listed).isEqualTo(lbs <= 4096);
            assertThat(mwsl != 0).isEqualTo(ws16Listed);
            byte[] zeros = new byte[lbs];
            Scsi.Reply ws16 = u.run(sixteen(WRITE_SAME_16, 0x08, 0, 4), zeros);
            Scsi.Reply ws10 = u.run(ten(WRITE_SAME_10, 0x08, 0, 4), zeros);
            if (lbpws) {
                ws16.assertGood();
                ws10.assertGood();
            } else {
                ws16.assertCheck(0x5, 0x20, 0x00);
                ws10.assertCheck(0x5, 0x20, 0x00);
                u.run(sixteen(WRITE_SAME_16, 0, 0, 4), zeros).assertCheck(0x5, 0x20, 0x00); // without UNMAP too
            }
        }
    }

    /**
     * WRITE SAME supported but LBPWS / LBPWS10 zero (a limits set the derivation may produce once LUN
     * knobs exist): UNMAP = 1 is INVALID FIELD IN CDB at byte 1 bit 3 (SBC-4 §5.47, §5.48); UNMAP = 0 works.
     */
    @Test
    void unmapBitWhereLbpwsIsZeroIsInvalidFieldInCdb() {
        try (RamBlockDevice device = Scsi.ram("nolbpws", 512, 512, 1 << 20)) {
            UnitLimits derived = UnitLimits.of(device.geometry());
            UnitLimits noLbpws = new UnitLimits(derived.maximumTransferLength(), derived.optimalTransferLength(),
                    derived.transferGranularity(), derived.maximumCompareAndWrite(), derived.maximumWriteSameLength(),
                    derived.maximumUnmapLbaCount(), derived.maximumUnmapDescriptors(),
                    derived.maximumPrefetchLength(), false, false, derived.supported());
            SbcProvisioning provisioning = new SbcProvisioning(device, noLbpws, new RangeLock(),
                    new io.blocktarget.block.lun.LunState("x"));
            for (byte[] cdb : new byte[][] {sixteen(WRITE_SAME_16, 0x08, 0, 4), ten(WRITE_SAME_10, 0x08, 0, 4)}) {
                Scsi.Reply r = direct(cdb, new byte[512], t -> provisioning.writeSame(t, (WriteSameCdb) parse(cdb)));
                r.assertCheck(0x5, 0x24, 0x00).assertCdbField(1, 3);
                assertThat(WriteSameCdb.UNMAP_FIELD.field()).isEqualTo(1);
            }
            byte[] plain = sixteen(WRITE_SAME_16, 0, 0, 4);
            direct(plain, new byte[512], t -> provisioning.writeSame(t, (WriteSameCdb) parse(plain))).assertGood();
        }
    }

    /**
     * WRITE SAME and COMPARE AND WRITE take a Data-Out Buffer of one fixed size (one block; verify + write blocks):
     * an Expected Data Transfer Length that says more or less is INVALID FIELD IN COMMAND INFORMATION UNIT (0Eh/03h)
     * and nothing is written — unlike a WRITE, no part of the command can be completed on its own.
     */
    @Test
    void writeSameAndCompareAndWriteNeedExactlyTheirDataOut() {
        try (Scsi.Unit u = unit(512)) {
            byte[] pattern = new byte[512];
            java.util.Arrays.fill(pattern, (byte) 0x6B);
            for (int size : new int[] {256, 1024}) {
                byte[] data = java.util.Arrays.copyOf(pattern, size);
                u.run(sixteen(WRITE_SAME_16, 0, 0, 4), data).assertCheck(0x5, 0x0E, 0x03);
                u.run(ten(WRITE_SAME_10, 0x08, 0, 4), data).assertCheck(0x5, 0x0E, 0x03);
            }
            assertThat(u.run(sixteen(READ_16, 0, 0, 1), null).assertGood().data()[0]).as("nothing written").isZero();
            u.run(sixteen(WRITE_SAME_16, 0, 0, 4), pattern).assertGood();
            // COMPARE AND WRITE of one block: 2 blocks of data-out exactly, not 3
            byte[] caw = new byte[16];
            caw[0] = (byte) 0x89;
            caw[13] = 1;
            byte[] three = new byte[3 * 512];
            System.arraycopy(pattern, 0, three, 0, 512);
            u.run(caw, three).assertCheck(0x5, 0x0E, 0x03);
            assertThat(u.run(sixteen(READ_16, 0, 0, 1), null).assertGood().data()[0]).isEqualTo((byte) 0x6B);
            u.run(caw, java.util.Arrays.copyOf(three, 1024)).assertGood();
            caw[13] = 0; // zero blocks (SBC-4 §5.3.2: not an error) take no data-out either
            u.run(caw, new byte[1024]).assertCheck(0x5, 0x0E, 0x03);
            Scsi.run(u.target(), Scsi.A, 0, caw, null, 0).assertGood();
            assertThat(u.run(sixteen(READ_16, 0, 0, 1), null).assertGood().data()[0]).as("written").isZero();
        }
    }

    /**
     * ANC_SUP is zero in the Logical Block Provisioning VPD page (we never anchor), so WRITE SAME with ANCHOR = 1
     * and UNMAP = 1 is INVALID FIELD IN CDB at byte 1 bit 4 (SBC-4 §5.47, §5.48), as UNMAP's ANCHOR is; nothing is
     * unmapped. ANCHOR without UNMAP is refused by the parse already.
     */
    @Test
    void writeSameAnchorWhereAncSupIsZeroIsInvalidFieldInCdb() {
        try (Scsi.Unit u = unit(512)) {
            byte[] pattern = new byte[512];
            java.util.Arrays.fill(pattern, (byte) 0x5A);
            u.run(sixteen(WRITE_SAME_16, 0, 0, 4), pattern).assertGood();
            for (byte[] cdb : new byte[][] {sixteen(WRITE_SAME_16, 0x18, 0, 4), ten(WRITE_SAME_10, 0x18, 0, 4)}) {
                u.run(cdb, new byte[512]).assertCheck(0x5, 0x24, 0x00).assertCdbField(1, 4);
            }
            byte[] back = u.run(sixteen(READ_16, 0, 0, 4), null).assertGood().data();
            assertThat(back[0]).as("nothing was unmapped").isEqualTo((byte) 0x5A);
        }
    }

    /**
     * RSOC lists exactly what is executed: every operation code (and every service action of the codes
     * that have them) RSOC does not list is refused as unsupported — INVALID COMMAND OPERATION CODE, or
     * INVALID FIELD IN CDB at the SERVICE ACTION field — and none that it lists is.
     */
    @ParameterizedTest
    @ValueSource(ints = {512, 65536})
    void commandsNotListedByReportSupportedOperationCodesAreRefusedAndListedOnesAreNot(int lbs) {
        try (Scsi.Unit u = unit(lbs)) {
            byte[] all = u.run(SpcCommandsTest.rsoc(0, 0, 0, 8192), null).assertGood().data();
            Set<Integer> listed = new HashSet<>();        // code << 8 | service action (0 when none)
            Set<Integer> listedCodes = new HashSet<>();
            for (int at = 4; at < 4 + u32(all, 0); at += 8) {
                listed.add((all[at] & 0xFF) << 8 | u16(all, at + 2));
                listedCodes.add(all[at] & 0xFF);
            }
            for (int code = 0; code < 256; code++) {
                boolean hasSa = ScsiOpcode.definesServiceActions(code);
                for (int sa = 0; sa < (hasSa ? 32 : 1); sa++) {
                    byte[] cdb = new byte[16];
                    cdb[0] = (byte) code;
                    cdb[1] = (byte) sa;
                    Scsi.Reply r = u.run(cdb, null);
                    boolean invalidOpcode = r.status() == ScsiStatus.CHECK_CONDITION && r.senseKey() == 0x5
                            && r.asc() == 0x20;
                    boolean invalidSa = hasSa && r.status() == ScsiStatus.CHECK_CONDITION && r.senseKey() == 0x5
                            && r.asc() == 0x24 && r.senseKeySpecific() == (0xCC << 16 | 1);
                    String what = String.format("opcode %02Xh SA %02Xh at %d", code, sa, lbs);
                    if (listed.contains(code << 8 | sa)) {
                        assertThat(invalidOpcode || invalidSa).as(what + " is listed but refused").isFalse();
                    } else if (hasSa && listedCodes.contains(code)) {
                        assertThat(invalidSa).as(what + " is not listed: INVALID FIELD at the SA").isTrue();
                    } else {
                        assertThat(invalidOpcode).as(what + " is not listed: INVALID COMMAND OPERATION CODE").isTrue();
                    }
                }
            }
        }
    }

    /** The supported set is one value: RSOC's list and the dispatcher's check read the same record. */
    @Test
    void unitLimitsListTheSupportedSetInOperationCodeOrder() {
        UnitLimits at4k = UnitLimits.of(new BlockGeometry(4096, 4096, 1024));
        UnitLimits at64k = UnitLimits.of(new BlockGeometry(65536, 65536, 1024));
        assertThat(at4k.supportedOpcodes()).containsAll(EnumSet.of(ScsiOpcode.WRITE_SAME_10, ScsiOpcode.WRITE_SAME_16));
        assertThat(at64k.supportedOpcodes()).doesNotContain(ScsiOpcode.WRITE_SAME_10, ScsiOpcode.WRITE_SAME_16);
        assertThat(at64k.refusal(0x93, -1)).isPresent();
        assertThat(at4k.refusal(0x93, -1)).isEmpty();
        assertThat(at4k.supportedOpcodes()).isSortedAccordingTo((a, b) -> a.compareTo(b));
    }

    static Cdb parse(byte[] cdb) {
        return Cdb.parse(Unpooled.wrappedBuffer(cdb));
    }

    /** Runs one handler directly on a Task (for limit sets the derivation does not produce today). */
    static Scsi.Reply direct(byte[] cdb, byte[] dataOut, java.util.function.Consumer<Task> handler) {
        ByteBuf cdbBuf = Unpooled.wrappedBuffer(cdb);
        ByteBuf out = dataOut == null ? null : Unpooled.wrappedBuffer(dataOut);
        CompletableFuture<ScsiResponse> done = new CompletableFuture<>();
        try {
            handler.accept(new Task(ScsiCommand.of(Scsi.A, 0, cdbBuf, TaskAttribute.SIMPLE, 1,
                    dataOut == null ? 0 : dataOut.length, out), done::complete, false));
            ScsiResponse r = done.get(10, TimeUnit.SECONDS);
            byte[] sense = null;
            if (r.senseData() != null) {
                sense = io.netty.buffer.ByteBufUtil.getBytes(r.senseData());
                r.senseData().release();
            }
            if (r.dataIn() != null) {
                r.dataIn().release();
            }
            return new Scsi.Reply(r.status(), null, sense, r.transferLength());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
