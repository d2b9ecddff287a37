package io.blocktarget.block.file;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockDeviceContract;
import io.blocktarget.block.BlockGeometry;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/** The contract on a sparse file through the page cache. */
class FileContractTest extends BlockDeviceContract {
    @TempDir
    Path dir;

    private final ExecutorService io = Executors.newFixedThreadPool(2);
    private final AtomicInteger files = new AtomicInteger();

    protected boolean directIo() {
        return false;
    }

    @Override
    protected BlockDevice create(BlockGeometry geometry, boolean readOnly) throws Exception {
        Path file = dir.resolve("lun" + files.incrementAndGet() + ".img");
        if (readOnly) {
            FileBlockDevice.open("rw", file, geometry, new FileBlockDevice.Options(true, false, false), io).close();
        }
        return FileBlockDevice.open("file", file, geometry, new FileBlockDevice.Options(true, directIo(), readOnly), io);
    }

    @Override
    protected void afterClose() {
        io.shutdownNow();
    }
}
