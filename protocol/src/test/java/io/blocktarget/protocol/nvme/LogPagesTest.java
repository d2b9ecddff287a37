package io.blocktarget.protocol.nvme;

import static io.blocktarget.protocol.nvme.TestBytes.putLe;
import static io.blocktarget.protocol.nvme.TestBytes.putText;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

class LogPagesTest {
    static final String NQN = "nqn.2026-11.io.blocktarget:ram-4k";

    @Test
    void errorEntry() {
        byte[] e = new byte[64];
        putLe(e, 0, 5, 8);              // 0 Error Count
        putLe(e, 8, 1, 2);              // 8 SQID
        putLe(e, 10, 0x22, 2);          // 10 CID
        putLe(e, 12, 0x8100, 2);        // 12 status: LBA out of range with DNR, phase 0
        putLe(e, 14, 0xFFFF, 2);        // 14 parameter error location: not specific
        putLe(e, 16, 0x1000, 8);        // 16 LBA
        putLe(e, 24, 1, 4);             // 24 NSID
        e[29] = 3;                      // 29 TRTYPE TCP
        LogPages.ErrorEntry entry = new LogPages.ErrorEntry(5, 1, 0x22, NvmeStatus.LBA_OUT_OF_RANGE.toCqeStatus(),
                0xFFFF, 0x1000, 1, 3, 0, 0);
        assertThat(TestBytes.encode(entry::encode)).isEqualTo(e).hasSize(LogPages.ERROR_ENTRY_SIZE);
    }

    @Test
    void smart() {
        byte[] e = new byte[512];
        putLe(e, 1, 300, 2);     // 1 composite temperature, Kelvin
        e[3] = 100;              // 3 available spare
        e[4] = 10;               // 4 threshold
        putLe(e, 32, 3, 8);      // 32 data units read (128-bit, low half)
        putLe(e, 48, 4, 8);      // 48 data units written
        putLe(e, 64, 7, 8);      // 64 host read commands
        putLe(e, 80, 8, 8);      // 80 host write commands
        putLe(e, 112, 1, 8);     // 112 power cycles
        putLe(e, 128, 2, 8);     // 128 power on hours
        putLe(e, 160, 9, 8);     // 160 media errors
        LogPages.Smart s = new LogPages.Smart(0, 300, 100, 10, 0, 3, 4, 7, 8, 1, 2, 0, 9, 0);
        assertThat(TestBytes.encode(s::encode)).isEqualTo(e).hasSize(LogPages.SMART_SIZE);
        assertThat(LogPages.Smart.dataUnits(0)).isZero();
        assertThat(LogPages.Smart.dataUnits(512)).isEqualTo(1);
        assertThat(LogPages.Smart.dataUnits(512_000)).isEqualTo(1);
        assertThat(LogPages.Smart.dataUnits(512_001)).isEqualTo(2);
    }

    @Test
    void firmwareSlotsChangedNamespacesAndEffects() {
        byte[] fw = new byte[512];
        fw[0] = 1;                          // AFI: slot 1 active
        putText(fw, 8, "0.1.0", 8, ' ');    // FRS1
        assertThat(TestBytes.encode(b -> LogPages.encodeFirmwareSlots(b, 1, List.of("0.1.0")))).isEqualTo(fw);

        byte[] ch = new byte[4096];
        putLe(ch, 0, 3, 4);
        putLe(ch, 4, 9, 4);
        assertThat(TestBytes.encode(b -> LogPages.encodeChangedNamespaces(b, List.of(3, 9)))).isEqualTo(ch);
        byte[] overflow = new byte[4096];
        putLe(overflow, 0, 0xFFFF_FFFFL, 4);
        List<Integer> many = java.util.stream.IntStream.rangeClosed(1, 1025).boxed().toList();
        assertThat(TestBytes.encode(b -> LogPages.encodeChangedNamespaces(b, many))).isEqualTo(overflow);

        int[] admin = new int[256];
        int[] io = new int[256];
        admin[0x06] = LogPages.EFFECT_CSUPP;
        io[0x01] = LogPages.EFFECT_CSUPP | LogPages.EFFECT_LBCC;
        byte[] eff = new byte[4096];
        putLe(eff, 4 * 0x06, 1, 4);          // ACS6 Identify
        putLe(eff, 1024 + 4 * 0x01, 3, 4);   // IOCS1 Write: CSUPP + LBCC
        assertThat(TestBytes.encode(b -> LogPages.encodeCommandEffects(b, admin, io))).isEqualTo(eff);
    }

    static byte[] discoveryBytes() {
        byte[] e = new byte[1024 + 2 * 1024];
        putLe(e, 0, 42, 8);             // 0 GENCTR
        putLe(e, 8, 2, 8);              // 8 NUMREC
        putLe(e, 16, 0, 2);             // 16 RECFMT
        int p = 1024;                   // entry 0: the NVM subsystem
        e[p] = 3;                       // TRTYPE TCP
        e[p + 1] = 1;                   // ADRFAM IPv4
        e[p + 2] = 2;                   // SUBTYPE NVM subsystem
        e[p + 3] = 4;                   // TREQ: not specified, SQ flow control disable allowed
        putLe(e, p + 4, 1, 2);          // PORTID
        putLe(e, p + 6, 0xFFFF, 2);     // CNTLID dynamic
        putLe(e, p + 8, 32, 2);         // ASQSZ
        putText(e, p + 32, "4420", 32, ' ');      // TRSVCID
        byte[] nqn = NQN.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(nqn, 0, e, p + 256, nqn.length); // SUBNQN
        putText(e, p + 512, "10.0.0.1", 256, ' ');        // TRADDR
        e[p + 768] = 0;                                    // TSAS SECTYPE none
        p = 2048;                       // entry 1: the current discovery subsystem
        e[p] = 3;
        e[p + 1] = 1;
        e[p + 2] = 3;
        e[p + 3] = 4;
        putLe(e, p + 4, 1, 2);
        putLe(e, p + 6, 0xFFFF, 2);
        putLe(e, p + 8, 32, 2);
        putText(e, p + 32, "8009", 32, ' ');
        byte[] disc = DiscoveryLog.DISCOVERY_NQN.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(disc, 0, e, p + 256, disc.length);
        putText(e, p + 512, "10.0.0.1", 256, ' ');
        return e;
    }

