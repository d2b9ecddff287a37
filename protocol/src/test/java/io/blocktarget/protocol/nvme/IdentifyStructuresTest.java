package io.blocktarget.protocol.nvme;

import static io.blocktarget.protocol.nvme.TestBytes.putLe;
import static io.blocktarget.protocol.nvme.TestBytes.putText;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

class IdentifyStructuresTest {
    static final String SUBNQN = "nqn.2026-11.io.blocktarget:ram-4k";

    static IdentifyController controller() {
        return new IdentifyController(0x1B36, 0x1AF4, "0123456789abcdef", "blocktarget", "0.1.0", 6, 0x123456, 0x1,
                5, 1, 0x0002_0000, IdentifyController.OAES_NAMESPACE_ATTRIBUTE, IdentifyController.CTRATT_HOST_ID_128,
                IdentifyController.CNTRLTYPE_IO, 0, 3, 3, 0x3, IdentifyController.LPA_COMMANDS_EFFECTS
                | IdentifyController.LPA_EXTENDED_DATA, 63, 0, 100, IdentifyController.SQES_64,
                IdentifyController.CQES_16, 128, 4, IdentifyController.ONCS_COMPARE | IdentifyController.ONCS_DSM
                | IdentifyController.ONCS_WRITE_ZEROES, 0, 0, IdentifyController.VWC_PRESENT
                | IdentifyController.VWC_FLUSH_BROADCAST, 0, 0, IdentifyController.SGLS_SUPPORTED
                | IdentifyController.SGLS_OFFSET, SUBNQN, 1028, 1, 0, 0, 1, 0);
    }

    @Test
    void identifyControllerAtSpecOffsets() {
        byte[] e = new byte[4096];
        putLe(e, 0, 0x1B36, 2);                       // 0 VID
        putLe(e, 2, 0x1AF4, 2);                       // 2 SSVID
        putText(e, 4, "0123456789abcdef", 20, ' ');   // 4..23 SN, ASCII space padded
        putText(e, 24, "blocktarget", 40, ' ');       // 24..63 MN
        putText(e, 64, "0.1.0", 8, ' ');              // 64..71 FR
        e[72] = 6;                                    // 72 RAB
        putLe(e, 73, 0x123456, 3);                    // 73..75 IEEE OUI
        e[76] = 1;                                    // 76 CMIC
        e[77] = 5;                                    // 77 MDTS: 2^5 × 4 KiB = 128 KiB
        putLe(e, 78, 1, 2);                           // 78 CNTLID
        putLe(e, 80, 0x0002_0000, 4);                 // 80 VER 2.0
        putLe(e, 92, 1 << 8, 4);                      // 92 OAES: namespace attribute notices
        putLe(e, 96, 1, 4);                           // 96 CTRATT: 128-bit host ID
        e[111] = 1;                                   // 111 CNTRLTYPE I/O
        e[258] = 3;                                   // 258 ACL
        e[259] = 3;                                   // 259 AERL
        e[260] = 3;                                   // 260 FRMW
        e[261] = 0x6;                                 // 261 LPA: CSE log + extended data
        e[262] = 63;                                  // 262 ELPE
        putLe(e, 320, 100, 2);                        // 320 KAS: 100 × 100 ms
        e[512] = 0x66;                                // 512 SQES
        e[513] = 0x44;                                // 513 CQES
        putLe(e, 514, 128, 2);                        // 514 MAXCMD
        putLe(e, 516, 4, 4);                          // 516 NN
        putLe(e, 520, 0b1101, 2);                     // 520 ONCS: Compare, DSM, Write Zeroes
        e[525] = 0x7;                                 // 525 VWC present, flush broadcast
        putLe(e, 536, (1 << 20) | 1, 4);              // 536 SGLS
        byte[] nqn = SUBNQN.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(nqn, 0, e, 768, nqn.length); // 768..1023 SUBNQN, NUL padded
        putLe(e, 1792, 1028, 4);                      // 1792 IOCCSZ (16-byte units: 64 + 16 KiB)
        putLe(e, 1796, 1, 4);                         // 1796 IORCSZ
        putLe(e, 1800, 0, 2);                         // 1800 ICDOFF
        e[1803] = 1;                                  // 1803 MSDBD
        IdentifyController c = controller();
        assertThat(TestBytes.encode(c::encode)).isEqualTo(e).hasSize(IdentifyController.SIZE);
        assertThat(IdentifyController.get(Unpooled.wrappedBuffer(e))).isEqualTo(c);
    }

    @Test
    void mdtsIsLog2OfPages() {
        assertThat(IdentifyController.mdtsFor(128 * 1024, 4096)).isEqualTo(5);
        assertThat(IdentifyController.mdtsFor(1 << 20, 4096)).isEqualTo(8);
        assertThat(IdentifyController.mdtsFor(4096, 4096)).isZero();
        assertThat(IdentifyController.mdtsFor(100_000, 4096)).isEqualTo(4); // rounds down
    }

