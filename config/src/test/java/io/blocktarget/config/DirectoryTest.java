package io.blocktarget.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** The directory as a whole: layout problems, file selection, ordering, all-problems-at-once, warnings. */
class DirectoryTest extends ConfigDirTest {
    private static final String DIR_ALLOWED = "allowed: a directory with an optional blocktarget.yaml and a luns.d"
            + " directory holding one NAME.yaml file per LUN";


    @Test
    void missingDirectory() {
        Path missing = tmp.resolve("nope");
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ConfigLoader.load(missing));
        assertThat(e.getMessage()).isEqualTo(missing + ": no such directory; " + DIR_ALLOWED);
        assertThat(e.problems()).containsExactly(new ConfigProblem(missing, 0, "", "no such directory; " + DIR_ALLOWED));
    }

    @Test
    void fileInsteadOfDirectory() throws IOException {
        Path file = Files.writeString(tmp.resolve("cfg.yaml"), "backend: ram\n");
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ConfigLoader.load(file));
        assertThat(e.getMessage()).isEqualTo(file + ": not a directory; " + DIR_ALLOWED);
    }

    @Test
    void missingLunsD() {
        assertThat(config.problems()).containsExactly(
                "luns.d: no such directory; allowed: a directory with one NAME.yaml file per LUN");
    }

    @Test
    void emptyLunsD() throws IOException {
        Files.createDirectories(tmp.resolve("luns.d"));
        assertThat(config.problems()).containsExactly("luns.d: no LUN files; allowed: one NAME.yaml file per LUN, e.g."
                + " luns.d/ram-4k.yaml with backend: ram, size: 1GiB, logical-block-size: 4KiB");
    }

    @Test
    void onlyYamlFilesDefineLunsOthersGetAWarningHiddenOnesNothing() throws ConfigException {
        config.lun("b", "backend: null\nsize: 1GiB\n")
                .lun("a", "backend: null\nsize: 1GiB\n")
                .file("luns.d/c.yml", "backend: null\nsize: 1GiB\n")
                .file("luns.d/.d.yaml.swp", "garbage: [\n")
                .file("luns.d/README", "notes\n");
        BlocktargetConfig loaded = config.load();
        assertThat(loaded.luns()).extracting(LunConfig::name).containsExactly("a", "b");
        assertThat(loaded.luns()).extracting(LunConfig::source)
                .containsExactly(tmp.resolve("luns.d/a.yaml"), tmp.resolve("luns.d/b.yaml"));
        assertThat(loaded.warnings()).containsExactly(
                tmp.resolve("luns.d/README") + ": ignored; only NAME.yaml files define LUNs",
                tmp.resolve("luns.d/c.yml") + ": ignored; only NAME.yaml files define LUNs");
    }

    @Test
    void persistentReservationStateOfALunIsTheServersOwnAnOrphanGetsAWarning() throws ConfigException {
        config.lun("a", "backend: null\nsize: 1GiB\n")
                .file("luns.d/a.pr", "state\n")
                .file("luns.d/gone.pr", "state\n")
                .file("luns.d/.pr", "x\n");
        BlocktargetConfig loaded = config.load();
        assertThat(loaded.luns()).extracting(LunConfig::name).containsExactly("a");
        assertThat(loaded.warnings()).containsExactly(tmp.resolve("luns.d/gone.pr") + ": ignored; persistent-reservation"
                + " state of a LUN that has no gone.yaml (delete it once that LUN is gone for good)");
    }

    @Test
    void onlyNonYamlFilesMeansNoLuns() {
        config.file("luns.d/a.yml", "backend: null\nsize: 1GiB\n");
        assertThat(config.problems()).singleElement().asString().startsWith("luns.d: no LUN files;");
    }

    @Test
    void yamlNamedDirectoryIsAProblem() throws IOException {
        config.lun("a", "backend: null\nsize: 1GiB\n");
        Files.createDirectories(tmp.resolve("luns.d/b.yaml"));
        assertThat(config.problems()).containsExactly(
                "luns.d/b.yaml: is a directory; allowed: a YAML file defining one LUN");
    }

    @Test
    void serverFileThatIsADirectoryIsAProblem() throws IOException {
        config.lun("a", "backend: null\nsize: 1GiB\n");
        Files.createDirectories(tmp.resolve("blocktarget.yaml"));
        assertThat(config.problems()).containsExactly(
                "blocktarget.yaml: is a directory; allowed: a YAML file of server settings");
    }

    @Test
    void unreadableFileIsAProblemNotAStackTrace() throws IOException {
        config.lun("a", "backend: null\nsize: 1GiB\n");
        Path file = tmp.resolve("luns.d/a.yaml");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("---------"));
        Assumptions.assumeFalse(Files.isReadable(file), "running as root: every file is readable");
        assertThat(config.problems()).containsExactly("luns.d/a.yaml: cannot read the file: permission denied");
    }

    @Test
    void everyProblemOfEveryFileIsReportedAtOnceSortedByFileAndLine() {
        config.file("blocktarget.yaml", "iscsi-port: 99999\nbind: example.org\n")
                .lun("c", "backend: ram\nsize: 1GiB\nlogical-block-size: 1000\n")
                .lun("a", "backend: tape\nsize: 12\nsize: 1\n")
                .lun("b", "size: [\n");
        assertThat(config.problems()).containsExactly(
                "blocktarget.yaml:1: iscsi-port: 99999 is out of range; allowed: 0..65535 (0 disables the listener)",
                "blocktarget.yaml:2: bind: example.org is not an IP address literal; allowed: an IPv4 or IPv6 address"
                        + " literal, e.g. 0.0.0.0, 127.0.0.1, :: or ::1 (no host names)",
                "luns.d/a.yaml:1: backend: tape is not a backend; allowed: ram, file or null",
                "luns.d/a.yaml:2: size: 12 is not a multiple of the physical block size 4 KiB; allowed: a positive"
                        + " multiple of the physical block size (4 KiB)",
                "luns.d/a.yaml:3: size: given twice (first on line 2); allowed: each key once",
                "luns.d/b.yaml:2: invalid YAML: expected the node content, but found '<stream end>'"
                        + " (while parsing a flow node)",
                "luns.d/c.yaml:3: logical-block-size: 1000 is not a power of two; allowed: a power of two from"
                        + " 512 B to 64 KiB");
    }

    @Test
    void ramDisksAboveTheMemoryBudgetAreAWarningNotAnError() throws ConfigException {
        config.file("blocktarget.yaml", "memory-budget: 12GiB\n")
                .lun("big", "backend: ram\nsize: 3TiB\n")
                .lun("bigger", "backend: ram\nsize: 1TiB\n")
                .lun("nothing", "backend: null\nsize: 100TiB\n");
        BlocktargetConfig loaded = config.load();
        assertThat(loaded.luns()).hasSize(3);
        assertThat(loaded.warnings()).containsExactly("RAM disks declare 4 TiB in total, more than the memory budget"
                + " of 12 GiB; writes beyond the budget will fail with out-of-space");
    }

    @Test
    void ramDisksWithinTheBudgetGiveNoWarning() throws ConfigException {
        config.file("blocktarget.yaml", "memory-budget: 4GiB\n")
                .lun("a", "backend: ram\nsize: 2GiB\n")
                .lun("b", "backend: ram\nsize: 2GiB\n");
        assertThat(config.load().warnings()).isEmpty();
    }

    @Test
    void relativeConfigDirectoryYieldsRelativeProblemPaths() throws IOException {
        // Problems name files as DIR/..., so `blocktarget check some/dir` prints paths usable from the shell.
        Path relative = Path.of("").toAbsolutePath().relativize(tmp.toAbsolutePath());
        config.lun("x", "backend: ram\n");
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ConfigLoader.load(relative));
        assertThat(e.problems()).singleElement()
                .extracting(ConfigProblem::file).isEqualTo(relative.resolve("luns.d/x.yaml"));
    }
}
