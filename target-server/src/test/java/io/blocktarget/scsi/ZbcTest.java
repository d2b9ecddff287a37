package io.blocktarget.scsi;

import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.ZoneLayout;
import io.blocktarget.block.Zones;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.block.zoned.ZonedBlockDevice;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.HexFormat;

import static io.blocktarget.scsi.Scsi.inquiry;
import static io.blocktarget.scsi.Scsi.readCapacity16;
import static io.blocktarget.scsi.Scsi.sixteen;
import static io.blocktarget.scsi.Scsi.u32;
import static io.blocktarget.scsi.Scsi.u64;
import static org.assertj.core.api.Assertions.assertThat;

/** SCSI ZBC-2 over the zone model: byte-exact data, every sense path, every ZBC OUT action. */
class ZbcTest {
    private static final int READ_16 = 0x88, WRITE_16 = 0x8A, UNMAP = 0x42, WRITE_SAME_16 = 0x93;
    private static final int CLOSE = 0x01, FINISH = 0x02, OPEN = 0x03, RESET = 0x04;

    /** 8 zones of 64 blocks, zone 0 conventional, capacity 64 or 48 (gaps). */
    private static Scsi.Unit zoned(int lbs, long capacity, int maxOpen, int maxActive) {
        return zoned(lbs, 64, 8, new ZoneLayout(64, capacity, 1, maxOpen, maxActive, 0, 1, true));
    }

    private static Scsi.Unit zoned(int lbs, long zoneSize, int zones, ZoneLayout layout) {
        RamBlockDevice ram = new RamBlockDevice("zbc", new BlockGeometry(lbs, lbs, zones * zoneSize), false,
                new MemoryBudget(1L << 30));
        return Scsi.Unit.of(new ZonedBlockDevice(ram, layout));
    }

    private static Zones zones(Scsi.Unit u) {
        return u.device().zones().orElseThrow();
    }

    static byte[] reportZones(long lba, long allocation, boolean partial, int options) {
        byte[] c = new byte[16];
        c[0] = (byte) 0x95;
        for (int i = 0; i < 8; i++) {
            c[2 + i] = (byte) (lba >>> (56 - 8 * i));
        }
        for (int i = 0; i < 4; i++) {
            c[10 + i] = (byte) (allocation >>> (24 - 8 * i));
        }
        c[14] = (byte) ((partial ? 0x80 : 0) | options);
        return c;
    }

    static byte[] zbcOut(int action, long zoneId, int count, boolean all) {
        byte[] c = new byte[16];
        c[0] = (byte) 0x94;
        c[1] = (byte) action;
        for (int i = 0; i < 8; i++) {
            c[2 + i] = (byte) (zoneId >>> (56 - 8 * i));
        }
        c[12] = (byte) (count >>> 8);
        c[13] = (byte) count;
        c[14] = (byte) (all ? 1 : 0);
        return c;
    }

    private static byte[] write(Scsi.Unit u, long lba, int blocks, int lbs) {
        return u.run(sixteen(WRITE_16, 0, lba, blocks), Scsi.pattern(lba, blocks * lbs)).data();
    }

    private static Scsi.Reply writeReply(Scsi.Unit u, long lba, int blocks) {
        int lbs = u.device().geometry().logicalBlockSize();
        return u.run(sixteen(WRITE_16, 0, lba, blocks), Scsi.pattern(lba, blocks * lbs));
    }

    private static byte[] hex(String s) {
        return HexFormat.of().parseHex(s.replace(" ", ""));
    }

    @Test
    void inquiryIsHostManagedZoned() {
        try (Scsi.Unit u = zoned(4096, 64, 0, 0)) {
            byte[] std = u.run(inquiry(false, 0, 96), null).assertGood().data();
            assertThat(std[0]).isEqualTo((byte) 0x14);
            byte[] pages = u.run(inquiry(true, 0x00, 255), null).assertGood().data();
            assertThat(pages).isEqualTo(Scsi.cdb(0x14, 0x00, 0x00, 0x06, 0x00, 0x80, 0x83, 0xB0, 0xB1, 0xB6));
            byte[] b1 = u.run(inquiry(true, 0xB1, 255), null).assertGood().data();
            assertThat(b1[0]).isEqualTo((byte) 0x14);
            assertThat(b1[8] & 0x30).as("ZONED = 00b for host managed").isZero();
            assertThat(b1[7] & 0xF0).as("WABEREQ = WACEREQ = 00b: no SANITIZE on a zoned unit").isZero();
            u.run(inquiry(true, 0xB2, 255), null).assertCheck(0x5, 0x24, 0x00);
        }
    }

