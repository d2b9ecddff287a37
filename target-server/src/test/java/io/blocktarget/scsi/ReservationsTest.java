package io.blocktarget.scsi;

import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.protocol.scsi.ScsiStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static io.blocktarget.scsi.Scsi.A;
import static io.blocktarget.scsi.Scsi.B;
import static io.blocktarget.scsi.Scsi.cdb;
import static io.blocktarget.scsi.Scsi.run;
import static io.blocktarget.scsi.Scsi.ten;
import static io.blocktarget.scsi.Scsi.testUnitReady;
import static io.blocktarget.scsi.Scsi.u32;
import static io.blocktarget.scsi.Scsi.u64;
import static org.assertj.core.api.Assertions.assertThat;

/** RESERVE(6) / RELEASE(6) and PERSISTENT RESERVE IN / OUT (SPC-2 §7.21, SPC-4 §5.13, §6.15-6.16). */
class ReservationsTest {
    static final ItNexus C = new ItNexus("iqn.2026-11.test:host-c,i,0x23d000000003", Scsi.TARGET + ",t,0x0001", 1);
    static final int REGISTER = 0, RESERVE = 1, RELEASE = 2, CLEAR = 3, PREEMPT = 4, PREEMPT_AND_ABORT = 5,
            REGISTER_IGNORE = 6, REGISTER_AND_MOVE = 7;
    static final int WE = 1, EA = 3, WE_RO = 5, EA_RO = 6, WE_AR = 7, EA_AR = 8;

    private final RamBlockDevice device = Scsi.ram("pr", 512, 512, 1 << 20);
    private final ScsiTarget target = Scsi.target(device);
    private final byte[] block = new byte[512];

    @BeforeEach
    void ready() {
        for (ItNexus n : new ItNexus[] {A, B, C}) {
            Scsi.ready(target, n, 0);
        }
    }

    @AfterEach
    void close() {
        device.close();
    }

    static byte[] prOut(int serviceAction, int type, int length) {
        return cdb(0x5F, serviceAction, type, 0, 0, length >> 24, length >> 16, length >> 8, length, 0);
    }

    static byte[] prIn(int serviceAction, int allocation) {
        return cdb(0x5E, serviceAction, 0, 0, 0, 0, 0, allocation >> 8, allocation, 0);
    }

    static byte[] params(long key, long saKey, int flags) {
        return ByteBuffer.allocate(24).putLong(key).putLong(saKey).putInt(0).put((byte) flags).array();
    }

    private Scsi.Reply out(ItNexus n, int sa, int type, long key, long saKey) {
        return run(target, n, 0, prOut(sa, type, 24), params(key, saKey, 0));
    }

    private void conflict(Scsi.Reply r) {
        assertThat(r.status()).isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
        assertThat(r.sense()).isNull();
    }

    private Scsi.Reply read(ItNexus n) {
        return run(target, n, 0, ten(0x28, 0, 0, 1), null);
    }

    private Scsi.Reply write(ItNexus n) {
        return run(target, n, 0, ten(0x2A, 0, 0, 1), block);
    }

    @Test
    void reserve6BlocksOtherNexusesUntilReleased() {
        run(target, A, 0, cdb(0x16, 0, 0, 0, 0, 0), null).assertGood();
        conflict(run(target, B, 0, testUnitReady(), null));
        conflict(read(B));
        conflict(run(target, B, 0, cdb(0x16, 0, 0, 0, 0, 0), null));
        conflict(run(target, B, 0, prIn(0, 64), null));
        run(target, B, 0, Scsi.inquiry(false, 0, 96), null).assertGood();
        run(target, B, 0, Scsi.reportLuns(64), null).assertGood();
        run(target, B, 0, Scsi.requestSense(false, 18), null).assertGood();
        run(target, B, 0, cdb(0x17, 0, 0, 0, 0, 0), null).assertGood();   // another's RELEASE: GOOD, no effect
        conflict(read(B));
        write(A).assertGood();
        run(target, A, 0, cdb(0x16, 0, 0, 0, 0, 0), null).assertGood();   // again by the holder
        run(target, A, 0, cdb(0x17, 0, 0, 0, 0, 0), null).assertGood();
        read(B).assertGood();
    }

