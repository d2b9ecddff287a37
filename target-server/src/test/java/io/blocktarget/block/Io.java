package io.blocktarget.block;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;

import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/** Synchronous wrappers over the callback SPI for tests, plus deterministic test patterns. */
public final class Io {
    private Io() {
    }

    /** Runs one operation and waits for its single completion; a failure is thrown as BlockIoException. */
    public static <T> T await(Consumer<IoCallback<T>> operation) throws BlockIoException {
        CompletableFuture<T> done = new CompletableFuture<>();
        operation.accept((result, failure) -> {
            boolean first = failure == null ? done.complete(result) : done.completeExceptionally(failure);
            if (!first) {
                throw new AssertionError("callback completed twice");
            }
        });
        try {
            return done.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw (BlockIoException) e.getCause();
        } catch (InterruptedException | TimeoutException e) {
            throw new AssertionError("operation did not complete", e);
        }
    }

    /** The error an operation fails with; fails the test if it succeeds. */
    public static <T> BlockError failureOf(Consumer<IoCallback<T>> operation) {
        try {
            T result = await(operation);
            if (result instanceof ByteBuf buf) {
                buf.release();
            }
            throw new AssertionError("expected the operation to fail");
        } catch (BlockIoException e) {
            return e.error();
        }
    }

    /** Reads and copies into a byte array, releasing the device's buffer. */
    public static byte[] read(BlockDevice device, long lba, int blockCount) throws BlockIoException {
        ByteBuf buf = await(cb -> device.read(lba, blockCount, cb));
        try {
            return ByteBufUtil.getBytes(buf);
        } finally {
            buf.release();
        }
    }

    public static void write(BlockDevice device, long lba, byte[] data) throws BlockIoException {
        ByteBuf buf = Unpooled.directBuffer(data.length).writeBytes(data);
        try {
            Io.<Void>await(cb -> device.write(lba, buf, false, cb));
        } finally {
            buf.release();
        }
    }

    public static void unmap(BlockDevice device, long lba, long count) throws BlockIoException {
        Io.<Void>await(cb -> device.unmap(List.of(new BlockRange(lba, count)), cb));
    }

    public static void writeZeroes(BlockDevice device, long lba, long count) throws BlockIoException {
        Io.<Void>await(cb -> device.writeZeroes(lba, count, cb));
    }

    public static void flush(BlockDevice device) throws BlockIoException {
        Io.<Void>await(device::flush);
    }

    /** A reproducible pattern, different for every seed (use the LBA). */
    public static byte[] pattern(long seed, int length) {
        byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }
}
