package io.blocktarget.config;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * One LUN, from one file {@code luns.d/NAME.yaml}. Validated: sizes are powers of two within the
 * rules of DESIGN.md §1/§4 and {@code size} is a positive multiple of {@code physicalBlockSize}.
 *
 * @param name              the file name minus {@code .yaml}
 * @param source            the file it came from ({@code null} for the embedded default)
 * @param backend           ram, file or null
 * @param size              bytes
 * @param logicalBlockSize  bytes, power of two, 512 .. 65536
 * @param physicalBlockSize bytes, power of two, logical .. 32 MiB
 * @param iscsi             empty when {@code export.iscsi: false}
 * @param nvme              empty when {@code export.nvme: false}
 * @param readOnly          writes are refused (DATA PROTECT / Namespace Is Write Protected)
 * @param file              present exactly when {@code backend == FILE}
 * @param access            CHAP and allowed NVMe hosts; {@link AccessConfig#OPEN} without an {@code access:} map
 * @param features          knobs, atomic and zoned sections; {@link LunFeatures#NONE} when the file has none
 */
public record LunConfig(
        String name,
        Path source,
        BackendKind backend,
        long size,
        int logicalBlockSize,
        int physicalBlockSize,
        Optional<IscsiExport> iscsi,
        Optional<NvmeExport> nvme,
        boolean readOnly,
        Optional<FileBackendConfig> file,
        AccessConfig access,
        LunFeatures features) {

    public LunConfig {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(iscsi, "iscsi");
        Objects.requireNonNull(nvme, "nvme");
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(access, "access");
        Objects.requireNonNull(features, "features");
    }

    /** A LUN without round-2 sections ({@link LunFeatures#NONE}). */
    public LunConfig(String name, Path source, BackendKind backend, long size, int logicalBlockSize,
                     int physicalBlockSize, Optional<IscsiExport> iscsi, Optional<NvmeExport> nvme, boolean readOnly,
                     Optional<FileBackendConfig> file, AccessConfig access) {
        this(name, source, backend, size, logicalBlockSize, physicalBlockSize, iscsi, nvme, readOnly, file, access,
                LunFeatures.NONE);
    }

    /** Number of logical blocks. */
    public long blockCount() {
        return size / logicalBlockSize;
    }
}
