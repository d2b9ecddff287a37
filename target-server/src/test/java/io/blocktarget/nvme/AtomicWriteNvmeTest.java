package io.blocktarget.nvme;

import io.blocktarget.block.AtomicWrites;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.protocol.nvme.NvmOpcode;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Atomic writes over NVMe (NVM Command Set §2.1.4, §4.1.5.1): NSFEAT bit 1 with NAWUN / NAWUPF / NABSN / NABSPF
 * (NABO 0, NACWU 0) per namespace, controller AWUN / AWUPF no larger than any namespace's, and writes within the
 * unit and not across a boundary applied under the exclusive range lock.
 */
class AtomicWriteNvmeTest {
    private static final String NQN = "nqn.2026-11.io.blocktarget:atomic";
    private final ManualClock clock = new ManualClock();
    private final MemoryBudget budget = new MemoryBudget(1L << 30);

    private NamespaceSpec spec(long nsid, String name, int lbs, Optional<AtomicWrites> atomic) {
        RamBlockDevice device = new RamBlockDevice(name, new BlockGeometry(lbs, lbs, 1024), false, budget);
        return new NamespaceSpec(NQN, nsid, name, device, new LunState(name, null, atomic));
    }

    private TestHost host(List<NamespaceSpec> specs) {
        return TestHost.enabled(NvmeTargets.create(specs, List.of(), NvmeLimits.DEFAULT, clock), NQN);
    }

    /** Every logical block size; max and boundary at their largest 0's-based values and just one block. */
    @ParameterizedTest
    @CsvSource({"512,2048,0", "512,2048,65536", "4096,256,512", "4096,1,0", "16384,64,64", "65536,16,65536",
            "65536,1,1"})
    void identifyNamespaceFields(int lbs, long maxBlocks, long boundaryBlocks) {
        TestHost host = host(List.of(spec(1, "a", lbs, Optional.of(new AtomicWrites(maxBlocks, boundaryBlocks, 1, 1)))));
        ByteBuf ns = host.identifyData(0x00, 1);
        assertThat(ns.getUnsignedByte(24)).isEqualTo((short) (1 << 1 | 1 << 4)); // NSFEAT: NSABP, OPTPERF
        assertThat(ns.getUnsignedShortLE(34)).isEqualTo((int) maxBlocks - 1);    // NAWUN
        assertThat(ns.getUnsignedShortLE(36)).isEqualTo((int) maxBlocks - 1);    // NAWUPF
        assertThat(ns.getUnsignedShortLE(38)).isEqualTo((int) maxBlocks - 1);    // NACWU = NAWUN (fused C&W)
        int nabsn = boundaryBlocks == 0 ? 0 : (int) boundaryBlocks - 1;
        assertThat(ns.getUnsignedShortLE(40)).isEqualTo(nabsn);                  // NABSN
        assertThat(ns.getUnsignedShortLE(42)).isZero();                          // NABO
        assertThat(ns.getUnsignedShortLE(44)).isEqualTo(nabsn);                  // NABSPF
        ns.release();
        ByteBuf id = host.identifyData(0x01, 0);
        assertThat(id.getUnsignedShortLE(526)).isEqualTo((int) maxBlocks - 1);   // AWUN
        assertThat(id.getUnsignedShortLE(528)).isEqualTo((int) maxBlocks - 1);   // AWUPF
        assertThat(id.getUnsignedShortLE(532)).isEqualTo((int) maxBlocks - 1);   // ACWU
        id.release();
        host.admin.close();
    }

    /**
     * What Linux makes of Identify Namespace (drivers/nvme/host/core.c nvme_configure_atomic_write and
     * nvme_update_disk_info, 2026), modelled from the bytes: {unit_min, unit_max, boundary, max, physical_block_size,
     * minimum_io_size}. The controller's AWUPF is ignored; without NSFEAT bit 1 and NAWUPF one logical block.
     */
    static long[] linuxNvme(ByteBuf id) {
        long bs = 1L << id.getUnsignedByte(128 + 2);
        int nsfeat = id.getUnsignedByte(24);
        if (id.getUnsignedShortLE(42) != 0) {                       // NABO: atomics off
            return new long[] {0, 0, 0, 0, bs, bs};
        }
        long atomic = bs;
        long boundary = 0;
        if ((nsfeat & 0x2) != 0 && id.getUnsignedShortLE(36) != 0) {
            atomic = (1L + id.getUnsignedShortLE(36)) * bs;
            if (id.getUnsignedShortLE(44) != 0) {
                boundary = (1L + id.getUnsignedShortLE(44)) * bs;
            }
        }
        long phys = (nsfeat & 0x10) != 0 ? bs * (1 + id.getUnsignedShortLE(64)) : bs;
        return new long[] {bs, Long.highestOneBit(atomic), boundary, atomic, Math.min(phys, atomic), phys};
    }

