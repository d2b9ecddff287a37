package io.blocktarget.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** backend: file — path resolution, sizes of existing files, create, and the rules around them. */
class FileBackendTest extends ConfigDirTest {

    private Path sparseFile(Path path, long size) throws IOException {
        Files.createDirectories(path.getParent());
        try (RandomAccessFile file = new RandomAccessFile(path.toFile(), "rw")) {
            file.setLength(size);
        }
        return path;
    }

    @Test
    void relativePathIsResolvedAgainstTheConfigDirectoryNotLunsD() throws Exception {
        sparseFile(tmp.resolve("disks/a.img"), 8 * 1024 * 1024);
        config.lun("a", "backend: file\npath: disks/a.img\n");
        LunConfig lun = config.loadLun("a");
        assertThat(lun.file()).isPresent();
        assertThat(lun.file().get().path()).isEqualTo(tmp.toAbsolutePath().resolve("disks/a.img"));
        assertThat(lun.file().get().create()).isFalse();
        assertThat(lun.file().get().directIo()).isFalse();
    }

    @Test
    void absolutePathIsKept(@TempDir Path elsewhere) throws Exception {
        Path image = sparseFile(elsewhere.resolve("b.img"), 1024 * 1024);
        config.lun("b", "backend: file\npath: " + image + "\ndirect-io: true\n");
        LunConfig lun = config.loadLun("b");
        assertThat(lun.file().get().path()).isEqualTo(image);
        assertThat(lun.file().get().directIo()).isTrue();
    }

    @Test
    void existingFileSizeIsTheLunSize() throws Exception {
        sparseFile(tmp.resolve("c.img"), 3L * 1024 * 1024 * 1024);
        config.lun("c", "backend: file\npath: c.img\nlogical-block-size: 4KiB\n");
        LunConfig lun = config.loadLun("c");
        assertThat(lun.size()).isEqualTo(3L << 30);
        assertThat(lun.blockCount()).isEqualTo((3L << 30) / 4096);
    }

    @Test
    void givenSizeMatchingTheFileIsAccepted() throws Exception {
        sparseFile(tmp.resolve("c.img"), 1 << 20);
        config.lun("c", "backend: file\npath: c.img\nsize: 1MiB\n");
        assertThat(config.loadLun("c").size()).isEqualTo(1 << 20);
    }

    @Test
    void givenSizeDifferentFromTheFileIsReported() throws Exception {
        sparseFile(tmp.resolve("c.img"), 1 << 20);
        config.lun("c", "backend: file\npath: c.img\nsize: 2MiB\n");
        assertThat(config.problems()).containsExactly("luns.d/c.yaml:3: size: 2MiB differs from the size of c.img,"
                + " 1048576 bytes (1 MiB); allowed: the file's size, or no size");
    }

    @Test
    void existingFileNotAMultipleOfThePhysicalBlockSize() throws Exception {
        sparseFile(tmp.resolve("odd.img"), 4096 + 512);
        config.lun("odd", "backend: file\npath: odd.img\n");
        assertThat(config.problems()).containsExactly("luns.d/odd.yaml:2: path: odd.img with 4608 bytes is not a"
                + " multiple of the physical block size 4 KiB; allowed: a positive multiple of the physical block size"
                + " (4 KiB)");
    }

    @Test
    void emptyExistingFileIsRejected() throws Exception {
        sparseFile(tmp.resolve("zero.img"), 0);
        config.lun("zero", "backend: file\npath: zero.img\n");
        assertThat(config.problems()).containsExactly("luns.d/zero.yaml:2: path: zero.img with 0 bytes is not"
                + " positive; allowed: a positive multiple of the physical block size (4 KiB)");
    }

    @Test
    void missingPathWithoutCreateIsAnError() {
        config.lun("m", "backend: file\nsize: 1GiB\npath: disks/m.img\n");
        assertThat(config.problems()).containsExactly("luns.d/m.yaml:3: path: disks/m.img does not exist ("
                + tmp.toAbsolutePath().resolve("disks/m.img") + "); allowed: an existing regular file or block device,"
                + " or create: true with a size to create a sparse file");
    }

    @Test
    void missingPathWithCreateIsLeftForTheServerToCreate() throws ConfigException {
        config.lun("n", "backend: file\npath: disks/n.img\ncreate: true\nsize: 16GiB\nlogical-block-size: 4KiB\n");
        LunConfig lun = config.loadLun("n");
        assertThat(lun.size()).isEqualTo(16L << 30);
        assertThat(lun.file().get().create()).isTrue();
        assertThat(lun.file().get().path()).doesNotExist();
    }

    @Test
    void createWithoutSizeIsAnError() {
        config.lun("n", "backend: file\npath: n.img\ncreate: true\n");
        assertThat(config.problems()).containsExactly("luns.d/n.yaml: size: missing; allowed: the size of the sparse"
                + " file that create: true makes, an integer number of bytes, optionally followed by a unit B, KiB,"
                + " MiB, GiB or TiB (powers of 1024), e.g. 4096, 16KiB or 8 GiB");
    }

    @Test
    void createWithAnExistingFileUsesIt() throws Exception {
        sparseFile(tmp.resolve("e.img"), 2 << 20);
        config.lun("e", "backend: file\npath: e.img\ncreate: true\n");
        assertThat(config.loadLun("e").size()).isEqualTo(2 << 20);
    }

    @Test
    void pathIsRequired() {
        config.lun("p", "backend: file\nsize: 1GiB\n");
        assertThat(config.problems()).containsExactly("luns.d/p.yaml: path: missing; allowed: a path to a regular"
                + " file or block device, relative to the config directory or absolute");
    }

    @Test
    void pathThatIsADirectoryIsAnError() throws IOException {
        Files.createDirectories(tmp.resolve("disks"));
        config.lun("d", "backend: file\npath: disks\n");
        assertThat(config.problems()).containsExactly("luns.d/d.yaml:2: path: disks is a directory; allowed: a path to"
                + " a regular file or block device, relative to the config directory or absolute");
    }

    @Test
    void createMustBeABoolean() {
        config.lun("c", "backend: file\npath: c.img\ncreate: 1\nsize: 1GiB\n");
        assertThat(config.problems()).contains(
                "luns.d/c.yaml:3: create: 1 is not a boolean; allowed: true or false");
    }

    @Test
    void blockDeviceSizeIsAskedFromTheKernel() throws ConfigException {
        // /dev/null is a character device: not a regular file, so its size comes from FileChannel.size() (0 here).
        Path dev = Path.of("/dev/null");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isReadable(dev) && !Files.isRegularFile(dev));
        config.lun("dev", "backend: file\npath: /dev/null\n");
        assertThat(config.problems()).containsExactly("luns.d/dev.yaml:2: path: /dev/null with 0 bytes is not"
                + " positive; allowed: a positive multiple of the physical block size (4 KiB)");
    }
}
