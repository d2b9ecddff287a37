package io.blocktarget.block.placement;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The media model against hand-computed traces and the three write-amplification cases. */
class MediaModelTest {
    private static final int LBS = 4096;

    /** A model of {@code blocks} 4 KiB blocks, reclaim units of {@code ruBlocks}, no over-provisioning beyond the two spare units. */
    private static MediaModel model(long blocks, int ruBlocks, int handles, int streams, int opBasisPoints) {
        PlacementSpec config = new PlacementSpec((long) ruBlocks * LBS, handles, streams, opBasisPoints);
        return new MediaModel(PlacementGeometry.of(config, LBS, blocks), () -> 42);
    }

    private static void write(MediaModel m, int writer, long... lbas) {
        for (long lba : lbas) {
            m.write(writer, lba, 1);
        }
    }

    @Test
    void handComputedTraceReclaimsTheOldestLeastValidUnitAndChargesTheMovesToTheirOwner() {
        // 8 blocks, reclaim unit 2 blocks, 1 handle + 1 stream: base = max(ceil(8/2), 8/2 + 2) = 6 units, physical
        // 6 + 2 × 2 writers = 10; two units stay reserved for the stream, which never writes
        MediaModel m = model(8, 2, 1, 1, 0);
        assertThat(m.geometry().physicalUnits()).isEqualTo(10);
        write(m, 0, 0, 1, 2, 3, 4, 5, 6, 7);                 // u0..u3 = [0,1] [2,3] [4,5] [6,7]
        write(m, 0, 0, 3, 0, 5, 0, 7);                       // u4 [0,3] u5 [0,5] u6 [0,7]: every closed unit 1 valid + 1 stale, except u6
        assertThat(m.stats().unitsReclaimed()).isZero();
        assertThat(m.stats().freeUnits()).isEqualTo(3);      // the stream's two and one spare
        write(m, 0, 0);                                      // u6 -> 1 valid; no spare left: reclaim u0 (moves LBA 1
                                                             // to the handle's reclaim unit u7), then u1 (LBA 2)
        MediaStats s = m.stats();
        assertThat(s.unitsReclaimed()).isEqualTo(2);
        assertThat(s.mediaBytesErased()).isEqualTo(2 * 2 * LBS);
        WriterStats h0 = s.writers().get(0);
        assertThat(h0.hostBytes()).isEqualTo(15L * LBS);
        assertThat(h0.movedBytes()).isEqualTo(2L * LBS);
        assertThat(h0.mediaBytes()).isEqualTo(17L * LBS);
        assertThat(h0.rollovers()).isEqualTo(7);             // u0..u6 filled by the handle; the reclaim unit is not its rollover
        assertThat(h0.writeAmplification()).isEqualTo(17.0 / 15);
        assertThat(s.writers().get(1)).isEqualTo(WriterStats.ZERO);
        assertThat(s.freeUnits()).isEqualTo(3);              // u0 and u1 freed, u1 reopened for the handle, u7 taken
        assertThat(m.availableBlocks(0)).isEqualTo(1);       // the handle's new unit holds LBA 0, one slot left
        assertThat(m.events()).extracting(PlacementEvent::kind, PlacementEvent::lba, PlacementEvent::blocks)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(PlacementEvent.Kind.MEDIA_REALLOCATED, 1L, 1L),
                        org.assertj.core.groups.Tuple.tuple(PlacementEvent.Kind.MEDIA_REALLOCATED, 2L, 1L));
        assertThat(m.events()).allMatch(e -> e.writer() == 0);
        assertThat(m.checkInvariants()).isEqualTo(8);
    }

    @Test
    void sequentialPerHandleStreamsHaveWriteAmplificationExactlyOne() {
        // 2 handles each rewriting its own half sequentially: every reclaim finds a unit its handle has wholly
        // rewritten, so nothing is ever moved
        MediaModel m = model(1024, 16, 2, 1, 0);
        for (int pass = 0; pass < 20; pass++) {
            for (int i = 0; i < 512; i += 8) {
                m.write(0, i, 8);
                m.write(1, 512 + i, 8);
            }
        }
        MediaStats s = m.stats();
        assertThat(s.unitsReclaimed()).as("the medium was recycled many times").isGreaterThan(500);
        assertThat(s.total().movedBytes()).isZero();
        assertThat(s.total().writeAmplification()).isEqualTo(1.0);
        assertThat(s.writers().get(0).writeAmplification()).isEqualTo(1.0);
        assertThat(s.writers().get(1).writeAmplification()).isEqualTo(1.0);
        assertThat(m.checkInvariants()).isEqualTo(1024);
    }

    /**
     * Two lifetimes interleaved: the long-lived blocks 64..1023 are written once, one after every three random
     * overwrites of the short-lived blocks 0..63, then 20000 more short-lived overwrites follow. In one handle every
     * reclaim unit holds a long-lived block among short-lived ones that die: each reclaim copies the long-lived ones.
     */
    private static MediaStats twoLifetimes(boolean separate) {
        MediaModel m = model(1024, 16, 2, 1, 700);
        Random random = new Random(7);
        for (int i = 0; i < 960; i++) {
            m.write(separate ? 1 : 0, 64 + i, 1);
            for (int k = 0; k < 3; k++) {
                m.write(0, random.nextInt(64), 1);
            }
        }
        for (int i = 0; i < 20_000; i++) {
            m.write(0, random.nextInt(64), 1);
        }
        assertThat(m.checkInvariants()).isEqualTo(1024);
        return m.stats();
    }

    @Test
    void twoLifetimesInterleavedInOneHandleAmplifyAndSeparatingThemBringsItBackTowardOne() {
        MediaStats mixed = twoLifetimes(false);
        MediaStats separated = twoLifetimes(true);
        double mixedWa = mixed.total().writeAmplification();
        double separatedWa = separated.total().writeAmplification();
        assertThat(mixed.total().hostBytes()).isEqualTo(separated.total().hostBytes());
        assertThat(mixedWa).isGreaterThan(1.25);
        // the long-lived handle's units stay full and are never chosen; what remains is the short-lived handle's own
        // reclaim of randomly overwritten units, with all the spare to itself
        assertThat(separatedWa).isLessThan(1.1).isLessThan(mixedWa - 0.2);
        assertThat(separated.writers().get(1).movedBytes()).as("long-lived data never moved").isZero();
        assertThat(mixed.total().movedBytes()).isGreaterThan(3 * separated.total().movedBytes());
    }

    @Test
    void aFilledUnitIsARolloverNotOverhead() {
        MediaModel m = model(64, 8, 1, 1, 0);
        m.write(0, 0, 8);
        MediaStats s = m.stats();
        assertThat(s.writers().get(0).rollovers()).isEqualTo(1);
        assertThat(s.writers().get(0).mediaBytes()).isEqualTo(8L * LBS);
        assertThat(m.availableBlocks(0)).isEqualTo(8);       // no unit open: the next write opens a whole one
    }

    @Test
    void closingAUnitEarlyLeavesItsRestForReclaimAndReportsIt() {
        MediaModel m = model(64, 8, 2, 1, 0);
        m.write(1, 10, 3);
        assertThat(m.availableBlocks(1)).isEqualTo(5);
        assertThat(m.closeUnit(1)).isTrue();
        assertThat(m.closeUnit(1)).as("nothing open any more").isFalse();
        assertThat(m.closeUnit(0)).as("a handle that never wrote has no unit").isFalse();
        assertThat(m.availableBlocks(1)).isEqualTo(8);
        MediaStats s = m.stats();
        assertThat(s.writers().get(1).unitsClosedEarly()).isEqualTo(1);
        assertThat(s.writers().get(1).rollovers()).isZero();
        assertThat(s.writers().get(1).mediaBytes()).as("the unwritten rest is not media written")
                .isEqualTo(3L * LBS);
        List<PlacementEvent> events = m.events();
        assertThat(events).singleElement().satisfies(e -> {
            assertThat(e.kind()).isEqualTo(PlacementEvent.Kind.UNIT_NOT_FULLY_WRITTEN);
            assertThat(e.writer()).isEqualTo(1);
            assertThat(e.blocks()).isEqualTo(5);
            assertThat(e.timestampMillis()).isEqualTo(42);
        });
        m.write(1, 13, 1);                                   // a new unit
        assertThat(m.availableBlocks(1)).isEqualTo(7);
        m.checkInvariants();
    }

    @Test
    void deallocatedBlocksAreNotMovedByReclaim() {
        // the same trace as the hand-computed one, but LBAs 1 and 2 are unmapped before the reclaim
        MediaModel m = model(8, 2, 1, 1, 0);
        write(m, 0, 0, 1, 2, 3, 4, 5, 6, 7);
        write(m, 0, 0, 3, 0, 5, 0, 7);
        m.deallocate(1, 2);
        write(m, 0, 0);
        MediaStats s = m.stats();
        assertThat(s.total().movedBytes()).isZero();
        assertThat(s.total().writeAmplification()).isEqualTo(1.0);
        assertThat(s.unitsReclaimed()).isEqualTo(1);         // u0, empty since the deallocate, was enough
        assertThat(m.checkInvariants()).isEqualTo(6);
    }

    @Test
    void deallocateCoversOnlyWholeMappingUnits() {
        // a table bound this small forces 4-block mapping units on a 64-block LUN
        MediaModel m = coarse();
        assertThat(m.geometry().mappingUnitBlocks()).isEqualTo(4);
        m.write(0, 0, 16);
        m.deallocate(1, 10);                                 // covers unit 1 (4..7) wholly, not unit 2 (8..11)
        assertThat(m.checkInvariants()).isEqualTo(3);
        m.deallocate(1, 11);                                 // now unit 2 too
        assertThat(m.checkInvariants()).isEqualTo(2);
        m.deallocate(60, 4);
        m.deallocate(0, 64);
        assertThat(m.checkInvariants()).isZero();
    }

    /** 64 blocks of 4 KiB, reclaim unit 16 blocks, tables bounded so that 4-block mapping units are the finest fit. */
    private static MediaModel coarse() {
        PlacementSpec config = new PlacementSpec(16L * LBS, 1, 1, 0);
        long fineBytes = PlacementGeometry.of(config, LBS, 64).tableBytes();
        PlacementGeometry g = null;
        for (long bound = fineBytes - 1; g == null || g.mappingUnitBlocks() < 4; bound -= 8) {
            g = PlacementGeometry.of(config, LBS, 64, bound);
        }
        return new MediaModel(g, () -> 0);
    }

    @Test
    void aCoarseMappingUnitReadModifyWritesPartialWritesButMergesSequentialOnes() {
        MediaModel m = coarse();
        m.write(0, 0, 1);                                    // a quarter of unit 0: the whole unit is programmed
        m.write(0, 1, 3);                                    // continues it: merged into the same slot
        WriterStats s = m.stats().writers().get(0);
        assertThat(s.hostBytes()).isEqualTo(4L * LBS);
        assertThat(s.mediaBytes()).isEqualTo(4L * LBS);
        m.write(0, 9, 1);                                    // a lone block of unit 2: read-modify-write
        m.write(0, 1, 1);                                    // not a continuation: unit 0 again, whole
        s = m.stats().writers().get(0);
        assertThat(s.hostBytes()).isEqualTo(6L * LBS);
        assertThat(s.mediaBytes()).isEqualTo(12L * LBS);
        m.checkInvariants();
    }

    @Test
    void resetStatisticsZeroesCountersButKeepsTheData() {
        MediaModel m = model(64, 8, 1, 1, 0);
        m.write(0, 0, 64);
        m.resetStatistics();
        MediaStats s = m.stats();
        assertThat(s.total()).isEqualTo(WriterStats.ZERO);
        assertThat(s.unitsReclaimed()).isZero();
        assertThat(m.checkInvariants()).isEqualTo(64);
        m.write(0, 0, 8);
        assertThat(m.stats().total().hostBytes()).isEqualTo(8L * LBS);
    }

    @Test
    void theEventLogKeepsTheLast63OldestFirst() {
        long[] clock = {0};
        MediaModel m = new MediaModel(PlacementGeometry.of(new PlacementSpec(8L * LBS, 1, 1, 0), LBS, 64),
                () -> clock[0]++);
        for (int i = 0; i < 40; i++) {
            m.write(0, i, 1);
            m.closeUnit(0);                                  // an event each, and reclaims moving data once units run out
        }
        List<PlacementEvent> events = m.events();
        assertThat(events).hasSize(MediaModel.MAX_EVENTS);
        long newest = clock[0] - 1;
        for (int i = 0; i < events.size(); i++) {
            assertThat(events.get(i).timestampMillis()).isEqualTo(newest - (MediaModel.MAX_EVENTS - 1) + i);
        }
        assertThat(events.getLast().kind()).isEqualTo(PlacementEvent.Kind.UNIT_NOT_FULLY_WRITTEN);
        assertThat(newest + 1).as("more events happened than are kept").isGreaterThan(MediaModel.MAX_EVENTS);
        m.checkInvariants();
    }

    @Test
    void argumentsNoCommandSetMayPassAreRefused() {
        MediaModel m = model(64, 8, 2, 1, 0);
        assertThatThrownBy(() -> m.write(3, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> m.write(-1, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> m.write(0, 60, 5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> m.write(0, -1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> m.deallocate(0, 65)).isInstanceOf(IllegalArgumentException.class);
        m.write(0, 60, 4);                                   // the last blocks: fine
        m.write(0, 64, 0);                                   // nothing, at the end: fine
        assertThat(m.checkInvariants()).isEqualTo(4);
    }

    @Test
    void moreWritersThanTheOwnerByteHoldsAreRefused() {
        PlacementGeometry g = new PlacementGeometry(LBS, 64, 8, 1, 64, 8, 10, 256, 10 + 512);
        assertThatThrownBy(() -> new MediaModel(g, () -> 0)).isInstanceOf(IllegalArgumentException.class);
        PlacementGeometry most = new PlacementGeometry(LBS, 64, 8, 1, 64, 8, 10, 255, 10 + 510);
        assertThat(new MediaModel(most, () -> 0).stats().writers()).hasSize(255);
    }

    @Test
    void randomMixOfEverythingKeepsTheTablesConsistent() {
        MediaModel m = model(4096, 32, 4, 3, 300);
        Random random = new Random(11);
        for (int i = 0; i < 100_000; i++) {
            int op = random.nextInt(100);
            long lba = random.nextInt(4096);
            long blocks = 1 + random.nextInt((int) Math.min(64, 4096 - lba));
            if (op < 90) {
                m.write(random.nextInt(7), lba, blocks);
            } else if (op < 97) {
                m.deallocate(lba, blocks);
            } else {
                m.closeUnit(random.nextInt(7));
            }
        }
        m.checkInvariants();
        MediaStats s = m.stats();
        assertThat(s.total().mediaBytes()).isEqualTo(s.total().movedBytes()
                + s.writers().stream().mapToLong(w -> w.mediaBytes() - w.movedBytes()).sum());
        assertThat(s.total().mediaBytes() - s.total().movedBytes()).as("block-exact: media = host + moved")
                .isEqualTo(s.total().hostBytes());
    }
}
