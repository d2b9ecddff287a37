package io.blocktarget.block.lun;

import io.blocktarget.block.InFlight;
import io.blocktarget.time.Clock;

/**
 * The LUN step of a command's pipeline, the same for both command sets (issue 27): the base of the NVMe request and of
 * the SCSI task, so the step costs no object of its own. {@link #enterLun} counts the command in its LUN's
 * {@link InFlight} (what a removal drains) and notes its arrival and class; {@link #exitLun}, from the command set's one
 * completion function, records it in the LUN's {@link CommandStats} and releases it from the in-flight count —
 * exactly once for each {@link #enterLun} that returned true.
 */
public abstract class LunRequest {
    private InFlight inFlight;
    private CommandStats stats;
    private Clock clock;
    private CommandStats.OpClass opClass;
    private long arrival;

    protected LunRequest() {
    }

    /**
     * Counts the command in {@code state}'s device and notes its arrival; false (nothing counted) when the device is
     * draining — the command is refused as if the LUN were gone.
     */
    protected final boolean enterLun(LunState state, CommandStats.OpClass opClass) {
        InFlight f = state.inFlight();
        if (!f.enter()) {
            return false;
        }
        this.inFlight = f;
        this.stats = state.commandStats();
        this.clock = state.clock();
        this.opClass = opClass;
        this.arrival = clock.nanoTime();
        return true;
    }

    /** Whether the command is counted in a LUN (entered, not yet exited). */
    protected final boolean inLun() {
        return inFlight != null;
    }

    /** The in-flight count of the command's LUN while it is in one (the queue depth a trace record notes). */
    protected final InFlight lunInFlight() {
        return inFlight;
    }

    /**
     * The LUN step's end: the command's latency since {@link #enterLun}, {@code bytes} and outcome into the LUN's
     * statistics, then out of its in-flight count (a drain may complete now). Does nothing when not in a LUN.
     */
    protected final void exitLun(CommandStats.Protocol protocol, long bytes, boolean ok) {
        InFlight f = inFlight;
        if (f == null) {
            return;
        }
        inFlight = null;
        stats.record(protocol, opClass, clock.nanoTime() - arrival, bytes, ok);
        f.exit();
    }
}
