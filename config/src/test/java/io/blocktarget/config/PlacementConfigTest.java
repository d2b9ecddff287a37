package io.blocktarget.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The {@code placement:} section (issue 32): defaults, every limit at the edge and one past it with its exact
 * problem, the writer's round trip.
 */
class PlacementConfigTest extends ConfigDirTest {
    private static final String RAM_4K = "backend: ram\nsize: 1GiB\nlogical-block-size: 4KiB\n";
    private static final String UNIT_ALLOWED_4K = "a positive multiple of the logical block size (4 KiB), e.g. 64 MiB"
            + " (NVMe RUNS, Linux write_stream_granularity)";

    private Optional<PlacementConfig> placement(String name) throws Exception {
        return config.loadLun(name).features().placement();
    }

    @Test
    void absentMeansNoPlacement() throws Exception {
        config.lun("p", RAM_4K);
        assertThat(placement("p")).isEmpty();
    }

    @Test
    void anEmptyMapTakesEveryDefault() throws Exception {
        config.lun("p", RAM_4K + "placement: {}\n");
        assertThat(placement("p")).contains(new PlacementConfig(64L << 20, 8, 6, 700));
    }

    @Test
    void everyKey() throws Exception {
        config.lun("p", RAM_4K + """
                placement:
                  reclaim-unit-size: 16MiB
                  handles: 126
                  streams: 63
                  over-provisioning: 12.5%
                """);
        assertThat(placement("p")).contains(new PlacementConfig(16L << 20, 126, 63, 1250));
    }

    @Test
    void handlesAndStreamsAtTheirLimitsAndOnePast() throws Exception {
        config.lun("p", RAM_4K + "placement: { handles: 1, streams: 1 }\n");
        assertThat(placement("p")).contains(new PlacementConfig(64L << 20, 1, 1, 700));
        config.lun("p", RAM_4K + "placement:\n  handles: 127\n  streams: 64\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/p.yaml:5: placement.handles: 127 is out of range; allowed: 1..126 (Linux reads at most 126"
                        + " placement identifiers)",
                "luns.d/p.yaml:6: placement.streams: 64 is out of range; allowed: 1..63 (GROUP NUMBER is six bits, 0"
                        + " meaning no stream)");
        config.lun("p", RAM_4K + "placement:\n  handles: 0\n  streams: 0\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/p.yaml:5: placement.handles: 0 is out of range; allowed: 1..126 (Linux reads at most 126"
                        + " placement identifiers)",
                "luns.d/p.yaml:6: placement.streams: 0 is out of range; allowed: 1..63 (GROUP NUMBER is six bits, 0"
                        + " meaning no stream)");
    }

    @ParameterizedTest
    @ValueSource(ints = {512, 4096, 16384, 65536})
    void theReclaimUnitIsAMultipleOfTheLogicalBlockSize(int lbs) throws Exception {
        config.lun("p", "backend: ram\nsize: 256MiB\nlogical-block-size: " + lbs + "\nplacement:\n"
                + "  reclaim-unit-size: " + lbs + "\n");
        assertThat(placement("p")).contains(new PlacementConfig(lbs, 8, 6, 700));
        config.lun("p", "backend: ram\nsize: 256MiB\nlogical-block-size: " + lbs + "\nplacement:\n"
                + "  reclaim-unit-size: " + (3L * lbs) + "\n");
        assertThat(placement("p")).contains(new PlacementConfig(3L * lbs, 8, 6, 700));
        config.lun("p", "backend: ram\nsize: 256MiB\nlogical-block-size: " + lbs + "\nplacement:\n"
                + "  reclaim-unit-size: " + (3L * lbs + lbs / 2) + "\n");
        assertThat(config.problems()).hasSize(1).first().asString().startsWith("luns.d/p.yaml:5:"
                + " placement.reclaim-unit-size: " + (3L * lbs + lbs / 2) + " is not a multiple of the logical block size");
    }

