package io.blocktarget.protocol.scsi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;

import static io.blocktarget.protocol.scsi.Bytes.encode;
import static io.blocktarget.protocol.scsi.Bytes.hex;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** READ CAPACITY(10)/(16) data (SBC-4 §5.19.2, §5.20.2) and the LBPPBE computation. */
class ReadCapacityTest {

    @Test
    void readCapacity10() {
        // 1 GiB of 4 KiB blocks: last LBA 262143
        assertThat(encode(new ReadCapacity10Data(262_143, 4096)::encode)).isEqualTo(hex("0003ffff 00001000"));
    }

    @Test
    void readCapacity10Overflow() {
        ReadCapacity10Data exact = new ReadCapacity10Data(0xFFFF_FFFEL, 512);
        assertThat(exact.overflows()).isFalse();
        assertThat(encode(exact::encode)).isEqualTo(hex("fffffffe 00000200"));
        // 2 TiB of 512 B blocks: last LBA FFFFFFFFh no longer fits -> FFFFFFFFh, "use READ CAPACITY(16)"
        ReadCapacity10Data over = new ReadCapacity10Data(0xFFFF_FFFFL, 512);
        assertThat(over.overflows()).isTrue();
        assertThat(encode(over::encode)).isEqualTo(hex("ffffffff 00000200"));
        assertThat(encode(new ReadCapacity10Data(1L << 40, 512)::encode)).isEqualTo(hex("ffffffff 00000200"));
    }

    @Test
    void readCapacity16() {
        ReadCapacity16Data data = new ReadCapacity16Data((1L << 40) - 1, 512, 0, false, 3, true, true, 0);
        assertThat(encode(data::encode)).isEqualTo(hex("""
                000000ffffffffff   # 0-7: RETURNED LOGICAL BLOCK ADDRESS
                00000200           # 8-11: LOGICAL BLOCK LENGTH IN BYTES
                00                 # 12: P_TYPE 0, PROT_EN 0
                03                 # 13: LBPPBE 3 (512 B / 4 KiB)
                c000               # 14-15: LBPME, LBPRZ, LOWEST ALIGNED LBA 0
                00000000000000000000000000000000
                """.replaceAll("#[^\\n]*", "")));
    }

    @Test
    void readCapacity16ProtectionAndAlignment() {
        ReadCapacity16Data data = new ReadCapacity16Data(7, 65536, 2, true, 15, false, false, 0x3FFF);
        byte[] bytes = encode(data::encode);
        assertThat(bytes).hasSize(32);
        assertThat(java.util.Arrays.copyOfRange(bytes, 8, 16)).isEqualTo(hex("00010000 05 0f 3fff"));
        assertThatThrownBy(() -> new ReadCapacity16Data(7, 512, 0, false, 16, false, false, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    static List<Object[]> blockSizePairs() {
        List<Object[]> pairs = new ArrayList<>();
        for (int lbsShift = 9; lbsShift <= 16; lbsShift++) {
            for (int pbsShift = lbsShift; pbsShift <= 25; pbsShift++) {
                pairs.add(new Object[] {1 << lbsShift, 1L << pbsShift, pbsShift - lbsShift});
            }
        }
        return pairs;
    }

    @ParameterizedTest(name = "LBS {0} PBS {1}")
    @MethodSource("blockSizePairs")
    void lbppbeForEveryBlockSizePair(int lbs, long pbs, int log2) {
        ReadCapacity16Data.Exponent exponent = ReadCapacity16Data.lbppbe(lbs, pbs);
        assertThat(exponent.value()).isEqualTo(Math.min(log2, 15));
        assertThat(exponent.capped()).isEqualTo(log2 > 15);
        assertThat(exponent.value()).isBetween(0, 15);
    }

    @Test
    void lbppbeCapsOnlyAt512With32MiB() {
        assertThat(ReadCapacity16Data.lbppbe(512, 32L << 20)).isEqualTo(new ReadCapacity16Data.Exponent(15, true));
        assertThat(ReadCapacity16Data.lbppbe(512, 16L << 20)).isEqualTo(new ReadCapacity16Data.Exponent(15, false));
        assertThat(ReadCapacity16Data.lbppbe(1024, 32L << 20)).isEqualTo(new ReadCapacity16Data.Exponent(15, false));
        assertThat(ReadCapacity16Data.lbppbe(4096, 4096)).isEqualTo(new ReadCapacity16Data.Exponent(0, false));
    }

    @Test
    void lbppbeRejectsNonsense() {
        assertThatThrownBy(() -> ReadCapacity16Data.lbppbe(4096, 512)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ReadCapacity16Data.lbppbe(3000, 4096)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ReadCapacity16Data.lbppbe(512, 6144)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ReadCapacity16Data.lbppbe(0, 512)).isInstanceOf(IllegalArgumentException.class);
    }
}
