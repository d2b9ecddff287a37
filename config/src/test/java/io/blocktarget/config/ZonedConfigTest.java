package io.blocktarget.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The {@code zoned:} section: defaults, every rule with its exact problem, the writer's round trip. */
class ZonedConfigTest extends ConfigDirTest {
    private static final String RAM_4K = "backend: ram\nsize: 1GiB\nlogical-block-size: 4KiB\n";
    /** Conventional zones are iSCSI only (NVMe ZNS has none). */
    private static final String RAM_4K_ISCSI = RAM_4K + "export: { nvme: false }\n";

    @Test
    void minimalSectionTakesTheDefaults() throws Exception {
        config.lun("z", RAM_4K + "zoned:\n  zone-size: 64MiB\n");
        assertThat(config.loadLun("z").features().zoned()).contains(new ZonedConfig(ZonedConfig.Model.HOST_MANAGED,
                64L << 20, 64L << 20, 0, 0, 0, 0));
    }

    @Test
    void everyKey() throws Exception {
        config.lun("z", RAM_4K_ISCSI + """
                zoned:
                  model: host-managed
                  zone-size: 64MiB
                  zone-capacity: 48MiB
                  conventional-zones: 2
                  max-open: 8
                  max-active: 12
                  zone-append-max-bytes: 512KiB
                """);
        assertThat(config.loadLun("z").features().zoned()).contains(new ZonedConfig(ZonedConfig.Model.HOST_MANAGED,
                64L << 20, 48L << 20, 2, 8, 12, 512L << 10));
    }

    @Test
    void conventionalZonesAreRefusedWhenTheLunIsAlsoAnNvmeNamespace() throws Exception {
        config.lun("z", RAM_4K + "zoned:\n  zone-size: 64MiB\n  conventional-zones: 1\n");
        assertThat(config.problems()).containsExactly("luns.d/z.yaml:4: zoned.conventional-zones: 1 conventional zones,"
                + " but the LUN is exported over NVMe too, whose Zoned Namespaces have none; allowed: 0, or export:"
                + " {nvme: false}");
        config.lun("z", RAM_4K + "zoned:\n  zone-size: 64MiB\n  conventional-zones: 0\n");
        assertThat(config.loadLun("z").features().zoned()).isPresent();
    }

    @Test
    void noSectionIsAConventionalLun() throws Exception {
        config.lun("z", RAM_4K);
        assertThat(config.loadLun("z").features().zoned()).isEmpty();
    }

    @Test
    void unknownKey() {
        config.lun("z", RAM_4K + "zoned:\n  zone-size: 64MiB\n  zones: 3\n");
        assertThat(config.problems()).containsExactly("luns.d/z.yaml:6: zoned.zones: unknown key; allowed keys: model,"
                + " zone-size, zone-capacity, conventional-zones, max-open, max-active, zone-append-max-bytes");
    }

    @Test
    void notAMap() {
        config.lun("z", RAM_4K + "zoned: true\n");
        assertThat(config.problems()).containsExactly("luns.d/z.yaml:4: zoned: true is not a zoned map; allowed: a map"
                + " with the keys model, zone-size, zone-capacity, conventional-zones, max-open, max-active,"
                + " zone-append-max-bytes");
    }

    @Test
    void onlyHostManaged() {
        config.lun("z", RAM_4K + "zoned:\n  model: host-aware\n  zone-size: 64MiB\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/z.yaml:5: zoned.model: host-aware is not a zone model; allowed: host-managed");
    }

    @Test
    void zoneSizeIsRequired() {
        config.lun("z", RAM_4K + "zoned:\n  max-open: 2\n");
        assertThat(config.problems()).containsExactly("luns.d/z.yaml:4: zoned.zone-size: missing; allowed: a power of"
                + " two, at least the physical block size (4 KiB), e.g. 64MiB");
    }

    @Test
    void zoneSizeMustBeAPowerOfTwo() {
        config.lun("z", RAM_4K + "zoned:\n  zone-size: 48MiB\n");
        assertThat(config.problems()).containsExactly("luns.d/z.yaml:5: zoned.zone-size: 48MiB is not a power of two"
                + " (Linux needs power-of-two zones); allowed: a power of two, at least the physical block size (4 KiB),"
                + " e.g. 64MiB");
    }

