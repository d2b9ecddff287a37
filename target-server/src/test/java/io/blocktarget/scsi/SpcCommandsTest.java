package io.blocktarget.scsi;

import io.blocktarget.block.ram.RamBlockDevice;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static io.blocktarget.scsi.Scsi.A;
import static io.blocktarget.scsi.Scsi.B;
import static io.blocktarget.scsi.Scsi.cdb;
import static io.blocktarget.scsi.Scsi.run;
import static io.blocktarget.scsi.Scsi.testUnitReady;
import static io.blocktarget.scsi.Scsi.u16;
import static io.blocktarget.scsi.Scsi.u32;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** REPORT LUNS, REQUEST SENSE, unit attentions, non-existent LUNs, unsupported commands, RSOC. */
class SpcCommandsTest {
    private final RamBlockDevice d512 = Scsi.ram("a", 512, 4096, 1 << 20);
    private final RamBlockDevice d16k = Scsi.ram("b", 16384, 16384, 1 << 20);
    private final RamBlockDevice d4k = Scsi.ram("c", 4096, 4096, 1 << 20);
    private final ScsiTarget target = ScsiTargetDevices.createTargets(List.of(
            new LogicalUnitSpec(Scsi.TARGET, 300, "c", d4k),
            new LogicalUnitSpec(Scsi.TARGET, 0, "a", d512),
            new LogicalUnitSpec(Scsi.TARGET, 1, "b", d16k))).get(Scsi.TARGET);

    @AfterEach
    void close() {
        d512.close();
        d16k.close();
        d4k.close();
    }

