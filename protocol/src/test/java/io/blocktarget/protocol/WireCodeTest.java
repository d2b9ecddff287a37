package io.blocktarget.protocol;

import io.blocktarget.protocol.nvme.NvmOpcode;
import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class WireCodeTest {
    enum Dense implements WireCode {
        ZERO(0), FIVE(5), ALSO_FIVE(5), TOP(4095);

        private final int code;

        Dense(int code) {
            this.code = code;
        }

        @Override
        public int code() {
            return code;
        }
    }

    /** A code of 4096 or more: looked up by scanning. */
    enum Sparse implements WireCode {
        LOW(1), HIGH(0x10000);

        private final int code;

        Sparse(int code) {
            this.code = code;
        }

        @Override
        public int code() {
            return code;
        }
    }

    @Test
    void findsEveryDeclaredCodeAndNothingElse() {
        assertThat(WireCode.lookup(Dense.class, 0)).contains(Dense.ZERO);
        assertThat(WireCode.lookup(Dense.class, 5)).as("the first declared of two").contains(Dense.FIVE);
        assertThat(WireCode.lookup(Dense.class, 4095)).as("the dense table's last index").contains(Dense.TOP);
        assertThat(WireCode.lookup(Dense.class, 4096)).isEmpty();
        assertThat(WireCode.lookup(Dense.class, 1)).isEmpty();
        assertThat(WireCode.lookup(Dense.class, -1)).isEmpty();
        assertThat(WireCode.lookup(Sparse.class, 0x10000)).contains(Sparse.HIGH);
        assertThat(WireCode.lookup(Sparse.class, 1)).contains(Sparse.LOW);
        assertThat(WireCode.lookup(Sparse.class, 2)).isEmpty();
        assertThat(WireCode.lookup(Sparse.class, -1)).isEmpty();
    }

    @Test
    void denseLookupsHandOutTheSameOptional() {
        Optional<NvmOpcode> first = NvmOpcode.of(0x02);
        assertThat(first).contains(NvmOpcode.READ);
        assertThat(NvmOpcode.of(0x02)).isSameAs(first);
        assertThat(NvmOpcode.of(0x03)).isSameAs(Optional.empty());
        for (NvmOpcode op : NvmOpcode.values()) {
            assertThat(NvmOpcode.of(op.code())).contains(op);
        }
    }
}
