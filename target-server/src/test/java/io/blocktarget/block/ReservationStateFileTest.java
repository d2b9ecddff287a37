package io.blocktarget.block;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** APTPL / PTPL: the reservation state survives a restart through its state file (SPC-5 §5.14.5). */
class ReservationStateFileTest {
    static final Registrant SCSI = new Registrant.InitiatorPort("iqn.2026-11.test:a,i,0x23d000000001",
            "iqn.2026-11.io.blocktarget:x,t,0x0001", 1);
    static final Registrant NVME = new Registrant.Host(new UUID(0xA0L << 56, 1));

    @TempDir
    Path dir;

    @Test
    void withAptplTheStateIsRestoredByTheNextInstance() throws Exception {
        Path file = dir.resolve("x.pr");
        Reservations r = new Reservations(file);
        assertThat(r.persistenceAvailable()).isTrue();
        r.register(SCSI, 0, 0xAA, false);
        r.registerNew(NVME, 0xBB);
        r.reserve(NVME, 0xBB, ReservationType.EXCLUSIVE_ACCESS_REGISTRANTS_ONLY);
        r.persist().get();
        assertThat(file).doesNotExist();                                  // APTPL not set: nothing kept
        r.persistThroughPowerLoss(true);
        r.persist().get();
        assertThat(file).exists();
        assertThat(dir.resolve(".x.pr.tmp")).doesNotExist();
        Reservations restarted = new Reservations(file);
        assertThat(restarted.snapshot()).isEqualTo(r.snapshot());
        assertThat(restarted.conflicts(new Registrant.Host(new UUID(9, 9)), Reservations.Access.READ)).isTrue();
        assertThat(restarted.conflicts(SCSI, Reservations.Access.WRITE)).isFalse();
        // clearing APTPL removes the file: the next start has no reservations
        restarted.persistThroughPowerLoss(false);
        restarted.persist().get();
        assertThat(file).doesNotExist();
        assertThat(new Reservations(file).snapshot().registrations()).isEmpty();
    }

    @Test
    void aDamagedFileStopsTheStartRatherThanDroppingReservations() throws Exception {
        Path file = dir.resolve("bad.pr");
        Files.writeString(file, "blocktarget-reservations 1\nregistration zz scsi 1 t i\n");
        assertThatThrownBy(() -> new Reservations(file)).isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining(file.toString());
        Files.writeString(file, "something else\n");
        assertThatThrownBy(() -> new Reservations(file)).isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("not a reservation state file");
    }

    @Test
    void theFormatIsTextOneLinePerFact() {
        Reservations.Snapshot s = new Reservations.Snapshot(7, java.util.List.of(
                new Reservations.Registration(SCSI, 0xAA, false)),
                java.util.Optional.of(new Reservations.Holder(SCSI, ReservationType.WRITE_EXCLUSIVE)), true);
        String text = ReservationStateFile.format(s);
        assertThat(text).isEqualTo("blocktarget-reservations 1\ngeneration 7\nregistration 00000000000000aa "
                + SCSI.persistentForm() + "\nholder WRITE_EXCLUSIVE " + SCSI.persistentForm() + "\n");
        assertThat(ReservationStateFile.parse(text.lines().toList())).isEqualTo(s);
    }
}
