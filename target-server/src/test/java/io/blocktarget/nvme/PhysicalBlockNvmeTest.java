package io.blocktarget.nvme;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.block.file.FileBlockDevice;
import io.blocktarget.block.nil.NullBlockDevice;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.config.ConfigLoader;
import io.blocktarget.config.LunConfig;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The physical block over NVMe (issue 28 item 8): a namespace claims the atomicity its backend keeps (NSFEAT bit 1,
 * NAWUN / NAWUPF / NABSN / NABSPF, NVM Command Set §4.1.5.1 and §2.1.4), so Linux — which caps physical_block_size
 * at the power-fail atomic unit — shows the configured physical block as it does over iSCSI; a backend that cannot
 * keep it across a power loss (file) claims NAWUN only and says so.
 */
class PhysicalBlockNvmeTest {
    private static final String NQN = "nqn.2026-11.io.blocktarget:pbs";
    private final ManualClock scheduler = new ManualClock();
    private final MemoryBudget budget = new MemoryBudget(1L << 30);
    private final ExecutorService io = Executors.newSingleThreadExecutor();

    @TempDir
    Path dir;

    @AfterEach
    void stop() {
        io.shutdownNow();
    }

    /** The device states of the last {@link #host}, by NSID − 1. */
    private final List<LunState> states = new java.util.ArrayList<>();

    private TestHost host(BlockDevice... devices) {
        List<NamespaceSpec> specs = new java.util.ArrayList<>();
        states.clear();
        for (int i = 0; i < devices.length; i++) {
            states.add(new LunState(devices[i].name()));
            specs.add(new NamespaceSpec(NQN, i + 1, devices[i].name(), devices[i], states.get(i)));
        }
        return TestHost.enabled(NvmeTargets.create(specs, List.of(), NvmeLimits.DEFAULT, scheduler), NQN);
    }

    private RamBlockDevice ram(int lbs, int pbs) {
        return new RamBlockDevice("r" + lbs + "-" + pbs, new BlockGeometry(lbs, pbs, 1L << 14), false, budget);
    }

    /**
     * Linux 6.1's nvme_update_disk_info from the bytes: the atomic unit is LBS × (1 + NAWUPF) with NSFEAT bit 1 and
     * NAWUPF ≠ 0, else LBS × (1 + AWUPF) of the controller; physical_block_size = min(LBS × (1 + NPWG), atomic unit).
     */
    static long linux61Physical(ByteBuf ns, ByteBuf ctrl) {
        long bs = 1L << ns.getUnsignedByte(128 + 2);
        long atomic = bs;
        if (ns.getUnsignedShortLE(42) == 0) {
            atomic = (ns.getUnsignedByte(24) & 0x2) != 0 && ns.getUnsignedShortLE(36) != 0
                    ? (1L + ns.getUnsignedShortLE(36)) * bs : (1L + ctrl.getUnsignedShortLE(528)) * bs;
        }
        long phys = (ns.getUnsignedByte(24) & 0x10) != 0 ? bs * (1 + ns.getUnsignedShortLE(64)) : bs;
        return Math.min(phys, atomic);
    }

    /** Every LUN of the embedded default set: NVMe shows its physical block, on 7.x and 6.1 alike. */
    @Test
    void everyDefaultLunShowsItsPhysicalBlockOverNvme() {
        List<LunConfig> defaults = ConfigLoader.embeddedDefault().luns();
        assertThat(defaults).hasSize(4);
        for (LunConfig lun : defaults) {
            RamBlockDevice device = ram(lun.logicalBlockSize(), lun.physicalBlockSize());
            TestHost host = host(device);
            ByteBuf ns = host.identifyData(0x00, 1);
            ByteBuf ctrl = host.identifyData(0x01, 0);
            long[] linux = AtomicWriteNvmeTest.linuxNvme(ns);
            assertThat(linux[4]).as(lun.name() + " physical_block_size, 7.x").isEqualTo(lun.physicalBlockSize());
            assertThat(linux[1]).as(lun.name() + " atomic_write_unit_max_bytes, 7.x")
                    .isEqualTo(lun.physicalBlockSize());
            assertThat(linux61Physical(ns, ctrl)).as(lun.name() + " physical_block_size, 6.1")
                    .isEqualTo(lun.physicalBlockSize());
            ns.release();
            ctrl.release();
            host.admin.close();
            device.close();
        }
    }

