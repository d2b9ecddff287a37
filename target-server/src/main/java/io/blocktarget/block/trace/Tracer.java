package io.blocktarget.block.trace;

import io.blocktarget.block.IoKind;
import io.blocktarget.time.Clock;

import java.time.Instant;

/**
 * The trace of one LUN while it is on: a {@link TraceRing} of records and the {@link TraceStats} of every command
 * recorded. Installed in {@code block.lun.LunState#startTrace}; the command sets look it up once per
 * command (one volatile read: null = off, and nothing else happens).
 *
 * <p>Times: arrival and latency are measured on the server's {@link Clock}; records carry the arrival as nanoseconds
 * since the epoch, from one wall-clock reading taken when the trace started (so records order like their clock
 * readings, whatever the wall clock does meanwhile).
 */
public final class Tracer {
    private final TraceRing ring;
    private final TraceStats stats;
    private final int logicalBlockSize;
    private final Instant started;
    private final long epochBaseNanos;
    private final long nanoBase;
    private final Clock clock;

    /**
     * @param ringSize          records kept, a power of two ({@link TraceRing})
     * @param logicalBlockSize  of the LUN, bytes
     * @param physicalBlockSize of the LUN, bytes
     * @param optimalTransfer   the LUN's optimal transfer length, bytes
     * @param clock             the LUN's ({@link io.blocktarget.block.LunState#clock}): arrivals and latencies
     */
    public Tracer(int ringSize, int logicalBlockSize, int physicalBlockSize, long optimalTransfer, Clock clock) {
        this.clock = java.util.Objects.requireNonNull(clock, "clock");
        this.ring = new TraceRing(ringSize);
        this.stats = new TraceStats(logicalBlockSize, physicalBlockSize, optimalTransfer);
        this.logicalBlockSize = logicalBlockSize;
        this.nanoBase = clock.nanoTime();
        this.started = Instant.now();
        this.epochBaseNanos = started.getEpochSecond() * 1_000_000_000L + started.getNano();
    }

    public TraceRing ring() {
        return ring;
    }

    public TraceStats stats() {
        return stats;
    }

    public Instant started() {
        return started;
    }

    public int logicalBlockSize() {
        return logicalBlockSize;
    }

    /** Now on the trace's clock: a command's arrival, for {@link #record}. */
    public long nanoTime() {
        return clock.nanoTime();
    }

    /**
     * Records one completed command (called by the command sets' completion hooks). {@code arrivalNanoTime} is
     * {@link #nanoTime} at arrival; the latency is measured to now.
     */
    public void record(long arrivalNanoTime, TraceRecord.Protocol protocol, String initiator, String connection,
                       int queue, long tag, int opcode, String op, IoKind kind, long lba, long blocks, int flags,
                       int queueDepth, String status, boolean ok, int senseKey, int asc, int ascq, int sct, int sc,
                       boolean dnr) {
        record(arrivalNanoTime, protocol, initiator, connection, queue, tag, opcode, op, kind, lba, blocks, flags,
                queueDepth, status, ok, senseKey, asc, ascq, sct, sc, dnr, -1);
    }

    /** {@link #record} of a write that carried a data placement identifier ({@link TraceRecord#placement}). */
    public void record(long arrivalNanoTime, TraceRecord.Protocol protocol, String initiator, String connection,
                       int queue, long tag, int opcode, String op, IoKind kind, long lba, long blocks, int flags,
                       int queueDepth, String status, boolean ok, int senseKey, int asc, int ascq, int sct, int sc,
                       boolean dnr, int placement) {
        long latency = clock.nanoTime() - arrivalNanoTime;
        long bytes = blocks > 0 ? blocks * logicalBlockSize : 0;
        stats.record(kind, lba, blocks, bytes, queueDepth, latency, ok);
        long seq = ring.claim();
        ring.publish(new TraceRecord(seq, epochBaseNanos + (arrivalNanoTime - nanoBase), protocol, initiator,
                connection, queue, tag, opcode, op, kind, lba, blocks, bytes, flags, queueDepth, latency, status, ok,
                senseKey, asc, ascq, sct, sc, dnr, placement));
    }
}