    @Test
    void zonedBlockDeviceCharacteristicsVpd() {
        try (Scsi.Unit u = zoned(4096, 64, 6, 0)) {
            byte[] b6 = u.run(inquiry(true, 0xB6, 255), null).assertGood().data();
            assertThat(b6).isEqualTo(hex("14 b6 003c 01 000000 ffffffff ffffffff 00000006 000000 01 0000000000000000"
                    + "0".repeat(64)));
        }
        try (Scsi.Unit u = zoned(4096, 48, 0, 0)) {                // gaps: constant zone start offset, granularity
            byte[] b6 = u.run(inquiry(true, 0xB6, 255), null).assertGood().data();
            assertThat(b6).isEqualTo(hex("14 b6 003c 01 000000 ffffffff ffffffff ffffffff 000000 08 0000000000000040"
                    + "0".repeat(64)));
        }
    }

    @Test
    void readCapacity16SaysRcBasisOneAndNoProvisioning() {
        try (Scsi.Unit u = zoned(4096, 64, 0, 0)) {
            byte[] rc = u.run(readCapacity16(32), null).assertGood().data();
            assertThat(u64(rc, 0)).isEqualTo(511);
            assertThat(u32(rc, 8)).isEqualTo(4096);
            assertThat(rc[12] & 0x30).isEqualTo(0x10);                 // RC BASIS 01b
            assertThat(rc[14] & 0xC0).isZero();                        // LBPME = LBPRZ = 0
        }
        try (Scsi.Unit u = Scsi.Unit.ram("plain", 4096, 4096, 1L << 20)) {
            byte[] rc = u.run(readCapacity16(32), null).assertGood().data();
            assertThat(rc[12] & 0x30).isZero();
            assertThat(rc[14] & 0xC0).isEqualTo(0xC0);
        }
    }

    @Test
    void reportZonesByteExact() {
        try (Scsi.Unit u = zoned(4096, 64, 0, 0)) {
            write(u, 64, 3, 4096);                                       // zone 1 implicitly open, WP 67
            u.run(zbcOut(FINISH, 128, 0, false), null).assertGood();      // zone 2 FULL
            byte[] d = u.run(reportZones(0, 64 + 4 * 64, false, 0), null).assertGood().data();
            String header = "00000200 03 000000 00000000000001ff 0000000000000000" + "0".repeat(80);
            String conv = "01 00 000000000000 0000000000000040 0000000000000000 ffffffffffffffff" + "0".repeat(64);
            String open = "02 20 000000000000 0000000000000040 0000000000000040 0000000000000043" + "0".repeat(64);
            String full = "02 e0 000000000000 0000000000000040 0000000000000080 00000000000000c0" + "0".repeat(64);
            String empty = "02 10 000000000000 0000000000000040 00000000000000c0 00000000000000c0" + "0".repeat(64);
            assertThat(d).isEqualTo(hex(header + conv + open + full + empty));
        }
    }

    @Test
    void reportZonesWithGapZones() {
        try (Scsi.Unit u = zoned(4096, 48, 0, 0)) {
            byte[] d = u.run(reportZones(64, 64 + 3 * 64, false, 0), null).assertGood().data();
            assertThat(u32(d, 0)).isEqualTo(14 * 64);                  // 7 SWR + 7 gap zones from LBA 64
            assertThat(d[4]).isEqualTo((byte) 0);                        // SAME: lengths differ
            assertThat(u64(d, 16)).isEqualTo(64);                       // ZONE STARTING LBA GRANULARITY
            String swr = "02 10 000000000000 0000000000000030 0000000000000040 0000000000000040" + "0".repeat(64);
            String gap = "05 00 000000000000 0000000000000010 0000000000000070 ffffffffffffffff" + "0".repeat(64);
            String next = "02 10 000000000000 0000000000000030 0000000000000080 0000000000000080" + "0".repeat(64);
            assertThat(java.util.Arrays.copyOfRange(d, 64, d.length)).isEqualTo(hex(swr + gap + next));
            // a start inside the gap reports from the gap zone; 3Eh leaves the gaps out
            byte[] fromGap = u.run(reportZones(0x75, 64 + 64, true, 0), null).assertGood().data();
            assertThat(u64(fromGap, 64 + 16)).isEqualTo(0x70);
            assertThat(fromGap[64] & 0xF).isEqualTo(5);
            byte[] noGaps = u.run(reportZones(0, 64 + 64 * 16, false, 0x3E), null).assertGood().data();
            assertThat(u32(noGaps, 0)).isEqualTo(8 * 64);
            byte[] notWp = u.run(reportZones(0, 64 + 64 * 16, false, 0x3F), null).assertGood().data();
            assertThat(u32(notWp, 0)).isEqualTo(8 * 64);                // the conventional zone and 7 gaps
            // writes into the gap and reads of it are refused
            writeReply(u, 64, 49).assertCheck(0x5, 0x21, 0x05);
            u.run(sixteen(READ_16, 0, 0x70, 1), null).assertCheck(0x5, 0x21, 0x09);
            u.run(zbcOut(RESET, 0x70, 0, false), null).assertCheck(0x5, 0x24, 0x00).assertCdbField(2, 7);
            u.run(zbcOut(RESET, 64, 2, false), null).assertCheck(0x5, 0x24, 0x00).assertCdbField(12, 7);
        }
    }

