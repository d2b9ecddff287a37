package io.blocktarget.block;

import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.List;

/**
 * A slow backend for task management tests (the way Linux's scsi_eh meets a target): writes are held before they
 * reach the medium until the test releases them, one by one or all — no sleeps. Reads, flushes and unmaps pass
 * through. Confined to the test thread.
 */
public final class HeldWrites implements BlockDevice {
    /** One write that has not reached the medium yet. */
    public record Held(long lba, ByteBuf data, boolean fua, IoCallback<Void> callback) {
    }

    private final BlockDevice medium;
    private final List<Held> held = new ArrayList<>();

    public HeldWrites(BlockDevice medium) {
        this.medium = medium;
    }

    /** Writes waiting, oldest first. */
    public List<Held> held() {
        return List.copyOf(held);
    }

    /** Lets the held write at {@code lba} reach the medium and complete. */
    public void release(long lba) {
        for (Held h : held) {
            if (h.lba() == lba) {
                held.remove(h);
                medium.write(h.lba(), h.data(), h.fua(), h.callback());
                return;
            }
        }
        throw new AssertionError("no write held at LBA " + lba);
    }

    public void releaseAll() {
        while (!held.isEmpty()) {
            release(held.getFirst().lba());
        }
    }

    @Override
    public String name() {
        return medium.name();
    }

    @Override
    public BlockGeometry geometry() {
        return medium.geometry();
    }

    @Override
    public boolean readOnly() {
        return medium.readOnly();
    }

    @Override
    public void read(long lba, int blockCount, IoCallback<ByteBuf> callback) {
        medium.read(lba, blockCount, callback);
    }

    @Override
    public void write(long lba, ByteBuf data, boolean fua, IoCallback<Void> callback) {
        held.add(new Held(lba, data, fua, callback));
    }

    @Override
    public void flush(IoCallback<Void> callback) {
        medium.flush(callback);
    }

    @Override
    public void unmap(List<BlockRange> ranges, IoCallback<Void> callback) {
        medium.unmap(ranges, callback);
    }

    @Override
    public void writeZeroes(long lba, long blockCount, IoCallback<Void> callback) {
        medium.writeZeroes(lba, blockCount, callback);
    }

    @Override
    public void close() {
        medium.close();
    }
}