    @Test
    void reserve6IsReleasedByResetAndNexusLoss() {
        run(target, A, 0, cdb(0x16, 0, 0, 0, 0, 0), null).assertGood();
        target.logicalUnitReset(C, 0);
        run(target, B, 0, testUnitReady(), null).assertCheck(0x6, 0x29, 0x03);
        read(B).assertGood();
        run(target, B, 0, cdb(0x16, 0, 0, 0, 0, 0), null).assertGood();
        target.nexusLost(B);
        read(A).assertCheck(0x6, 0x29, 0x03);
        read(A).assertGood();
        run(target, B, 0, cdb(0x16, 0, 0, 0, 0, 0), null).assertCheck(0x6, 0x29, 0x07);
        run(target, B, 0, cdb(0x16, 0, 0, 0, 0, 0), null).assertGood();
        conflict(run(target, A, 0, cdb(0x16, 0, 0, 0, 0, 0), null));
    }

    @Test
    void registerReadKeysAndGenerations() {
        out(A, REGISTER, 0, 0, 0xAAL).assertGood();
        out(B, REGISTER, 0, 0, 0xBBL).assertGood();
        byte[] keys = run(target, C, 0, prIn(0, 64), null).assertGood().data();
        assertThat(keys).isEqualTo(ByteBuffer.allocate(24).putInt(2).putInt(16).putLong(0xAA).putLong(0xBB).array());
        conflict(out(A, REGISTER, 0, 0x99, 0xCC));                         // wrong key
        conflict(out(C, REGISTER, 0, 0x99, 0xCC));                         // unregistered with a non-zero key
        out(C, REGISTER, 0, 0, 0).assertGood();                             // unregistered "unregistering": no-op
        out(A, REGISTER_IGNORE, 0, 0x12345, 0xA1).assertGood();
        out(A, REGISTER, 0, 0xA1, 0xA2).assertGood();
        keys = run(target, C, 0, prIn(0, 64), null).assertGood().data();
        assertThat(keys).isEqualTo(ByteBuffer.allocate(24).putInt(4).putInt(16).putLong(0xA2).putLong(0xBB).array());
        out(B, REGISTER, 0, 0xBB, 0).assertGood();                          // unregister
        assertThat(u32(run(target, C, 0, prIn(0, 64), null).data(), 4)).isEqualTo(8);
        assertThat(run(target, C, 0, prIn(0, 4), null).assertGood().data()).hasSize(4);
    }

    @Test
    void writeExclusiveLetsOthersReadOnly() {
        out(A, REGISTER, 0, 0, 0xAA).assertGood();
        out(B, REGISTER, 0, 0, 0xBB).assertGood();
        conflict(out(B, RESERVE, WE, 0xAA, 0));                             // B's key is BB
        out(A, RESERVE, WE, 0xAA, 0).assertGood();
        out(A, RESERVE, WE, 0xAA, 0).assertGood();                          // same type again: GOOD
        conflict(out(A, RESERVE, EA, 0xAA, 0));                             // another type: conflict
        conflict(out(B, RESERVE, WE, 0xBB, 0));
        read(B).assertGood();
        conflict(write(B));                                                 // registered, but WE is holder-only
        conflict(write(C));
        conflict(run(target, C, 0, ten(0x35, 0, 0, 0), null));             // SYNCHRONIZE CACHE writes
        run(target, C, 0, testUnitReady(), null).assertGood();
        run(target, C, 0, Scsi.readCapacity16(32), null).assertGood();
        write(A).assertGood();
        byte[] rr = run(target, C, 0, prIn(1, 64), null).assertGood().data();
        assertThat(rr).isEqualTo(ByteBuffer.allocate(24).putInt(2).putInt(16).putLong(0xAA).putInt(0)
                .put((byte) 0).put((byte) WE).putShort((short) 0).array());
    }

