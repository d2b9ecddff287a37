package io.blocktarget.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

class EmbeddedDefaultTest {
    private static final long GIB = 1L << 30;

    @Test
    void fourOneGibRamDisksWithTheBlockSizeMatrix() {
        BlocktargetConfig config = ConfigLoader.embeddedDefault();
        assertThat(config.luns())
                .extracting(LunConfig::name, LunConfig::backend, LunConfig::size,
                        LunConfig::logicalBlockSize, LunConfig::physicalBlockSize, LunConfig::readOnly)
                .containsExactly(
                        tuple("ram-512", BackendKind.RAM, GIB, 512, 4096, false),
                        tuple("ram-4k", BackendKind.RAM, GIB, 4096, 4096, false),
                        tuple("ram-16k", BackendKind.RAM, GIB, 16384, 16384, false),
                        tuple("ram-64k", BackendKind.RAM, GIB, 65536, 65536, false));
        assertThat(config.luns()).allSatisfy(lun -> {
            assertThat(lun.source()).isNull();
            assertThat(lun.file()).isEmpty();
        });
    }

    @Test
    void exportedOnBothProtocolsWithDerivedNames() {
        BlocktargetConfig config = ConfigLoader.embeddedDefault();
        assertThat(config.luns()).extracting(lun -> lun.iscsi().orElseThrow()).containsExactly(
                new IscsiExport("iqn.2026-11.io.blocktarget:ram-512", 0),
                new IscsiExport("iqn.2026-11.io.blocktarget:ram-4k", 0),
                new IscsiExport("iqn.2026-11.io.blocktarget:ram-16k", 0),
                new IscsiExport("iqn.2026-11.io.blocktarget:ram-64k", 0));
        assertThat(config.luns()).extracting(lun -> lun.nvme().orElseThrow()).containsExactly(
                new NvmeExport("nqn.2026-11.io.blocktarget:ram-512", 1),
                new NvmeExport("nqn.2026-11.io.blocktarget:ram-4k", 1),
                new NvmeExport("nqn.2026-11.io.blocktarget:ram-16k", 1),
                new NvmeExport("nqn.2026-11.io.blocktarget:ram-64k", 1));
    }

    @Test
    void defaultServerSettings() {
        ServerConfig server = ConfigLoader.embeddedDefault().server();
        assertThat(server).isEqualTo(new ServerConfig(null, "0.0.0.0", 3260, 4420, 8009,
                ConfigLoader.defaultMemoryBudget(), "iqn.2026-11.io.blocktarget:", "nqn.2026-11.io.blocktarget:"));
    }

    @Test
    void warnsOnlyWhenFourGibExceedHalfOfTheMemory() {
        boolean over = 4 * GIB > ConfigLoader.defaultMemoryBudget();
        assertThat(ConfigLoader.embeddedDefault().warnings()).hasSize(over ? 1 : 0);
    }

    @Test
    void defaultMemoryBudgetIsHalfOfPhysicalMemory() {
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long total = os.getTotalMemorySize();
        assertThat(total).isPositive();
        assertThat(ConfigLoader.defaultMemoryBudget()).isEqualTo(total / 2);
    }
}
