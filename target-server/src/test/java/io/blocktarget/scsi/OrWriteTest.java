package io.blocktarget.scsi;

import io.blocktarget.protocol.scsi.ScsiStatus;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.concurrent.CompletableFuture;

import static io.blocktarget.scsi.Scsi.A;
import static io.blocktarget.scsi.Scsi.B;
import static io.blocktarget.scsi.Scsi.sixteen;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * ORWRITE(16) (SBC-4 §5.14, issue 28 item 7): each block becomes medium OR data-out; the limits and errors of WRITE;
 * RSOC lists it; reservations treat it as a write; the read-OR-write is atomic against other writers.
 */
class OrWriteTest {
    private static final int LBS = 4096;
    private static final int ORWRITE = 0x8B, READ_16 = 0x88, WRITE_16 = 0x8A;

    private static byte[] filled(int blocks, int value) {
        byte[] b = new byte[blocks * LBS];
        Arrays.fill(b, (byte) value);
        return b;
    }

    @Test
    void theMediumBecomesTheOrOfItselfAndTheDataOut() {
        try (Scsi.Unit u = Scsi.Unit.ram("or", LBS, 16384, 4 << 20)) {
            long end = u.device().geometry().blockCount();
            for (long lba : new long[] {0, end - 7}) {
                u.run(sixteen(WRITE_16, 0, lba, 7), filled(7, 0)).assertGood();
                Scsi.Reply r = u.run(sixteen(ORWRITE, 0, lba, 7), filled(7, 0xA5)).assertGood();
                assertThat(r.transferLength()).isEqualTo(7 * LBS);
                assertThat(u.run(sixteen(READ_16, 0, lba, 7), null).data()).isEqualTo(filled(7, 0xA5));
                u.run(sixteen(ORWRITE, 0x08, lba, 7), filled(7, 0x5A)).assertGood();          // FUA
                assertThat(u.run(sixteen(READ_16, 0, lba, 7), null).data()).isEqualTo(filled(7, 0xFF));
            }
            byte[] medium = Scsi.pattern(1, 3 * LBS);
            byte[] data = Scsi.pattern(2, 3 * LBS);
            u.run(sixteen(WRITE_16, 0, 100, 3), medium).assertGood();
            u.run(sixteen(ORWRITE, 0x10, 100, 3), data).assertGood();                          // DPO
            byte[] expected = new byte[3 * LBS];
            for (int i = 0; i < expected.length; i++) {
                expected[i] = (byte) (medium[i] | data[i]);
            }
            assertThat(u.run(sixteen(READ_16, 0, 100, 3), null).data()).isEqualTo(expected);
            assertThat(u.target().unit(0).rangeLockHeld()).isZero();
        }
    }

    @Test
    void limitsAndErrorsAsForWrite() {
        try (Scsi.Unit u = Scsi.Unit.ram("orerr", LBS, LBS, 64 << 20)) {
            long end = u.device().geometry().blockCount();
            long max = (8 << 20) / LBS;
            Scsi.run(u.target(), A, 0, sixteen(ORWRITE, 0, 0, 0), null, 0).assertGood();        // 0 blocks: nothing
            u.run(sixteen(ORWRITE, 0, end - 1, 2), new byte[2 * LBS]).assertCheck(0x5, 0x21, 0x00);
            u.run(sixteen(ORWRITE, 0, 0, max + 1), new byte[LBS]).assertCheck(0x5, 0x24, 0x00).assertCdbField(10, 7);
            u.run(sixteen(ORWRITE, 0, 0, max), new byte[(int) max * LBS]).assertGood();         // at the limit
            u.run(sixteen(ORWRITE, 0x20, 0, 1), new byte[LBS]).assertCheck(0x5, 0x24, 0x00).assertCdbField(1, 7);
            // a short Data-Out Buffer: no half OR — refused, nothing written
            u.run(sixteen(WRITE_16, 0, 8, 2), filled(2, 0x01)).assertGood();
            Scsi.run(u.target(), A, 0, sixteen(ORWRITE, 0, 8, 2), filled(1, 0xF0), LBS)
                    .assertCheck(0x5, 0x0E, 0x03);
            assertThat(u.run(sixteen(READ_16, 0, 8, 2), null).data()).isEqualTo(filled(2, 0x01));
        }
    }

    @Test
    void reportSupportedOperationCodesListsIt() {
        try (Scsi.Unit u = Scsi.Unit.ram("orrsoc", LBS, LBS, 1 << 20)) {
            byte[] one = u.run(SpcCommandsTest.rsoc(1, ORWRITE, 0, 64), null).assertGood().data();
            assertThat(Arrays.copyOfRange(one, 0, 4)).isEqualTo(Scsi.cdb(0x00, 0x03, 0x00, 0x10));
            assertThat(Arrays.copyOfRange(one, 4, 20)).isEqualTo(Scsi.cdb(0x8B, 0xF8, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x05));
            assertThat(SpcCommandsTest.opcodes(u.run(SpcCommandsTest.rsoc(0, 0, 0, 8192), null).data())).contains(ORWRITE);
        }
    }

    @Test
    void aWriteUnderAnotherNexussReservation() {
        try (Scsi.Unit u = Scsi.Unit.ram("orpr", LBS, LBS, 1 << 20)) {
            Scsi.ready(u.target(), B, 0);
            u.run(ReservationsTest.prOut(ReservationsTest.REGISTER, 0, 24), ReservationsTest.params(0, 0xAAL, 0))
                    .assertGood();
            u.run(ReservationsTest.prOut(ReservationsTest.RESERVE, ReservationsTest.WE, 24),
                    ReservationsTest.params(0xAAL, 0, 0)).assertGood();
            assertThat(Scsi.run(u.target(), B, 0, sixteen(ORWRITE, 0, 0, 1), new byte[LBS]).status())
                    .isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
            u.run(sixteen(ORWRITE, 0, 0, 1), new byte[LBS]).assertGood();
        }
    }

    /** Two initiators each OR their own bits into one block, one bit per command: every bit ends up set. */
    @Test
    void concurrentOrWritesLoseNoBit() {
        try (Scsi.Unit u = Scsi.Unit.ram("orrace", 512, 512, 1 << 20)) {
            Scsi.ready(u.target(), B, 0);
            int bits = 512 * 8;
            CompletableFuture<?>[] writers = new CompletableFuture<?>[2];
            for (int w = 0; w < 2; w++) {
                ItNexus nexus = w == 0 ? A : B;
                int first = w;
                writers[w] = CompletableFuture.runAsync(() -> {
                    for (int bit = first; bit < bits; bit += 2) {
                        byte[] block = new byte[512];
                        block[bit / 8] = (byte) (1 << (bit % 8));
                        Scsi.run(u.target(), nexus, 0, sixteen(ORWRITE, 0, 3, 1), block).assertGood();
                    }
                });
            }
            CompletableFuture.allOf(writers).join();
            assertThat(u.run(sixteen(READ_16, 0, 3, 1), null).data()).isEqualTo(filled512(0xFF));
        }
    }

    private static byte[] filled512(int value) {
        byte[] b = new byte[512];
        Arrays.fill(b, (byte) value);
        return b;
    }
}
