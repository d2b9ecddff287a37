package io.blocktarget.scsi;

import io.blocktarget.block.lun.LunState;
import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.protocol.scsi.ScsiStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;

import static io.blocktarget.scsi.ReservationsTest.params;
import static io.blocktarget.scsi.ReservationsTest.prIn;
import static io.blocktarget.scsi.ReservationsTest.prOut;
import static io.blocktarget.scsi.Scsi.A;
import static io.blocktarget.scsi.Scsi.B;
import static io.blocktarget.scsi.Scsi.run;
import static io.blocktarget.scsi.Scsi.ten;
import static org.assertj.core.api.Assertions.assertThat;

/** APTPL (SPC-5 §5.14.5): with a state file the registrations and the reservation survive a restart. */
class AptplTest {
    private final RamBlockDevice device = Scsi.ram("aptpl", 512, 512, 1 << 20);

    @TempDir
    Path dir;

    @AfterEach
    void close() {
        device.close();
    }

    private ScsiTarget start(Path stateFile) {
        ScsiTarget target = ScsiTargetDevices.createTargets(List.of(new LogicalUnitSpec(Scsi.TARGET, 0, "aptpl",
                device, new LunState("aptpl", stateFile)))).get(Scsi.TARGET);
        Scsi.ready(target, A, 0);
        Scsi.ready(target, B, 0);
        return target;
    }

    @Test
    void registrationsAndTheReservationSurviveARestart() {
        Path file = dir.resolve("aptpl.pr");
        ScsiTarget target = start(file);
        byte[] caps = run(target, A, 0, prIn(2, 8), null).assertGood().data();
        assertThat(caps[2] & 0x01).isEqualTo(1);                                        // PTPL_C
        assertThat(caps[3] & 0x01).isZero();                                            // PTPL_A
        run(target, A, 0, prOut(0, 0, 24), params(0, 0xAA, 0x01)).assertGood();        // REGISTER, APTPL
        run(target, A, 0, prOut(1, 1, 24), params(0xAA, 0, 0)).assertGood();            // RESERVE WE
        assertThat(run(target, A, 0, prIn(2, 8), null).data()[3] & 0x01).isEqualTo(1); // PTPL_A
        assertThat(file).exists();                                                      // written before GOOD
        ScsiTarget restarted = start(file);
        byte[] keys = run(restarted, B, 0, prIn(0, 64), null).assertGood().data();
        assertThat(keys).isEqualTo(ByteBuffer.allocate(16).putInt(1).putInt(8).putLong(0xAA).array());
        assertThat(run(restarted, B, 0, ten(0x2A, 0, 0, 1), new byte[512]).status())
                .isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
        run(restarted, A, 0, ten(0x2A, 0, 0, 1), new byte[512]).assertGood();
        // a REGISTER with APTPL = 0 ends persistence: the next start is clean
        run(restarted, A, 0, prOut(0, 0, 24), params(0xAA, 0xAB, 0)).assertGood();
        assertThat(file).doesNotExist();
        ScsiTarget clean = start(file);
        assertThat(run(clean, B, 0, prIn(0, 64), null).data()).isEqualTo(ByteBuffer.allocate(8).putInt(0).putInt(0).array());
    }

    @Test
    void withoutAStateFileAptplIsRefused() {
        ScsiTarget target = start(null);
        run(target, A, 0, prOut(0, 0, 24), params(0, 0xAA, 0x01)).assertCheck(0x5, 0x26, 0x00)
                .assertParameterField(20, 0);
        assertThat(run(target, A, 0, prIn(2, 8), null).data()[2] & 0x01).isZero();
    }
}
