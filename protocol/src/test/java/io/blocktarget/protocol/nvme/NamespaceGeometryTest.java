package io.blocktarget.protocol.nvme;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

class NamespaceGeometryTest {
    /**
     * What Linux computes from Identify Namespace (drivers/nvme/host/core.c nvme_update_disk_info and
     * nvme_configure_atomic_write, 6.x/7.x), modelled independently of our encoder from the decoded bytes.
     */
    record LinuxLimits(long logical, long physical, long ioMin, long ioOpt) {
        static LinuxLimits of(byte[] idns, int controllerAwupf) {
            int lbads = idns[130] & 0xFF;                   // LBAF0 LBADS (FLBAS 0)
            long bs = 1L << lbads;
            int nsfeat = idns[24] & 0xFF;
            long nawupf = TestBytes.le(idns, 36, 2);
            long npwg = TestBytes.le(idns, 64, 2);
            long nows = TestBytes.le(idns, 72, 2);
            long atomic = (nsfeat & 0x2) != 0 && nawupf != 0 ? (1 + nawupf) * bs : (1 + controllerAwupf) * bs;
            long phys = bs;
            long ioOpt = 0;
            if ((nsfeat & 0x10) != 0) {
                phys = bs * (1 + npwg);
                if (nows != 0) {
                    ioOpt = bs * (1 + nows);
                }
            }
            return new LinuxLimits(bs, Math.min(phys, atomic), phys, ioOpt);
        }
    }

    /**
     * Without atomic writes nothing claims atomicity (NSFEAT bit 1 clear, NAWUN = NAWUPF = 0), so Linux shows
     * physical_block_size = LBS and carries PBS only as minimum_io_size (and optimal_io_size); until the atomic
     * writes change this test asserted physical = PBS through NAWUPF = PBS/LBS − 1, a promise no backend kept.
     */
    @Test
    void everyLbsAndPbsGivesLinuxThePhysicalBlockSizeAsIoMinWithoutAnAtomicClaim() {
        int checked = 0;
        for (int lbs = 512; lbs <= 64 * 1024; lbs <<= 1) {
            for (int pbs = lbs; pbs <= 32 * 1024 * 1024; pbs <<= 1) {
                NamespaceGeometry g = NamespaceGeometry.of(lbs, pbs);
                byte[] id = TestBytes.encode(IdentifyNamespace.of(1 << 20, g, new byte[16], new byte[8], false)::encode);
                LinuxLimits l = LinuxLimits.of(id, 0);
                assertThat(l.logical()).as("LBS %d PBS %d", lbs, pbs).isEqualTo(lbs);
                assertThat(l.physical()).as("LBS %d PBS %d", lbs, pbs).isEqualTo(lbs);
                assertThat(l.ioMin()).isEqualTo(pbs);
                assertThat(l.ioOpt()).isEqualTo(pbs == lbs ? 0 : pbs);
                assertThat(id[24] & 0x12).isEqualTo(0x10);             // NSFEAT bit 4 only
                assertThat(TestBytes.le(id, 64, 2)).isEqualTo(pbs / lbs - 1); // NPWG 0's based
                assertThat(TestBytes.le(id, 34, 2)).isZero();                 // NAWUN
                assertThat(TestBytes.le(id, 36, 2)).isZero();                 // NAWUPF
                checked++;
            }
        }
        assertThat(checked).isEqualTo(108); // LBS 2^9..2^16, PBS 2^k..2^25: sum of (26 - k) for k = 9..16
    }

    @Test
    void extremesFitSixteenBits() {
        NamespaceGeometry g = NamespaceGeometry.of(512, 32 * 1024 * 1024);
        assertThat(g.npwg()).isEqualTo(0xFFFF);
        assertThat(g.lbads()).isEqualTo(9);
        assertThat(NamespaceGeometry.of(65536, 65536).lbads()).isEqualTo(16);
    }

    @Test
    void controllerAwupfWouldRaiseAnUnitNamespace() {
        // why AWUPF must stay 0: a PBS = LBS namespace has NAWUPF 0 and Linux falls back to the controller value
        byte[] id = TestBytes.encode(IdentifyNamespace.of(8, NamespaceGeometry.of(4096, 4096), new byte[16],
                new byte[8], false)::encode);
        assertThat(LinuxLimits.of(id, 0).physical()).isEqualTo(4096);
        assertThat(LinuxLimits.of(id, 3).physical()).isEqualTo(4096); // NPWG 0 caps it: min(4096, 16384)
        // and a PBS > LBS namespace would show its PBS to a pre-2026 kernel through a controller AWUPF claim
        byte[] big = TestBytes.encode(IdentifyNamespace.of(8, NamespaceGeometry.of(4096, 16384), new byte[16],
                new byte[8], false)::encode);
        assertThat(LinuxLimits.of(big, 3).physical()).isEqualTo(16384);
        assertThat(LinuxLimits.of(big, 0).physical()).isEqualTo(4096);
        assertThat(IdentifyNamespace.get(Unpooled.wrappedBuffer(id)).nawupf()).isZero();
    }

    @Test
    void rejectsIllegalSizes() {
        assertThatThrownBy(() -> NamespaceGeometry.of(256, 4096)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NamespaceGeometry.of(4096, 2048)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NamespaceGeometry.of(131072, 131072)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NamespaceGeometry.of(4096, 64 * 1024 * 1024)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NamespaceGeometry.of(3000, 4096)).isInstanceOf(IllegalArgumentException.class);
    }
}