    @Test
    void partialAndAllocationLength() {
        try (Scsi.Unit u = zoned(4096, 64, 0, 0)) {
            byte[] full = u.run(reportZones(0, 64 + 2 * 64, false, 0), null).assertGood().data();
            assertThat(full).hasSize(64 + 2 * 64);
            assertThat(u32(full, 0)).isEqualTo(8 * 64);               // PARTIAL = 0: every matching zone
            byte[] partial = u.run(reportZones(0, 64 + 2 * 64, true, 0), null).assertGood().data();
            assertThat(u32(partial, 0)).isEqualTo(2 * 64);            // PARTIAL = 1: those returned
            byte[] headerOnly = u.run(reportZones(0, 64, false, 0), null).assertGood().data();
            assertThat(headerOnly).hasSize(64);
            assertThat(u32(headerOnly, 0)).isEqualTo(8 * 64);
            byte[] cut = u.run(reportZones(0, 100, false, 0), null).assertGood().data();
            assertThat(cut).hasSize(100);                              // the allocation length cuts a descriptor
            assertThat(u.run(reportZones(0, 0, false, 0), null).assertGood().data()).isEmpty();
            byte[] from = u.run(reportZones(300, 64 + 64, true, 0), null).assertGood().data();
            assertThat(u64(from, 64 + 16)).isEqualTo(256);           // the zone holding LBA 300
            u.run(reportZones(511, 128, false, 0), null).assertGood();  // the last LBA
            assertThat(u.run(reportZones(0, 0xFFFF_FFFFL, false, 0), null).assertGood().data()).hasSize(64 + 8 * 64);
            u.run(reportZones(512, 128, false, 0), null).assertCheck(0x5, 0x21, 0x00);
        }
    }

    @Test
    void everyReportingOption() {
        try (Scsi.Unit u = zoned(4096, 64, 0, 0)) {
            Zones z = zones(u);
            write(u, 64, 1, 4096);           // 1 IMPLICIT OPEN
            z.open(2);                       // 2 EXPLICIT OPEN
            write(u, 192, 1, 4096);
            z.close(3);                      // 3 CLOSED
            z.finish(4);                     // 4 FULL
            z.setReadOnly(5);                // 5 READ ONLY
            z.setOffline(6);                 // 6 OFFLINE, 7 EMPTY
            int[][] expect = {{0x00, 8}, {0x01, 1}, {0x02, 1}, {0x03, 1}, {0x04, 1}, {0x05, 1}, {0x06, 1}, {0x07, 1},
                    {0x08, 0}, {0x10, 0}, {0x11, 0}, {0x3E, 8}, {0x3F, 1}};
            for (int[] e : expect) {
                byte[] d = u.run(reportZones(0, 64 + 64 * 8, false, e[0]), null).assertGood().data();
                assertThat(u32(d, 0)).as("option %02x", e[0]).isEqualTo(e[1] * 64L);
            }
            byte[] ro = u.run(reportZones(0, 128, true, 0x06), null).assertGood().data();
            assertThat(ro[65] & 0xFF).isEqualTo(0xD0);
            assertThat(u64(ro, 64 + 24)).isEqualTo(-1L);                // no valid write pointer
            for (int undefined : new int[] {0x09, 0x0F, 0x12, 0x3D}) {
                u.run(reportZones(0, 128, false, undefined), null).assertCheck(0x5, 0x24, 0x00).assertCdbField(14, 5);
            }
        }
    }

