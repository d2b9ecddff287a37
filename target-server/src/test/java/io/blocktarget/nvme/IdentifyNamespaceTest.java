package io.blocktarget.nvme;

import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.nil.NullBlockDevice;
import io.blocktarget.nvme.TestSupport.Reply;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Identify Namespace structures (NVM Command Set §4.1.5, Base §5.17.2) read at their byte offsets. */
class IdentifyNamespaceTest {
    private static final String NQN = "nqn.2026-11.io.blocktarget:id";
    private final ManualClock clock = new ManualClock();

    private TestHost host(List<NamespaceSpec> specs) {
        return TestHost.enabled(NvmeTargets.create(specs, List.of(), NvmeLimits.DEFAULT, clock), NQN);
    }

    private static NamespaceSpec nul(long nsid, String name, int lbs, int pbs, long blocks) {
        return new NamespaceSpec(NQN, nsid, name, new NullBlockDevice(name, new BlockGeometry(lbs, pbs, blocks), false));
    }

    @ParameterizedTest
    @CsvSource({"512,512,0", "512,4096,7", "1024,1024,0", "2048,8192,3", "4096,4096,0", "4096,65536,15",
            "8192,8192,0", "16384,16384,0", "16384,65536,3", "32768,32768,0", "65536,65536,0", "65536,33554432,511"})
    void lbaFormatAndPhysicalBlockHints(int lbs, int pbs, int blocksPerPhysicalMinusOne) {
        long blocks = 1L << 20;
        TestHost host = host(List.of(nul(1, "n", lbs, pbs, blocks)));
        ByteBuf ns = host.identifyData(0x00, 1);
        assertThat(ns.getLongLE(0)).isEqualTo(blocks);                       // NSZE
        assertThat(ns.getLongLE(8)).isEqualTo(blocks);                       // NCAP
        // NSFEAT: OPTPERF, and NSABP when the null backend's atomic unit (the physical block) is more than one block
        assertThat((int) ns.getUnsignedByte(24)).isEqualTo(1 << 4 | (blocksPerPhysicalMinusOne == 0 ? 0 : 1 << 1));
        assertThat((int) ns.getUnsignedByte(25)).isZero();                   // NLBAF: one format
        assertThat((int) ns.getUnsignedByte(26)).isZero();                   // FLBAS: format 0
        assertThat((int) ns.getUnsignedByte(30)).isEqualTo(1);               // NMIC: shared
        assertThat(ns.getUnsignedShortLE(34)).isEqualTo(blocksPerPhysicalMinusOne); // NAWUN: the physical block
        assertThat(ns.getUnsignedShortLE(36)).isEqualTo(blocksPerPhysicalMinusOne); // NAWUPF (PhysicalBlockNvmeTest)
        assertThat(ns.getUnsignedShortLE(40)).isEqualTo(blocksPerPhysicalMinusOne); // NABSN
        assertThat(ns.getUnsignedShortLE(44)).isEqualTo(blocksPerPhysicalMinusOne); // NABSPF
        assertThat(ns.getUnsignedShortLE(64)).isEqualTo(blocksPerPhysicalMinusOne); // NPWG
        assertThat(ns.getUnsignedShortLE(72)).isEqualTo(blocksPerPhysicalMinusOne); // NOWS
        assertThat((int) ns.getUnsignedByte(128 + 2)).isEqualTo(Integer.numberOfTrailingZeros(lbs)); // LBADS
        assertThat(ns.getUnsignedShortLE(128)).isZero();                     // MS: no metadata
        ns.release();
        // MDTS (1 MiB) is at least the logical block
        ByteBuf id = host.identifyData(0x01, 0);
        assertThat(4096L << id.getUnsignedByte(77)).isGreaterThanOrEqualTo(lbs);
        id.release();
        host.admin.close();
    }

    @Test
    void identifiersAreStablePerNameAndDistinct() {
        List<NamespaceSpec> specs = List.of(nul(1, "alpha", 512, 512, 64), nul(2, "beta", 512, 512, 64));
        TestHost first = host(specs);
        TestHost second = host(specs);
        byte[] a1 = descriptors(first, 1);
        byte[] a2 = descriptors(second, 1);
        byte[] b = descriptors(first, 2);
        assertThat(a1).isEqualTo(a2);
        assertThat(Arrays.copyOfRange(a1, 16, 32)).isNotEqualTo(Arrays.copyOfRange(b, 16, 32)); // NGUID
        // NGUID / EUI-64 in CNS 00h equal the descriptors
        ByteBuf ns = first.identifyData(0x00, 1);
        assertThat(ByteBufUtil.getBytes(ns, 104, 16)).isEqualTo(Arrays.copyOfRange(a1, 16, 32));
        assertThat(ByteBufUtil.getBytes(ns, 120, 8)).isEqualTo(Arrays.copyOfRange(a1, 4, 12));
        ns.release();
        // UUID: version 5, variant 10b
        assertThat(a1[36 + 6] & 0xF0).isEqualTo(0x50);
        assertThat(a1[36 + 8] & 0xC0).isEqualTo(0x80);
        first.admin.close();
        second.admin.close();
    }

