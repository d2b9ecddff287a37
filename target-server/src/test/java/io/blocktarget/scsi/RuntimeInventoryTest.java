package io.blocktarget.scsi;

import io.blocktarget.block.HoldingDevice;
import io.blocktarget.block.Io;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.block.ram.RamBlockDevice;
import io.netty.buffer.ByteBufUtil;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.blocktarget.scsi.Scsi.A;
import static io.blocktarget.scsi.Scsi.B;
import static io.blocktarget.scsi.Scsi.run;
import static io.blocktarget.scsi.Scsi.testUnitReady;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Logical units attached to and detached from a running target (issue 9 item 3): REPORTED LUNS DATA HAS CHANGED
 * (SPC-4 §6.33) on the other units, LOGICAL UNIT NOT SUPPORTED once gone or draining, CAPACITY DATA HAS CHANGED
 * (SBC-4 §4.6) with READ CAPACITY following a resize, and the in-flight count a removal drains.
 */
class RuntimeInventoryTest {
    private static final int NOT_READY_KEY = 0x5;   // ILLEGAL REQUEST
    private static final int UNIT_ATTENTION = 0x6;

    private static LogicalUnitSpec spec(long lun, RamBlockDevice device) {
        return new LogicalUnitSpec(Scsi.TARGET, lun, device.name(), device);
    }

    private static long reportedLunCount(ScsiTarget target, ItNexus nexus, long lun) {
        byte[] data = run(target, nexus, lun, Scsi.reportLuns(1024), null).assertGood().data();
        return Scsi.u32(data, 0) / 8;
    }

    @Test
    void attachingALunRaisesReportedLunsDataHasChangedOnTheOthers() {
        RamBlockDevice d0 = Scsi.ram("d0", 512, 4096, 1 << 20);
        RamBlockDevice d1 = Scsi.ram("d1", 4096, 4096, 1 << 20);
        ScsiTarget target = Scsi.target(d0);
        Scsi.ready(target, A, 0);
        Scsi.ready(target, B, 0);
        assertThat(reportedLunCount(target, A, 0)).isEqualTo(1);

        target.attach(spec(5, d1));

        assertThat(target.luns()).containsExactly(0L, 5L);
        run(target, A, 0, testUnitReady(), null).assertCheck(UNIT_ATTENTION, 0x3F, 0x0E);
        run(target, A, 0, testUnitReady(), null).assertGood();
        // B clears its condition with REPORT LUNS, which lists the new unit
        assertThat(reportedLunCount(target, B, 0)).isEqualTo(2);
        run(target, B, 0, testUnitReady(), null).assertGood();
        // the new unit meets every nexus with POWER ON, then serves
        run(target, A, 5, testUnitReady(), null).assertCheck(UNIT_ATTENTION, 0x29, 0x00);
        run(target, A, 5, Scsi.readCapacity10(), null).assertGood();
        d0.close();
        d1.close();
    }

