package io.blocktarget.nvme;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.IoKind;
import io.blocktarget.block.fault.FaultAction;
import io.blocktarget.block.fault.FaultMatch;
import io.blocktarget.block.fault.FaultRule;
import io.blocktarget.block.fault.FaultTrigger;
import io.blocktarget.block.lun.CommandStats;
import io.blocktarget.block.lun.CommandStats.OpClass;
import io.blocktarget.block.lun.CommandStats.Protocol;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.nvme.ReservationCommandsTest.Host;
import io.blocktarget.protocol.nvme.NvmOpcode;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.scsi.ScsiStatus;
import io.blocktarget.scsi.ItNexus;
import io.blocktarget.scsi.LogicalUnitSpec;
import io.blocktarget.scsi.ScsiCommand;
import io.blocktarget.scsi.ScsiResponse;
import io.blocktarget.scsi.ScsiTargetDevice;
import io.blocktarget.scsi.ScsiTargetDevices;
import io.blocktarget.scsi.TaskAttribute;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Both command sets feed one LUN's end-to-end {@link CommandStats}: every command that reached the LUN counted once
 * in its protocol and class, bytes of the successful reads and writes, errors by status, and the latency from arrival
 * to completion on the server's clock — here a manual one, so a command completes in 0 ns unless a fault rule's delay
 * holds it, and then in exactly the delay.
 */
class CommandStatsHooksTest {
    static final String IQN = "iqn.2026-11.io.blocktarget:cs";
    static final String NQN = ReservationCommandsTest.NQN;
    static final int LBS = 4096;
    static final long BLOCKS = 1024;
    static final ItNexus NEXUS = new ItNexus("iqn.2026-11.test:host-a,i,0x23d000000001", IQN + ",t,0x0001", 1);

    private final ManualClock clock = new ManualClock();
    private final BlockDevice device = TestSupport.ram("cs", LBS, LBS, BLOCKS);
    private final LunState state = new LunState("cs", null, Optional.empty(), clock);
    private final CommandStats stats = state.commandStats();
    private final NvmeTarget nvme = NvmeTargets.create(List.of(new NamespaceSpec(NQN, 1, "cs", device, state)),
            List.of(), NvmeLimits.DEFAULT, clock);
    private final ScsiTargetDevice scsi = ScsiTargetDevices.create(
            List.of(new LogicalUnitSpec(IQN, 0, "cs", device, state))).get(IQN);

    @AfterEach
    void close() {
        device.close();
    }

    private CompletableFuture<ScsiResponse> startScsi(byte[] cdb, byte[] dataOut) {
        CompletableFuture<ScsiResponse> result = new CompletableFuture<>();
        ByteBuf out = dataOut == null ? null : Unpooled.wrappedBuffer(dataOut);
        scsi.execute(ScsiCommand.of(NEXUS, 0, Unpooled.wrappedBuffer(Arrays.copyOf(cdb, Math.max(16, cdb.length))),
                TaskAttribute.SIMPLE, 1, dataOut == null ? 65536 : dataOut.length, out), result::complete);
        return result;
    }

    private static ScsiStatus status(CompletableFuture<ScsiResponse> pending) {
        ScsiResponse r;
        try {
            r = pending.get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("no SCSI completion", e);
        }
        if (r.dataIn() != null) {
            r.dataIn().release();
        }
        if (r.senseData() != null) {
            r.senseData().release();
        }
        return r.status();
    }

    private ScsiStatus scsi(byte[] cdb, byte[] dataOut) {
        return status(startScsi(cdb, dataOut));
    }

    private void delayReads(long nanos) {
        state.faults().add(new FaultRule("slow", FaultMatch.ANY.withKinds(Set.of(IoKind.READ)),
                new FaultTrigger.Always(), new FaultAction.Delay(nanos, 0)));
    }