    private static byte[] descriptors(TestHost host, int nsid) {
        Reply r = host.identify(0x03, nsid, 0);
        assertThat(r.status()).isEqualTo(NvmeStatus.SUCCESS);
        return r.bytes();
    }

    @Test
    void activeListInactiveAndInvalidNamespaces() {
        TestHost host = host(List.of(nul(2, "two", 512, 512, 64), nul(7, "seven", 512, 512, 64),
                nul(4, "four", 512, 512, 64)));
        ByteBuf list = host.identifyData(0x02, 0);
        assertThat(new int[] {list.getIntLE(0), list.getIntLE(4), list.getIntLE(8), list.getIntLE(12)})
                .containsExactly(2, 4, 7, 0);
        list.release();
        ByteBuf after = host.identifyData(0x02, 4);
        assertThat(after.getIntLE(0)).isEqualTo(7);
        assertThat(after.getIntLE(4)).isZero();
        after.release();
        assertThat(host.identify(0x02, 0xFFFF_FFFE, 0).status()).isEqualTo(NvmeStatus.INVALID_NAMESPACE_OR_FORMAT);
        // NSIDs 3 and 8..64 are valid (<= NN = 64: at least MNAN, for ANA) but inactive: zero filled structures
        for (int nsid : new int[] {3, 8, 64}) {
            for (int cns : new int[] {0x00, 0x05, 0x08}) {
                Reply r = host.identify(cns, nsid, 0);
                assertThat(r.status()).as("NSID %d CNS %d", nsid, cns).isEqualTo(NvmeStatus.SUCCESS);
                assertThat(r.bytes()).hasSize(4096).containsOnly(0);
            }
        }
        // NSID 0, above NN (65) and broadcast: Invalid Namespace or Format (DNR)
        for (int nsid : new int[] {0, 65, 0xFFFF_FFFF}) {
            Reply r = host.identify(0x00, nsid, 0);
            assertThat(r.status()).isEqualTo(NvmeStatus.INVALID_NAMESPACE_OR_FORMAT);
            assertThat(r.status().dnr()).isTrue();
        }
        assertThat(host.identify(0x03, 3, 0).status()).isEqualTo(NvmeStatus.INVALID_NAMESPACE_OR_FORMAT);
        // a command set we do not have (Key Value, CSI 01h) or not this namespace's (ZNS), CNS values we do not serve
        assertThat(host.identify(0x05, 2, 2).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        assertThat(host.identify(0x05, 2, 1).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        assertThat(host.identify(0x06, 0, 1).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        for (int cns : new int[] {0x04, 0x07, 0x10, 0x12, 0x13}) {
            assertThat(host.identify(cns, 0, 0).status()).as("CNS %x", cns).isEqualTo(NvmeStatus.INVALID_FIELD);
        }
        // the data pointer must hold 4096 bytes
        Reply small = host.admin(new io.blocktarget.protocol.nvme.IdentifyCommand(9, 0, 1, 0, 0, 0, 0,
                io.blocktarget.protocol.nvme.SglDescriptor.transportDataBlock(1024)).toSqe());
        assertThat(small.status()).isEqualTo(NvmeStatus.DATA_SGL_LENGTH_INVALID);
        host.admin.close();
    }

    @Test
    void readOnlyNamespaceIsWriteProtected() {
        TestHost host = host(List.of(new NamespaceSpec(NQN, 1, "ro",
                new NullBlockDevice("ro", new BlockGeometry(512, 512, 64), true))));
        ByteBuf ns = host.identifyData(0x00, 1);
        assertThat((int) ns.getUnsignedByte(99)).isEqualTo(1); // NSATTR write protected
        ns.release();
        ByteBuf indep = host.identifyData(0x08, 1);
        assertThat((int) indep.getUnsignedByte(8)).isEqualTo(1);  // NSATTR
        assertThat((int) indep.getUnsignedByte(1)).isEqualTo(1);  // NMIC shared
        assertThat((int) indep.getUnsignedByte(0)).isEqualTo(1 << 5); // NSFEAT: no volatile write cache
        indep.release();
        host.admin.close();
    }
}
