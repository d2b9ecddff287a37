package io.blocktarget.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SizesTest {
    private static final String ALLOWED = "; allowed: an integer number of bytes, optionally followed by a unit"
            + " B, KiB, MiB, GiB or TiB (powers of 1024), e.g. 4096, 16KiB or 8 GiB";

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "0            | 0",
            "4096         | 4096",
            "512B         | 512",
            "512 B        | 512",
            "16KiB        | 16384",
            "64 KiB       | 65536",
            "32MiB        | 33554432",
            "8 GiB        | 8589934592",
            "1TiB         | 1099511627776",
            "8388607TiB   | 9223370937343148032",
            "9223372036854775807 | 9223372036854775807",
    })
    void parsesBytesAndBinaryUnits(String text, long bytes) throws InvalidValue {
        assertThat(Sizes.parse(text)).isEqualTo(bytes);
        assertThat(ConfigLoader.parseSize(text)).isEqualTo(bytes);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "10KB      | 10KB: KB is not a unit",
            "1 kib     | 1 kib: kib is not a unit",
            "4 GB      | 4 GB: GB is not a unit",
            "1PiB      | 1PiB: PiB is not a unit",
            "1.5GiB    | 1.5GiB is not a size",
            "-1        | -1 is not a size",
            "GiB       | GiB is not a size",
            "1  GiB    | 1  GiB is not a size",
            "0x1000    | 0x1000 is not a size",
    })
    void rejectsWhatIsNotASize(String text, String what) {
        assertThatThrownBy(() -> Sizes.parse(text)).isInstanceOf(InvalidValue.class).hasMessage(what + ALLOWED);
        assertThatThrownBy(() -> ConfigLoader.parseSize(text))
                .isInstanceOf(IllegalArgumentException.class).hasMessage(what + ALLOWED);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "8388608TiB",
            "9223372036854775808",
            "99999999999999999999999999 GiB",
    })
    void overflowOfALongIsAnError(String text) {
        assertThatThrownBy(() -> Sizes.parse(text)).isInstanceOf(InvalidValue.class)
                .hasMessage(text + " does not fit in 64 bits; allowed: at most 9223372036854775807 bytes (8 EiB - 1)");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "0                   | 0 B",
            "512                 | 512 B",
            "1000                | 1000 B",
            "1024                | 1 KiB",
            "1536                | 1.5 KiB",
            "16384               | 16 KiB",
            "4194304             | 4 MiB",
            "1073741824          | 1 GiB",
            "8374149120          | ~7.8 GiB",
            "1073745920          | ~1.0 GiB",
            "1610612736          | 1.5 GiB",
            "3298534883328       | 3 TiB",
            "4503599627370496    | 4096 TiB",
    })
    void formatsInTheLargestUnitNotExceedingTheValue(long bytes, String text) {
        assertThat(ConfigLoader.formatSize(bytes)).isEqualTo(text);
    }

    @Test
    void formattedExactSizesParseBack() throws InvalidValue {
        for (long bytes : new long[] {512, 4096, 65536, 32L << 20, 1L << 30, 12L << 40}) {
            assertThat(Sizes.parse(Sizes.format(bytes))).isEqualTo(bytes);
        }
    }
}
