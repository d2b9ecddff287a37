package io.blocktarget.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** export: derived defaults, explicit names and numbers, disabling a protocol, and the duplicate rule. */
class ExportTest extends ConfigDirTest {
    @Test
    void withoutExportBothProtocolsUseDerivedNames() throws ConfigException {
        config.lun("xfs16k", "backend: ram\nsize: 8GiB\nlogical-block-size: 16KiB\n");
        LunConfig lun = config.loadLun("xfs16k");
        assertThat(lun.iscsi()).contains(new IscsiExport("iqn.2026-11.io.blocktarget:xfs16k", 0));
        assertThat(lun.nvme()).contains(new NvmeExport("nqn.2026-11.io.blocktarget:xfs16k", 1));
    }

    @Test
    void derivedNamesFollowTheServerPrefixes() throws ConfigException {
        config.file("blocktarget.yaml", "iqn-prefix: \"iqn.2001-04.com.example:lab.\"\n"
                + "nqn-prefix: \"nqn.2001-04.com.example:lab.\"\n");
        config.lun("d1", "backend: null\nsize: 1GiB\n");
        LunConfig lun = config.loadLun("d1");
        assertThat(lun.iscsi().orElseThrow().target()).isEqualTo("iqn.2001-04.com.example:lab.d1");
        assertThat(lun.nvme().orElseThrow().subsystem()).isEqualTo("nqn.2001-04.com.example:lab.d1");
    }

    @Test
    void explicitNamesAndNumbersAreKept() throws ConfigException {
        config.lun("a", """
                backend: ram
                size: 1GiB
                export:
                  iscsi: { target: "iqn.2001-04.com.example:storage", lun: 16383 }
                  nvme: { subsystem: "nqn.2014-08.org.nvmexpress:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6", nsid: 0xFFFFFFFE }
                """);
        LunConfig lun = config.loadLun("a");
        assertThat(lun.iscsi()).contains(new IscsiExport("iqn.2001-04.com.example:storage", 16383));
        assertThat(lun.nvme()).contains(
                new NvmeExport("nqn.2014-08.org.nvmexpress:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6", 0xFFFF_FFFEL));
    }

    @Test
    void partialMapsTakeDefaultsForTheRest() throws ConfigException {
        config.lun("b", "backend: ram\nsize: 1GiB\nexport:\n  iscsi: { lun: 7 }\n  nvme: { subsystem: \"nqn.2026-11.x.y:z\" }\n");
        LunConfig lun = config.loadLun("b");
        assertThat(lun.iscsi()).contains(new IscsiExport("iqn.2026-11.io.blocktarget:b", 7));
        assertThat(lun.nvme()).contains(new NvmeExport("nqn.2026-11.x.y:z", 1));
    }

    @Test
    void falseDisablesAProtocolAndTrueMeansDefaults() throws ConfigException {
        config.lun("c", "backend: ram\nsize: 1GiB\nexport:\n  iscsi: false\n  nvme: true\n");
        LunConfig lun = config.loadLun("c");
        assertThat(lun.iscsi()).isEmpty();
        assertThat(lun.nvme()).contains(new NvmeExport("nqn.2026-11.io.blocktarget:c", 1));
    }

    @Test
    void exportOfAnotherTypeIsReported() {
        config.lun("c", "backend: ram\nsize: 1GiB\nexport:\n  iscsi: maybe\n");
        assertThat(config.problems()).containsExactly("luns.d/c.yaml:4: export.iscsi: maybe is not an export;"
                + " allowed: false, true or a map with target (an iSCSI name) and lun (0..16383)");
    }

    @Test
    void exportMustBeAMap() {
        config.lun("c", "backend: ram\nsize: 1GiB\nexport: [iscsi]\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/c.yaml:3: export: a list is not an export map; allowed: a map with the keys iscsi, nvme");
    }

    @Test
    void unknownKeyInsideAnExport() {
        config.lun("c", "backend: ram\nsize: 1GiB\nexport:\n  nvme:\n    nsid: 2\n    namespace: 3\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/c.yaml:6: export.nvme.namespace: unknown key; allowed keys: subsystem, nsid, uuid");
    }

    @Test
    void unknownProtocolInsideExport() {
        config.lun("c", "backend: ram\nsize: 1GiB\nexport:\n  fc: true\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/c.yaml:4: export.fc: unknown key; allowed keys: iscsi, nvme");
    }

    @Test
    void iscsiLunAbove16383IsOutOfRange() {
        config.lun("c", "backend: ram\nsize: 1GiB\nexport:\n  iscsi:\n    lun: 16384\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/c.yaml:5: export.iscsi.lun: 16384 is out of range; allowed: 0..16383");
    }

    @Test
    void iscsiLunMustBeAnInteger() {
        config.lun("c", "backend: ram\nsize: 1GiB\nexport:\n  iscsi:\n    lun: first\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/c.yaml:5: export.iscsi.lun: first is not an integer; allowed: 0..16383");
    }