    /** The fields, byte for byte, for RAM and null LUNs: everything up to the physical block, aligned to it. */
    @ParameterizedTest
    @CsvSource({"512,512", "512,4096", "4096,4096", "4096,16384", "16384,16384", "65536,65536", "512,65536",
            "65536,33554432"})
    void ramAndNullClaimThePhysicalBlock(int lbs, int pbs) {
        int unit = pbs / lbs - 1;
        for (BlockDevice device : List.of(ram(lbs, pbs),
                new NullBlockDevice("n", new BlockGeometry(lbs, pbs, 1L << 14), false))) {
            TestHost host = host(device);
            ByteBuf ns = host.identifyData(0x00, 1);
            assertThat(ns.getUnsignedByte(24) & 0x2).as("NSFEAT bit 1 (NSABP)").isEqualTo(unit == 0 ? 0 : 2);
            assertThat(ns.getUnsignedShortLE(34)).as("NAWUN").isEqualTo(unit);
            assertThat(ns.getUnsignedShortLE(36)).as("NAWUPF").isEqualTo(unit);
            assertThat(ns.getUnsignedShortLE(40)).as("NABSN").isEqualTo(unit);
            assertThat(ns.getUnsignedShortLE(42)).as("NABO").isZero();
            assertThat(ns.getUnsignedShortLE(44)).as("NABSPF").isEqualTo(unit);
            assertThat(ns.getUnsignedShortLE(64)).as("NPWG").isEqualTo(unit);
            assertThat(ns.getUnsignedShortLE(66)).as("NPWA").isEqualTo(unit);
            long[] linux = AtomicWriteNvmeTest.linuxNvme(ns);
            assertThat(linux).as("7.x unit_min, unit_max, boundary, max, physical, io_min")
                    .containsExactly(lbs, pbs, unit == 0 ? 0 : pbs, pbs, pbs, pbs);
            ns.release();
            ByteBuf ctrl = host.identifyData(0x01, 0);
            assertThat(ctrl.getUnsignedShortLE(526)).as("AWUN").isEqualTo(unit);
            assertThat(ctrl.getUnsignedShortLE(528)).as("AWUPF").isEqualTo(unit);
            ctrl.release();
            host.admin.close();
            device.close();
        }
        assertThat(budget.used()).isZero();
    }

    /**
     * A file LUN keeps PBS-sized writes whole only in normal operation: NAWUN = NABSN = PBS − 1 block, NAWUPF = NABSPF
     * = 0, so Linux shows the logical block as physical_block_size (and the server says so).
     */
    @Test
    void aFileLunClaimsNormalAtomicityOnlyAndSaysSo() throws Exception {
        FileBlockDevice file = FileBlockDevice.open("f", dir.resolve("f.img"), new BlockGeometry(4096, 16384, 1024),
                new FileBlockDevice.Options(true, false, false), io);
        RamBlockDevice ram = ram(4096, 16384);
        TestHost host = host(file, ram);
        ByteBuf ns = host.identifyData(0x00, 1);
        ByteBuf ctrl = host.identifyData(0x01, 0);
        assertThat(ns.getUnsignedByte(24) & 0x2).as("NSFEAT bit 1").isEqualTo(2);
        assertThat(ns.getUnsignedShortLE(34)).as("NAWUN").isEqualTo(3);
        assertThat(ns.getUnsignedShortLE(36)).as("NAWUPF").isZero();
        assertThat(ns.getUnsignedShortLE(40)).as("NABSN").isEqualTo(3);
        assertThat(ns.getUnsignedShortLE(44)).as("NABSPF").isZero();
        assertThat(AtomicWriteNvmeTest.linuxNvme(ns)[4]).as("physical_block_size, 7.x").isEqualTo(4096);
        assertThat(linux61Physical(ns, ctrl)).as("physical_block_size, 6.1").isEqualTo(4096);
        assertThat(ctrl.getUnsignedShortLE(526)).as("AWUN: the smaller of the two namespaces").isEqualTo(3);
        assertThat(ctrl.getUnsignedShortLE(528)).as("AWUPF: the file's").isZero();
        ns.release();
        ByteBuf second = host.identifyData(0x00, 2);
        assertThat(AtomicWriteNvmeTest.linuxNvme(second)[4]).as("the RAM namespace beside it").isEqualTo(16384);
        assertThat(linux61Physical(second, ctrl)).isEqualTo(16384);
        second.release();
        ctrl.release();
        assertThat(NvmeAtomics.powerFailShortfall(file, Optional.empty())).hasValueSatisfying(s -> assertThat(s)
                .contains("NVMe hosts see physical block size 4096 (iSCSI: 16384)").contains("NAWUPF 0"));
        assertThat(NvmeAtomics.powerFailShortfall(ram, Optional.empty())).isEmpty();
        // recorded where lun show finds it, for the file namespace only
        assertThat(states.get(0).caveats()).containsOnlyKeys("nvme");
        assertThat(states.get(0).caveats().get("nvme")).startsWith("NVMe hosts see physical block size 4096");
        assertThat(states.get(1).caveats()).isEmpty();
        FileBlockDevice equal = FileBlockDevice.open("e", dir.resolve("e.img"), new BlockGeometry(4096, 4096, 16),
                new FileBlockDevice.Options(true, false, false), io);
        assertThat(NvmeAtomics.powerFailShortfall(equal, Optional.empty())).as("PBS = LBS: nothing is lost").isEmpty();
        equal.close();
        host.admin.close();
        file.close();
        ram.close();
    }
}