    @Test
    void exclusiveAccessBlocksReadsToo() {
        out(A, REGISTER, 0, 0, 0xAA).assertGood();
        out(A, RESERVE, EA, 0xAA, 0).assertGood();
        conflict(read(B));
        conflict(run(target, B, 0, Scsi.modeSense6(0, 0x3F, 0, 255), null));
        run(target, B, 0, Scsi.inquiry(false, 0, 96), null).assertGood();
        read(A).assertGood();
    }

    @Test
    void registrantsOnlyTypesAdmitRegistrants() {
        out(A, REGISTER, 0, 0, 0xAA).assertGood();
        out(B, REGISTER, 0, 0, 0xBB).assertGood();
        out(A, RESERVE, WE_RO, 0xAA, 0).assertGood();
        write(B).assertGood();
        conflict(write(C));
        read(C).assertGood();
        out(A, RELEASE, WE_RO, 0xAA, 0).assertGood();
        read(B).assertCheck(0x6, 0x2A, 0x04);                               // RESERVATIONS RELEASED
        out(A, RESERVE, EA_RO, 0xAA, 0).assertGood();
        read(B).assertGood();
        conflict(read(C));
    }

    @Test
    void allRegistrantsTypesReportKeyZeroAndSurviveUntilTheLastUnregisters() {
        out(A, REGISTER, 0, 0, 0xAA).assertGood();
        out(B, REGISTER, 0, 0, 0xBB).assertGood();
        out(A, RESERVE, EA_AR, 0xAA, 0).assertGood();
        out(B, RESERVE, EA_AR, 0xBB, 0).assertGood();                       // every registrant holds it
        byte[] rr = run(target, C, 0, prIn(1, 64), null).assertGood().data();
        assertThat(u64(rr, 8)).isZero();
        assertThat(rr[21]).isEqualTo((byte) EA_AR);
        conflict(read(C));
        read(B).assertGood();
        out(A, REGISTER, 0, 0xAA, 0).assertGood();                          // A leaves; B still holds
        conflict(read(C));
        out(B, REGISTER, 0, 0xBB, 0).assertGood();                          // the last one leaves
        read(C).assertGood();
        assertThat(u32(run(target, C, 0, prIn(1, 64), null).data(), 4)).isZero();
    }

    @Test
    void releaseRules() {
        out(A, REGISTER, 0, 0, 0xAA).assertGood();
        out(B, REGISTER, 0, 0, 0xBB).assertGood();
        out(A, RESERVE, WE, 0xAA, 0).assertGood();
        out(B, RELEASE, WE, 0xBB, 0).assertGood();                          // not the holder: nothing happens
        conflict(write(B));
        out(A, RELEASE, EA, 0xAA, 0).assertCheck(0x5, 0x26, 0x04);          // INVALID RELEASE OF PERSISTENT RESERVATION
        conflict(out(A, RELEASE, WE, 0xBB, 0));
        out(A, RELEASE, WE, 0xAA, 0).assertGood();
        write(B).assertGood();
        out(A, RESERVE, WE, 0xAA, 0).assertGood();
        out(A, REGISTER, 0, 0xAA, 0).assertGood();                          // the holder unregisters: released
        write(B).assertGood();
    }