    @Test
    void scsiCommandsAreCountedByClassWithTheirBytesAndErrors() {
        assertThat(scsi(new byte[6], null)).isEqualTo(ScsiStatus.CHECK_CONDITION);   // POWER ON unit attention
        assertThat(scsi(new byte[6], null)).isEqualTo(ScsiStatus.GOOD);              // TEST UNIT READY
        assertThat(scsi(TraceHooksTest.rw10(0x2A, 0, 8, 4), new byte[4 * LBS])).isEqualTo(ScsiStatus.GOOD);
        assertThat(scsi(TraceHooksTest.rw16(0x88, 0, 8, 2), null)).isEqualTo(ScsiStatus.GOOD);
        assertThat(scsi(TraceHooksTest.rw16(0x88, 0, BLOCKS, 1), null)).isEqualTo(ScsiStatus.CHECK_CONDITION);
        assertThat(scsi(new byte[] {0x35, 0, 0, 0, 0, 0, 0, 0, 0, 0}, null)).isEqualTo(ScsiStatus.GOOD);
        byte[] unmap = ByteBuffer.allocate(8 + 16).putShort((short) 22).putShort((short) 16).putInt(0)
                .putLong(100).putInt(3).putInt(0).array();
        assertThat(scsi(new byte[] {0x42, 0, 0, 0, 0, 0, 0, 0, 24, 0}, unmap)).isEqualTo(ScsiStatus.GOOD);

        assertThat(stats.commands(Protocol.ISCSI, OpClass.OTHER)).isEqualTo(2);
        assertThat(stats.errors(Protocol.ISCSI, OpClass.OTHER)).isEqualTo(1);
        assertThat(stats.commands(Protocol.ISCSI, OpClass.WRITE)).isEqualTo(1);
        assertThat(stats.commands(Protocol.ISCSI, OpClass.READ)).isEqualTo(2);
        assertThat(stats.errors(Protocol.ISCSI, OpClass.READ)).isEqualTo(1);
        assertThat(stats.commands(Protocol.ISCSI, OpClass.FLUSH)).isEqualTo(1);
        assertThat(stats.commands(Protocol.ISCSI, OpClass.UNMAP)).isEqualTo(1);
        assertThat(stats.errors(Protocol.ISCSI, OpClass.WRITE)).isZero();
        assertThat(stats.bytesWritten(Protocol.ISCSI)).isEqualTo(4L * LBS);
        assertThat(stats.bytesRead(Protocol.ISCSI)).isEqualTo(2L * LBS);   // the failed read moved nothing
        assertThat(stats.latencyNanos(Protocol.ISCSI)).isZero();            // the clock did not move
        assertThat(stats.latencyBuckets(Protocol.ISCSI)[0]).isEqualTo(7);
        assertThat(stats.commands(Protocol.NVME, OpClass.READ)).isZero();
        assertThat(state.inFlight().count()).isZero();
    }

    @Test
    void aScsiCommandsLatencyRunsFromArrivalToCompletion() {
        scsi(new byte[6], null);   // the unit attention
        delayReads(3_000_000);
        CompletableFuture<ScsiResponse> read = startScsi(TraceHooksTest.rw16(0x88, 0, 0, 1), null);
        assertThat(read).isNotDone();
        assertThat(stats.commands(Protocol.ISCSI, OpClass.READ)).isZero();   // counted when it completes
        clock.advanceNanos(2_999_999);
        assertThat(read).isNotDone();
        clock.advanceNanos(1);
        assertThat(status(read)).isEqualTo(ScsiStatus.GOOD);
        assertThat(stats.latencyNanos(Protocol.ISCSI)).isEqualTo(3_000_000);
        assertThat(stats.latencyBuckets(Protocol.ISCSI)[CommandStats.bucket(3_000_000)]).isEqualTo(1);
        assertThat(stats.bytesRead(Protocol.ISCSI)).isEqualTo(LBS);
    }