    @Test
    void aReclaimUnitNotAMultipleIsRefusedWithFileAndLine() {
        config.lun("p", RAM_4K + "placement:\n  reclaim-unit-size: 6KiB\n");
        assertThat(config.problems()).containsExactly("luns.d/p.yaml:5: placement.reclaim-unit-size: 6KiB is not a"
                + " multiple of the logical block size (4 KiB); allowed: " + UNIT_ALLOWED_4K);
        config.lun("p", RAM_4K + "placement:\n  reclaim-unit-size: 0\n");
        assertThat(config.problems()).containsExactly("luns.d/p.yaml:5: placement.reclaim-unit-size: 0 is not a"
                + " multiple of the logical block size (4 KiB); allowed: " + UNIT_ALLOWED_4K);
    }

    @Test
    void reclaimUnitsPerLunAtTheLimitAndOnePast() throws Exception {
        // 1 GiB / 2 KiB = 2^19 reclaim units: the limit
        config.lun("p", "backend: ram\nsize: 1GiB\nplacement:\n  reclaim-unit-size: 2KiB\n");
        assertThat(placement("p")).contains(new PlacementConfig(2048, 8, 6, 700));
        // 1 GiB + 512 B needs one unit more
        config.lun("p", "backend: ram\nsize: 1073742336\nphysical-block-size: 512\nplacement:\n"
                + "  reclaim-unit-size: 2KiB\n");
        assertThat(config.problems()).containsExactly("luns.d/p.yaml:5: placement.reclaim-unit-size: 2KiB makes 524289"
                + " reclaim units of the LUN's 1073742336 bytes; allowed: at most 524288 reclaim units (a reclaim unit of at"
                + " least 2560)");
    }

    @Test
    void aReclaimUnitOfMoreThan2To30BlocksIsRefused() throws Exception {
        config.lun("p", "backend: null\nsize: 1TiB\nplacement:\n  reclaim-unit-size: 512GiB\n");
        assertThat(placement("p")).contains(new PlacementConfig(512L << 30, 8, 6, 700));
        config.lun("p", "backend: null\nsize: 2TiB\nplacement:\n  reclaim-unit-size: 1TiB\n");
        assertThat(config.problems()).containsExactly("luns.d/p.yaml:4: placement.reclaim-unit-size: 1TiB is more"
                + " than 1073741824 logical blocks; allowed: a positive multiple of the logical block size (512 B),"
                + " e.g. 8 MiB (NVMe RUNS, Linux write_stream_granularity), at most 512GiB");
    }

    @Test
    void overProvisioningIsAPercentageUpTo100() throws Exception {
        config.lun("p", RAM_4K + "placement: { over-provisioning: 0% }\n");
        assertThat(placement("p").orElseThrow().overProvisioningBasisPoints()).isZero();
        config.lun("p", RAM_4K + "placement: { over-provisioning: 100% }\n");
        assertThat(placement("p").orElseThrow().overProvisioningBasisPoints()).isEqualTo(10_000);
        config.lun("p", RAM_4K + "placement: { over-provisioning: 0.05% }\n");
        assertThat(placement("p").orElseThrow().overProvisioningBasisPoints()).isEqualTo(5);
        config.lun("p", RAM_4K + "placement:\n  over-provisioning: 100.01%\n");
        assertThat(config.problems()).containsExactly("luns.d/p.yaml:5: placement.over-provisioning: 100.01% is out of"
                + " range; allowed: " + PlacementReader.PERCENT_ALLOWED);
        config.lun("p", RAM_4K + "placement:\n  over-provisioning: 7\n");
        assertThat(config.problems()).containsExactly("luns.d/p.yaml:5: placement.over-provisioning: 7 is not a"
                + " percentage; allowed: a percentage from 0% to 100% with at most two decimals, e.g. 7% or 12.5%");
        config.lun("p", RAM_4K + "placement:\n  over-provisioning: 7.125%\n");
        assertThat(config.problems()).hasSize(1).first().asString().contains("7.125% is not a percentage");
    }

