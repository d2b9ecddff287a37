package io.blocktarget.block;

import io.netty.buffer.ByteBuf;

import java.util.Arrays;
import java.util.Objects;

/**
 * TEST ONLY: a device whose flush and FUA do nothing — SYNCHRONIZE CACHE / NVMe Flush complete at once without
 * reaching the backend, and FUA writes (SCSI FUA bit, NVMe FUA, every write while WCE = 0) are passed on as plain
 * writes, so acknowledged data stays in the page cache. It exists so that the power-cut test (it-tests
 * LinuxDurabilityIT) can show that it fails when durability is missing: the same sequence that must survive a power
 * cut on a normal LUN must lose data on one of these. Never used unless the system property {@link #PROPERTY} names
 * the LUN (the server wraps nothing otherwise, so the hot path pays nothing); the server logs a warning per LUN.
 */
public final class FlushDroppingBlockDevice extends ForwardingBlockDevice {
    /** {@code true} (every LUN) or a comma-separated list of LUN names whose flush and FUA are dropped. */
    public static final String PROPERTY = "blocktarget.test.drop-flush";

    private static final System.Logger LOG = System.getLogger("blocktarget.server");

    private FlushDroppingBlockDevice(BlockDevice delegate) {
        super(delegate);
    }

    /**
     * {@code device} with flush and FUA dropped when {@code propertyValue} (the value of {@link #PROPERTY}, null when
     * unset) is {@code true} or names the device's LUN; {@code device} itself otherwise.
     */
    public static BlockDevice wrapIfNamed(BlockDevice device, String propertyValue) {
        Objects.requireNonNull(device, "device");
        if (propertyValue == null || !(propertyValue.trim().equals("true")
                || Arrays.stream(propertyValue.split(",")).map(String::trim).anyMatch(device.name()::equals))) {
            return device;
        }
        LOG.log(System.Logger.Level.WARNING, "LUN " + device.name() + ": flush and FUA are no-ops (" + PROPERTY
                + "): acknowledged writes are NOT durable; for durability tests only");
        return new FlushDroppingBlockDevice(device);
    }

    @Override
    public void write(long lba, ByteBuf data, boolean fua, IoCallback<Void> callback) {
        delegate.write(lba, data, false, callback);
    }

    @Override
    public void writeAtomic(long lba, ByteBuf data, boolean fua, IoCallback<Void> callback) {
        delegate.writeAtomic(lba, data, false, callback);
    }

    @Override
    public void flush(IoCallback<Void> callback) {
        callback.complete(null, null);
    }

    @Override
    public String toString() {
        return "FlushDropping[" + delegate + "]";
    }
}
