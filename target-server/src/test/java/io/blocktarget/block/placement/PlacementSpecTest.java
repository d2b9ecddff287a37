package io.blocktarget.block.placement;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Every limit of the {@code placement:} section at the limit and one past it. */
class PlacementSpecTest {
    private static final long RU = 64L << 20;

    @ParameterizedTest
    @ValueSource(ints = {1, 8, 126})
    void handlesWithinOneTo126(int handles) {
        assertThat(new PlacementSpec(RU, handles, 6, 700).handles()).isEqualTo(handles);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 127, -1})
    void handlesOutsideAreRefusedNamingTheKeyAndTheRange(int handles) {
        assertThatThrownBy(() -> new PlacementSpec(RU, handles, 6, 700))
                .hasMessage("placement.handles: " + handles + "; allowed 1..126");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 6, 63})
    void streamsWithinOneTo63(int streams) {
        assertThat(new PlacementSpec(RU, 8, streams, 700).streams()).isEqualTo(streams);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 64})
    void streamsOutsideAreRefused(int streams) {
        assertThatThrownBy(() -> new PlacementSpec(RU, 8, streams, 700))
                .hasMessage("placement.streams: " + streams + "; allowed 1..63");
    }

    @Test
    void overProvisioningFromZeroToAHundredPercent() {
        assertThat(new PlacementSpec(RU, 8, 6, 0).overProvisioningBasisPoints()).isZero();
        assertThat(new PlacementSpec(RU, 8, 6, 10_000).overProvisioningBasisPoints()).isEqualTo(10_000);
        assertThatThrownBy(() -> new PlacementSpec(RU, 8, 6, 10_001))
                .hasMessage("placement.over-provisioning: 100.01%; allowed 0%..100%");
        assertThatThrownBy(() -> new PlacementSpec(RU, 8, 6, -1))
                .hasMessageStartingWith("placement.over-provisioning: -0.01%");
    }

    @Test
    void reclaimUnitMustBeAPositiveMultipleOfTheLogicalBlockSize() {
        assertThatThrownBy(() -> new PlacementSpec(0, 8, 6, 700))
                .hasMessageStartingWith("placement.reclaim-unit-size: 0");
        PlacementSpec fourK = new PlacementSpec(4096, 8, 6, 700);
        assertThat(fourK.checkBlockSize(4096)).isEmpty();     // one block: the smallest reclaim unit
        assertThat(fourK.checkBlockSize(512)).isEmpty();
        assertThat(fourK.checkBlockSize(16384)).contains("placement.reclaim-unit-size: 4096 bytes is not a multiple"
                + " of the logical block size 16384; allowed: a positive multiple of 16384");
        PlacementSpec odd = new PlacementSpec(4096 + 512, 8, 6, 700);
        assertThat(odd.checkBlockSize(512)).isEmpty();
        assertThat(odd.checkBlockSize(4096)).isPresent();
        assertThatThrownBy(() -> PlacementGeometry.of(odd, 4096, 1 << 20))
                .hasMessageStartingWith("placement.reclaim-unit-size: 4608 bytes is not a multiple");
    }

    @Test
    void defaultsAreTheIssuesAndWritersAreHandlesPlusStreams() {
        assertThat(PlacementSpec.DEFAULTS).isEqualTo(new PlacementSpec(64L << 20, 8, 6, 700));
        assertThat(PlacementSpec.DEFAULTS.writers()).isEqualTo(14);
    }
}
