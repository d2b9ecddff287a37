package io.blocktarget.server;

import io.blocktarget.block.AtomicWrites;
import io.blocktarget.config.AccessConfig;
import io.blocktarget.config.AtomicConfig;
import io.blocktarget.config.BackendKind;
import io.blocktarget.config.LunConfig;
import io.blocktarget.config.LunFeatures;
import io.blocktarget.time.ManualClock;
import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code atomic:} in bytes becomes the device state's limits in logical blocks, shared by both command sets. */
class LunAtomicTest {
    private static LunConfig lun(int lbs, LunFeatures features) {
        return new LunConfig("a", null, BackendKind.RAM, 1L << 30, lbs, lbs, Optional.empty(), Optional.empty(),
                false, Optional.empty(), AccessConfig.OPEN, features);
    }

    @Test
    void bytesBecomeLogicalBlocks() {
        LunFeatures features = LunFeatures.NONE.withAtomic(Optional.of(new AtomicConfig(65536, 131072, 8192, 4096)));
        assertThat(Lun.stateFor(lun(4096, features), new ManualClock()).atomicWrites()).contains(new AtomicWrites(16, 32, 2, 1));
        assertThat(Lun.stateFor(lun(16384, LunFeatures.NONE.withAtomic(Optional.of(
                new AtomicConfig(262144, 0, 16384, 16384)))), new ManualClock()).atomicWrites()).contains(new AtomicWrites(16, 0, 1, 1));
        assertThat(Lun.stateFor(lun(4096, LunFeatures.NONE), new ManualClock()).atomicWrites()).isEmpty();
    }
}