    @Test
    void identifyNamespaceAtSpecOffsets() {
        byte[] nguid = TestBytes.hex("00112233445566778899aabbccddeeff");
        byte[] eui = TestBytes.hex("0102030405060708");
        IdentifyNamespace ns = IdentifyNamespace.of(262144, NamespaceGeometry.of(4096, 16384), nguid, eui, false);
        byte[] e = new byte[4096];
        putLe(e, 0, 262144, 8);      // 0 NSZE
        putLe(e, 8, 262144, 8);      // 8 NCAP
        putLe(e, 16, 262144, 8);     // 16 NUSE
        e[24] = 0x10;                // 24 NSFEAT: bit 4 OPTPERF (bit 1 NSABP only with atomic writes)
        e[25] = 0;                   // 25 NLBAF: 1 format (0's based)
        e[26] = 0;                   // 26 FLBAS: format 0
        e[33] = 0x9;                 // 33 DLFEAT: read zeroes, DEAC in Write Zeroes
        // 34 NAWUN, 36 NAWUPF: 0 — the geometry claims no atomicity beyond one block
        putLe(e, 64, 3, 2);          // 64 NPWG
        putLe(e, 66, 3, 2);          // 66 NPWA
        putLe(e, 68, 3, 2);          // 68 NPDG
        putLe(e, 70, 3, 2);          // 70 NPDA
        putLe(e, 72, 3, 2);          // 72 NOWS
        System.arraycopy(nguid, 0, e, 104, 16); // 104 NGUID
        System.arraycopy(eui, 0, e, 120, 8);    // 120 EUI64
        e[130] = 12;                 // 128 LBAF0: MS 0 (128..129), LBADS 12 (130), RP 0 (131)
        assertThat(TestBytes.encode(ns::encode)).isEqualTo(e).hasSize(IdentifyNamespace.SIZE);
        IdentifyNamespace back = IdentifyNamespace.get(Unpooled.wrappedBuffer(e));
        assertThat(back).isEqualTo(ns);
        assertThat(back.lbs()).isEqualTo(4096);
        IdentifyNamespace ro = IdentifyNamespace.of(8, NamespaceGeometry.of(512, 512), nguid, eui, true);
        assertThat(TestBytes.encode(ro::encode)[99]).isEqualTo((byte) 1); // 99 NSATTR write protected
    }

    @Test
    void nvmIdentifyController() {
        byte[] e = new byte[4096];
        e[1] = 5;                 // 1 WZSL
        e[3] = 1;                 // 3 DMRL
        putLe(e, 4, 0x100000, 4); // 4 DMRSL
        NvmIdentifyController c = new NvmIdentifyController(0, 5, 0, 1, 0x100000, 0);
        assertThat(TestBytes.encode(c::encode)).isEqualTo(e);
        assertThat(NvmIdentifyController.get(Unpooled.wrappedBuffer(e))).isEqualTo(c);
    }

    @Test
    void activeNamespaceList() {
        byte[] e = new byte[4096];
        putLe(e, 0, 2, 4);
        putLe(e, 4, 7, 4);
        assertThat(TestBytes.encode(b -> NamespaceLists.encodeActiveNamespaces(b, List.of(7, 1, 2), 1))).isEqualTo(e);
        assertThat(TestBytes.encode(b -> NamespaceLists.encodeActiveNamespaces(b, List.of(7, 1, 2), 0xFFFF_FFFE)))
                .isEqualTo(new byte[4096]);
        List<Integer> many = java.util.stream.IntStream.rangeClosed(1, 2000).boxed().toList();
        byte[] full = TestBytes.encode(b -> NamespaceLists.encodeActiveNamespaces(b, many, 0));
        assertThat(TestBytes.le(full, 4092, 4)).isEqualTo(1024);
    }

    @Test
    void namespaceDescriptors() {
        byte[] nguid = TestBytes.hex("00112233445566778899aabbccddeeff");
        byte[] e = new byte[4096];
        e[0] = 2;                              // NIDT NGUID
        e[1] = 16;                             // NIDL
        System.arraycopy(nguid, 0, e, 4, 16);  // NID at 4
        e[20] = 4;                             // NIDT CSI
        e[21] = 1;                             // NIDL 1
        e[24] = 0;                             // CSI NVM
        assertThat(TestBytes.encode(b -> NamespaceLists.encodeDescriptors(b, List.of(
                NamespaceLists.Descriptor.nguid(nguid), NamespaceLists.Descriptor.csi(0))))).isEqualTo(e);
        assertThatThrownBy(() -> NamespaceLists.Descriptor.uuid(new byte[8])).isInstanceOf(IllegalArgumentException.class);
        assertThat(NamespaceLists.Descriptor.eui64(new byte[8]).nidt()).isEqualTo(1);
    }

    @Test
    void csIndependentNamespaceIsReadyAndNotRotational() {
        byte[] e = new byte[4096];
        e[8] = 1;    // 8 NSATTR write protected
        e[14] = 1;   // 14 NSTAT bit 0: ready
        assertThat(TestBytes.encode(IdentifyNamespaceCsIndependent.ready(true)::encode)).isEqualTo(e);
        assertThat(IdentifyNamespaceCsIndependent.ready(false).nsfeat() & IdentifyNamespaceCsIndependent.NSFEAT_ROTATIONAL)
                .isZero();
    }

    @Test
    void nvmNamespaceLargeGranularityFields() {
        byte[] e = new byte[4096];
        putLe(e, 268, 7, 4);   // 268 NPDGL
        putLe(e, 284, 9, 4);   // 284 NPDAL
        assertThat(TestBytes.encode(new NvmIdentifyNamespace(0, 0, 7, 0, 0, 0, 9)::encode)).isEqualTo(e);
        assertThat(TestBytes.encode(NvmIdentifyNamespace.PLAIN::encode)).isEqualTo(new byte[4096]);
    }
}
