package io.blocktarget.block.lun;

import io.blocktarget.time.ManualClock;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PathStatesTest {
    private final ManualClock clock = new ManualClock();
    private final List<PathStates.Change> changes = new ArrayList<>();

    private PathStates twoPortals() {
        PathStates p = new PathStates(clock);
        p.install(List.of(AccessState.OPTIMIZED, AccessState.NON_OPTIMIZED), changes::add);
        return p;
    }

    @Test
    void installReportsNothingAndUnknownPortalsAreOptimized() {
        PathStates p = twoPortals();
        assertEquals(2, p.portals());
        assertEquals(AccessState.NON_OPTIMIZED, p.state(2));
        assertEquals(AccessState.OPTIMIZED, p.state(0));
        assertEquals(AccessState.OPTIMIZED, p.state(3));
        assertEquals(PathStates.Origin.CONFIGURED, p.all().get(0).origin());
        assertEquals(0, p.version());
        assertTrue(changes.isEmpty());
    }

    @Test
    void aChangeBumpsTheVersionOnceAndTellsTheListener() {
        PathStates p = twoPortals();
        Object nexus = new Object();
        assertEquals(Set.of(1, 2), p.set(Map.of(1, AccessState.STANDBY, 2, AccessState.OPTIMIZED), 0, nexus));
        assertEquals(AccessState.STANDBY, p.state(1));
        assertEquals(AccessState.OPTIMIZED, p.state(2));
        assertEquals(PathStates.Origin.EXPLICIT, p.all().get(0).origin());
        assertEquals(1, p.version());
        assertEquals(List.of(new PathStates.Change(Set.of(1, 2), nexus)), changes);
    }

    @Test
    void settingTheSameStateIsNoChange() {
        PathStates p = twoPortals();
        assertEquals(Set.of(), p.set(Map.of(1, AccessState.OPTIMIZED, 9, AccessState.STANDBY), 0, null));
        assertEquals(0, p.version());
        assertTrue(changes.isEmpty());
        // no change: what set the state last stays (an initiator's state written back to the file stays explicit)
        assertEquals(PathStates.Origin.CONFIGURED, p.all().get(0).origin());
        p.set(Map.of(1, AccessState.STANDBY), 0, "nexus");
        p.set(Map.of(1, AccessState.STANDBY), 0, null);
        assertEquals(new PathStates.Path(AccessState.STANDBY, PathStates.Origin.EXPLICIT), p.all().get(0));
        assertEquals(1, p.version());
    }

    @Test
    void aTransitionEndsInItsStateWhenTheClockSaysSo() {
        PathStates p = twoPortals();
        p.set(Map.of(1, AccessState.INACCESSIBLE), 5_000_000, null);
        assertEquals(AccessState.TRANSITIONING, p.state(1));
        assertTrue(p.transitionPending(1));
        clock.advanceNanos(4_999_999);
        assertEquals(AccessState.TRANSITIONING, p.state(1));
        clock.advanceNanos(1);
        assertEquals(AccessState.INACCESSIBLE, p.state(1));
        assertFalse(p.transitionPending(1));
        assertEquals(2, p.version());
        assertEquals(List.of(new PathStates.Change(Set.of(1), null), new PathStates.Change(Set.of(1), null)),
                changes);
    }

    @Test
    void aLaterChangeCancelsAPendingEnd() {
        PathStates p = twoPortals();
        p.set(Map.of(1, AccessState.INACCESSIBLE), 5_000_000, null);
        p.set(Map.of(1, AccessState.NON_OPTIMIZED), 0, null);
        assertEquals(0, clock.pending());
        clock.advanceMillis(10);
        assertEquals(AccessState.NON_OPTIMIZED, p.state(1));
        assertEquals(2, p.version());
    }

    @Test
    void closeCancelsTransitionsAndSilencesTheListener() {
        PathStates p = twoPortals();
        p.set(Map.of(2, AccessState.STANDBY), 1_000, null);
        p.close();
        assertEquals(0, clock.pending());
        clock.advanceMillis(1);
        assertEquals(AccessState.TRANSITIONING, p.state(2));
        p.set(Map.of(2, AccessState.OPTIMIZED), 0, null);
        assertEquals(1, changes.size());
    }
}