    @Test
    void zoneSizeAtLeastThePhysicalBlock() throws Exception {
        config.lun("z", "backend: ram\nsize: 1GiB\nlogical-block-size: 16KiB\nzoned:\n  zone-size: 8KiB\n");
        assertThat(config.problems()).containsExactly("luns.d/z.yaml:5: zoned.zone-size: 8KiB is smaller than the"
                + " physical block size (16 KiB); allowed: a power of two, at least the physical block size (16 KiB),"
                + " e.g. 64MiB");
        config.lun("z", "backend: ram\nsize: 32GiB\nlogical-block-size: 16KiB\nzoned:\n  zone-size: 16KiB\n");
        assertThat(config.problems()).containsExactly("luns.d/z.yaml:5: zoned.zone-size: 16KiB makes 2097152 zones;"
                + " allowed: at most 1048576 zones (a zone size of at least 32KiB)");
        config.lun("z", "backend: ram\nsize: 16GiB\nlogical-block-size: 16KiB\nzoned:\n  zone-size: 16KiB\n");
        assertThat(config.loadLun("z").features().zoned()).isPresent();   // 2^20 zones: the limit
    }

    @Test
    void sizeMustBeWholeZones() {
        config.lun("z", "backend: ram\nsize: 1000MiB\nlogical-block-size: 4KiB\nzoned:\n  zone-size: 64MiB\n");
        assertThat(config.problems()).containsExactly("luns.d/z.yaml:5: zoned.zone-size: 64MiB does not divide the"
                + " LUN's size 1000 MiB; allowed: a size that is a whole number of zones (size: 960MiB or 1GiB)");
        config.lun("z", "backend: ram\nsize: 32MiB\nlogical-block-size: 4KiB\nzoned:\n  zone-size: 64MiB\n");
        assertThat(config.problems()).containsExactly("luns.d/z.yaml:5: zoned.zone-size: 64MiB does not divide the"
                + " LUN's size 32 MiB; allowed: a size that is a whole number of zones (size: at least 64MiB)");
    }

    @Test
    void capacityAtMostTheZoneSizeAndWholePhysicalBlocks() throws Exception {
        config.lun("z", RAM_4K + "zoned:\n  zone-size: 64MiB\n  zone-capacity: 65MiB\n");
        assertThat(config.problems()).containsExactly("luns.d/z.yaml:6: zoned.zone-capacity: 65MiB is out of range;"
                + " allowed: a multiple of the physical block size (4 KiB), from it up to zone-size (64 MiB); ZBC-2"
                + " writes whole physical blocks");
        config.lun("z", RAM_4K + "zoned:\n  zone-size: 64MiB\n  zone-capacity: 0\n");
        assertThat(config.problems()).hasSize(1).first().asString().contains("zone-capacity: 0 is out of range");
        config.lun("z", RAM_4K + "physical-block-size: 16KiB\nzoned:\n  zone-size: 64MiB\n  zone-capacity: 6KiB\n");
        assertThat(config.problems()).containsExactly("luns.d/z.yaml:7: zoned.zone-capacity: 6KiB is not a multiple of"
                + " the physical block size (16 KiB); allowed: a multiple of the physical block size (16 KiB), from it up"
                + " to zone-size (64 MiB); ZBC-2 writes whole physical blocks");
        config.lun("z", RAM_4K + "zoned:\n  zone-size: 64MiB\n  zone-capacity: 64MiB\n");   // the limit
        assertThat(config.loadLun("z").features().zoned().orElseThrow().zoneCapacity()).isEqualTo(64L << 20);
    }

    @Test
    void conventionalZonesLeaveOneSequentialZone() throws Exception {
        config.lun("z", RAM_4K_ISCSI + "zoned:\n  zone-size: 64MiB\n  conventional-zones: 16\n");
        assertThat(config.problems()).containsExactly("luns.d/z.yaml:7: zoned.conventional-zones: 16 is out of range;"
                + " allowed: 0 .. the number of zones - 1 (15): at least one zone must be sequential");
        config.lun("z", RAM_4K_ISCSI + "zoned:\n  zone-size: 64MiB\n  conventional-zones: 15\n");   // the limit
        assertThat(config.loadLun("z").features().zoned().orElseThrow().conventionalZones()).isEqualTo(15);
        config.lun("z", RAM_4K_ISCSI + "zoned:\n  zone-size: 64MiB\n  conventional-zones: -1\n");
        assertThat(config.problems()).hasSize(1).first().asString().contains("conventional-zones: -1 is out of range");
    }

