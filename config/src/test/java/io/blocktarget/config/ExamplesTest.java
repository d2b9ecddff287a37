package io.blocktarget.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The example directories shipped for the README ({@code blocktarget check examples/...}). */
class ExamplesTest {
    private static final Path BASIC = Path.of("../examples/basic");
    private static final Path BROKEN = Path.of("../examples/broken");
    private static final Path CHAP = Path.of("../examples/chap");

    @Test
    void basicLoads() throws ConfigException {
        BlocktargetConfig config = ConfigLoader.load(BASIC);
        assertThat(config.server().memoryBudget()).isEqualTo(8L << 30);
        assertThat(config.luns()).extracting(LunConfig::name).containsExactly("file-4k", "null-512", "ram-16k");

        LunConfig file = config.luns().get(0);
        assertThat(file.backend()).isEqualTo(BackendKind.FILE);
        assertThat(file.file().orElseThrow().path())
                .isEqualTo(BASIC.toAbsolutePath().resolve("disks/file-4k.img").normalize());
        assertThat(file.file().orElseThrow().create()).isTrue();
        assertThat(file.size()).isEqualTo(2L << 30);
        assertThat(file.iscsi()).contains(new IscsiExport("iqn.2026-11.io.blocktarget:files", 1));

        LunConfig nil = config.luns().get(1);
        assertThat(nil.backend()).isEqualTo(BackendKind.NULL);
        assertThat(nil.iscsi()).isEmpty();
        assertThat(nil.physicalBlockSize()).isEqualTo(4096);

        LunConfig ram = config.luns().get(2);
        assertThat(ram.logicalBlockSize()).isEqualTo(16384);
        assertThat(ram.physicalBlockSize()).isEqualTo(65536);
        assertThat(config.warnings()).isEmpty();
    }

    @Test
    void chapLoadsAndWarnsOnlyAboutSecretsOthersMayRead() throws Exception {
        BlocktargetConfig config = ConfigLoader.load(CHAP);
        LunConfig secure = config.luns().getFirst();
        assertThat(config.luns()).extracting(LunConfig::name).containsExactly("secure");
        assertThat(secure.access()).isEqualTo(new AccessConfig(
                Optional.of(new ChapConfig("initiator1", "example-initiator-secret", Optional.of("target1"),
                        Optional.of("example-target-secret"),
                        Optional.of(CHAP.resolve("secrets/initiator1.secret").toAbsolutePath().normalize()),
                        Optional.of(CHAP.resolve("secrets/target1.secret").toAbsolutePath().normalize()))),
                List.of("nqn.2014-08.org.nvmexpress:uuid:6e1c2f3a-3b1d-4c8e-9a55-1a2b3c4d5e6f")));
        // git keeps no 0600: a fresh checkout has 0644 secrets and gets one warning per file; chmod 600 silences it
        List<String> expected = new ArrayList<>();
        for (String name : List.of("initiator1", "target1")) {
            Path file = CHAP.resolve("secrets/" + name + ".secret").toAbsolutePath().normalize();
            Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file);
            if (mode.contains(PosixFilePermission.OTHERS_READ)) {
                String key = name.equals("initiator1") ? "12: access.chap.secret-file" : "14: access.chap.mutual-secret-file";
                expected.add(CHAP.resolve("luns.d/secure.yaml") + ":" + key + ": " + file + " is readable by every user"
                        + " (mode " + PosixFilePermissions.toString(mode) + "); chmod 600 it so that only the"
                        + " server's user can read the secret");
            }
        }
        assertThat(config.warnings()).containsExactlyElementsOf(expected);
    }

    @Test
    void brokenYieldsEveryProblemOfEveryFile() {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ConfigLoader.load(BROKEN));
        assertThat(e.problems()).hasSize(15);
        assertThat(e.problems()).extracting(p -> BROKEN.relativize(p.file()).toString() + ":" + p.line() + " " + p.key())
                .containsExactly(
                        "blocktarget.yaml:1 bind",
                        "blocktarget.yaml:2 iscsi-port",
                        "luns.d/Big-Name.yaml:0 file name",
                        "luns.d/Big-Name.yaml:2 size",
                        "luns.d/bad-blocks.yaml:3 logical-block-size",
                        "luns.d/bad-blocks.yaml:4 physical-block-size",
                        "luns.d/dup-b.yaml:4 export.iscsi",
                        "luns.d/dup-b.yaml:5 export.nvme.subsystem",
                        "luns.d/dup-b.yaml:5 export.nvme.nsid",
                        "luns.d/file-missing.yaml:2 path",
                        "luns.d/file-missing.yaml:3 direct-io",
                        "luns.d/syntax.yaml:3 ",
                        "luns.d/typo.yaml:0 size",
                        "luns.d/typo.yaml:2 sise",
                        "luns.d/typo.yaml:3 read-only");
        assertThat(e.getMessage()).contains(
                "../examples/broken/luns.d/dup-b.yaml:4: export.iscsi: iSCSI target iqn.2026-11.io.blocktarget:shared"
                        + " LUN 0 is also exported by ../examples/broken/luns.d/dup-a.yaml:4");
    }
}
