package io.blocktarget.block.file;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockGeometry;

import java.nio.file.Files;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The contract with O_DIRECT, on the temp directory's file system (a disk here). O_DIRECT needs
 * the logical block size to be at least the file system block size; smaller sizes are skipped
 * (FileBlockDeviceTest checks they are refused clearly).
 */
class FileDirectContractTest extends FileContractTest {
    @Override
    protected boolean directIo() {
        return true;
    }

    @Override
    protected BlockDevice create(BlockGeometry geometry, boolean readOnly) throws Exception {
        long fsBlock = Files.getFileStore(dir).getBlockSize();
        assumeTrue(geometry.logicalBlockSize() >= fsBlock,
                "O_DIRECT needs LBS >= file system block " + fsBlock + ", this case has " + geometry.logicalBlockSize());
        return super.create(geometry, readOnly);
    }
}
