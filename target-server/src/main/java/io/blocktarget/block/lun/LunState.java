package io.blocktarget.block.lun;

import io.blocktarget.block.AtomicWrites;
import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.InFlight;
import io.blocktarget.block.RangeLocks;
import io.blocktarget.block.Reservations;
import io.blocktarget.block.fault.LunFaults;
import io.blocktarget.block.placement.Placement;
import io.blocktarget.block.trace.Tracer;
import io.blocktarget.time.Clock;
import io.blocktarget.time.SystemClock;

import java.util.Objects;

/**
 * The per-device state both command sets share (DESIGN §10): one instance per LUN, created by the server beside the
 * LUN's {@link BlockDevice} and handed to the SCSI logical unit and the NVMe namespace that export it. What lives here
 * is what SCSI and NVMe must agree on about one device: LBA range locks (COMPARE AND WRITE, fused Compare and Write,
 * atomic writes), reservations, and the count of commands in flight with the DRAINING state used by TMF, resize and
 * removal.
 *
 * <ul>
 * <li>{@link #rangeLocks()}: every write of either protocol takes its LBA range shared, COMPARE AND WRITE
 *     exclusive, so a SCSI COMPARE AND WRITE is atomic against NVMe writes of the same blocks; free of monitors
 *     and allocation while no exclusive request exists.</li>
 * <li>{@link #reservations()}: SCSI persistent reservations / RESERVE(6) and NVMe reservations are one state; a
 *     SCSI I_T nexus and an NVMe host are both registrants. See {@link Reservations} for how the six types map
 *     between SPC-5 and NVMe and what conflicts.</li>
 * <li>{@link #commandStats()}: end-to-end command counters and latency histograms, always on.</li>
 * <li>{@link #clock()}: the server's clock, which fault delays, throttles and triggers and the trace read.</li>
 * <li>{@link #placement()}: the data placement media model ({@code placement:}, issue 32) that NVMe placement
 *     handles and SCSI streams both write into; null when the LUN has none.</li>
 * </ul>
 *
 * <p>It holds the LUN's fault rules and trace as well, so it sits above {@code block.fault} and {@code block.trace}
 * (which build on {@code block}, as the backends do) in a package of its own.
 */
public final class LunState {
    private final String name;
    private final RangeLocks rangeLocks = new RangeLocks();
    private final Reservations reservations;
    private final InFlight inFlight = new InFlight();
    /** End-to-end command counters and latency of both command sets, always on (issue 33). */
    private final CommandStats commandStats = new CommandStats();
    private final java.util.Optional<AtomicWrites> atomicWrites;
    private final Clock clock;
    /** Fault rules (issue 11): no rule = the hooks' one volatile read. */
    private final LunFaults faults;
    /** The state of each path (portal) to this LUN (issue 29): ALUA and ANA. */
    private final PathStates paths;
    /** The trace while it is on, else null: read once per command by both command sets (DESIGN §10 "Trace"). */
    private volatile Tracer tracer;
    /** The trace now or the last one (kept after a stop, for reading); guarded by this. */
    private Tracer lastTracer;
    /**
     * The LUN's data placement, null without {@code placement:}: read once per write by both command sets. Set by the
     * server when it opens the LUN and replaced (counters from zero) when the LUN is resized — the model's tables are
     * per logical block.
     */
    private volatile Placement placement;
    /** What hosts see differently from the configuration, by topic (e.g. "nvme"); shown by {@code lun show}. */
    private final java.util.Map<String, String> caveats = new java.util.concurrent.ConcurrentSkipListMap<>();

    /**
     * Reservations in memory only: APTPL / PTPL are refused. For tests and tools: a {@link SystemClock} of its own
     * (a server passes its clock to {@link #LunState(String, java.nio.file.Path, java.util.Optional, Clock)}).
     */
    public LunState(String name) {
        this(name, null);
    }

    /**
     * Reservations persisted through power loss in {@code reservationStateFile} (null = memory only, as
     * {@link #LunState(String)}); a clock of its own, as there.
     */
    public LunState(String name, java.nio.file.Path reservationStateFile) {
        this(name, reservationStateFile, java.util.Optional.empty());
    }

