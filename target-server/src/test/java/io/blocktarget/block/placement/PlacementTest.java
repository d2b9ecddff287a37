package io.blocktarget.block.placement;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The LUN face: handles and streams on one model, their limits, fallbacks, update and statistics. */
class PlacementTest {
    private static final int LBS = 4096;

    private static Placement placement(int handles, int streams) {
        return Placement.create(new PlacementSpec(16L * LBS, handles, streams, 700), LBS, 4096, () -> 0);
    }

    @Test
    void handlesAndStreamsCountSeparatelyAndGroupZeroIsTheDefaultPlacement() {
        Placement p = placement(2, 3);
        p.writeHandle(0, 0, 1);
        p.writeHandle(1, 1, 2);
        assertThat(p.writeGroup(0, 10, 3)).isTrue();
        assertThat(p.writeGroup(1, 20, 4)).isTrue();
        assertThat(p.writeGroup(3, 30, 5)).isTrue();
        PlacementStats s = p.stats();
        assertThat(s.handles()).extracting(WriterStats::hostBytes).containsExactly(4L * LBS, 2L * LBS);
        assertThat(s.streams()).extracting(WriterStats::hostBytes).containsExactly(4L * LBS, 0L, 5L * LBS);
        assertThat(s.stream(3).hostBytes()).isEqualTo(5L * LBS);
        assertThat(s.total().hostBytes()).isEqualTo(15L * LBS);
        assertThat(s.total().writeAmplification()).isEqualTo(1.0);
    }

