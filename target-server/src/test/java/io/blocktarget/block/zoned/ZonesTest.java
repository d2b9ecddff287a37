package io.blocktarget.block.zoned;

import io.blocktarget.block.BlockError;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.BlockIoException;
import io.blocktarget.block.Io;
import io.blocktarget.block.Zone;
import io.blocktarget.block.ZoneCondition;
import io.blocktarget.block.ZoneLayout;
import io.blocktarget.block.ZoneType;
import io.blocktarget.block.Zones;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static io.blocktarget.block.ZoneCondition.CLOSED;
import static io.blocktarget.block.ZoneCondition.EMPTY;
import static io.blocktarget.block.ZoneCondition.EXPLICIT_OPEN;
import static io.blocktarget.block.ZoneCondition.FULL;
import static io.blocktarget.block.ZoneCondition.IMPLICIT_OPEN;
import static io.blocktarget.block.ZoneCondition.NOT_WRITE_POINTER;
import static io.blocktarget.block.ZoneCondition.OFFLINE;
import static io.blocktarget.block.ZoneCondition.READ_ONLY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The zone model (ZBC-2 §4.4, ZNS §2.1) over a real RAM disk. */
class ZonesTest {
    private static final int LBS = 4096;
    private static final long ZONE = 64;          // blocks: 256 KiB zones
    private final MemoryBudget budget = new MemoryBudget(1L << 30);
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    private ZonedBlockDevice device(int lbs, long zones, ZoneLayout layout) {
        RamBlockDevice ram = new RamBlockDevice("z", new BlockGeometry(lbs, lbs, zones * layout.zoneSize()), false, budget);
        ZonedBlockDevice d = new ZonedBlockDevice(ram, layout);
        open.add(d);
        return d;
    }

    /** 8 zones of 64 blocks, capacity 48, zone 0 conventional. */
    private ZonedBlockDevice standard(int maxOpen, int maxActive) {
        return device(LBS, 8, new ZoneLayout(ZONE, 48, 1, maxOpen, maxActive, 0, 1, true));
    }

    private static Zones zones(ZonedBlockDevice d) {
        return d.zones().orElseThrow();
    }

    private static byte[] pattern(int bytes, int seed) {
        byte[] b = new byte[bytes];
        for (int i = 0; i < bytes; i++) {
            b[i] = (byte) (i * 31 + seed);
        }
        return b;
    }

    private static BlockError writeError(ZonedBlockDevice d, long lba, int blocks) {
        return Io.<Void>failureOf(cb -> {
            ByteBuf buf = Unpooled.wrappedBuffer(new byte[blocks * d.geometry().logicalBlockSize()]);
            d.write(lba, buf, false, cb);
        });
    }

    private static void write(ZonedBlockDevice d, long lba, int blocks) throws BlockIoException {
        Io.write(d, lba, pattern(blocks * d.geometry().logicalBlockSize(), (int) lba));
    }

    private static ZoneCondition condition(ZonedBlockDevice d, int zone) {
        return zones(d).zone(zone).condition();
    }

