package io.blocktarget.config;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Options of a {@code backend: file} LUN.
 *
 * @param path     regular file or block device; relative paths are resolved against the config directory
 * @param create   create a sparse file of the LUN's size when {@code path} does not exist
 * @param directIo open with O_DIRECT (page cache bypassed; buffers aligned to the logical block size)
 */
public record FileBackendConfig(Path path, boolean create, boolean directIo) {
    public FileBackendConfig {
        Objects.requireNonNull(path, "path");
    }
}