    @Test
    void preemptTakesTheReservationAndTellsThePreempted() {
        out(A, REGISTER, 0, 0, 0xAA).assertGood();
        out(B, REGISTER, 0, 0, 0xBB).assertGood();
        out(C, REGISTER, 0, 0, 0xCC).assertGood();
        out(A, RESERVE, WE, 0xAA, 0).assertGood();
        conflict(out(B, PREEMPT, EA, 0xB0, 0xAA));                          // wrong own key
        out(B, PREEMPT, EA, 0xBB, 0xAA).assertGood();
        read(A).assertCheck(0x6, 0x2A, 0x05);                               // REGISTRATIONS PREEMPTED
        conflict(read(A));                                                  // now EA held by B
        byte[] rr = run(target, B, 0, prIn(1, 64), null).assertGood().data();
        assertThat(u64(rr, 8)).isEqualTo(0xBB);
        assertThat(rr[21]).isEqualTo((byte) EA);
        // without taking the reservation: removes C's registration only
        out(B, PREEMPT_AND_ABORT, EA, 0xBB, 0xCC).assertGood();
        byte[] keys = run(target, B, 0, prIn(0, 64), null).data();
        assertThat(keys).isEqualTo(ByteBuffer.allocate(16).putInt(5).putInt(8).putLong(0xBB).array());
        conflict(out(B, PREEMPT, EA, 0xBB, 0x1234));                        // no such key
        out(B, PREEMPT, EA, 0xBB, 0).assertCheck(0x5, 0x26, 0x00).assertParameterField(8, 7);
    }

    @Test
    void clearRemovesEverything() {
        out(A, REGISTER, 0, 0, 0xAA).assertGood();
        out(B, REGISTER, 0, 0, 0xBB).assertGood();
        out(A, RESERVE, EA, 0xAA, 0).assertGood();
        conflict(out(C, CLEAR, 0, 0, 0));
        out(B, CLEAR, 0, 0xBB, 0).assertGood();
        read(A).assertCheck(0x6, 0x2A, 0x03);                               // RESERVATIONS PREEMPTED
        read(C).assertGood();
        byte[] keys = run(target, C, 0, prIn(0, 64), null).data();
        assertThat(keys).isEqualTo(ByteBuffer.allocate(8).putInt(3).putInt(0).array());
        run(target, C, 0, cdb(0x16, 0, 0, 0, 0, 0), null).assertGood();    // RESERVE(6) possible again
    }

    @Test
    void reserve6ConflictsWithRegistrationsExceptForHoldersAndAdmittedRegistrants() {
        out(A, REGISTER, 0, 0, 0xAA).assertGood();
        conflict(run(target, A, 0, cdb(0x16, 0, 0, 0, 0, 0), null));
        conflict(run(target, B, 0, cdb(0x17, 0, 0, 0, 0, 0), null));
        out(B, REGISTER, 0, 0, 0xBB).assertGood();
        out(A, RESERVE, WE, 0xAA, 0).assertGood();
        run(target, A, 0, cdb(0x16, 0, 0, 0, 0, 0), null).assertGood();   // the holder: GOOD, no effect
        run(target, A, 0, cdb(0x17, 0, 0, 0, 0, 0), null).assertGood();
        conflict(run(target, B, 0, cdb(0x16, 0, 0, 0, 0, 0), null));      // registrant under WE: conflict
        out(A, RELEASE, WE, 0xAA, 0).assertGood();
        out(A, RESERVE, WE_RO, 0xAA, 0).assertGood();
        run(target, B, 0, cdb(0x16, 0, 0, 0, 0, 0), null).assertGood();   // registrant under WE_RO: GOOD
        read(C).assertGood();                                               // and no RESERVE(6) was made
        conflict(run(target, C, 0, cdb(0x16, 0, 0, 0, 0, 0), null));
    }

    @Test
    void reportSupportedOperationCodesConflictsOnlyUnderExclusiveAccess() {
        out(A, REGISTER, 0, 0, 0xAA).assertGood();
        out(A, RESERVE, WE, 0xAA, 0).assertGood();
        run(target, B, 0, SpcCommandsTest.rsoc(0, 0, 0, 4096), null).assertGood();
        out(A, RELEASE, WE, 0xAA, 0).assertGood();
        out(A, RESERVE, EA, 0xAA, 0).assertGood();
        conflict(run(target, B, 0, SpcCommandsTest.rsoc(0, 0, 0, 4096), null));
        run(target, B, 0, Scsi.readCapacity10(), null).assertGood();
        run(target, B, 0, testUnitReady(), null).assertGood();
    }