    @Test
    void createGroupsByTargetAndRejectsBadLuns() {
        RamBlockDevice other = Scsi.ram("o", 512, 512, 1 << 20);
        Map<String, ScsiTargetDevice> map = ScsiTargetDevices.create(List.of(
                new LogicalUnitSpec("iqn.x:one", 2, "o1", other), new LogicalUnitSpec("iqn.x:two", 0, "o2", other),
                new LogicalUnitSpec("iqn.x:one", 0, "o3", other)));
        assertThat(map.keySet()).containsExactly("iqn.x:one", "iqn.x:two");
        assertThat(map.get("iqn.x:one").luns()).containsExactly(0L, 2L);
        assertThat(map.get("iqn.x:one").targetName()).isEqualTo("iqn.x:one");
        assertThat(target.luns()).containsExactly(0L, 1L, 300L);
        assertThatThrownBy(() -> ScsiTargetDevices.create(List.of(new LogicalUnitSpec("t", 16384, "x", other))))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ScsiTargetDevices.create(List.of(new LogicalUnitSpec("t", 1, "x", other),
                new LogicalUnitSpec("t", 1, "y", other)))).isInstanceOf(IllegalArgumentException.class);
        other.close();
    }

    @Test
    void reportLunsListsEveryLunWithFlatAddressingAbove255() {
        byte[] d = run(target, A, 0, Scsi.reportLuns(4096), null).assertGood().data();
        assertThat(d).isEqualTo(cdb(0, 0, 0, 24, 0, 0, 0, 0,
                0x00, 0x00, 0, 0, 0, 0, 0, 0,
                0x00, 0x01, 0, 0, 0, 0, 0, 0,
                0x41, 0x2C, 0, 0, 0, 0, 0, 0));               // 300 = 12Ch, flat space addressing 01b
        byte[] wellKnown = run(target, A, 0, cdb(0xA0, 0, 0x01, 0, 0, 0, 0, 0, 0x10, 0, 0, 0), null).assertGood().data();
        assertThat(wellKnown).isEqualTo(new byte[8]);
        run(target, A, 0, cdb(0xA0, 0, 0x03, 0, 0, 0, 0, 0, 0x10, 0, 0, 0), null).assertCheck(0x5, 0x24, 0x00)
                .assertCdbField(2, 7);
        Scsi.Reply cut = run(target, A, 0, Scsi.reportLuns(16), null).assertGood();
        assertThat(cut.data()).hasSize(16);
        assertThat(u32(cut.data(), 0)).isEqualTo(24);       // LUN LIST LENGTH still tells the whole
    }

    @Test
    void newNexusMeetsPowerOnResetOnceButNotOnInquiryReportLunsOrRequestSense() {
        run(target, A, 0, Scsi.inquiry(false, 0, 96), null).assertGood();
        run(target, A, 0, Scsi.reportLuns(64), null).assertGood();
        run(target, A, 0, testUnitReady(), null).assertCheck(0x6, 0x29, 0x00);
        run(target, A, 0, testUnitReady(), null).assertGood();
        // per logical unit
        run(target, A, 1, Scsi.ten(0x28, 0, 0, 1), null).assertCheck(0x6, 0x29, 0x00);
        run(target, A, 1, Scsi.ten(0x28, 0, 0, 1), null).assertGood();
    }

    @Test
    void requestSenseReturnsThePendingUnitAttentionAsDataThenNoSense() {
        Scsi.Reply r = run(target, A, 0, Scsi.requestSense(false, 252), null).assertGood();
        assertThat(r.data()).isEqualTo(cdb(0x70, 0, 0x06, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x29, 0x00, 0, 0, 0, 0));
        assertThat(r.sense()).isNull();
        assertThat(run(target, A, 0, Scsi.requestSense(false, 252), null).assertGood().data())
                .isEqualTo(cdb(0x70, 0, 0x00, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
        assertThat(run(target, A, 0, Scsi.requestSense(true, 252), null).assertGood().data())
                .isEqualTo(cdb(0x72, 0x00, 0x00, 0x00, 0, 0, 0, 0));
        assertThat(run(target, A, 0, Scsi.requestSense(false, 8), null).assertGood().data()).hasSize(8);
        run(target, A, 0, testUnitReady(), null).assertGood();
    }

    /** SAM-5 §6.3.3: every I_T nexus, the requester's included, learns of a reset once (UnitAttentionsTest). */
    @Test
    void logicalUnitResetRaisesItsUnitAttentionForEveryNexus() {
        Scsi.ready(target, A, 0);
        Scsi.ready(target, B, 0);
        Scsi.ready(target, B, 1);
        target.logicalUnitReset(A, 0);
        run(target, A, 0, testUnitReady(), null).assertCheck(0x6, 0x29, 0x03);
        run(target, A, 0, testUnitReady(), null).assertGood();
        run(target, B, 1, testUnitReady(), null).assertGood();
        run(target, B, 0, testUnitReady(), null).assertCheck(0x6, 0x29, 0x03);
        run(target, B, 0, testUnitReady(), null).assertGood();
        target.targetReset(A);
        run(target, B, 0, testUnitReady(), null).assertCheck(0x6, 0x29, 0x00);
        run(target, B, 1, testUnitReady(), null).assertCheck(0x6, 0x29, 0x00);
        run(target, A, 1, testUnitReady(), null).assertCheck(0x6, 0x29, 0x00); // A's first command on LUN 1
        target.logicalUnitReset(A, 77);                                        // no such LUN: nothing happens
    }

    @Test
    void lostNexusComesBackToNexusLossOccurred() {
        Scsi.ready(target, B, 0);
        target.nexusLost(B);
        run(target, B, 0, testUnitReady(), null).assertCheck(0x6, 0x29, 0x07);
        run(target, B, 0, testUnitReady(), null).assertGood();
    }

    @Test
    void reportedLunsAndCapacityChangesAreQueuedInOrderAndReportLunsClearsItsOwn() {
        Scsi.ready(target, A, 0);
        Scsi.ready(target, A, 1);
        target.capacityDataChanged(0);
        target.reportedLunsDataChanged();
        run(target, A, 0, testUnitReady(), null).assertCheck(0x6, 0x2A, 0x09);
        run(target, A, 0, testUnitReady(), null).assertCheck(0x6, 0x3F, 0x0E);
        run(target, A, 0, testUnitReady(), null).assertGood();
        // LUN 1 still has REPORTED LUNS DATA HAS CHANGED until a REPORT LUNS on this nexus
        run(target, A, 0, Scsi.reportLuns(64), null).assertGood();
        run(target, A, 1, testUnitReady(), null).assertGood();
    }

    @Test
    void nonExistentLun() {
        byte[] inq = run(target, A, 5, Scsi.inquiry(false, 0, 96), null).assertGood().data();
        assertThat(inq[0]).isEqualTo((byte) 0x7F);                  // qualifier 011b, type 1Fh
        byte[] lun0 = run(target, A, 0, Scsi.inquiry(false, 0, 96), null).data();
        assertThat(inq[5]).isZero();                                  // no LU: no target port groups to report
        lun0[5] = 0;
        assertThat(Arrays.copyOfRange(inq, 1, 96)).isEqualTo(Arrays.copyOfRange(lun0, 1, 96));
        assertThat(run(target, A, 5, Scsi.reportLuns(64), null).assertGood().data()).hasSize(32);
        Scsi.Reply sense = run(target, A, 5, Scsi.requestSense(false, 18), null).assertGood();
        assertThat(sense.data()).isEqualTo(cdb(0x70, 0, 0x05, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x25, 0x00, 0, 0, 0, 0));
        run(target, A, 5, testUnitReady(), null).assertCheck(0x5, 0x25, 0x00);
        run(target, A, 5, Scsi.ten(0x28, 0, 0, 1), null).assertCheck(0x5, 0x25, 0x00);
        run(target, A, 5, Scsi.inquiry(true, 0x80, 96), null).assertCheck(0x5, 0x25, 0x00);
        run(target, A, 5, cdb(0x04, 0, 0, 0, 0, 0), null).assertCheck(0x5, 0x25, 0x00);
        run(target, A, 5, Scsi.inquiry(false, 0x80, 96), null).assertCheck(0x5, 0x24, 0x00);
    }

    @Test
    void unsupportedCommandsAreInvalidCommandOperationCode() {
        Scsi.ready(target, A, 0);
        for (int op : new int[] {0x04, 0x1D, 0x3E, 0x7F, 0x9F, 0xC0, 0xFF, 0x4C, 0x3B}) {
            run(target, A, 0, cdb(op, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), null)
                    .assertCheck(0x5, 0x20, 0x00);
        }
        run(target, A, 0, cdb(0x04, 0, 0, 0, 0, 0), null).assertCheck(0x5, 0x20, 0x00).assertCdbField(0, 7);
        run(target, A, 0, cdb(0x1B, 0, 0, 0, 0x01, 0), null).assertGood();         // START STOP UNIT accepted
        run(target, A, 0, cdb(0x00, 0, 0, 0, 0, 0x01), null).assertCheck(0x5, 0x24, 0x00).assertCdbField(5, 0); // LINK
    }

    @Test
    void reportSupportedOperationCodesAllListsWriteSameOnlyUpTo4k() {
        Scsi.ready(target, A, 0);
        Scsi.ready(target, A, 1);
        List<Integer> at512 = opcodes(run(target, A, 0, rsoc(0, 0, 0, 8192), null).assertGood().data());
        List<Integer> at16k = opcodes(run(target, A, 1, rsoc(0, 0, 0, 8192), null).assertGood().data());
        assertThat(at512).contains(0x41, 0x93, 0x42, 0x28, 0x2A, 0x88, 0x8A, 0x89, 0x35, 0x91, 0x12, 0xA0, 0x9E, 0x5E, 0x5F);
        assertThat(at16k).contains(0x42, 0x28, 0x8A).doesNotContain(0x41, 0x93);
        assertThat(at512.size() - at16k.size()).isEqualTo(2);
        // PERSISTENT RESERVE OUT: all 8 service actions, REGISTER AND MOVE included
        assertThat(at512.stream().filter(op -> op == 0x5F).count()).isEqualTo(8);
    }

    @Test
    void reportSupportedOperationCodesDescriptorsByteByByte() {
        Scsi.ready(target, A, 0);
        byte[] d = run(target, A, 0, rsoc(0, 0, 0, 8192), null).assertGood().data();
        assertThat(Arrays.copyOfRange(d, 4, 12)).isEqualTo(cdb(0x00, 0, 0x00, 0x00, 0, 0x00, 0x00, 0x06)); // TUR
        int readKeys = indexOf(d, 0x5E);
        assertThat(Arrays.copyOfRange(d, readKeys, readKeys + 8))
                .isEqualTo(cdb(0x5E, 0, 0x00, 0x00, 0, 0x01, 0x00, 0x0A));                  // SERVACTV, 10 bytes
        int rc16 = indexOf(d, 0x9E);
        assertThat(Arrays.copyOfRange(d, rc16, rc16 + 8)).isEqualTo(cdb(0x9E, 0, 0x00, 0x10, 0, 0x01, 0x00, 0x10));
        // RCTD: each descriptor grows by a 12-byte command timeouts descriptor and says CTDP
        byte[] t = run(target, A, 0, cdb(0xA3, 0x0C, 0x80, 0, 0, 0, 0, 0, 0x20, 0, 0, 0), null).assertGood().data();
        assertThat(u32(t, 0)).isEqualTo(u32(d, 0) / 8 * 20);
        assertThat(Arrays.copyOfRange(t, 4, 24)).isEqualTo(cdb(0x00, 0, 0, 0, 0, 0x02, 0, 0x06,
                0x00, 0x0A, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
        // truncated to the allocation length, transfer length = what is returned
        Scsi.Reply cut = run(target, A, 0, rsoc(0, 0, 0, 10), null).assertGood();
        assertThat(cut.data()).hasSize(10);
        assertThat(cut.transferLength()).isEqualTo(10);
    }

    private static int indexOf(byte[] rsocAll, int opcode) {
        for (int at = 4; at < rsocAll.length; at += 8) {
            if ((rsocAll[at] & 0xFF) == opcode) {
                return at;
            }
        }
        throw new AssertionError("opcode " + opcode + " not listed");
    }

    @Test
    void reportSupportedOperationCodesOneCommand() {
        Scsi.ready(target, A, 0);
        Scsi.ready(target, A, 1);
        byte[] ws16 = run(target, A, 0, rsoc(1, 0x93, 0, 64), null).assertGood().data();
        assertThat(Arrays.copyOfRange(ws16, 0, 6)).isEqualTo(cdb(0x00, 0x03, 0x00, 0x10, 0x93, 0xFF));
        assertThat(ws16).hasSize(20);
        assertThat(run(target, A, 1, rsoc(1, 0x93, 0, 64), null).assertGood().data())
                .isEqualTo(cdb(0x00, 0x01, 0x00, 0x00));                   // not supported at 16 KiB
        byte[] rc16 = run(target, A, 0, rsoc(2, 0x9E, 0x10, 64), null).assertGood().data();
        assertThat(Arrays.copyOfRange(rc16, 0, 6)).isEqualTo(cdb(0x00, 0x03, 0x00, 0x10, 0x9E, 0x10));
        assertThat(run(target, A, 0, rsoc(1, 0x04, 0, 64), null).assertGood().data()).isEqualTo(cdb(0, 1, 0, 0));
        run(target, A, 0, rsoc(1, 0x9E, 0, 64), null).assertCheck(0x5, 0x24, 0x00).assertCdbField(2, 2);
    }

    /** MAINTENANCE IN / REPORT SUPPORTED OPERATION CODES (SPC-4 §6.35.1). */
    static byte[] rsoc(int options, int op, int sa, int allocation) {
        return cdb(0xA3, 0x0C, options, op, sa >> 8, sa, allocation >> 24, allocation >> 16, allocation >> 8,
                allocation, 0, 0);
    }

    /** Operation codes of an all-commands RSOC answer, checking each 8-byte descriptor's layout. */
    static List<Integer> opcodes(byte[] d) {
        long length = u32(d, 0);
        assertThat(length % 8).isZero();
        List<Integer> ops = new ArrayList<>();
        for (int at = 4; at < 4 + length; at += 8) {
            ops.add(d[at] & 0xFF);
            boolean servactv = (d[at + 5] & 0x01) != 0;
            int sa = u16(d, at + 2);
            assertThat(servactv || sa == 0).isTrue();
            int cdbLength = u16(d, at + 6);
            assertThat(cdbLength).isIn(6, 10, 12, 16);
        }
        return ops;
    }
}
