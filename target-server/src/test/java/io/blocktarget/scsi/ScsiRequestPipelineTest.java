package io.blocktarget.scsi;

import io.blocktarget.block.lun.CommandStats;
import io.blocktarget.block.lun.CommandStats.OpClass;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.block.trace.TraceRecord;
import io.blocktarget.block.trace.TraceRing;
import io.blocktarget.block.trace.Tracer;
import io.blocktarget.protocol.scsi.ScsiStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.blocktarget.scsi.Scsi.A;
import static io.blocktarget.scsi.Scsi.run;
import static io.blocktarget.scsi.Scsi.ten;
import static io.blocktarget.scsi.Scsi.testUnitReady;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The SCSI request object (issue 27): each {@link Task} runs the LUN step shared with NVMe ({@code LunRequest}:
 * in-flight count, statistics) and its trace record exactly once, from its one completion function, whatever the
 * outcome; a command that never reached a unit (missing LUN, draining device) is in neither.
 */
class ScsiRequestPipelineTest {
    private static final int LBS = 512;
    private final RamBlockDevice device = Scsi.ram("pl", LBS, 4096, 1 << 20);
    private final LunState state = new LunState("pl");
    private final ScsiTarget target = ScsiTargetDevices.createTargets(List.of(
            new LogicalUnitSpec(Scsi.TARGET, 0, "pl", device, state))).get(Scsi.TARGET);

    @AfterEach
    void close() {
        device.close();
    }

    @Test
    void everyStepRunsOncePerTaskOnEveryExitPath() throws Exception {
        Tracer tracer = new Tracer(64, LBS, 4096, 1 << 20, state.clock());
        state.startTrace(tracer);
        Scsi.ready(target, A, 0);                                      // CHECK (POWER ON), then GOOD
        for (int i = 0; i < 2; i++) {
            run(target, A, 0, ten(0x2A, 0, i, 1), new byte[LBS]).assertGood();
        }
        for (int i = 0; i < 3; i++) {
            assertThat(run(target, A, 0, ten(0x28, 0, i, 1), null).assertGood().data()).hasSize(LBS);
        }
        run(target, A, 0, ten(0x28, 0, 1 << 20, 1), null).assertCheck(0x5, 0x21, 0x00);  // LBA out of range
        run(target, A, 7, testUnitReady(), null).assertCheck(0x5, 0x25, 0x00);          // no such LUN

        assertThat(traced(tracer)).hasSize(2 + 2 + 3 + 1);
        assertThat(state.inFlight().count()).isZero();
        CommandStats stats = state.commandStats();
        assertThat(stats.commands(CommandStats.Protocol.ISCSI, OpClass.OTHER)).isEqualTo(2);
        assertThat(stats.errors(CommandStats.Protocol.ISCSI, OpClass.OTHER)).isEqualTo(1);
        assertThat(stats.commands(CommandStats.Protocol.ISCSI, OpClass.WRITE)).isEqualTo(2);
        assertThat(stats.commands(CommandStats.Protocol.ISCSI, OpClass.READ)).isEqualTo(4);
        assertThat(stats.errors(CommandStats.Protocol.ISCSI, OpClass.READ)).isEqualTo(1);
        assertThat(stats.bytesRead(CommandStats.Protocol.ISCSI)).isEqualTo(3L * LBS);

        // a draining device refuses before the LUN step: nothing counted, traced or left in flight
        state.inFlight().drain().get();
        Scsi.Reply refused = run(target, A, 0, ten(0x28, 0, 0, 1), null);
        assertThat(refused.status()).isEqualTo(ScsiStatus.CHECK_CONDITION);
        assertThat(traced(tracer)).hasSize(8);   // the ring holds what was recorded: nothing new
        assertThat(stats.commands(CommandStats.Protocol.ISCSI, OpClass.READ)).isEqualTo(4);
        assertThat(state.inFlight().count()).isZero();
    }

    private static List<TraceRecord> traced(Tracer tracer) {
        List<TraceRecord> records = new ArrayList<>();
        tracer.ring().reader().poll(10_000, new TraceRing.Sink() {
            @Override
            public void record(TraceRecord record) {
                records.add(record);
            }

            @Override
            public void dropped(long count) {
                throw new AssertionError("dropped " + count);
            }
        });
        return records;
    }
}