    @Test
    void unknownKeyAndNotAMap() {
        config.lun("p", RAM_4K + "placement:\n  handle: 4\n");
        assertThat(config.problems()).containsExactly("luns.d/p.yaml:5: placement.handle: unknown key; did you mean"
                + " `handles`? allowed keys: reclaim-unit-size, handles, streams, over-provisioning");
        config.lun("p", RAM_4K + "placement: true\n");
        assertThat(config.problems()).containsExactly("luns.d/p.yaml:4: placement: true is not a placement map;"
                + " allowed: a map with the keys reclaim-unit-size, handles, streams, over-provisioning");
    }

    @Test
    void aZonedLunCannotHavePlacement() {
        config.lun("p", RAM_4K + "zoned:\n  zone-size: 64MiB\nplacement: {}\n");
        assertThat(config.problems()).containsExactly("luns.d/p.yaml:6: placement: a zoned LUN cannot have data"
                + " placement (its zones already place the data); allowed: placement or zoned, not both");
    }

    @Test
    void anNvmeNamespaceWithPlacementHasAnNsidOf16Bits() throws Exception {
        config.lun("p", RAM_4K + "export: { nvme: { nsid: 65535 } }\nplacement: {}\n");
        assertThat(placement("p")).isPresent();
        config.lun("p", RAM_4K + "export: { nvme: { nsid: 65536 } }\nplacement: {}\n");
        assertThat(config.problems()).containsExactly("luns.d/p.yaml:5: placement: NVMe namespace 65536 cannot carry"
                + " data placement (its endurance group identifier is its NSID, at most 65535); allowed:"
                + " export.nvme.nsid 1..65535 with placement, or no placement");
        config.lun("p", RAM_4K + "export: { nvme: false }\nplacement: {}\n");
        assertThat(placement("p")).isPresent();
    }

    @Test
    void writerWritesEveryKeyAndRoundTrips() throws Exception {
        config.lun("a", RAM_4K + "placement: {}\n");
        config.lun("b", RAM_4K + "placement: { reclaim-unit-size: 12KiB, handles: 2, streams: 9,"
                + " over-provisioning: 0.5% }\n");
        BlocktargetConfig before = config.load();
        for (LunConfig lun : before.luns()) {
            LunFiles.prepare(tmp, lun, before.server()).commit();
        }
        assertThat(config.load().luns()).isEqualTo(before.luns());
        assertThat(Files.readString(tmp.resolve("luns.d/a.yaml"))).endsWith("""
                placement:
                  reclaim-unit-size: 64MiB
                  handles: 8
                  streams: 6
                  over-provisioning: 7%
                """);
        assertThat(Files.readString(tmp.resolve("luns.d/b.yaml"))).endsWith("""
                placement:
                  reclaim-unit-size: 12KiB
                  handles: 2
                  streams: 9
                  over-provisioning: 0.5%
                """);
    }

    @Test
    void percentIsWrittenAsItIsRead() {
        assertThat(PlacementReader.percent(0)).isEqualTo("0%");
        assertThat(PlacementReader.percent(700)).isEqualTo("7%");
        assertThat(PlacementReader.percent(1250)).isEqualTo("12.5%");
        assertThat(PlacementReader.percent(5)).isEqualTo("0.05%");
        assertThat(PlacementReader.percent(10_000)).isEqualTo("100%");
    }

    @Test
    void theSectionReplacesTheLun() {
        assertThat(KeyPaths.find(LunKeys.declared(), "placement").orElseThrow().rule()).isEqualTo(ChangeRule.REPLACE);
        assertThat(KeyPaths.find(LunKeys.declared(), "placement.handles").orElseThrow().rule())
                .isEqualTo(ChangeRule.REPLACE);
    }
}
