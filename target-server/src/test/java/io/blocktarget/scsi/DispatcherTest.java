package io.blocktarget.scsi;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockError;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.BlockRange;
import io.blocktarget.block.IoCallback;
import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.protocol.scsi.SenseReason;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.blocktarget.scsi.Scsi.A;
import static io.blocktarget.scsi.Scsi.ten;
import static org.assertj.core.api.Assertions.assertThat;

/** What the dispatcher does when the backend fails or misbehaves: one completion, a sense reason, never a throw. */
class DispatcherTest {

    @Test
    void everyBlockErrorHasItsSenseReason() {
        assertThat(BlockErrors.reason(BlockError.LBA_OUT_OF_RANGE)).isEqualTo(SenseReason.LBA_OUT_OF_RANGE);
        assertThat(BlockErrors.reason(BlockError.INVALID_LENGTH)).isEqualTo(SenseReason.INVALID_FIELD_IN_CDB);
        assertThat(BlockErrors.reason(BlockError.WRITE_PROTECTED)).isEqualTo(SenseReason.WRITE_PROTECTED);
        assertThat(BlockErrors.reason(BlockError.OUT_OF_SPACE)).isEqualTo(SenseReason.SPACE_ALLOCATION_FAILED_WRITE_PROTECT);
        assertThat(BlockErrors.reason(BlockError.READ_ERROR)).isEqualTo(SenseReason.UNRECOVERED_READ_ERROR);
        assertThat(BlockErrors.reason(BlockError.WRITE_ERROR)).isEqualTo(SenseReason.WRITE_ERROR);
        assertThat(BlockErrors.reason(BlockError.CLOSED)).isEqualTo(SenseReason.LOGICAL_UNIT_NOT_READY_CAUSE_NOT_REPORTABLE);
        // resource shortage: BUSY (SAM-5 §5.3.1, retry later), no sense data, never MEDIUM ERROR
        assertThat(BlockErrors.reason(BlockError.INSUFFICIENT_RESOURCES)).isEqualTo(SenseReason.BUSY_STATUS);
        assertThat(SenseReason.BUSY_STATUS.status()).isEqualTo(io.blocktarget.protocol.scsi.ScsiStatus.BUSY);
        for (BlockError e : BlockError.values()) {
            assertThat(BlockErrors.reason(e)).as(e.name()).isNotNull();
        }
    }

    @Test
    void closedDeviceIsNotReady() {
        Scsi.Unit u = Scsi.Unit.ram("closed", 512, 512, 1 << 20);
        u.close();
        u.run(ten(0x28, 0, 0, 1), null).assertCheck(0x2, 0x04, 0x00);
        u.run(ten(0x2A, 0, 0, 1), new byte[512]).assertCheck(0x2, 0x04, 0x00);
        u.run(Scsi.inquiry(false, 0, 96), null).assertGood();
    }

    @Test
    void aThrowingBackendBecomesHardwareErrorInternalTargetFailure() {
        try (RamBlockDevice ram = Scsi.ram("throws", 512, 512, 1 << 20);
             Scsi.Unit u = Scsi.Unit.of(new Misbehaving(ram, false))) {
            u.run(ten(0x28, 0, 0, 1), null).assertCheck(0x4, 0x44, 0x00);
            u.run(ten(0x2A, 0, 0, 1), new byte[512]).assertGood();
        }
    }

    @Test
    void aBackendThatCompletesAndThenThrowsStillCompletesOnce() {
        try (RamBlockDevice ram = Scsi.ram("late", 512, 512, 1 << 20);
             Scsi.Unit u = Scsi.Unit.of(new Misbehaving(ram, true))) {
            assertThat(u.run(ten(0x28, 0, 0, 2), null).assertGood().data()).hasSize(1024);
        }
    }

    /** A RAM device whose read throws, before or after calling back. */
    private record Misbehaving(RamBlockDevice ram, boolean completeFirst) implements BlockDevice {
        @Override public String name() { return ram.name(); }
        @Override public BlockGeometry geometry() { return ram.geometry(); }
        @Override public boolean readOnly() { return false; }

        @Override
        public void read(long lba, int blockCount, IoCallback<ByteBuf> callback) {
            if (completeFirst) {
                ram.read(lba, blockCount, callback);
            }
            throw new IllegalStateException("backend bug");
        }

        @Override public void write(long lba, ByteBuf data, boolean fua, IoCallback<Void> cb) { ram.write(lba, data, fua, cb); }
        @Override public void flush(IoCallback<Void> callback) { ram.flush(callback); }
        @Override public void unmap(List<BlockRange> ranges, IoCallback<Void> callback) { ram.unmap(ranges, callback); }
        @Override public void writeZeroes(long lba, long count, IoCallback<Void> cb) { ram.writeZeroes(lba, count, cb); }
        @Override public void close() { }
    }
}