    @Test
    void nsidZeroIsOutOfRange() {
        config.lun("c", "backend: ram\nsize: 1GiB\nexport:\n  nvme: { nsid: 0 }\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/c.yaml:4: export.nvme.nsid: 0 is out of range; allowed: 1..4294967294 (0xFFFFFFFE)");
    }

    @Test
    void nsidBroadcastValueIsOutOfRange() {
        config.lun("c", "backend: ram\nsize: 1GiB\nexport:\n  nvme: { nsid: 0xFFFFFFFF }\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/c.yaml:4: export.nvme.nsid: 0xFFFFFFFF is out of range; allowed: 1..4294967294 (0xFFFFFFFE)");
    }

    @Test
    void badTargetIqnIsReported() {
        config.lun("c", "backend: ram\nsize: 1GiB\nexport:\n  iscsi:\n    target: iqn.2026-11.io.Blocktarget:c\n");
        assertThat(config.problems()).containsExactly("luns.d/c.yaml:5: export.iscsi.target:"
                + " iqn.2026-11.io.Blocktarget:c contains 'B'; " + IQN_ALLOWED);
    }

    @Test
    void badSubsystemNqnIsReported() {
        config.lun("c", "backend: ram\nsize: 1GiB\nexport:\n  nvme:\n    subsystem: nqn.2014-08.org.nvmexpress.discovery\n");
        assertThat(config.problems()).containsExactly("luns.d/c.yaml:5: export.nvme.subsystem:"
                + " nqn.2014-08.org.nvmexpress.discovery is the discovery subsystem's NQN; " + NQN_ALLOWED);
    }

    @Test
    void derivedNameLongerThan223BytesIsReported() {
        // RFC 3720 §3.2.6.1: at most 223 bytes. A 161-byte prefix + 62-byte name = 223 is fine, + 63 bytes is not.
        String prefix = "iqn.2026-11.io.blocktarget:" + "p".repeat(133) + ":";
        assertThat(prefix).hasSize(161);
        config.file("blocktarget.yaml", "iqn-prefix: \"" + prefix + "\"\n");
        config.lun("b".repeat(62), "backend: ram\nsize: 1GiB\n");
        String tooLong = "a".repeat(63);
        config.lun(tooLong, "backend: ram\nsize: 1GiB\n");
        assertThat(config.problems()).containsExactly("luns.d/" + tooLong + ".yaml: export.iscsi.target: the derived"
                + " name " + prefix + tooLong + " is 224 bytes long; " + IQN_ALLOWED
                + " (set it explicitly or shorten the prefix or LUN name)");
    }

    @Test
    void duplicateTargetAndLunAcrossFilesNamesBothFiles() {
        config.lun("a", "backend: null\nsize: 1GiB\nexport:\n  iscsi: { target: \"iqn.2026-11.x.y:shared\" }\n");
        config.lun("b", "backend: null\nsize: 1GiB\n\nexport:\n  iscsi: { target: \"iqn.2026-11.x.y:shared\", lun: 0 }\n");
        assertThat(config.problems()).containsExactly("luns.d/b.yaml:5: export.iscsi: iSCSI target"
                + " iqn.2026-11.x.y:shared LUN 0 is also exported by " + tmp.resolve("luns.d/a.yaml") + ":4;"
                + " allowed: each target and LUN, and each subsystem and NSID, in one LUN file only");
    }

    @Test
    void duplicateSubsystemAndNsidAgainstADerivedName() {
        // b's derived subsystem is nqn-prefix + "b"; a claims exactly that with the default NSID 1.
        config.lun("a", "backend: null\nsize: 1GiB\nexport:\n  nvme: { subsystem: \"nqn.2026-11.io.blocktarget:b\" }\n");
        config.lun("b", "backend: null\nsize: 1GiB\n");
        assertThat(config.problems()).containsExactly("luns.d/b.yaml: export.nvme: NVMe subsystem"
                + " nqn.2026-11.io.blocktarget:b NSID 1 is also exported by " + tmp.resolve("luns.d/a.yaml") + ":4;"
                + " allowed: each target and LUN, and each subsystem and NSID, in one LUN file only");
    }

    @Test
    void sameTargetWithDifferentLunsIsFine() throws ConfigException {
        config.lun("a", "backend: null\nsize: 1GiB\nexport:\n  iscsi: { target: \"iqn.2026-11.x.y:t\", lun: 0 }\n");
        config.lun("b", "backend: null\nsize: 1GiB\nexport:\n  iscsi: { target: \"iqn.2026-11.x.y:t\", lun: 1 }\n");
        assertThat(config.load().luns()).extracting(l -> l.iscsi().orElseThrow().lun()).containsExactly(0, 1);
    }

    @Test
    void lunExportedNowhereIsAWarning() throws ConfigException {
        config.lun("quiet", "backend: null\nsize: 1GiB\nexport: { iscsi: false, nvme: false }\n");
        BlocktargetConfig loaded = config.load();
        assertThat(loaded.luns().getFirst().iscsi()).isEqualTo(Optional.empty());
        assertThat(loaded.warnings()).containsExactly(tmp.resolve("luns.d/quiet.yaml")
                + ": LUN quiet is exported neither over iSCSI nor over NVMe/TCP");
    }
}