    @Test
    void aLunNumberInUseOrOfAnotherTargetIsRefused() {
        RamBlockDevice d0 = Scsi.ram("d0", 512, 4096, 1 << 20);
        ScsiTarget target = Scsi.target(d0);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> target.attach(spec(0, d0)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("in use");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> target.attach(spec(16384, d0)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0..16383");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> target.attach(
                        new LogicalUnitSpec("iqn.2026-11.io.blocktarget:other", 1, "x", d0)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(target.luns()).containsExactly(0L);
        d0.close();
    }

    @Test
    void detachedLunIsNotSupportedAndTheOthersAreTold() {
        RamBlockDevice d0 = Scsi.ram("d0", 512, 4096, 1 << 20);
        RamBlockDevice d1 = Scsi.ram("d1", 512, 4096, 1 << 20);
        ScsiTarget target = Scsi.target(d0, d1);
        Scsi.ready(target, A, 0);
        Scsi.ready(target, A, 1);

        assertThat(target.detach(1)).isTrue();
        assertThat(target.detach(1)).isFalse();

        run(target, A, 1, testUnitReady(), null).assertCheck(NOT_READY_KEY, 0x25, 0x00);   // LOGICAL UNIT NOT SUPPORTED
        run(target, A, 0, testUnitReady(), null).assertCheck(UNIT_ATTENTION, 0x3F, 0x0E);
        assertThat(reportedLunCount(target, A, 0)).isEqualTo(1);
        assertThat(target.isEmpty()).isFalse();
        assertThat(target.detach(0)).isTrue();
        assertThat(target.isEmpty()).isTrue();
        d0.close();
        d1.close();
    }

    @Test
    void aResizeShowsInReadCapacityAfterCapacityDataHasChanged() throws Exception {
        RamBlockDevice d0 = Scsi.ram("d0", 4096, 4096, 1 << 20);
        ScsiTarget target = Scsi.target(d0);
        Scsi.ready(target, A, 0);
        Io.<Void>await(cb -> d0.resize(1024, cb));   // 256 -> 1024 blocks
        target.capacityDataChanged(0);
        run(target, A, 0, testUnitReady(), null).assertCheck(UNIT_ATTENTION, 0x2A, 0x09);
        byte[] rc16 = run(target, A, 0, Scsi.readCapacity16(32), null).assertGood().data();
        assertThat(Scsi.u64(rc16, 0)).isEqualTo(1023);   // RETURNED LOGICAL BLOCK ADDRESS = last LBA
        // the last new block is addressable: READ(16) of LBA 1023
        run(target, A, 0, Scsi.sixteen(0x88, 0, 1023, 1), null).assertGood();
        run(target, A, 0, Scsi.sixteen(0x88, 0, 1024, 1), null).assertCheck(NOT_READY_KEY, 0x21, 0x00);
        d0.close();
    }

    /** A read held in the backend keeps the unit in flight; a drain waits for it, and new commands are refused. */
    @Test
    void drainWaitsForAHeldCommandAndRefusesNewOnes() throws Exception {
        RamBlockDevice ram = Scsi.ram("d0", 4096, 4096, 1 << 20);
        HoldingDevice holding = new HoldingDevice(ram);
        LunState state = new LunState("d0");
        ScsiTarget target = ScsiTargetDevices.createTargets(java.util.List.of(
                new LogicalUnitSpec(Scsi.TARGET, 0, "d0", holding, state))).get(Scsi.TARGET);
        Scsi.ready(target, A, 0);

        CompletableFuture<ScsiResponse> read = new CompletableFuture<>();
        io.netty.buffer.ByteBuf cdb = io.netty.buffer.Unpooled.wrappedBuffer(Scsi.ten(0x28, 0, 0, 1));
        target.execute(ScsiCommand.of(A, 0, cdb, TaskAttribute.SIMPLE, 1, 4096, null), read::complete);
        cdb.release();
        assertThat(holding.heldCount()).isEqualTo(1);
        assertThat(state.inFlight().count()).isEqualTo(1);

        CompletableFuture<Void> drained = state.inFlight().drain();
        assertThat(drained).isNotDone();
        run(target, A, 0, testUnitReady(), null).assertCheck(NOT_READY_KEY, 0x25, 0x00);
        assertThat(read).isNotDone();

        holding.releaseAll();
        drained.get(5, TimeUnit.SECONDS);
        ScsiResponse r = read.get(5, TimeUnit.SECONDS);
        assertThat(r.status()).isEqualTo(io.blocktarget.protocol.scsi.ScsiStatus.GOOD);
        assertThat(ByteBufUtil.getBytes(r.dataIn())).hasSize(4096);
        r.dataIn().release();
        assertThat(state.inFlight().count()).isZero();
        ram.close();
    }

    /** One apply's changes to a target in one swap: one REPORTED LUNS DATA HAS CHANGED, a replaced unit starts over. */
    @Test
    void aBatchChangeIsOneSwapAndAReplacedUnitStartsOver() {
        RamBlockDevice d0 = Scsi.ram("d0", 512, 4096, 1 << 20);
        RamBlockDevice d1 = Scsi.ram("d1", 512, 4096, 1 << 20);
        RamBlockDevice d1b = Scsi.ram("d1b", 4096, 4096, 1 << 20);
        RamBlockDevice d2 = Scsi.ram("d2", 512, 4096, 1 << 20);
        ScsiTarget target = Scsi.target(d0, d1);
        Scsi.ready(target, A, 0);
        Scsi.ready(target, A, 1);

        target.change(java.util.List.of(1L), java.util.List.of(spec(1, d1b), spec(2, d2)));

        assertThat(target.luns()).containsExactly(0L, 1L, 2L);
        run(target, A, 0, testUnitReady(), null).assertCheck(UNIT_ATTENTION, 0x3F, 0x0E);
        run(target, A, 0, testUnitReady(), null).assertGood();   // once, not once per LUN changed
        run(target, A, 1, testUnitReady(), null).assertCheck(UNIT_ATTENTION, 0x29, 0x00);   // the new unit at LUN 1
        byte[] rc = run(target, A, 1, Scsi.readCapacity10(), null).assertGood().data();
        assertThat(Scsi.u32(rc, 4)).isEqualTo(4096);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> target.change(java.util.List.of(),
                java.util.List.of(spec(0, d2)))).isInstanceOf(IllegalArgumentException.class);
        assertThat(target.luns()).containsExactly(0L, 1L, 2L);   // a refused change changes nothing
        d0.close();
        d1.close();
        d1b.close();
        d2.close();
    }
}
