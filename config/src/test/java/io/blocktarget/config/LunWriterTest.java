package io.blocktarget.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** LunConfig -> luns.d/NAME.yaml: what is written reads back equal, for every kind of key. */
class LunWriterTest extends ConfigDirTest {

    /** Loads the directory, rewrites every LUN file from its LunConfig, loads again: the LUNs must be equal. */
    private void roundTrip() throws Exception {
        BlocktargetConfig before = config.load();
        for (LunConfig lun : before.luns()) {
            LunFiles.Pending pending = LunFiles.prepare(tmp, lun, before.server());
            pending.commit();
        }
        BlocktargetConfig after = config.load();
        assertThat(after.luns()).isEqualTo(before.luns());
    }

    @Test
    void plainRamLunIsShort() throws Exception {
        config.lun("r", "backend: ram\nsize: 1GiB\n");
        roundTrip();
        assertThat(Files.readString(tmp.resolve("luns.d/r.yaml"))).isEqualTo("""
                # r: written by the blocktarget control API
                backend: ram
                size: 1GiB
                logical-block-size: 512
                physical-block-size: 4KiB
                """);
    }

    @Test
    void everyKeyRoundTrips() throws Exception {
        config.secret("secrets/alice.secret", "alice-secret-12345\n");
        config.secret("secrets/target.secret", "target-secret-12345\n");
        config.lun("all", """
                backend: file
                path: data/all.img
                create: true
                direct-io: true
                size: 12288
                logical-block-size: 4KiB
                physical-block-size: 4KiB
                read-only: true
                export:
                  iscsi: { target: "iqn.2001-04.com.example:t", lun: 16383 }
                  nvme: { subsystem: "nqn.2001-04.com.example:s", nsid: 0xFFFFFFFE, uuid: 91fdba0d-f87b-4c25-b80f-db7be1418b9e }
                access:
                  chap: { user: alice, secret-file: secrets/alice.secret, mutual-user: tgt, mutual-secret-file: secrets/target.secret }
                  hosts: [nqn.2014-08.org.nvmexpress:uuid:6e1c2f3a-3b1d-4c8e-9a55-1a2b3c4d5e6f]
                """);
        config.lun("nul", "backend: null\nsize: 1003520\nexport: { iscsi: false, nvme: { nsid: 3 } }\n");
        config.lun("big", "backend: ram\nsize: 3TiB\nlogical-block-size: 64KiB\nphysical-block-size: 32MiB\n"
                + "export: { nvme: false }\n");
        config.lun("atom", "backend: ram\nsize: 1GiB\nlogical-block-size: 4KiB\n"
                + "atomic: { max-bytes: 64KiB, boundary-bytes: 128KiB, granularity-bytes: 8KiB }\n");
        roundTrip();
        String text = Files.readString(tmp.resolve("luns.d/all.yaml"));
        assertThat(text).doesNotContain("alice-secret", "target-secret").contains(tmp.resolve("secrets/alice.secret")
                .toString());
    }

    @Test
    void nullBackendIsQuotedSoItStaysAName() throws Exception {
        config.lun("n", "backend: null\nsize: 1GiB\n");
        roundTrip();
        assertThat(Files.readString(tmp.resolve("luns.d/n.yaml"))).contains("backend: 'null'");
    }

    @Test
    void derivedExportsAreLeftOutAndNonDefaultOnesWritten() throws Exception {
        config.lun("d", "backend: ram\nsize: 1GiB\nexport: { iscsi: { lun: 2 } }\n");
        LunConfig lun = config.loadLun("d");
        Map<String, Object> doc = LunWriter.document(lun, config.load().server());
        assertThat(doc.get("export")).isEqualTo(Map.of("iscsi", Map.of("target", "iqn.2026-11.io.blocktarget:d",
                "lun", 2)));
        assertThat(doc).containsOnlyKeys("backend", "size", "logical-block-size", "physical-block-size", "export");
        roundTrip();
    }

    @Test
    void sizesAreWrittenExactly() {
        assertThat(List.of(Sizes.exact(512), Sizes.exact(4096), Sizes.exact(1536), Sizes.exact(3L << 40),
                Sizes.exact(1000448))).containsExactly("512", "4KiB", "1536", "3TiB", "977KiB");
    }

    @Test
    void pendingWriteIsInvisibleUntilCommitAndAbortLeavesNothing() throws Exception {
        config.lun("p", "backend: ram\nsize: 1GiB\n");
        BlocktargetConfig loaded = config.load();
        LunConfig bigger = ConfigLoader.resized(loaded.luns().getFirst(), "2GiB");
        LunFiles.Pending pending = LunFiles.prepare(tmp, bigger, loaded.server());
        assertThat(config.loadLun("p").size()).isEqualTo(1L << 30);
        assertThat(config.load().warnings()).isEmpty(); // the dot file is skipped, not even warned about
        pending.abort();
        assertThat(Files.list(tmp.resolve("luns.d"))).containsExactly(tmp.resolve("luns.d/p.yaml"));
        LunFiles.prepare(tmp, bigger, loaded.server()).commit();
        assertThat(config.loadLun("p").size()).isEqualTo(2L << 30);
        assertThat(LunFiles.delete(tmp, "p")).isTrue();
        assertThat(LunFiles.delete(tmp, "p")).isFalse();
    }
}