    /** The write pointer rules through WRITE(16) at every logical block size, with their ZBC sense codes. */
    @ParameterizedTest
    @ValueSource(ints = {512, 1024, 2048, 4096, 8192, 16384, 32768, 65536})
    void writePointerSenseAtEveryBlockSize(int lbs) {
        try (Scsi.Unit u = zoned(lbs, 16, 4, new ZoneLayout(16, 16, 1, 0, 0, 0, 1, true))) {
            writeReply(u, 16, 4).assertGood();
            writeReply(u, 16, 1).assertCheck(0x5, 0x21, 0x04);            // UNALIGNED WRITE COMMAND (below WP)
            writeReply(u, 21, 1).assertCheck(0x5, 0x21, 0x04);            // (above WP)
            writeReply(u, 20, 13).assertCheck(0x5, 0x21, 0x05);           // WRITE BOUNDARY VIOLATION
            writeReply(u, 14, 4).assertCheck(0x5, 0x21, 0x05);            // conventional into sequential
            writeReply(u, 20, 12).assertGood();                           // exactly to the end: FULL
            writeReply(u, 20, 1).assertCheck(0x5, 0x24, 0x00);            // FULL zone
            assertThat(u.run(sixteen(READ_16, 0, 16, 16), null).assertGood().data())
                    .isEqualTo(concat(Scsi.pattern(16, 4 * lbs), Scsi.pattern(20, 12 * lbs)));
            u.run(sixteen(READ_16, 0, 0, 48), null).assertGood();          // unrestricted reads, across zones
            u.run(zbcOut(RESET, 16, 0, false), null).assertGood();
            assertThat(u.run(sixteen(READ_16, 0, 16, 16), null).assertGood().data()).isEqualTo(new byte[16 * lbs]);
            writeReply(u, 16, 1).assertGood();
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] c = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    @Test
    void restrictedReadSense() {
        try (Scsi.Unit u = zoned(4096, 16, 4, new ZoneLayout(16, 16, 1, 0, 0, 0, 1, false))) {
            byte[] b6 = u.run(inquiry(true, 0xB6, 255), null).assertGood().data();
            assertThat(b6[4]).isZero();                                   // URSWRZ = 0
            writeReply(u, 16, 2).assertGood();
            u.run(sixteen(READ_16, 0, 16, 3), null).assertCheck(0x5, 0x21, 0x06);   // ATTEMPT TO READ INVALID DATA
            u.run(sixteen(READ_16, 0, 14, 3), null).assertCheck(0x5, 0x21, 0x07);   // READ BOUNDARY VIOLATION
        }
    }

    @Test
    void zoneResourcesAndConditionsSense() {
        try (Scsi.Unit u = zoned(4096, 64, 1, 0)) {
            u.run(zbcOut(OPEN, 64, 0, false), null).assertGood();
            writeReply(u, 128, 1).assertCheck(0x7, 0x55, 0x0E);            // INSUFFICIENT ZONE RESOURCES
            u.run(zbcOut(OPEN, 128, 0, false), null).assertCheck(0x7, 0x55, 0x0E);
            zones(u).setReadOnly(3);
            writeReply(u, 192, 1).assertCheck(0x7, 0x27, 0x08);            // ZONE IS READ ONLY
            u.run(zbcOut(RESET, 192, 0, false), null).assertCheck(0x7, 0x27, 0x08);
            zones(u).setOffline(4);
            writeReply(u, 256, 1).assertCheck(0x7, 0x2C, 0x0E);            // ZONE IS OFFLINE
            u.run(sixteen(READ_16, 0, 256, 1), null).assertCheck(0x7, 0x2C, 0x0E);
            u.run(zbcOut(FINISH, 256, 0, false), null).assertCheck(0x7, 0x2C, 0x0E);
        }
        try (Scsi.Unit u = zoned(4096, 64, 0, 1)) {                          // max-active: the same sense
            writeReply(u, 64, 1).assertGood();
            writeReply(u, 128, 1).assertCheck(0x7, 0x55, 0x0E);
        }
    }

    @Test
    void everyZbcOutAction() {
        try (Scsi.Unit u = zoned(4096, 64, 0, 0)) {
            Zones z = zones(u);
            u.run(zbcOut(OPEN, 64, 0, false), null).assertGood();
            assertThat(z.zone(1).condition().code()).isEqualTo(0x3);
            u.run(zbcOut(OPEN, 64, 0, false), null).assertGood();           // already open
            u.run(zbcOut(CLOSE, 64, 0, false), null).assertGood();          // nothing written: EMPTY
            assertThat(z.zone(1).condition().code()).isEqualTo(0x1);
            u.run(zbcOut(CLOSE, 64, 0, false), null).assertGood();          // EMPTY: no-op, GOOD
            u.run(zbcOut(FINISH, 64, 0, false), null).assertGood();
            assertThat(z.zone(1).condition().code()).isEqualTo(0xE);
            u.run(zbcOut(OPEN, 64, 0, false), null).assertGood();           // FULL: no-op, GOOD
            assertThat(z.zone(1).condition().code()).isEqualTo(0xE);
            u.run(zbcOut(RESET, 64, 0, false), null).assertGood();
            assertThat(z.zone(1).condition().code()).isEqualTo(0x1);
            // ZONE COUNT: three zones from zone 2
            u.run(zbcOut(OPEN, 128, 3, false), null).assertGood();
            assertThat(z.openZones()).isEqualTo(3);
            u.run(zbcOut(OPEN, 448, 2, false), null).assertCheck(0x5, 0x24, 0x00).assertCdbField(12, 7);
            // ALL
            write(u, 448, 1, 4096);
            u.run(zbcOut(CLOSE, 0, 0, true), null).assertGood();
            assertThat(z.openZones()).isZero();
            assertThat(z.zone(7).condition().code()).isEqualTo(0x4);
            u.run(zbcOut(OPEN, 0, 0, true), null).assertGood();
            assertThat(z.zone(7).condition().code()).isEqualTo(0x3);
            u.run(zbcOut(FINISH, 0, 0, true), null).assertGood();
            assertThat(z.zone(7).condition().code()).isEqualTo(0xE);
            u.run(zbcOut(RESET, 0, 0, true), null).assertGood();
            for (int i = 1; i < 8; i++) {
                assertThat(z.zone(i).condition().code()).isEqualTo(0x1);
            }
            // ZONE ID checks: conventional, not a zone start, past the end
            u.run(zbcOut(RESET, 0, 0, false), null).assertCheck(0x5, 0x24, 0x00).assertCdbField(2, 7);
            u.run(zbcOut(RESET, 65, 0, false), null).assertCheck(0x5, 0x24, 0x00).assertCdbField(2, 7);
            u.run(zbcOut(RESET, 512, 0, false), null).assertCheck(0x5, 0x21, 0x00);
            u.run(zbcOut(0x05, 64, 0, false), null).assertCheck(0x5, 0x24, 0x00).assertCdbField(1, 4);
        }
    }

    @Test
    void zbcCommandsOnlyOnZonedUnitsAndNoProvisioningOnZonedOnes() {
        try (Scsi.Unit u = Scsi.Unit.ram("plain", 4096, 4096, 1L << 20)) {
            u.run(reportZones(0, 128, false, 0), null).assertCheck(0x5, 0x20, 0x00);
            u.run(zbcOut(RESET, 0, 0, true), null).assertCheck(0x5, 0x20, 0x00);
            byte[] std = u.run(inquiry(false, 0, 96), null).assertGood().data();
            assertThat(std[0]).isZero();
        }
        try (Scsi.Unit u = zoned(4096, 64, 0, 0)) {
            u.run(Scsi.cdb(UNMAP, 0, 0, 0, 0, 0, 0, 0, 24, 0), new byte[24]).assertCheck(0x5, 0x20, 0x00);
            // WRITE SAME(16) without UNMAP is a write at the write pointer; with UNMAP it is refused
            u.run(sixteen(WRITE_SAME_16, 0, 64, 4), new byte[4096]).assertGood();
            assertThat(zones(u).zone(1).writePointer()).isEqualTo(68);
            u.run(sixteen(WRITE_SAME_16, 0, 64, 4), new byte[4096]).assertCheck(0x5, 0x21, 0x04);
            u.run(sixteen(WRITE_SAME_16, 0x08, 68, 4), new byte[4096]).assertCheck(0x5, 0x24, 0x00);
        }
    }

    @Test
    void rsocListsZbcInAndOut() {
        try (Scsi.Unit u = zoned(4096, 64, 0, 0)) {
            byte[] all = u.run(Scsi.cdb(0xA3, 0x0C, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0), null).assertGood().data();
            java.util.Set<String> listed = new java.util.HashSet<>();
            for (int i = 4; i + 8 <= all.length; i += 8) {
                listed.add(String.format("%02x/%02x", all[i] & 0xFF, Scsi.u16(all, i + 2)));
            }
            assertThat(listed).contains("95/00", "94/01", "94/02", "94/03", "94/04").doesNotContain("42/00");
            // one-command form with the CDB usage data
            byte[] one = u.run(Scsi.cdb(0xA3, 0x0C, 0x02, 0x95, 0, 0, 0, 0, 0, 64, 0, 0), null).assertGood().data();
            assertThat(one[1] & 0x7).isEqualTo(0b011);
            assertThat(java.util.Arrays.copyOfRange(one, 4, 20))
                    .isEqualTo(hex("95 00 ff ff ff ff ff ff ff ff ff ff ff ff bf 05"));
        }
    }
}
