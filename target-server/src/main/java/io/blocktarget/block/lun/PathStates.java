package io.blocktarget.block.lun;

import io.blocktarget.time.Clock;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The {@link AccessState} of one LUN on each portal of the server (portal ids 1, 2, ... in configuration order: the
 * iSCSI TPGT, the ALUA target port group and relative target port, the NVMe PORTID), shared by both command sets and
 * changed at runtime — by the server's plan ({@code paths:}, {@code blocktarget path set}), by a transition's end, or
 * by an initiator (SCSI SET TARGET PORT GROUPS).
 *
 * <p>Reads are one volatile load of an immutable array: the command sets read the state of their portal per command.
 * Each change bumps {@link #version()} (SCSI establishes ASYMMETRIC ACCESS STATE CHANGED on the logical unit's next
 * command when it sees a new version) and is handed to the {@link #listener} (the server turns it into ANA change
 * notices), outside this object's monitor.
 *
 * <p>A change with a transition time ({@code path set --transition}) puts the path into {@link
 * AccessState#TRANSITIONING} at once and into the target state when the clock's timer fires; any later change of the
 * same path cancels the pending end.
 */
public final class PathStates {

    /** What last changed a path, for SPC-5 §6.37 STATUS CODE. */
    public enum Origin {
        /** As configured when the LUN was created. */
        CONFIGURED,
        /** Changed by the target (configuration, CLI, API, a transition's end): "altered by implicit behavior". */
        IMPLICIT,
        /** Changed by an initiator's SET TARGET PORT GROUPS. */
        EXPLICIT
    }

    /** One path's state and what set it last. */
    public record Path(AccessState state, Origin origin) {
        public Path {
            Objects.requireNonNull(state, "state");
            Objects.requireNonNull(origin, "origin");
        }
    }

    /**
     * One change: the portals whose state changed and who asked ({@code source}: the SCSI nexus of a SET TARGET PORT
     * GROUPS, else null).
     */
    public record Change(Set<Integer> portals, Object source) {
        public Change {
            portals = Set.copyOf(portals);
        }
    }

    private volatile Path[] paths;
    /** The count of changes and who asked for the last one; replaced as one. */
    private volatile Stamp stamp = new Stamp(0, null);
    private volatile Consumer<Change> listener = change -> { };
    /** Ends transitions: the server's clock (a test's manual one). */
    private final Clock clock;
    /** The pending end of each portal's transition (index = portal - 1), guarded by this. */
    private Transition[] pending;

    /**
     * A transition in progress: it ends only while it is still its portal's pending one, so a cancel that comes too
     * late to stop the timer is harmless.
     */
    private static final class Transition {
        final int portal;
        final AccessState target;
        /** Set once scheduled (outside the monitor); null until then. */
        volatile Clock.Timer timer;

        Transition(int portal, AccessState target) {
            this.portal = portal;
            this.target = target;
        }

        void cancel() {
            Clock.Timer t = timer;
            if (t != null) {
                t.cancel();
            }
        }
    }

    /** One portal, optimized: what a LUN has until the server installs its paths. */
    public PathStates(Clock clock) {
        this(clock, List.of(AccessState.OPTIMIZED));
    }

    /** @param initial the state on portal 1, 2, ... */
    public PathStates(Clock clock, List<AccessState> initial) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.paths = initial.stream().map(s -> new Path(s, Origin.CONFIGURED)).toArray(Path[]::new);
        this.pending = new Transition[paths.length];
    }

    /**
     * The states of a LUN being created, before any initiator sees it (no change is reported), and the listener of
     * its changes.
     */
    public synchronized void install(List<AccessState> initial, Consumer<Change> onChange) {
        Arrays.stream(pending).filter(Objects::nonNull).forEach(Transition::cancel);
        this.paths = initial.stream().map(s -> new Path(s, Origin.CONFIGURED)).toArray(Path[]::new);
        this.pending = new Transition[paths.length];
        this.listener = Objects.requireNonNull(onChange, "onChange");
    }

    /** The number of portals. */
    public int portals() {
        return paths.length;
    }

    /**
     * The state on {@code portal} (1-based); a portal this LUN does not know (0: the caller knows no portal) is
     * optimized — the state of a LUN without multipath.
     */
    public AccessState state(int portal) {
        Path[] p = paths;
        return portal >= 1 && portal <= p.length ? p[portal - 1].state() : AccessState.OPTIMIZED;
    }

    /** The state on every portal, portal 1 first. */
    public List<Path> all() {
        return List.of(paths);
    }

    /**
     * The count of changes so far and the source of the last one (a SCSI nexus's SET TARGET PORT GROUPS, else null):
     * SCSI tells every other nexus of a change, so it needs both at once.
     */
    public record Stamp(long version, Object source) {
    }

    /** Incremented by every change: readers compare it with the one they saw. */
    public long version() {
        return stamp.version();
    }

    /** The version and who made the last change, read together. */
    public Stamp stamp() {
        return stamp;
    }

    /**
     * Sets the state of {@code changes}' portals (1-based; unknown ones are ignored) in one step: portals whose
     * {@code transitionNanos} is above 0 go to {@link AccessState#TRANSITIONING} now and to their state when it ends.
     *
     * @param source the SCSI nexus of a SET TARGET PORT GROUPS (origin explicit), else null (implicit)
     * @return the portals whose state changed now
     */
    public Set<Integer> set(Map<Integer, AccessState> changes, long transitionNanos, Object source) {
        Origin origin = source == null ? Origin.IMPLICIT : Origin.EXPLICIT;
        Set<Integer> changed = new LinkedHashSet<>();
        List<Transition> cancelled = new ArrayList<>();
        List<Transition> started = new ArrayList<>();
        synchronized (this) {
            Path[] next = paths.clone();
            for (Map.Entry<Integer, AccessState> e : changes.entrySet()) {
                int i = e.getKey() - 1;
                if (i < 0 || i >= next.length) {
                    continue;
                }
                if (pending[i] != null) {
                    cancelled.add(pending[i]);
                    pending[i] = null;
                }
                AccessState now = transitionNanos > 0 && e.getValue() != AccessState.TRANSITIONING
                        ? AccessState.TRANSITIONING : e.getValue();
                if (now != next[i].state()) {
                    changed.add(e.getKey());
                    next[i] = new Path(now, origin);
                }   // the same state keeps its origin: writing an initiator's change to the file changes nothing
                if (now != e.getValue()) {
                    pending[i] = new Transition(e.getKey(), e.getValue());
                    started.add(pending[i]);
                }
            }
            paths = next;
            if (!changed.isEmpty()) {
                stamp = new Stamp(stamp.version() + 1, source);
            }
        }
        cancelled.forEach(Transition::cancel);
        // scheduled outside the monitor: a clock may run the end on this thread
        started.forEach(t -> t.timer = clock.schedule(transitionNanos, () -> endTransition(t)));
        if (!changed.isEmpty()) {
            listener.accept(new Change(changed, source));
        }
        return changed;
    }

    /** The transition of {@code portal} ended: its target state, unless a later change cancelled it. */
    private void endTransition(Transition t) {
        boolean changed;
        synchronized (this) {
            int i = t.portal - 1;
            if (i >= pending.length || pending[i] != t) {
                return;
            }
            pending[i] = null;
            Path[] next = paths.clone();
            changed = next[i].state() != t.target;
            next[i] = new Path(t.target, Origin.IMPLICIT);
            paths = next;
            if (changed) {
                stamp = new Stamp(stamp.version() + 1, null);
            }
        }
        if (changed) {
            listener.accept(new Change(Set.of(t.portal), null));
        }
    }

    /** Whether {@code portal} is in a transition that ends by itself (tests). */
    synchronized boolean transitionPending(int portal) {
        return portal >= 1 && portal <= pending.length && pending[portal - 1] != null;
    }

    /** Cancels every pending transition end (the LUN goes away). */
    public void close() {
        List<Transition> cancelled = new ArrayList<>();
        synchronized (this) {
            for (int i = 0; i < pending.length; i++) {
                if (pending[i] != null) {
                    cancelled.add(pending[i]);
                    pending[i] = null;
                }
            }
            listener = change -> { };
        }
        cancelled.forEach(Transition::cancel);
    }

    @Override
    public String toString() {
        return Arrays.toString(paths);
    }
}
