package io.blocktarget.block;

import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The test-only switch of LinuxDurabilityIT's control run: flush never reaches the backend, FUA writes arrive as
 * plain writes with their data, everything else passes unchanged; only the LUNs the property names are wrapped.
 */
class FlushDroppingBlockDeviceTest {
    /** Records what reaches the backend: flushes and the FUA flag of each write. */
    private static final class Recording extends ForwardingBlockDevice {
        final List<String> calls = new ArrayList<>();

        Recording(String name) {
            super(new RamBlockDevice(name, new BlockGeometry(4096, 4096, 16), false, new MemoryBudget(1 << 20)));
        }

        @Override
        public void write(long lba, ByteBuf data, boolean fua, IoCallback<Void> callback) {
            calls.add("write " + lba + " fua=" + fua);
            super.write(lba, data, fua, callback);
        }

        @Override
        public void writeAtomic(long lba, ByteBuf data, boolean fua, IoCallback<Void> callback) {
            calls.add("writeAtomic " + lba + " fua=" + fua);
            super.writeAtomic(lba, data, fua, callback);
        }

        @Override
        public void flush(IoCallback<Void> callback) {
            calls.add("flush");
            super.flush(callback);
        }
    }

    @Test
    void flushCompletesWithoutTheBackendAndFuaBecomesAPlainWrite() throws Exception {
        Recording backend = new Recording("drop-a");
        BlockDevice device = FlushDroppingBlockDevice.wrapIfNamed(backend, "true");
        assertThat(device).isInstanceOf(FlushDroppingBlockDevice.class);
        ByteBuf data = Unpooled.buffer(4096).writeBytes(Io.pattern(7, 4096));
        try {
            Io.<Void>await(cb -> device.write(1, data, true, cb));
            Io.<Void>await(cb -> device.write(2, data, false, cb));
            Io.<Void>await(device::flush);
            Io.<Void>await(cb -> device.writeAtomic(3, data, true, cb));
        } finally {
            data.release();
        }
        assertThat(backend.calls).containsExactly("write 1 fua=false", "write 2 fua=false", "writeAtomic 3 fua=false");
        assertThat(Io.read(device, 1, 1)).isEqualTo(Io.pattern(7, 4096));
        assertThat(Io.read(device, 2, 1)).isEqualTo(Io.pattern(7, 4096));
        assertThat(Io.read(device, 3, 1)).isEqualTo(Io.pattern(7, 4096));
        assertThat(device.volatileWriteCache()).isEqualTo(backend.volatileWriteCache());
        assertThat(device.geometry()).isEqualTo(backend.geometry());
        device.close();
    }

    @Test
    void wrapsOnlyTheLunsThePropertyNames() {
        Recording a = new Recording("lun-a");
        Recording b = new Recording("lun-b");
        assertThat(FlushDroppingBlockDevice.wrapIfNamed(a, null)).isSameAs(a);
        assertThat(FlushDroppingBlockDevice.wrapIfNamed(a, "")).isSameAs(a);
        assertThat(FlushDroppingBlockDevice.wrapIfNamed(a, "false")).isSameAs(a);
        assertThat(FlushDroppingBlockDevice.wrapIfNamed(a, "lun")).isSameAs(a);
        assertThat(FlushDroppingBlockDevice.wrapIfNamed(a, "lun-b,lun-c")).isSameAs(a);
        assertThat(FlushDroppingBlockDevice.wrapIfNamed(b, "lun-b,lun-c")).isInstanceOf(FlushDroppingBlockDevice.class);
        assertThat(FlushDroppingBlockDevice.wrapIfNamed(a, " lun-x , lun-a ")).isInstanceOf(FlushDroppingBlockDevice.class);
        assertThat(FlushDroppingBlockDevice.wrapIfNamed(a, "true")).isInstanceOf(FlushDroppingBlockDevice.class);
        a.close();
        b.close();
    }
}