    static DiscoveryLog discoveryLog() {
        return new DiscoveryLog(42, List.of(
                DiscoveryLog.Entry.tcp(DiscoveryLog.Entry.SUBTYPE_NVME, DiscoveryLog.Entry.ADRFAM_IPV4, 1, "10.0.0.1",
                        4420, NQN, 32),
                DiscoveryLog.Entry.tcp(DiscoveryLog.Entry.SUBTYPE_CURRENT_DISCOVERY, DiscoveryLog.Entry.ADRFAM_IPV4, 1,
                        "10.0.0.1", 8009, DiscoveryLog.DISCOVERY_NQN, 32)));
    }

    @Test
    void discoveryLogByteExact() {
        DiscoveryLog log = discoveryLog();
        byte[] expected = discoveryBytes();
        assertThat(TestBytes.encode(log::encode)).isEqualTo(expected);
        assertThat(log.size()).isEqualTo(3072);
        DiscoveryLog.Entry back = DiscoveryLog.Entry.get(Unpooled.wrappedBuffer(expected), 1024);
        assertThat(back).isEqualTo(log.entries().get(0));
    }

    /**
     * TREQ bits 1:0 and TSAS byte 0 (SECTYPE) for TLS: 01b required / 10b not required, SECTYPE 02h = TLS 1.3 (NVMe/TCP
     * Transport, Discovery Log Page Entry TSAS; Linux include/linux/nvme.h NVMF_TREQ_*, NVMF_TCP_SECTYPE_TLS13 = 2).
     */
    @Test
    void secureChannelBitsAndSectype() {
        for (int[] v : new int[][] {{DiscoveryLog.Entry.TREQ_REQUIRED, 0x05}, {DiscoveryLog.Entry.TREQ_NOT_REQUIRED, 0x06},
                {DiscoveryLog.Entry.TREQ_NOT_SPECIFIED, 0x04}}) {
            int sectype = v[0] == DiscoveryLog.Entry.TREQ_NOT_SPECIFIED ? DiscoveryLog.Entry.SECTYPE_NONE
                    : DiscoveryLog.Entry.SECTYPE_TLS13;
            DiscoveryLog.Entry entry = DiscoveryLog.Entry.tcp(DiscoveryLog.Entry.SUBTYPE_NVME,
                    DiscoveryLog.Entry.ADRFAM_IPV4, 1, "10.0.0.1", 4420, NQN, 32, v[0], sectype);
            byte[] bytes = TestBytes.encode(entry::encode);
            assertThat(bytes).hasSize(1024);
            assertThat(bytes[3]).isEqualTo((byte) v[1]);
            assertThat(bytes[768]).isEqualTo((byte) (sectype == DiscoveryLog.Entry.SECTYPE_NONE ? 0 : 2));
            assertThat(java.util.Arrays.copyOfRange(bytes, 769, 1024)).isEqualTo(new byte[255]);
            assertThat(DiscoveryLog.Entry.get(Unpooled.wrappedBuffer(bytes), 0)).isEqualTo(entry);
        }
    }

    @Test
    void partialReadsAsLinuxDoesThem() {
        ByteBuf page = Unpooled.wrappedBuffer(discoveryBytes());
        byte[] all = discoveryBytes();
        // 1) header only (nvme-cli first reads 1024 bytes), 2) everything, 3) header again
        ByteBuf header = LogPages.slice(page, 0, 1024, UnpooledByteBufAllocator.DEFAULT).orNull();
        assertThat(ByteBufUtil.getBytes(header)).isEqualTo(java.util.Arrays.copyOf(all, 1024));
        header.release();
        ByteBuf second = LogPages.slice(page, 1024, 1024, UnpooledByteBufAllocator.DEFAULT).orNull();
        assertThat(ByteBufUtil.getBytes(second)).isEqualTo(java.util.Arrays.copyOfRange(all, 1024, 2048));
        second.release();
        // past the end: zero filled
        ByteBuf tail = LogPages.slice(page, 2048, 2048, UnpooledByteBufAllocator.DEFAULT).orNull();
        byte[] t = ByteBufUtil.getBytes(tail);
        assertThat(java.util.Arrays.copyOf(t, 1024)).isEqualTo(java.util.Arrays.copyOfRange(all, 2048, 3072));
        assertThat(java.util.Arrays.copyOfRange(t, 1024, 2048)).isEqualTo(new byte[1024]);
        tail.release();
        ByteBuf atEnd = LogPages.slice(page, 3072, 4, UnpooledByteBufAllocator.DEFAULT).orNull();
        assertThat(ByteBufUtil.getBytes(atEnd)).isEqualTo(new byte[4]);
        atEnd.release();
        assertThat(LogPages.slice(page, 3076, 4, UnpooledByteBufAllocator.DEFAULT).status())
                .isEqualTo(NvmeStatus.INVALID_FIELD);
        assertThat(page.readerIndex()).isZero();
        assertThat(page.release()).isTrue();
    }
}