    @Test
    void parameterListErrorsAndUnsupportedOptions() {
        run(target, A, 0, prOut(REGISTER, 0, 24), params(0, 0xAA, 0x01)).assertCheck(0x5, 0x26, 0x00)
                .assertParameterField(20, 0);                                // APTPL: PTPL_C = 0
        run(target, A, 0, prOut(REGISTER, 0, 24), params(0, 0xAA, 0x04)).assertCheck(0x5, 0x26, 0x00)
                .assertParameterField(20, 2);                                // ALL_TG_PT: ATP_C = 0
        run(target, A, 0, prOut(REGISTER, 0, 23), Arrays.copyOf(params(0, 0xAA, 0), 23)).assertCheck(0x5, 0x1A, 0x00);
        run(target, A, 0, prOut(REGISTER, 0, 24), new byte[8]).assertCheck(0x5, 0x24, 0x00).assertCdbField(5, 7);
        run(target, A, 0, prOut(RESERVE, 0x02, 24), params(0, 0, 0)).assertCheck(0x5, 0x24, 0x00).assertCdbField(2, 3);
    }

    @Test
    void reportCapabilities() {
        byte[] d = run(target, A, 0, prIn(2, 64), null).assertGood().data();
        assertThat(d).isEqualTo(cdb(0x00, 0x08, 0x10, 0x80, 0xEA, 0x01, 0x00, 0x00)); // CRH; TMV; all six types
    }

    @Test
    void readFullStatusDescribesEachRegistrationWithItsTransportId() {
        out(A, REGISTER, 0, 0, 0xAA).assertGood();
        out(B, REGISTER, 0, 0, 0xBB).assertGood();
        out(A, RESERVE, WE_RO, 0xAA, 0).assertGood();
        byte[] d = run(target, C, 0, prIn(3, 1024), null).assertGood().data();
        assertThat(u32(d, 0)).isEqualTo(2);                                  // RESERVE leaves PRGENERATION alone
        String portA = "iqn.2026-11.test:host-a,i,0x23d000000001";
        int idLength = 4 + ((portA.length() + 1 + 3) & ~3);
        assertThat(u32(d, 4)).isEqualTo(2L * (24 + idLength));
        int at = 8;
        assertThat(u64(d, at)).isEqualTo(0xAA);
        assertThat(d[at + 12]).isEqualTo((byte) 0x01);                       // R_HOLDER
        assertThat(d[at + 13]).isEqualTo((byte) WE_RO);
        assertThat(Scsi.u16(d, at + 18)).isEqualTo(1);                       // RELATIVE TARGET PORT IDENTIFIER
        assertThat(u32(d, at + 20)).isEqualTo(idLength);
        assertThat(d[at + 24]).isEqualTo((byte) 0x45);                       // format 01b, iSCSI
        assertThat(Scsi.u16(d, at + 26)).isEqualTo(idLength - 4);
        assertThat(new String(d, at + 28, portA.length(), StandardCharsets.UTF_8)).isEqualTo(portA);
        assertThat(d[at + 28 + portA.length()]).isZero();
        at += 24 + idLength;
        assertThat(u64(d, at)).isEqualTo(0xBB);
        assertThat(d[at + 12]).isZero();                                     // not the holder
    }

    @Test
    void registrationsSurviveNexusLossAndReset() {
        out(A, REGISTER, 0, 0, 0xAA).assertGood();
        out(A, RESERVE, WE, 0xAA, 0).assertGood();
        target.nexusLost(A);
        target.logicalUnitReset(B, 0);
        run(target, B, 0, testUnitReady(), null).assertCheck(0x6, 0x29, 0x03);   // the reset, for B too
        conflict(write(B));
        run(target, A, 0, testUnitReady(), null).assertCheck(0x6, 0x29, 0x03);   // the newest reset condition
        write(A).assertGood();
    }
}