    /** As {@link #LunState(String, java.nio.file.Path, java.util.Optional, Clock)} with a clock of its own. */
    public LunState(String name, java.nio.file.Path reservationStateFile,
                    java.util.Optional<AtomicWrites> atomicWrites) {
        this(name, reservationStateFile, atomicWrites, new SystemClock("blocktarget-timer " + name));
    }

    /**
     * @param reservationStateFile where reservations persist through power loss (the server passes
     *                             {@code luns.d/NAME.pr} beside the LUN's configuration); null = memory only
     * @param atomicWrites         the device's atomic write limits ({@code atomic:} of the LUN file; empty = no
     *                             atomicity beyond one logical block), which both command sets advertise and honour
     * @param clock                the server's clock
     */
    public LunState(String name, java.nio.file.Path reservationStateFile,
                    java.util.Optional<AtomicWrites> atomicWrites, Clock clock) {
        this.name = Objects.requireNonNull(name, "name");
        this.reservations = reservationStateFile == null ? new Reservations() : new Reservations(reservationStateFile);
        this.atomicWrites = Objects.requireNonNull(atomicWrites, "atomicWrites");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.faults = new LunFaults(clock);
        this.paths = new PathStates(clock);
    }

    /** The server's clock: fault delays, throttles and triggers, trace arrivals and latencies. */
    public Clock clock() {
        return clock;
    }

    /** The atomic write limits both command sets advertise and honour; empty = none beyond one logical block. */
    public java.util.Optional<AtomicWrites> atomicWrites() {
        return atomicWrites;
    }

    /** The LUN's data placement, or null when it has none ({@code placement:} absent): one volatile read. */
    public Placement placement() {
        return placement;
    }

    /**
     * Installs {@code next} (null: none) as the LUN's placement; the server's, when it opens or resizes the LUN.
     * Returns the one replaced, or null.
     */
    public Placement placement(Placement next) {
        Placement previous = placement;
        placement = next;
        return previous;
    }

    /** Commands executing on this device (both protocols) and the DRAINING state removal waits on. */
    public InFlight inFlight() {
        return inFlight;
    }

    /**
     * What both command sets did with this device, end to end (arrival to completion): commands, errors, bytes and
     * latency by protocol and opcode class; read by {@code /metrics} and {@code blocktarget top}.
     */
    public CommandStats commandStats() {
        return commandStats;
    }

    /** The LUN's fault rules and the commands they hold; both command sets and the device decorator apply them. */
    public LunFaults faults() {
        return faults;
    }

    /** The LUN's state on each portal, which SCSI ALUA and NVMe ANA report and enforce. */
    public PathStates paths() {
        return paths;
    }

    /**
     * Records what hosts of one protocol ({@code topic}) see differently from the LUN's configuration and why (the
     * command set that exports it knows), replacing an earlier note of that topic.
     */
    public void caveat(String topic, String text) {
        caveats.put(Objects.requireNonNull(topic, "topic"), Objects.requireNonNull(text, "text"));
    }

    /** The caveats recorded so far, by topic. */
    public java.util.Map<String, String> caveats() {
        return java.util.Map.copyOf(caveats);
    }

    /** The LUN name, for logs. */
    public String name() {
        return name;
    }

    /** The LBA range lock both command sets take for writes. */
    public RangeLocks rangeLocks() {
        return rangeLocks;
    }

    /** The reservation state both command sets honour. */
    public Reservations reservations() {
        return reservations;
    }

    /** The trace while it is on; null = off (then the command sets do nothing more than this read). */
    public Tracer tracer() {
        return tracer;
    }

    /** Turns tracing on with {@code next} (replacing a trace that is on); returns the one replaced, or null. */
    public synchronized Tracer startTrace(Tracer next) {
        Tracer previous = tracer;
        tracer = java.util.Objects.requireNonNull(next, "next");
        lastTracer = next;
        return previous;
    }

    /** Turns tracing off; returns the trace that was on, or null. Its records and stats stay readable. */
    public synchronized Tracer stopTrace() {
        Tracer previous = tracer;
        tracer = null;
        return previous;
    }

    /** The trace that is on, else the last one that was, else null. */
    public synchronized Tracer lastTracer() {
        return lastTracer;
    }

    @Override
    public String toString() {
        return "LunState[" + name + "]";
    }
}
