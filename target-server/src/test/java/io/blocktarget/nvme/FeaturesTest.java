package io.blocktarget.nvme;

import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.file.FileBlockDevice;
import io.blocktarget.nvme.TestSupport.Reply;
import io.blocktarget.protocol.nvme.AdminOpcode;
import io.blocktarget.protocol.nvme.FeatureId;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.protocol.nvme.NvmOpcode;
import io.blocktarget.protocol.nvme.WriteZeroesCommand;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.assertj.core.api.Assertions.assertThat;

/** Set / Get Features (Base §5.27 / §5.15) on NVM and discovery controllers. */
class FeaturesTest {
    private static final String NQN = "nqn.2026-11.io.blocktarget:feat";
    private final ManualClock clock = new ManualClock();
    private final ExecutorService io = Executors.newFixedThreadPool(2);

    @TempDir
    Path dir;

    @AfterEach
    void stop() {
        io.shutdownNow();
    }

    private TestHost ram() {
        return TestHost.enabled(NvmeTargets.create(
                List.of(new NamespaceSpec(NQN, 1, "r", TestSupport.ram("r", 512, 512, 64))),
                List.of(), NvmeLimits.DEFAULT, clock), NQN);
    }

    @Test
    void numberOfQueuesIsCappedAndReported() {
        TestHost host = ram();
        // default before Set Features: 128 I/O queues
        assertThat(host.getFeature(FeatureId.NUMBER_OF_QUEUES, 0, 0).dw0()).isEqualTo(127 | 127 << 16);
        // asking 1000 submission / 4 completion queues grants min(...) = 4, in both halves (0's based)
        Reply set = host.setFeature(FeatureId.NUMBER_OF_QUEUES, 999 | 3 << 16);
        assertThat(set.status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(set.dw0()).isEqualTo(3 | 3 << 16);
        assertThat(host.getFeature(FeatureId.NUMBER_OF_QUEUES, 0, 0).dw0()).isEqualTo(3 | 3 << 16);
        Reply big = host.setFeature(FeatureId.NUMBER_OF_QUEUES, 0xFFFE | 0xFFFE << 16);
        assertThat(big.dw0()).isEqualTo(127 | 127 << 16);
        // FFFFh is reserved: Invalid Field
        assertThat(host.setFeature(FeatureId.NUMBER_OF_QUEUES, 0xFFFF).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        host.admin.close();
    }

    @Test
    void storedFeaturesRoundTrip() {
        TestHost host = ram();
        int arbitration = 3 | 4 << 8 | 5 << 16 | 6 << 24;
        assertThat(host.setFeature(FeatureId.ARBITRATION, arbitration).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.getFeature(FeatureId.ARBITRATION, 0, 0).dw0()).isEqualTo(arbitration);
        assertThat(host.getFeature(FeatureId.ARBITRATION, 1, 0).dw0()).isZero(); // default
        assertThat(host.getFeature(FeatureId.ARBITRATION, 2, 0).dw0()).isZero(); // saved = default
        assertThat(host.getFeature(FeatureId.ARBITRATION, 3, 0).dw0()).isEqualTo(0b100); // changeable
        assertThat(host.setFeature(FeatureId.INTERRUPT_COALESCING, 0x0A05).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.getFeature(FeatureId.INTERRUPT_COALESCING, 0, 0).dw0()).isEqualTo(0x0A05);
        // power state 0 only (NPSS = 0)
        assertThat(host.setFeature(FeatureId.POWER_MANAGEMENT, 0).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.setFeature(FeatureId.POWER_MANAGEMENT, 1).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        // temperature thresholds: over (THSEL 0) and under (THSEL 1) of the composite sensor
        assertThat(host.getFeature(FeatureId.TEMPERATURE_THRESHOLD, 0, 0).dw0() & 0xFFFF).isEqualTo(358);
        assertThat(host.setFeature(FeatureId.TEMPERATURE_THRESHOLD, 350).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.setFeature(FeatureId.TEMPERATURE_THRESHOLD, 270 | 1 << 20).status())
                .isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.getFeature(FeatureId.TEMPERATURE_THRESHOLD, 0, 0).dw0() & 0xFFFF).isEqualTo(350);
        assertThat(host.getFeature(FeatureId.TEMPERATURE_THRESHOLD, 0, 1 << 20).dw0() & 0xFFFF).isEqualTo(270);
        assertThat(host.setFeature(FeatureId.TEMPERATURE_THRESHOLD, 350 | 3 << 16).status())
                .isEqualTo(NvmeStatus.INVALID_FIELD); // sensor 3 does not exist
        host.admin.close();
    }

    @Test
    void unsupportedFeaturesAreInvalidField() {
        TestHost host = ram();
        // RAM has no volatile write cache: the feature does not exist
        assertThat(host.getFeature(FeatureId.VOLATILE_WRITE_CACHE, 0, 0).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        for (FeatureId fid : List.of(FeatureId.LBA_RANGE_TYPE, FeatureId.ERROR_RECOVERY, FeatureId.TIMESTAMP,
                FeatureId.AUTONOMOUS_POWER_STATE_TRANSITION, FeatureId.HOST_BEHAVIOR_SUPPORT,
                FeatureId.WRITE_ATOMICITY_NORMAL, FeatureId.INTERRUPT_VECTOR_CONFIGURATION)) {
            Reply r = host.getFeature(fid, 0, 0);
            assertThat(r.status()).as(fid.name()).isEqualTo(NvmeStatus.INVALID_FIELD);
            assertThat(r.status().dnr()).isTrue();
        }
        // an FID without a name, and SV = 1 (nothing is saveable)
        assertThat(host.admin(Sqe.of(AdminOpcode.GET_FEATURES.code(), 1, 0, SglDescriptor.transportDataBlock(0),
                0x7D)).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        assertThat(host.admin(Sqe.of(AdminOpcode.SET_FEATURES.code(), 2, 0, SglDescriptor.transportDataBlock(0),
                FeatureId.ARBITRATION.code() | 1 << 31)).status()).isEqualTo(NvmeStatus.FEATURE_NOT_SAVEABLE);
        host.admin.close();
    }

    @Test
    void volatileWriteCacheOfAFileNamespace() throws Exception {
        BlockGeometry g = new BlockGeometry(4096, 4096, 256);
        FileBlockDevice file = FileBlockDevice.open("f", dir.resolve("f.img"), g,
                new FileBlockDevice.Options(true, false, false), io);
        TestHost host = TestHost.enabled(NvmeTargets.create(List.of(new NamespaceSpec(NQN, 1, "f", file)),
                List.of(), NvmeLimits.DEFAULT, clock), NQN);
        ByteBuf id = host.identifyData(0x01, 0);
        assertThat((int) id.getUnsignedByte(525)).isEqualTo(0b111); // VWC present, broadcast flush supported
        id.release();
        ByteBuf indep = host.identifyData(0x08, 1);
        assertThat(indep.getUnsignedByte(0) & 1 << 5).isZero(); // NSFEAT: VWC present for this namespace
        indep.release();
        assertThat(host.getFeature(FeatureId.VOLATILE_WRITE_CACHE, 0, 0).dw0()).isEqualTo(1);
        assertThat(host.setFeature(FeatureId.VOLATILE_WRITE_CACHE, 0).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.getFeature(FeatureId.VOLATILE_WRITE_CACHE, 0, 0).dw0()).isZero();
        // writes still work (written through), and read back
        NvmeQueue q = host.connectIo(1);
        byte[] data = new byte[8192];
        java.util.Arrays.fill(data, (byte) 0x5A);
        assertThat(host.write(q, 1, 10, data, 4096, false).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.read(q, 1, 10, 2, 4096).bytes()).isEqualTo(data);
        host.admin.close();
        file.close();
    }

    @Test
    void writeCacheDisabledWritesThroughAndFuaFlushes() {
        RecordingDevice device = new RecordingDevice(TestSupport.ram("rec", 512, 512, 64));
        NvmeTarget target = NvmeTargets.create(List.of(new NamespaceSpec(NQN, 1, "rec", device),
                new NamespaceSpec(NQN, 2, "plain", TestSupport.ram("plain", 512, 512, 64))),
                List.of(), NvmeLimits.DEFAULT, clock);
        TestHost host = TestHost.enabled(target, NQN);
        NvmeQueue q = host.connectIo(1);
        host.write(q, 1, 1, new byte[512], 512, false);
        host.write(q, 1, 2, new byte[512], 512, true);
        assertThat(host.setFeature(FeatureId.VOLATILE_WRITE_CACHE, 0).status()).isEqualTo(NvmeStatus.SUCCESS);
        host.write(q, 1, 3, new byte[512], 512, false);
        // Write Zeroes with FUA on a cached device: zero, then flush; broadcast flush reaches every namespace
        host.io(q, new WriteZeroesCommand(1, 1, 4, 1, false, true, false).toSqe(), null);
        host.io(q, Sqe.of(NvmOpcode.FLUSH.code(), 2, 0xFFFF_FFFF,
                SglDescriptor.transportDataBlock(0)), null);
        assertThat(device.operations).containsExactly("write 1", "write 2 fua", "write 3 fua", "writeZeroes 4+2",
                "flush", "flush");
        host.admin.close();
    }

    @Test
    void discoveryControllerFeatures() {
        TestHost host = TestHost.enabled(NvmeTargets.create(List.of(), List.of(), NvmeLimits.DEFAULT, clock),
                "nqn.2014-08.org.nvmexpress.discovery");
        assertThat(host.setFeature(FeatureId.KEEP_ALIVE_TIMER, 10_000).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.setFeature(FeatureId.ASYNC_EVENT_CONFIGURATION, 1 << 31).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.getFeature(FeatureId.ASYNC_EVENT_CONFIGURATION, 0, 0).dw0()).isEqualTo(1 << 31);
        assertThat(host.setFeature(FeatureId.NUMBER_OF_QUEUES, 0).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        assertThat(host.getFeature(FeatureId.ARBITRATION, 0, 0).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        host.admin.close();
    }
}
