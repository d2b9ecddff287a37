package io.blocktarget.bench;

import org.HdrHistogram.Histogram;

/**
 * What one connection measured: latency from submit to completion (nanoseconds, HdrHistogram with 3 significant
 * digits up to one minute) of the I/Os that completed inside the measurement window, and error counts over the
 * whole run. Written by the connection's event loop only; read after the run.
 */
final class JobStats {
    static final long HIGHEST_TRACKABLE_NANOS = 60_000_000_000L;

    final Histogram latency = new Histogram(1, HIGHEST_TRACKABLE_NANOS, 3);
    private final long windowStart;
    private final long windowEnd;
    long ios;
    long errors;
    long verifyErrors;
    /** Reads that found zeros where no write of this run was acknowledged before they were sent. */
    long unwrittenReads;

    JobStats(long windowStart, long windowEnd) {
        this.windowStart = windowStart;
        this.windowEnd = windowEnd;
    }

    /** Records one completed I/O; {@code ok} false counts an error (non-GOOD status, CQE error). */
    void complete(long submitted, long completed, boolean ok) {
        if (!ok) {
            errors++;
        }
        if (completed - windowStart >= 0 && completed - windowEnd < 0) {
            ios++;
            latency.recordValue(Math.min(completed - submitted, HIGHEST_TRACKABLE_NANOS));
        }
    }

    void verifyFailed() {
        verifyErrors++;
    }

    void unwrittenRead() {
        unwrittenReads++;
    }
}
