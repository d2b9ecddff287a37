package io.blocktarget.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** {@code atomic:} of a LUN file: each rule with its exact problem, limits at the limit and one step beyond. */
class AtomicConfigTest extends ConfigDirTest {
    private static final String POW2 = "a power of two, a multiple of the logical block size (";

    private Optional<AtomicConfig> atomic(String name) throws Exception {
        return config.load().luns().stream().filter(l -> l.name().equals(name)).findFirst().orElseThrow()
                .features().atomic();
    }

    @Test
    void absentMeansNone() throws Exception {
        config.lun("a", "backend: ram\nsize: 1GiB\n");
        assertThat(atomic("a")).isEmpty();
    }

    @Test
    void defaultsAreNoBoundaryAndOneLogicalBlock() throws Exception {
        config.lun("a", "backend: ram\nsize: 1GiB\nlogical-block-size: 4KiB\natomic: { max-bytes: 64KiB }\n");
        assertThat(atomic("a")).contains(new AtomicConfig(65536, 0, 4096, 4096));
    }

    /** Every logical block size: the largest allowed section reads, and each value one step beyond is refused. */
    @ParameterizedTest
    @ValueSource(ints = {512, 1024, 4096, 16384, 65536})
    void limitsAtEveryLogicalBlockSize(int lbs) throws Exception {
        long max = Math.min(1L << 20, 65536L * lbs);
        long boundary = 65536L * lbs;
        config.lun("a", "backend: ram\nsize: 4GiB\nlogical-block-size: " + lbs + "\nphysical-block-size: 64KiB\n"
                + "atomic: { max-bytes: " + max + ", boundary-bytes: " + boundary + ", granularity-bytes: " + max
                + ", alignment-bytes: " + lbs + " }\n");
        assertThat(atomic("a")).contains(new AtomicConfig(max, boundary, max, lbs));

        config.lun("a", "backend: ram\nsize: 4GiB\nlogical-block-size: " + lbs + "\nphysical-block-size: 64KiB\n"
                + "atomic: { max-bytes: " + 2 * max + ", boundary-bytes: " + 2 * boundary + " }\n");
        assertThat(config.problems()).hasSize(2).allSatisfy(p -> assertThat(p).startsWith("luns.d/a.yaml:5: atomic."));
        assertThat(config.problems().get(0)).contains("atomic.max-bytes: " + 2 * max + " exceeds the maximum transfer");
        assertThat(config.problems().get(1)).contains("atomic.boundary-bytes: " + 2 * boundary
                + " is more than 65536 logical blocks (NVMe NABSN is a 16-bit count)");
    }

    @Test
    void maxAboveOneMebibyteIsRefused() {
        config.lun("a", "backend: ram\nsize: 1GiB\nlogical-block-size: 4KiB\natomic:\n  max-bytes: 2MiB\n");
        assertThat(config.problems()).containsExactly("luns.d/a.yaml:5: atomic.max-bytes: 2MiB exceeds the maximum"
                + " transfer; allowed: a power of two from the logical block size (4 KiB) to 1 MiB (NVMe MDTS; one"
                + " command must carry an atomic write)");
    }

    @Test
    void valuesMustBePowersOfTwoAndMultiplesOfTheLogicalBlock() {
        config.lun("a", "backend: ram\nsize: 1GiB\nlogical-block-size: 4KiB\natomic:\n  max-bytes: 48KiB\n"
                + "  granularity-bytes: 2KiB\n  alignment-bytes: 3\n  boundary-bytes: 96KiB\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/a.yaml:5: atomic.max-bytes: 48KiB is not a power of two; allowed: " + POW2 + "4 KiB)",
                "luns.d/a.yaml:6: atomic.granularity-bytes: 2KiB is smaller than the logical block size; allowed: "
                        + POW2 + "4 KiB)",
                "luns.d/a.yaml:7: atomic.alignment-bytes: 3 is not a power of two; allowed: " + POW2 + "4 KiB)",
                "luns.d/a.yaml:8: atomic.boundary-bytes: 96KiB is not a power of two; allowed: 0 (none) or " + POW2
                        + "4 KiB)");
    }

    @Test
    void granularityAlignmentAndBoundaryAgainstMax() throws Exception {
        config.lun("a", "backend: ram\nsize: 1GiB\natomic:\n  max-bytes: 16KiB\n  granularity-bytes: 32KiB\n"
                + "  alignment-bytes: 32KiB\n  boundary-bytes: 8KiB\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/a.yaml:5: atomic.granularity-bytes: 32KiB is larger than max-bytes (16 KiB); allowed: a power"
                        + " of two from the logical block size to max-bytes",
                "luns.d/a.yaml:6: atomic.alignment-bytes: 32KiB is larger than max-bytes (16 KiB); allowed: a power"
                        + " of two from the logical block size to max-bytes",
                "luns.d/a.yaml:7: atomic.boundary-bytes: 8KiB is smaller than max-bytes (an atomic write of max-bytes"
                        + " would not fit between two boundaries); allowed: 0 (no boundary) or a power of two from"
                        + " max-bytes (16 KiB) to 65536 logical blocks (32 MiB, NVMe NABSN)");
        // at the limits: granularity = alignment = boundary = max
        config.lun("a", "backend: ram\nsize: 1GiB\natomic:\n  max-bytes: 16KiB\n  granularity-bytes: 16KiB\n"
                + "  alignment-bytes: 16KiB\n  boundary-bytes: 16KiB\n");
        assertThat(atomic("a")).contains(new AtomicConfig(16384, 16384, 16384, 16384));
    }

    @Test
    void maxIsRequiredAndKeysAreChecked() {
        config.lun("a", "backend: ram\nsize: 1GiB\natomic:\n  boundary: 0\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/a.yaml: atomic.max-bytes: missing; allowed: " + POW2 + "512 B)",
                "luns.d/a.yaml:4: atomic.boundary: unknown key; did you mean `boundary-bytes`? allowed keys: max-bytes,"
                        + " boundary-bytes,"
                        + " granularity-bytes, alignment-bytes");
    }

    @Test
    void notAMap() {
        config.lun("a", "backend: ram\nsize: 1GiB\natomic: 64KiB\n");
        assertThat(config.problems()).containsExactly("luns.d/a.yaml:3: atomic: 64KiB is not an atomic write section;"
                + " allowed: a map with the keys max-bytes, boundary-bytes, granularity-bytes, alignment-bytes");
    }

    @Test
    void fileBackendIsRefused() {
        config.lun("a", "backend: file\npath: a.img\ncreate: true\nsize: 1GiB\nlogical-block-size: 4KiB\n"
                + "atomic: { max-bytes: 16KiB }\n");
        assertThat(config.problems()).containsExactly("luns.d/a.yaml:6: atomic: backend: file cannot apply a write"
                + " all or nothing (it would need RWF_ATOMIC with O_DIRECT where statx reports STATX_WRITE_ATOMIC, or"
                + " a journal; neither is implemented); allowed: atomic: with backend: ram or null");
    }

    @Test
    void nullBackendIsAccepted() throws Exception {
        config.lun("a", "backend: null\nsize: 1GiB\natomic: { max-bytes: 4KiB }\n");
        assertThat(atomic("a")).contains(new AtomicConfig(4096, 0, 512, 512));
    }
}
