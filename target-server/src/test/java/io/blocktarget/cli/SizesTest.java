package io.blocktarget.cli;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

class SizesTest {
    @ParameterizedTest
    @CsvSource({
        "0, 0 B",
        "512, 512 B",
        "1024, 1 KiB",
        "4096, 4 KiB",
        "65536, 64 KiB",
        "1073741824, 1 GiB",
        "1099511627776, 1 TiB",
        "1536, 1.5 KiB",
        "1610612736, 1.5 GiB",
        "1000, 1000 B",
        "9223372036854775807, 8.0 EiB",
    })
    void formatsBinaryUnits(long bytes, String expected) {
        assertThat(Sizes.format(bytes)).isEqualTo(expected);
    }
}