    /** The sysfs values LinuxAtomicIT expects over NVMe, from the model. */
    @ParameterizedTest
    @CsvSource({"4096,16384", "16384,65536", "512,4096", "65536,65536"})
    void linuxWouldShowTheConfiguredLimits(int lbs, int pbs) {
        RamBlockDevice device = new RamBlockDevice("m", new BlockGeometry(lbs, pbs, 1024), false, budget);
        NamespaceSpec atomic = new NamespaceSpec(NQN, 1, "m", device,
                new LunState("m", null, Optional.of(new AtomicWrites(16, 16, 1, 1))));
        NamespaceSpec plain = new NamespaceSpec(NQN, 2, "p", device, new LunState("p"));
        TestHost host = host(List.of(atomic, plain));
        ByteBuf a = host.identifyData(0x00, 1);
        assertThat(linuxNvme(a)).containsExactly(lbs, 16L * lbs, 16L * lbs, 16L * lbs, Math.min(pbs, 16L * lbs), pbs);
        a.release();
        ByteBuf p = host.identifyData(0x00, 2);
        // without atomic: the RAM disk's own unit, the physical block (PhysicalBlockNvmeTest)
        assertThat(linuxNvme(p)).containsExactly(lbs, pbs, pbs == lbs ? 0 : pbs, pbs, pbs, pbs);
        p.release();
        host.admin.close();
        device.close();
    }

    @Test
    void controllerValuesAreTheSmallestOfItsNamespaces() {
        TestHost host = host(List.of(spec(1, "a", 4096, Optional.of(new AtomicWrites(16, 0, 1, 1))),
                spec(2, "b", 4096, Optional.of(new AtomicWrites(4, 0, 1, 1)))));
        ByteBuf id = host.identifyData(0x01, 0);
        assertThat(id.getUnsignedShortLE(526)).isEqualTo(3);                     // AWUN <= NAWUN of each
        assertThat(id.getUnsignedShortLE(528)).isEqualTo(3);
        id.release();
        host.admin.close();
        TestHost mixed = host(List.of(spec(1, "a", 4096, Optional.of(new AtomicWrites(16, 0, 1, 1))),
                spec(2, "b", 4096, Optional.empty())));
        id = mixed.identifyData(0x01, 0);
        assertThat(id.getUnsignedShortLE(526)).isZero();                         // one namespace has none
        assertThat(id.getUnsignedShortLE(528)).isZero();
        id.release();
        ByteBuf plain = mixed.identifyData(0x00, 2);
        assertThat(plain.getUnsignedByte(24) & 0x2).isZero();                    // no NSABP: LBS = PBS, one block
        plain.release();
        mixed.admin.close();
    }

    /**
     * A held fast-path write lease (a write in flight elsewhere, e.g. over iSCSI) holds up an atomic write, which
     * takes the range exclusively, and not a plain write: the limit (NAWUN + 1 blocks) and the boundary decide.
     */
    @Test
    void writesWithinTheUnitTakeTheRangeExclusively() throws Exception {
        NamespaceSpec spec = spec(1, "a", 4096, Optional.of(new AtomicWrites(8, 16, 1, 1)));
        TestHost host = host(List.of(spec));
        NvmeQueue io = host.connectIo(1);
        assertThat(spec.state().rangeLocks().tryAcquireFast()).isTrue();
        // an exclusive grant waits for every fast-path holder; the RAM granule (one 64 KiB chunk = 16 blocks) rounds
        // the atomic writes' locks out to [0, 16) and [48, 64), so plain writes elsewhere are not queued behind them
        CompletableFuture<NvmeStatus> atLimit = submit(io, host, 8, 8);          // 8 blocks at LBA 8: atomic
        CompletableFuture<NvmeStatus> within = submit(io, host, 56, 8);          // 56..63: atomic, up to 64
        assertThat(submit(io, host, 32, 9).get(10, TimeUnit.SECONDS)).isEqualTo(NvmeStatus.SUCCESS); // limit + 1
        assertThat(submit(io, host, 28, 8).get(10, TimeUnit.SECONDS)).isEqualTo(NvmeStatus.SUCCESS); // crosses 32
        assertThat(atLimit).isNotDone();
        assertThat(within).isNotDone();
        spec.state().rangeLocks().releaseFast();
        assertThat(atLimit.get(10, TimeUnit.SECONDS)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(within.get(10, TimeUnit.SECONDS)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.read(io, 1, 8, 8, 4096).bytes()).isEqualTo(pattern(8 * 4096));
        assertThat(spec.state().rangeLocks().heldCount()).isZero();
        host.disconnect(io);
        host.admin.close();
    }

    private static byte[] pattern(int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (i * 7 + 1);
        }
        return b;
    }

    private static CompletableFuture<NvmeStatus> submit(NvmeQueue queue, TestHost host, long slba, int blocks) {
        CompletableFuture<NvmeStatus> done = new CompletableFuture<>();
        ByteBuf data = Unpooled.wrappedBuffer(pattern(blocks * 4096));
        queue.submit(TestHost.rw(NvmOpcode.WRITE, host.nextCid(), 1, slba, blocks, 4096, false), data,
                (status, dw0, dw1, reply) -> {
                    data.release();
                    done.complete(status);
                });
        return done;
    }
}
