package io.blocktarget.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The example directories shipped for the README ({@code blocktarget check examples/...}). */
class ExamplesTest {
    private static final Path BASIC = Path.of("../examples/basic");
    private static final Path BROKEN = Path.of("../examples/broken");

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