    @Test
    void limitsFromZeroToTheSequentialZones() throws Exception {
        config.lun("z", RAM_4K_ISCSI + "zoned:\n  zone-size: 64MiB\n  conventional-zones: 2\n  max-open: 15\n");
        assertThat(config.problems()).containsExactly("luns.d/z.yaml:8: zoned.max-open: 15 is out of range; allowed:"
                + " 0 (no limit) .. the number of sequential zones (14)");
        config.lun("z", RAM_4K_ISCSI + "zoned:\n  zone-size: 64MiB\n  conventional-zones: 2\n  max-active: -1\n");
        assertThat(config.problems()).containsExactly("luns.d/z.yaml:8: zoned.max-active: -1 is out of range; allowed:"
                + " 0 (no limit) .. the number of sequential zones (14)");
        config.lun("z", RAM_4K_ISCSI + "zoned:\n  zone-size: 64MiB\n  conventional-zones: 2\n  max-open: 14\n"
                + "  max-active: 14\n");
        assertThat(config.loadLun("z").features().zoned().orElseThrow().maxActive()).isEqualTo(14);
    }

    @Test
    void maxOpenAtMostMaxActive() {
        config.lun("z", RAM_4K + "zoned:\n  zone-size: 64MiB\n  max-open: 5\n  max-active: 4\n");
        assertThat(config.problems()).containsExactly("luns.d/z.yaml:6: zoned.max-open: 5 is more than max-active 4;"
                + " allowed: 1 .. max-active (an open zone is active; ZNS requires MOR <= MAR)");
        config.lun("z", RAM_4K + "zoned:\n  zone-size: 64MiB\n  max-active: 4\n");
        assertThat(config.problems()).containsExactly("luns.d/z.yaml:6: zoned.max-active: 4 without max-open (no limit"
                + " on open zones); allowed: max-open from 1 to max-active as well (an open zone is active; ZNS"
                + " requires MOR <= MAR)");
    }

    @Test
    void zoneAppendMaxBytes() {
        config.lun("z", RAM_4K + "zoned:\n  zone-size: 64MiB\n  zone-append-max-bytes: 3KiB\n");
        assertThat(config.problems()).containsExactly("luns.d/z.yaml:6: zoned.zone-append-max-bytes: 3KiB is out of"
                + " range (NVMe ZASL is a power of two of 4 KiB pages); allowed: 0 (as large as one transfer) or a power"
                + " of two from 4 KiB and at least the logical block size");
        config.lun("z", "backend: ram\nsize: 1GiB\nlogical-block-size: 16KiB\nzoned:\n  zone-size: 64MiB\n"
                + "  zone-append-max-bytes: 8KiB\n");
        assertThat(config.problems()).hasSize(1).first().asString().contains("8KiB is out of range");
    }

    @Test
    void onlyRamLuns() {
        config.lun("z", "backend: null\nsize: 1GiB\nlogical-block-size: 4KiB\nzoned:\n  zone-size: 64MiB\n");
        assertThat(config.problems()).containsExactly("luns.d/z.yaml:4: zoned: a zoned LUN needs backend: ram (write"
                + " pointers live in memory; file and null cannot keep them yet); this LUN has backend: null; allowed:"
                + " backend: ram, or no zoned section");
        config.lun("z", "backend: file\npath: f.img\ncreate: true\nsize: 1GiB\nlogical-block-size: 4KiB\nzoned:\n"
                + "  zone-size: 64MiB\n");
        assertThat(config.problems()).hasSize(1).first().asString().contains("this LUN has backend: file");
    }

    @Test
    void writerRoundTripsAndLeavesDefaultsOut() throws Exception {
        config.lun("a", RAM_4K + "zoned:\n  zone-size: 64MiB\n");
        config.lun("b", RAM_4K_ISCSI + """
                zoned:
                  zone-size: 64MiB
                  zone-capacity: 48MiB
                  conventional-zones: 2
                  max-open: 8
                  max-active: 12
                  zone-append-max-bytes: 512KiB
                """);
        BlocktargetConfig before = config.load();
        for (LunConfig lun : before.luns()) {
            LunFiles.prepare(tmp, lun, before.server()).commit();
        }
        assertThat(config.load().luns()).isEqualTo(before.luns());
        assertThat(Files.readString(tmp.resolve("luns.d/a.yaml"))).endsWith("""
                zoned:
                  model: host-managed
                  zone-size: 64MiB
                """);
        assertThat(Files.readString(tmp.resolve("luns.d/b.yaml"))).endsWith("""
                zoned:
                  model: host-managed
                  zone-size: 64MiB
                  zone-capacity: 48MiB
                  conventional-zones: 2
                  max-open: 8
                  max-active: 12
                  zone-append-max-bytes: 512KiB
                """);
        assertThat(before.luns().stream().map(l -> l.features().zoned()).filter(Optional::isPresent).count())
                .isEqualTo(2);
    }
}
