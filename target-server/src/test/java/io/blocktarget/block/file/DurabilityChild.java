package io.blocktarget.block.file;

import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.Io;

import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Child JVM of {@link FileBlockDeviceTest#flushedDataSurvivesKill9}: writes blocks 0..n-1 with
 * pattern(lba), flushes, prints FLUSHED, then keeps writing unflushed blocks until it is killed.
 * Arguments: file, logical block size, block count, blocks to write, direct-io.
 */
public final class DurabilityChild {
    private DurabilityChild() {
    }

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        int lbs = Integer.parseInt(args[1]);
        BlockGeometry geometry = new BlockGeometry(lbs, lbs, Long.parseLong(args[2]));
        int blocks = Integer.parseInt(args[3]);
        ExecutorService io = Executors.newFixedThreadPool(2);
        FileBlockDevice device = FileBlockDevice.open("child", file, geometry,
                new FileBlockDevice.Options(true, Boolean.parseBoolean(args[4]), false), io);
        for (long lba = 0; lba < blocks; lba++) {
            Io.write(device, lba, Io.pattern(lba, lbs));
        }
        Io.flush(device);
        System.out.println("FLUSHED");
        System.out.flush();
        for (long lba = blocks; ; lba = blocks + (lba + 1 - blocks) % blocks) {
            Io.write(device, lba, Io.pattern(-lba, lbs));
        }
    }
}
