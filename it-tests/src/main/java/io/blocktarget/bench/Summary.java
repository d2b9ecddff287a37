package io.blocktarget.bench;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.List;
import java.util.Locale;

/**
 * The result of one run: throughput over the measurement window and latency percentiles of the I/Os completed
 * in it (all jobs merged), plus errors over the whole run. {@link #line()} is the one line printed on stdout;
 * {@link #json()} adds the histogram.
 *
 * @param mibps  MiB/s (2^20 bytes per second), printed as {@code mbps} like fio's MiB/s
 * @param errors I/Os that ended in a non-GOOD status / CQE error, plus verify mismatches
 * @param verify {@code --verify} was on
 * @param unwrittenReads with {@code --verify}, reads that found zeros where no write of this run was acknowledged
 *                       before they were sent: blocks the run had not written (yet), not errors
 * @param clientCpuNanos CPU time of this process (all threads) over the measurement window, -1 if unknown: the
 *                       generator's own cost per I/O, to show it is not the bottleneck
 */
public record Summary(String proto, String rw, int bs, int qd, int jobs, double seconds, long ios, double iops,
                      double mibps, long p50us, long p99us, long p999us, long errors, long verifyErrors,
                      boolean verify, long unwrittenReads, long clientCpuNanos, Histogram latencyNanos) {
    static final double[] PERCENTILES = {1, 5, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.99, 100};

    static Summary of(LoadGenOptions o, List<JobStats> jobs, long clientCpuNanos) {
        Histogram merged = new Histogram(1, JobStats.HIGHEST_TRACKABLE_NANOS, 3);
        long ios = 0;
        long errors = 0;
        long verifyErrors = 0;
        long unwrittenReads = 0;
        for (JobStats j : jobs) {
            merged.add(j.latency);
            ios += j.ios;
            errors += j.errors;
            verifyErrors += j.verifyErrors;
            unwrittenReads += j.unwrittenReads;
        }
        double seconds = o.time().toNanos() / 1e9;
        double iops = ios / seconds;
        return new Summary(o.protocol().cliName, o.workload().cliName, o.blockSize(), o.queueDepth(), o.jobs(),
                seconds, ios, iops, iops * o.blockSize() / (1 << 20), micros(merged, 50), micros(merged, 99),
                micros(merged, 99.9), errors + verifyErrors, verifyErrors, o.verify(), unwrittenReads, clientCpuNanos,
                merged);
    }

    private static long micros(Histogram h, double percentile) {
        return h.getTotalCount() == 0 ? 0 : Math.round(h.getValueAtPercentile(percentile) / 1000.0);
    }

    /**
     * {@code proto=iscsi rw=randread bs=4096 qd=32 jobs=1 iops=123456 mbps=482.3 p50us=210 p99us=450 p999us=900
     * errors=0 clientcpuus=1.25} — the last field is the generator's own CPU µs per I/O (-1 unknown): near the
     * I/O's share of a core the client, not the target, limited the row. With --verify {@code unwritten=N} (the
     * {@link #unwrittenReads}) follows {@code errors=}, so the line still ends with {@code clientcpuus=}.
     */
    public String line() {
        return String.format(Locale.ROOT,
                "proto=%s rw=%s bs=%d qd=%d jobs=%d iops=%d mbps=%.1f p50us=%d p99us=%d p999us=%d errors=%d%s"
                        + " clientcpuus=%.2f",
                proto, rw, bs, qd, jobs, Math.round(iops), mibps, p50us, p99us, p999us, errors,
                verify ? " unwritten=" + unwrittenReads : "", clientCpuMicrosPerIo());
    }

    /** The generator's CPU time per I/O of the window in µs, -1 when the JVM does not say or nothing completed. */
    public double clientCpuMicrosPerIo() {
        return clientCpuNanos < 0 || ios == 0 ? -1.0 : clientCpuNanos / 1000.0 / ios;
    }

    /**
     * The summary fields ({@code unwritten_reads} 0 without --verify, like {@code verify_errors}), then the latency
     * histogram three ways: percentiles (µs), power-of-two buckets from 1 µs (upper bound µs and count), and
     * HdrHistogram's compressed V2 encoding (base64, nanoseconds) for tools that merge or re-plot.
     */
    public String json() {
        StringBuilder b = new StringBuilder(4096);
        b.append(String.format(Locale.ROOT, """
                {"proto":"%s","rw":"%s","bs":%d,"qd":%d,"jobs":%d,"seconds":%.3f,"ios":%d,"iops":%.1f,\
                "mbps":%.3f,"p50us":%d,"p99us":%d,"p999us":%d,"errors":%d,"verify_errors":%d,\
                "unwritten_reads":%d,"client_cpu_us_per_io":%.3f,"min_us":%.3f,"mean_us":%.3f,"max_us":%.3f,\
                "histogram":{"unit":"us","percentiles":[""",
                proto, rw, bs, qd, jobs, seconds, ios, iops, mibps, p50us, p99us, p999us, errors, verifyErrors,
                unwrittenReads, clientCpuMicrosPerIo(),
                latencyNanos.getTotalCount() == 0 ? 0.0 : latencyNanos.getMinValue() / 1000.0,
                latencyNanos.getMean() / 1000.0, latencyNanos.getMaxValue() / 1000.0));
        for (int i = 0; i < PERCENTILES.length; i++) {
            b.append(i == 0 ? "" : ",").append(String.format(Locale.ROOT, "{\"p\":%s,\"us\":%.3f}",
                    PERCENTILES[i], latencyNanos.getTotalCount() == 0 ? 0.0
                            : latencyNanos.getValueAtPercentile(PERCENTILES[i]) / 1000.0));
        }
        b.append("],\"buckets\":[");
        boolean first = true;
        if (latencyNanos.getTotalCount() > 0) {
            for (HistogramIterationValue v : latencyNanos.logarithmicBucketValues(1000, 2)) {
                if (v.getCountAddedInThisIterationStep() == 0) {
                    continue;
                }
                b.append(first ? "" : ",").append(String.format(Locale.ROOT, "{\"le_us\":%.0f,\"count\":%d}",
                        v.getValueIteratedTo() / 1000.0, v.getCountAddedInThisIterationStep()));
                first = false;
            }
        }
        ByteBuffer hdr = ByteBuffer.allocate(latencyNanos.getNeededByteBufferCapacity());
        int n = latencyNanos.encodeIntoCompressedByteBuffer(hdr);
        byte[] bytes = new byte[n];
        hdr.flip().get(bytes);
        b.append("],\"hdr_base64\":\"").append(Base64.getEncoder().encodeToString(bytes)).append("\"}}\n");
        return b.toString();
    }
}
