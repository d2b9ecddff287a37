package io.blocktarget.server;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Where a LUN is in its life, as {@code blocktarget lun list}, {@code lun show} and the API show it (DESIGN §7: one
 * state enum, transitions from a table, checked). A LUN that leaves the server (removed, or a new one whose backend
 * could not be opened) has no state: it is gone.
 */
public enum LunPhase {
    /** A new LUN: its backend is being opened, it is not exported yet. */
    OPENING,
    /** Exported and serving. */
    ACTIVE,
    /** Knobs or fault rules changing in place. */
    RETUNING,
    /** The device growing or shrinking. */
    RESIZING,
    /** Device and data kept, moving to another target / LUN or subsystem / NSID. */
    REEXPORTING,
    /** Its backend opened again (a file keeps its data); the old device drains. */
    REOPENING,
    /** A new device in place of the old one, which drains. */
    REPLACING,
    /** Out of every export; commands in flight finishing. */
    DRAINING,
    /** Drained; the device closing (RAM: memory going back to the budget). */
    REMOVING,
    /** A change failed and could not be undone: the LUN may not be as its configuration says; see the last error. */
    FAILED;

    private static final Set<LunPhase> CHANGES = EnumSet.of(RETUNING, RESIZING, REEXPORTING, REOPENING, REPLACING,
            DRAINING);
    private static final Map<LunPhase, Set<LunPhase>> NEXT = Map.of(
            OPENING, EnumSet.of(ACTIVE),
            ACTIVE, CHANGES,
            RETUNING, EnumSet.of(ACTIVE, FAILED),
            RESIZING, EnumSet.of(ACTIVE, FAILED),
            REEXPORTING, EnumSet.of(ACTIVE, FAILED),
            REOPENING, EnumSet.of(ACTIVE, FAILED),
            REPLACING, EnumSet.of(ACTIVE, FAILED),
            DRAINING, EnumSet.of(REMOVING, ACTIVE, FAILED),   // ACTIVE: the change was undone
            REMOVING, EnumSet.noneOf(LunPhase.class),
            FAILED, union(CHANGES, EnumSet.of(ACTIVE)));

    /** The phases a LUN may leave the server from (it is then gone). */
    private static final Set<LunPhase> FINAL = EnumSet.of(OPENING, REMOVING, FAILED);

    public boolean canGo(LunPhase next) {
        return NEXT.get(this).contains(next);
    }

    /** Whether a LUN in this phase may be dropped from the server's view. */
    public boolean canEnd() {
        return FINAL.contains(this);
    }

    /** As the CLI and the API write it: {@code re-exporting}. */
    public String label() {
        return this == REEXPORTING ? "re-exporting" : name().toLowerCase(Locale.ROOT);
    }

    private static Set<LunPhase> union(Set<LunPhase> a, Set<LunPhase> b) {
        Set<LunPhase> all = EnumSet.copyOf(a);
        all.addAll(b);
        return all;
    }
}
