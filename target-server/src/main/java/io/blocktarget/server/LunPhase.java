package io.blocktarget.server;

import io.blocktarget.state.StateMachine;

import java.util.EnumSet;
import java.util.Locale;
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

    static final StateMachine<LunPhase> MACHINE = StateMachine.of("LUN", LunPhase.class, OPENING)
            .allow(OPENING, ACTIVE)
            .allow(ACTIVE, RETUNING, RESIZING, REEXPORTING, REOPENING, REPLACING, DRAINING)
            .allow(RETUNING, ACTIVE, FAILED)
            .allow(RESIZING, ACTIVE, FAILED)
            .allow(REEXPORTING, ACTIVE, FAILED)
            .allow(REOPENING, ACTIVE, FAILED)
            .allow(REPLACING, ACTIVE, FAILED)
            .allow(DRAINING, REMOVING, ACTIVE, FAILED)   // ACTIVE: the change was undone
            .terminal(REMOVING)
            .allow(FAILED, RETUNING, RESIZING, REEXPORTING, REOPENING, REPLACING, DRAINING, ACTIVE)
            .build();

    /** The phases a LUN may leave the server from (it is then gone). */
    private static final Set<LunPhase> FINAL = EnumSet.of(OPENING, REMOVING, FAILED);

    public boolean canGo(LunPhase next) {
        return MACHINE.allows(this, next);
    }

    /** Whether a LUN in this phase may be dropped from the server's view. */
    public boolean canEnd() {
        return FINAL.contains(this);
    }

    /** As the CLI and the API write it: {@code re-exporting}. */
    public String label() {
        return this == REEXPORTING ? "re-exporting" : name().toLowerCase(Locale.ROOT);
    }
}