    @Test
    void nvmeCommandsAreCountedByClassWithTheirBytesAndErrors() {
        Host host = new Host(nvme, 1);
        assertThat(TestSupport.submit(host.io, TestHost.rw(NvmOpcode.WRITE, 0x41, 1, 12, 4, LBS, false),
                Unpooled.wrappedBuffer(new byte[4 * LBS])).status()).isEqualTo(NvmeStatus.SUCCESS);
        TestSupport.submit(host.io, TestHost.rw(NvmOpcode.READ, 0x42, 1, 12, 2, LBS, false), null).release();
        TestSupport.Reply beyond = TestSupport.submit(host.io,
                TestHost.rw(NvmOpcode.READ, 0x43, 1, BLOCKS, 1, LBS, false), null);
        beyond.release();
        assertThat(beyond.status()).isEqualTo(NvmeStatus.LBA_OUT_OF_RANGE);
        ByteBuf ranges = Unpooled.wrappedBuffer(ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN)
                .putInt(0).putInt(7).putLong(300).array());
        assertThat(TestSupport.submit(host.io, TestHost.dsm(0x44, 1, 0, false, false, true,
                SglDescriptor.inCapsule(0, 16)), ranges).status()).isEqualTo(NvmeStatus.SUCCESS);

        assertThat(stats.commands(Protocol.NVME, OpClass.WRITE)).isEqualTo(1);
        assertThat(stats.commands(Protocol.NVME, OpClass.READ)).isEqualTo(2);
        assertThat(stats.errors(Protocol.NVME, OpClass.READ)).isEqualTo(1);
        assertThat(stats.commands(Protocol.NVME, OpClass.UNMAP)).isEqualTo(1);
        assertThat(stats.bytesWritten(Protocol.NVME)).isEqualTo(4L * LBS);
        assertThat(stats.bytesRead(Protocol.NVME)).isEqualTo(2L * LBS);
        assertThat(stats.latencyBuckets(Protocol.NVME)[0]).isEqualTo(4);
        assertThat(stats.commands(Protocol.ISCSI, OpClass.READ)).isZero();
        assertThat(state.inFlight().count()).isZero();
    }

    @Test
    void anNvmeCommandsLatencyRunsFromArrivalToCompletion() {
        Host host = new Host(nvme, 1);
        delayReads(5_000_000_000L);   // 5 s: bucket 45 (4.19 .. 5.93 s)
        CompletableFuture<NvmeStatus> read = new CompletableFuture<>();
        host.io.submit(TestHost.rw(NvmOpcode.READ, 0x51, 1, 0, 1, LBS, false), null, (status, dw0, dw1, data) -> {
            if (data != null) {
                data.release();
            }
            read.complete(status);
        });
        assertThat(read).isNotDone();
        assertThat(state.inFlight().count()).isEqualTo(1);
        clock.advance(5, TimeUnit.SECONDS);
        assertThat(read.join()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(stats.latencyNanos(Protocol.NVME)).isEqualTo(5_000_000_000L);
        assertThat(stats.latencyBuckets(Protocol.NVME)[45]).isEqualTo(1);
        assertThat(stats.bytesRead(Protocol.NVME)).isEqualTo(LBS);
        assertThat(state.inFlight().count()).isZero();
    }

    @Test
    void nvmeOpcodesMapToTheirClasses() {
        assertThat(NvmIo.opClass(0x02)).isEqualTo(OpClass.READ);
        assertThat(NvmIo.opClass(0x01)).isEqualTo(OpClass.WRITE);
        assertThat(NvmIo.opClass(0x00)).isEqualTo(OpClass.FLUSH);
        assertThat(NvmIo.opClass(0x09)).isEqualTo(OpClass.UNMAP);
        for (int other : new int[] {0x04, 0x05, 0x08, 0x0C, 0x0D, 0x11, 0x19, 0x79, 0x7A, 0x7D, 0xFF}) {
            assertThat(NvmIo.opClass(other)).as("opcode %02Xh", other).isEqualTo(OpClass.OTHER);
        }
    }
}