    @Test
    void limitsAtTheEdgeAndOnePast() {
        Placement p = placement(PlacementSpec.MAX_HANDLES, PlacementSpec.MAX_STREAMS);
        assertThat(p.isHandle(125)).isTrue();
        assertThat(p.isHandle(126)).isFalse();
        assertThat(p.isHandle(-1)).isFalse();
        p.writeHandle(125, 0, 1);
        assertThatThrownBy(() -> p.writeHandle(126, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(p.isStream(63)).isTrue();
        assertThat(p.isStream(0)).isFalse();
        assertThat(p.writeGroup(63, 1, 1)).isTrue();
        assertThatThrownBy(() -> p.writeGroup(64, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        PlacementStats s = p.stats();
        assertThat(s.handles()).hasSize(126);
        assertThat(s.streams()).hasSize(63);
        assertThat(s.handles().get(125).hostBytes()).isEqualTo(LBS);
        assertThat(s.stream(63).hostBytes()).isEqualTo(LBS);
    }

    @Test
    void aGroupNumberNamingNoStreamFallsBackToTheDefaultPlacement() {
        Placement p = placement(2, 3);
        assertThat(p.writeGroup(4, 0, 2)).isFalse();         // streams 1..3: group 4 names none
        assertThat(p.writeGroup(63, 2, 2)).isFalse();
        PlacementStats s = p.stats();
        assertThat(s.handles().get(0).hostBytes()).isEqualTo(4L * LBS);
        assertThat(s.streams()).allMatch(w -> w.hostBytes() == 0);
    }

    @Test
    void updateAndAvailableBlocksPerHandle() {
        Placement p = placement(2, 1);
        assertThat(p.availableBlocks(1)).isEqualTo(16);
        p.writeHandle(1, 100, 5);
        assertThat(p.availableBlocks(1)).isEqualTo(11);
        assertThat(p.availableBlocks(0)).isEqualTo(16);
        assertThat(p.updateHandle(1)).isTrue();
        assertThat(p.availableBlocks(1)).isEqualTo(16);
        assertThat(p.updateHandle(0)).isFalse();
        assertThat(p.stats().handles().get(1).unitsClosedEarly()).isEqualTo(1);
        assertThat(p.events()).singleElement().extracting(PlacementEvent::writer).isEqualTo(1);
        assertThatThrownBy(() -> p.updateHandle(2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> p.availableBlocks(2)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void writersMapBackToHandlesAndStreams() {
        Placement p = placement(2, 3);
        assertThat(p.handleOf(1)).isEqualTo(1);
        assertThat(p.handleOf(2)).isEqualTo(-1);
        assertThat(p.streamOf(2)).isEqualTo(1);
        assertThat(p.streamOf(4)).isEqualTo(3);
        assertThat(p.streamOf(5)).isZero();
        assertThat(p.streamOf(1)).isZero();
    }

    @Test
    void resetStatisticsStartsAMeasurement() {
        Placement p = placement(2, 1);
        p.writeHandle(0, 0, 4096);
        p.resetStatistics();
        assertThat(p.stats().total()).isEqualTo(WriterStats.ZERO);
        p.deallocate(0, 4096);
        p.writeHandle(1, 0, 16);
        assertThat(p.stats().total().hostBytes()).isEqualTo(16L * LBS);
    }

    @Test
    void aConfigurationThatDoesNotFitTheLunIsRefusedAtCreation() {
        assertThatThrownBy(() -> Placement.create(new PlacementSpec(6144, 8, 6, 700), 4096, 1024, () -> 0))
                .hasMessageStartingWith("placement.reclaim-unit-size: 6144 bytes is not a multiple");
    }

    @Test
    void severalThreadsWritingAtOnceLeaveConsistentTablesAndExactTotals() throws Exception {
        Placement p = placement(4, 2);
        int threads = 4;
        int writes = 20_000;
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int handle = t;
            workers.add(Thread.ofPlatform().start(() -> {
                Random random = new Random(handle);
                for (int i = 0; i < writes; i++) {
                    if (handle % 2 == 0) {
                        p.writeHandle(handle, random.nextInt(4096 - 8), 8);
                    } else {
                        p.writeGroup(1 + handle / 2, random.nextInt(4096 - 8), 8);
                    }
                    if (i % 97 == 0) {
                        p.deallocate(random.nextInt(4000), 64);
                    }
                }
            }));
        }
        for (Thread w : workers) {
            w.join();
        }
        p.model().checkInvariants();
        PlacementStats s = p.stats();
        assertThat(s.total().hostBytes()).isEqualTo((long) threads * writes * 8 * LBS);
        assertThat(s.total().mediaBytes()).isEqualTo(s.total().hostBytes() + s.total().movedBytes());
        assertThat(s.handles().get(0).hostBytes()).isEqualTo((long) writes * 8 * LBS);
        assertThat(s.stream(2).hostBytes()).isEqualTo((long) writes * 8 * LBS);
    }

    /** The range the command sets may record: the model's blocks, the last one included, one past it not. */
    @Test
    void coversTheModelsBlocksOnly() {
        Placement p = placement(2, 2);
        assertThat(p.covers(0, 4096)).isTrue();
        assertThat(p.covers(4095, 1)).isTrue();
        assertThat(p.covers(4095, 2)).isFalse();
        assertThat(p.covers(4096, 0)).isTrue();
        assertThat(p.covers(4097, 0)).isFalse();
        assertThat(p.covers(-1, 1)).isFalse();
        assertThat(p.covers(0, Long.MAX_VALUE)).isFalse();
    }

    /**
     * The worked example of docs/placement.md, on the model as the SCSI face drives it: a 64 MiB LUN of 4 KiB blocks,
     * 1 MiB reclaim units, 7 % over-provisioning; two jobs written 1:1 — "hot" random 16 KiB overwrites of an 8 MiB
     * region, "cold" a sequential rewrite of the other 56 MiB — 256 MiB in all after the LUN is filled once. Without
     * hints both reach GROUP NUMBER 0; with fio's write_hint=short / extreme sd sends GROUP NUMBER 2 / 5.
     */
    private static double[] workedExample(int hotGroup, int coldGroup) {
        long blocks = 64L << 20 >> 12;
        Placement p = Placement.create(new PlacementSpec(1L << 20, 8, 6, 700), LBS, blocks, () -> 0);
        long hotBlocks = 8L << 20 >> 12;
        p.writeGroup(coldGroup, 0, blocks);   // the LUN filled once, as mkfs or a first fio pass would
        p.resetStatistics();
        Random random = new Random(42);
        long cold = hotBlocks;
        for (long written = 0; written < 256L << 20; written += 2 * 16384) {
            p.writeGroup(hotGroup, (random.nextLong(hotBlocks / 4)) * 4, 4);
            p.writeGroup(coldGroup, cold, 4);
            cold = cold + 4 >= blocks ? hotBlocks : cold + 4;
        }
        PlacementStats s = p.stats();
        WriterStats hot = hotGroup == 0 ? s.handles().getFirst() : s.stream(hotGroup);   // GROUP NUMBER 0: handle 0
        WriterStats coldStats = coldGroup == 0 ? s.handles().getFirst() : s.stream(coldGroup);
        return new double[] {s.total().writeAmplification(), hot.writeAmplification(),
            coldStats.writeAmplification()};
    }

    @Test
    void workedExampleHintsBringWriteAmplificationBackTowardOne() {
        double[] mixed = workedExample(0, 0);
        double[] hinted = workedExample(2, 5);
        System.out.printf("worked example: without hints WA %.2f; with hints WA %.2f (short %.2f, extreme %.2f)%n",
                mixed[0], hinted[0], hinted[1], hinted[2]);
        // seeded: the figures docs/placement.md quotes (3.80; 1.22 = 1.42 short, 1.03 extreme)
        assertThat(mixed[0]).isCloseTo(3.80, org.assertj.core.data.Offset.offset(0.005));
        assertThat(hinted[0]).isCloseTo(1.22, org.assertj.core.data.Offset.offset(0.005));
        assertThat(hinted[1]).isCloseTo(1.42, org.assertj.core.data.Offset.offset(0.005));
        assertThat(hinted[2]).as("the cold job's units die nearly whole").isCloseTo(1.03,
                org.assertj.core.data.Offset.offset(0.005));
    }
}