    @Test
    void layoutOfZones() {
        ZonedBlockDevice d = standard(0, 0);
        Zones z = zones(d);
        assertThat(z.zoneCount()).isEqualTo(8);
        assertThat(z.zone(0)).isEqualTo(new Zone(0, 0, 64, 64, ZoneType.CONVENTIONAL, NOT_WRITE_POINTER, 0));
        assertThat(z.zone(7)).isEqualTo(new Zone(7, 448, 64, 48, ZoneType.SEQUENTIAL_WRITE_REQUIRED, EMPTY, 448));
        assertThat(z.zoneIndex(447)).isEqualTo(6);
        assertThat(z.zoneIndex(448)).isEqualTo(7);
        assertThatThrownBy(() -> z.zoneIndex(512)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void refusesLayoutsThatDoNotFit() {
        RamBlockDevice ram = new RamBlockDevice("z", new BlockGeometry(LBS, LBS, 100), false, budget);
        open.add(ram);
        assertThatThrownBy(() -> new Zones(ZoneLayout.of(64, 64), ram)).hasMessageContaining("not a multiple");
        RamBlockDevice two = new RamBlockDevice("z", new BlockGeometry(LBS, LBS, 128), false, budget);
        open.add(two);
        assertThatThrownBy(() -> new Zones(ZoneLayout.of(64, 64).withConventionalZones(2), two))
                .hasMessageContaining("no sequential zone");
        assertThat(new Zones(ZoneLayout.of(64, 64).withConventionalZones(1), two).zoneCount()).isEqualTo(2);
        assertThatThrownBy(() -> ZoneLayout.of(96, 64)).hasMessageContaining("power of two");
        assertThatThrownBy(() -> ZoneLayout.of(64, 65)).hasMessageContaining("capacity");
        assertThatThrownBy(() -> ZoneLayout.of(64, 0)).hasMessageContaining("capacity");
        assertThatThrownBy(() -> ZoneLayout.of(64, 48).withWriteGranularity(32)).hasMessageContaining("granularity");
    }

    /** The write pointer rules at every logical block size. */
    @ParameterizedTest
    @ValueSource(ints = {512, 1024, 2048, 4096, 8192, 16384, 32768, 65536})
    void writePointerRulesAtEveryBlockSize(int lbs) throws Exception {
        ZonedBlockDevice d = device(lbs, 4, ZoneLayout.of(16, 12));
        write(d, 16, 3);                                           // zone 1 at its start
        assertThat(zones(d).zone(1).writePointer()).isEqualTo(19);
        assertThat(condition(d, 1)).isEqualTo(IMPLICIT_OPEN);
        assertThat(writeError(d, 18, 1)).isEqualTo(BlockError.ZONE_UNALIGNED_WRITE);   // below the WP
        assertThat(writeError(d, 20, 1)).isEqualTo(BlockError.ZONE_UNALIGNED_WRITE);   // above the WP
        assertThat(writeError(d, 19, 10)).isEqualTo(BlockError.ZONE_BOUNDARY_ERROR);   // 19 + 10 > 16 + 12
        write(d, 19, 9);                                           // exactly to the capacity
        assertThat(condition(d, 1)).isEqualTo(FULL);
        assertThat(zones(d).zone(1).writePointer()).isEqualTo(28);
        assertThat(writeError(d, 20, 1)).isEqualTo(BlockError.ZONE_FULL);
        assertThat(writeError(d, 28, 1)).isEqualTo(BlockError.ZONE_BOUNDARY_ERROR);   // into the gap
        assertThat(writeError(d, 30, 4)).isEqualTo(BlockError.ZONE_BOUNDARY_ERROR);   // gap into zone 2
        assertThat(Io.read(d, 16, 12)).startsWith(pattern(3 * lbs, 16));
        assertThat(Arrays.copyOfRange(Io.read(d, 16, 12), 3 * lbs, 12 * lbs)).isEqualTo(pattern(9 * lbs, 19));
        assertThat(Io.<ByteBuf>failureOf(cb -> d.read(27, 2, cb))).isEqualTo(BlockError.ZONE_GAP_ACCESS);
        assertThat(Io.read(d, 27, 1)).isEqualTo(Arrays.copyOfRange(pattern(9 * lbs, 19), 8 * lbs, 9 * lbs));
        assertThat(zones(d).reset(1)).isNull();
        assertThat(Io.read(d, 16, 12)).isEqualTo(new byte[12 * lbs]);
        write(d, 16, 12);                                          // one write fills it
        assertThat(condition(d, 1)).isEqualTo(FULL);
        assertThat(zones(d).openZones()).isZero();
        assertThat(zones(d).activeZones()).isZero();
    }

    @Test
    void writeGranularityIsThePhysicalBlock() throws Exception {
        ZonedBlockDevice d = device(512, 2, ZoneLayout.of(64, 64).withWriteGranularity(8));
        assertThat(writeError(d, 0, 4)).isEqualTo(BlockError.ZONE_UNALIGNED_WRITE);
        write(d, 0, 8);
        assertThat(writeError(d, 8, 12)).isEqualTo(BlockError.ZONE_UNALIGNED_WRITE);
        write(d, 8, 16);
        assertThat(zones(d).zone(0).writePointer()).isEqualTo(24);
        assertThat(condition(d, 0)).isEqualTo(IMPLICIT_OPEN);   // the refused writes opened nothing
        assertThat(condition(d, 1)).isEqualTo(EMPTY);
    }

    @Test
    void conventionalZonesAreWrittenAnywhereButNotIntoSequentialOnes() throws Exception {
        ZonedBlockDevice d = device(LBS, 4, ZoneLayout.of(16, 16).withConventionalZones(2));
        write(d, 5, 2);
        write(d, 14, 4);                                            // across two conventional zones
        write(d, 3, 1);
        assertThat(writeError(d, 30, 4)).isEqualTo(BlockError.ZONE_BOUNDARY_ERROR);
        assertThat(condition(d, 2)).isEqualTo(EMPTY);
        assertThat(zones(d).open(0)).isEqualTo(BlockError.ZONE_INVALID_STATE_TRANSITION);
        assertThat(zones(d).reset(1)).isEqualTo(BlockError.ZONE_INVALID_STATE_TRANSITION);
        assertThat(Io.read(d, 14, 4)).isEqualTo(pattern(4 * LBS, 14));
        assertThat(Io.read(d, 10, 12)).hasSize(12 * LBS);           // unrestricted: across types
    }

    @Test
    void writeZeroesFollowsTheWritePointer() throws Exception {
        ZonedBlockDevice d = standard(0, 0);
        assertThat(Io.<Void>failureOf(cb -> d.writeZeroes(65, 2, cb))).isEqualTo(BlockError.ZONE_UNALIGNED_WRITE);
        Io.writeZeroes(d, 64, 2);
        assertThat(zones(d).zone(1).writePointer()).isEqualTo(66);
    }

    @Test
    void zoneAppendReturnsTheLbaItWrote() throws Exception {
        ZonedBlockDevice d = standard(0, 0);
        Zones z = zones(d);
        long first = append(z, 2, 4, 1);
        long second = append(z, 2, 8, 2);
        assertThat(first).isEqualTo(128);
        assertThat(second).isEqualTo(132);
        assertThat(Io.read(d, 132, 8)).isEqualTo(pattern(8 * LBS, 2));
        assertThat(Io.<Long>failureOf(cb -> z.append(2, Unpooled.wrappedBuffer(new byte[37 * LBS]), false, cb)))
                .isEqualTo(BlockError.ZONE_BOUNDARY_ERROR);
        assertThat(append(z, 2, 36, 3)).isEqualTo(140);
        assertThat(z.zone(2).condition()).isEqualTo(FULL);
        assertThat(Io.<Long>failureOf(cb -> z.append(2, Unpooled.wrappedBuffer(new byte[LBS]), false, cb)))
                .isEqualTo(BlockError.ZONE_FULL);
        assertThat(Io.<Long>failureOf(cb -> z.append(0, Unpooled.wrappedBuffer(new byte[LBS]), false, cb)))
                .isEqualTo(BlockError.ZONE_INVALID_STATE_TRANSITION);
        assertThat(Io.<Long>failureOf(cb -> z.append(3, Unpooled.wrappedBuffer(new byte[100]), false, cb)))
                .isEqualTo(BlockError.INVALID_LENGTH);
    }

    private static long append(Zones z, int zone, int blocks, int seed) throws BlockIoException {
        ByteBuf buf = Unpooled.wrappedBuffer(pattern(blocks * LBS, seed));
        return Io.<Long>await(cb -> z.append(zone, buf, false, cb));
    }

    /** Every transition of ZBC-2 Figure 5 / ZNS Figure 7 the host can cause, with the no-ops and refusals. */
    @Test
    void everyTransition() throws Exception {
        ZonedBlockDevice d = standard(0, 0);
        Zones z = zones(d);
        // EMPTY
        assertThat(z.close(1)).isEqualTo(BlockError.ZONE_INVALID_STATE_TRANSITION);
        assertThat(z.reset(1)).isNull();
        assertThat(condition(d, 1)).isEqualTo(EMPTY);
        assertThat(z.open(1)).isNull();                                       // EMPTY -> EXPLICIT_OPEN
        assertThat(condition(d, 1)).isEqualTo(EXPLICIT_OPEN);
        assertThat(z.open(1)).isNull();                                       // stays
        assertThat(z.close(1)).isNull();                                      // nothing written -> EMPTY
        assertThat(condition(d, 1)).isEqualTo(EMPTY);
        assertThat(z.finish(1)).isNull();                                     // EMPTY -> FULL
        assertThat(z.zone(1).writePointer()).isEqualTo(64 + 48);
        assertThat(condition(d, 1)).isEqualTo(FULL);
        // FULL
        assertThat(z.open(1)).isEqualTo(BlockError.ZONE_INVALID_STATE_TRANSITION);
        assertThat(z.close(1)).isEqualTo(BlockError.ZONE_INVALID_STATE_TRANSITION);
        assertThat(z.finish(1)).isNull();
        assertThat(z.reset(1)).isNull();                                      // FULL -> EMPTY
        assertThat(z.zone(1).writePointer()).isEqualTo(64);
        // IMPLICIT_OPEN
        write(d, 64, 1);
        assertThat(condition(d, 1)).isEqualTo(IMPLICIT_OPEN);
        assertThat(z.open(1)).isNull();                                       // IMPLICIT -> EXPLICIT
        assertThat(condition(d, 1)).isEqualTo(EXPLICIT_OPEN);
        write(d, 65, 1);
        assertThat(condition(d, 1)).isEqualTo(EXPLICIT_OPEN);                 // writes keep it explicit
        assertThat(z.close(1)).isNull();                                      // EXPLICIT -> CLOSED
        assertThat(condition(d, 1)).isEqualTo(CLOSED);
        assertThat(z.close(1)).isNull();
        write(d, 66, 1);                                                      // CLOSED -> IMPLICIT_OPEN
        assertThat(condition(d, 1)).isEqualTo(IMPLICIT_OPEN);
        assertThat(z.close(1)).isNull();                                      // IMPLICIT -> CLOSED
        assertThat(z.open(1)).isNull();                                       // CLOSED -> EXPLICIT
        assertThat(z.finish(1)).isNull();                                     // EXPLICIT -> FULL
        assertThat(condition(d, 1)).isEqualTo(FULL);
        assertThat(z.reset(1)).isNull();
        write(d, 64, 1);
        assertThat(z.finish(1)).isNull();                                     // IMPLICIT -> FULL
        assertThat(z.reset(1)).isNull();
        write(d, 64, 1);
        z.close(1);
        assertThat(z.finish(1)).isNull();                                     // CLOSED -> FULL
        assertThat(z.reset(1)).isNull();
        write(d, 64, 1);
        assertThat(z.reset(1)).isNull();                                      // IMPLICIT -> EMPTY
        z.open(1);
        assertThat(z.reset(1)).isNull();                                      // EXPLICIT -> EMPTY
        write(d, 64, 1);
        z.close(1);
        assertThat(z.reset(1)).isNull();                                      // CLOSED -> EMPTY
        assertThat(condition(d, 1)).isEqualTo(EMPTY);
        assertThat(z.openZones()).isZero();
        assertThat(z.activeZones()).isZero();
    }

    @Test
    void readOnlyAndOfflineZones() throws Exception {
        ZonedBlockDevice d = standard(0, 0);
        Zones z = zones(d);
        write(d, 64, 2);
        assertThat(z.setReadOnly(1)).isNull();
        assertThat(z.openZones()).isZero();
        assertThat(z.activeZones()).isZero();
        assertThat(writeError(d, 66, 1)).isEqualTo(BlockError.ZONE_READ_ONLY);
        assertThat(Io.read(d, 64, 2)).isEqualTo(pattern(2 * LBS, 64));
        for (var op : List.<java.util.function.IntFunction<BlockError>>of(z::open, z::close, z::finish, z::reset)) {
            assertThat(op.apply(1)).isEqualTo(BlockError.ZONE_READ_ONLY);
        }
        assertThat(Io.<Void>failureOf(cb -> d.unmap(List.of(new io.blocktarget.block.BlockRange(64, 1)), cb)))
                .isEqualTo(BlockError.ZONE_READ_ONLY);
        assertThat(z.setOffline(1)).isNull();
        assertThat(z.setReadOnly(1)).isEqualTo(BlockError.ZONE_OFFLINE);
        assertThat(writeError(d, 66, 1)).isEqualTo(BlockError.ZONE_OFFLINE);
        assertThat(Io.<ByteBuf>failureOf(cb -> d.read(60, 8, cb))).isEqualTo(BlockError.ZONE_OFFLINE);
        for (var op : List.<java.util.function.IntFunction<BlockError>>of(z::open, z::close, z::finish, z::reset)) {
            assertThat(op.apply(1)).isEqualTo(BlockError.ZONE_OFFLINE);
        }
        assertThat(z.resetAll()).isNull();                                    // skips them
        assertThat(condition(d, 1)).isEqualTo(OFFLINE);
        z.setReadOnly(0);                                                     // a conventional zone too
        assertThat(writeError(d, 0, 1)).isEqualTo(BlockError.ZONE_READ_ONLY);
        assertThat(condition(d, 0)).isEqualTo(READ_ONLY);
    }

    @Test
    void implicitOpenAtTheOpenLimitClosesTheOldestImplicitZone() throws Exception {
        ZonedBlockDevice d = standard(2, 0);
        Zones z = zones(d);
        write(d, 64, 1);
        write(d, 128, 1);
        assertThat(z.openZones()).isEqualTo(2);                               // at the limit
        write(d, 192, 1);                                                     // limit + 1: zone 1 closed for room
        assertThat(condition(d, 1)).isEqualTo(CLOSED);
        assertThat(condition(d, 2)).isEqualTo(IMPLICIT_OPEN);
        assertThat(condition(d, 3)).isEqualTo(IMPLICIT_OPEN);
        assertThat(z.openZones()).isEqualTo(2);
        assertThat(z.activeZones()).isEqualTo(3);
        z.open(2);
        z.open(3);                                                            // both explicit now
        assertThat(writeError(d, 256, 1)).isEqualTo(BlockError.ZONE_TOO_MANY_OPEN);
        assertThat(condition(d, 4)).isEqualTo(EMPTY);
        assertThat(z.open(4)).isEqualTo(BlockError.ZONE_TOO_MANY_OPEN);
        assertThat(writeError(d, 65, 1)).isEqualTo(BlockError.ZONE_TOO_MANY_OPEN);   // CLOSED cannot reopen
        z.close(3);
        write(d, 65, 1);
        assertThat(condition(d, 1)).isEqualTo(IMPLICIT_OPEN);
    }

    @Test
    void explicitOpenAtTheLimitClosesAnImplicitZone() throws Exception {
        ZonedBlockDevice d = standard(1, 0);
        Zones z = zones(d);
        write(d, 64, 1);
        assertThat(z.open(2)).isNull();
        assertThat(condition(d, 1)).isEqualTo(CLOSED);
        assertThat(condition(d, 2)).isEqualTo(EXPLICIT_OPEN);
        assertThat(z.open(3)).isEqualTo(BlockError.ZONE_TOO_MANY_OPEN);
    }

    @Test
    void activeLimit() throws Exception {
        ZonedBlockDevice d = standard(0, 2);
        Zones z = zones(d);
        write(d, 64, 1);
        z.close(1);
        write(d, 128, 1);
        assertThat(z.activeZones()).isEqualTo(2);                             // at the limit
        assertThat(writeError(d, 192, 1)).isEqualTo(BlockError.ZONE_TOO_MANY_ACTIVE);
        assertThat(z.open(3)).isEqualTo(BlockError.ZONE_TOO_MANY_ACTIVE);
        assertThat(z.finish(3)).isEqualTo(BlockError.ZONE_TOO_MANY_ACTIVE);
        assertThat(condition(d, 3)).isEqualTo(EMPTY);
        write(d, 65, 1);                                                      // CLOSED -> open needs no new slot
        assertThat(z.finish(1)).isNull();                                     // FULL frees a slot
        write(d, 192, 1);
        assertThat(z.activeZones()).isEqualTo(2);
    }

    @Test
    void allOperations() throws Exception {
        ZonedBlockDevice d = standard(0, 0);
        Zones z = zones(d);
        write(d, 64, 1);
        write(d, 128, 1);
        z.close(2);
        z.open(3);
        write(d, 256, 48);                                                    // zone 4 FULL
        assertThat(z.closeAll()).isNull();
        assertThat(List.of(condition(d, 1), condition(d, 2), condition(d, 3), condition(d, 4)))
                .containsExactly(CLOSED, CLOSED, EMPTY, FULL);
        assertThat(z.openAll()).isNull();
        assertThat(List.of(condition(d, 1), condition(d, 2), condition(d, 3)))
                .containsExactly(EXPLICIT_OPEN, EXPLICIT_OPEN, EMPTY);
        z.close(2);
        assertThat(z.finishAll()).isNull();
        assertThat(List.of(condition(d, 1), condition(d, 2), condition(d, 3), condition(d, 4)))
                .containsExactly(FULL, FULL, EMPTY, FULL);
        assertThat(z.resetAll()).isNull();
        for (int i = 1; i < 8; i++) {
            assertThat(condition(d, i)).isEqualTo(EMPTY);
        }
        assertThat(condition(d, 0)).isEqualTo(NOT_WRITE_POINTER);
    }

    @Test
    void openAllRefusesWhatDoesNotFitAndChangesNothing() throws Exception {
        ZonedBlockDevice d = standard(2, 0);
        Zones z = zones(d);
        for (int zone = 1; zone <= 3; zone++) {
            write(d, zone * 64L, 1);
            z.close(zone);
        }
        assertThat(z.openAll()).isEqualTo(BlockError.ZONE_TOO_MANY_OPEN);     // 3 closed > 2
        assertThat(z.openZones()).isZero();
        z.finish(3);
        assertThat(z.openAll()).isNull();                                     // 2 closed = 2
        assertThat(z.openZones()).isEqualTo(2);
    }

    @Test
    void resetGivesTheMemoryBack() throws Exception {
        ZonedBlockDevice d = device(LBS, 4, ZoneLayout.of(256, 256));   // 1 MiB zones, 16 chunks each
        write(d, 0, 256);
        write(d, 256, 100);
        assertThat(budget.used()).isEqualTo((16 + 7) * 65536L);
        assertThat(zones(d).reset(0)).isNull();
        assertThat(budget.used()).isEqualTo(7 * 65536L);
        assertThat(zones(d).resetAll()).isNull();
        assertThat(budget.used()).isZero();
        assertThat(d.allocatedBytes()).isZero();
    }

    @Test
    void restrictedReads() throws Exception {
        ZonedBlockDevice d = device(LBS, 4, new ZoneLayout(16, 16, 1, 0, 0, 0, 1, false));
        write(d, 16, 4);
        assertThat(Io.read(d, 16, 4)).isEqualTo(pattern(4 * LBS, 16));
        assertThat(Io.<ByteBuf>failureOf(cb -> d.read(18, 3, cb))).isEqualTo(BlockError.ZONE_INVALID_READ);
        assertThat(Io.<ByteBuf>failureOf(cb -> d.read(14, 4, cb))).isEqualTo(BlockError.ZONE_READ_BOUNDARY);
        zones(d).finish(1);
        assertThat(Io.read(d, 16, 16)).hasSize(16 * LBS);                    // FULL: all of it readable
        assertThat(Io.<ByteBuf>failureOf(cb -> d.read(31, 2, cb))).isEqualTo(BlockError.ZONE_READ_BOUNDARY);
        assertThat(Io.read(d, 0, 16)).hasSize(16 * LBS);                     // conventional
    }

    @Test
    void listenerSeesEveryConditionChangeWithItsCause() throws Exception {
        ZonedBlockDevice d = standard(1, 0);
        Zones z = zones(d);
        List<String> events = new ArrayList<>();
        z.addListener((zone, from, cause) -> events.add(zone.index() + ":" + from + "->" + zone.condition() + ":" + cause));
        write(d, 64, 1);
        write(d, 65, 1);                                  // no event: the zone stays open
        write(d, 128, 1);
        z.setOffline(3);
        z.reset(2);
        assertThat(events).containsExactly(
                "1:EMPTY->IMPLICIT_OPEN:HOST",
                "1:IMPLICIT_OPEN->CLOSED:DEVICE",
                "2:EMPTY->IMPLICIT_OPEN:HOST",
                "3:EMPTY->OFFLINE:DEVICE",
                "2:IMPLICIT_OPEN->EMPTY:HOST");
    }

    @Test
    void failedWriteDoesNotLeaveTheZoneOpen() {
        MemoryBudget tiny = new MemoryBudget(0);
        RamBlockDevice ram = new RamBlockDevice("z", new BlockGeometry(LBS, LBS, 128), false, tiny);
        ZonedBlockDevice d = new ZonedBlockDevice(ram, ZoneLayout.of(64, 64));
        open.add(d);
        assertThat(writeError(d, 0, 1)).isEqualTo(BlockError.INSUFFICIENT_RESOURCES);
        assertThat(condition(d, 0)).isEqualTo(EMPTY);
        assertThat(zones(d).zone(0).writePointer()).isZero();
        assertThat(zones(d).activeZones()).isZero();
    }

    @Test
    void zonedDevicesDoNotResize() {
        ZonedBlockDevice d = standard(0, 0);
        assertThat(Io.<Void>failureOf(cb -> d.resize(1024, cb))).isEqualTo(BlockError.INVALID_LENGTH);
    }

    /** Writers racing for the write pointer of one zone: exactly one write per WP value succeeds, nothing is lost. */
    @Test
    void concurrentWritersOfOneZoneAreSerialisedOnItsWritePointer() throws Exception {
        ZonedBlockDevice d = device(512, 2, ZoneLayout.of(4096, 4096));
        int threads = 4;
        int perThread = 500;
        AtomicInteger ok = new AtomicInteger();
        AtomicInteger unaligned = new AtomicInteger();
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                futures.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < perThread; i++) {
                        long wp = zones(d).zone(0).writePointer();
                        if (wp >= 4096) {
                            break;
                        }
                        ByteBuf buf = Unpooled.wrappedBuffer(new byte[512]);
                        try {
                            Io.<Void>await(cb -> d.write(wp, buf, false, cb));
                            ok.incrementAndGet();
                        } catch (BlockIoException e) {
                            assertThat(e.error()).isIn(BlockError.ZONE_UNALIGNED_WRITE, BlockError.ZONE_FULL,
                                    BlockError.ZONE_BOUNDARY_ERROR);
                            unaligned.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(zones(d).zone(0).writePointer()).isEqualTo(ok.get());
    }

    /** Writers and appenders of different zones in parallel, with a zone being reset and refilled meanwhile. */
    @Test
    void concurrentAppendsGetDistinctLbas() throws Exception {
        ZonedBlockDevice d = device(512, 2, ZoneLayout.of(4096, 4096).withLimits(1, 0));
        Zones z = zones(d);
        int threads = 4;
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<List<Long>>> futures = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                int seed = t;
                futures.add(pool.submit(() -> {
                    start.await();
                    List<Long> lbas = new ArrayList<>();
                    for (int i = 0; i < 256; i++) {
                        ByteBuf buf = Unpooled.wrappedBuffer(pattern(2 * 512, seed));
                        int zone = i % 2;
                        lbas.add(Io.<Long>await(cb -> z.append(zone, buf, false, cb)));
                    }
                    return lbas;
                }));
            }
            List<Long> all = new ArrayList<>();
            for (Future<List<Long>> f : futures) {
                all.addAll(f.get());
            }
            assertThat(all).doesNotHaveDuplicates().hasSize(1024);
            assertThat(z.zone(0).writePointer() + z.zone(1).writePointer() - 4096).isEqualTo(2048);
            assertThat(z.openZones()).isEqualTo(1);                    // the limit held while zones took turns
            assertThat(z.activeZones()).isEqualTo(2);
        } finally {
            pool.shutdownNow();
        }
    }
}
