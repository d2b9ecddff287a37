package io.blocktarget.protocol.iscsi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** RFC 1982 serial number arithmetic with SERIAL_BITS = 32. */
class SerialNumbersTest {
    @ParameterizedTest(name = "{0} < {1}: {2}")
    @CsvSource({
            "0x00000000, 0x00000001, true",
            "0x00000001, 0x00000000, false",
            "0xffffffff, 0x00000000, true",    // wraps
            "0xfffffff0, 0x00000010, true",
            "0x7fffffff, 0x80000000, true",
            "0x00000000, 0x7fffffff, true",    // 2^31 - 1 apart: still ordered
            "0x00000000, 0x80000000, false",   // exactly 2^31 apart: undefined, neither order
            "0x80000000, 0x00000000, false",
            "0x00000005, 0x00000005, false"})
    void lessThan(String s1, String s2, boolean expected) {
        int a = Integer.parseUnsignedInt(s1.substring(2), 16);
        int b = Integer.parseUnsignedInt(s2.substring(2), 16);
        assertThat(SerialNumbers.lessThan(a, b)).isEqualTo(expected);
        if (a != b && (b - a) != Integer.MIN_VALUE) {
            assertThat(SerialNumbers.greaterThan(b, a)).isEqualTo(expected);
            assertThat(SerialNumbers.greaterThan(a, b)).isEqualTo(!expected);
        } else {
            assertThat(SerialNumbers.greaterThan(a, b)).isFalse();
        }
    }

    @Test
    void windowChecksAcrossTheWrap() {
        int low = 0xffff_fff0;
        int high = 0x0000_0010;
        assertThat(SerialNumbers.inWindow(0x0000_0005, low, high)).isTrue();
        assertThat(SerialNumbers.inWindow(low, low, high)).isTrue();
        assertThat(SerialNumbers.inWindow(high, low, high)).isTrue();
        assertThat(SerialNumbers.inWindow(0x0000_0011, low, high)).isFalse();
        assertThat(SerialNumbers.inWindow(0xffff_ffef, low, high)).isFalse();
        assertThat(SerialNumbers.lessOrEqual(3, 3)).isTrue();
        assertThat(SerialNumbers.greaterOrEqual(-1, 0)).isFalse();
        assertThat(SerialNumbers.greaterOrEqual(0, -1)).isTrue();
    }

    @Test
    void commandWindowSize() {
        assertThat(SerialNumbers.windowSize(5, 5)).isEqualTo(1);
        assertThat(SerialNumbers.windowSize(5, 4)).as("MaxCmdSN = ExpCmdSN - 1: closed").isZero();
        assertThat(SerialNumbers.windowSize(5, 3)).isEqualTo(-1);
        assertThat(SerialNumbers.windowSize(0xffff_ffff, 0x0f)).isEqualTo(17);
    }

    @Test
    void additionWrapsAndRefusesNegativeIncrements() {
        assertThat(SerialNumbers.add(0xffff_ffff, 2)).isEqualTo(1);
        assertThat(SerialNumbers.toUnsigned(SerialNumbers.add(0x7fff_ffff, 1))).isEqualTo(0x8000_0000L);
        assertThatThrownBy(() -> SerialNumbers.add(0, -1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(SerialNumbers.toUnsigned(-1)).isEqualTo(4_294_967_295L);
    }
}
