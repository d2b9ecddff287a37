// Reads a JFR recording of the server and prints where it allocates and spends CPU, per I/O. Run by bench/profile
// as a single-file program:
//   java bench/JfrTop.java RECORDING.jfr IOS [TOP] [FROM_EPOCH_MS]
// IOS: the I/Os the load generator completed in the measured run (allocation per I/O = bytes / IOS); FROM_EPOCH_MS:
// when that run started: events before it (start-up, prefill, warm-up) are not counted.
// Prints: the bytes allocated (sum of jdk.ObjectAllocationSample weights, JFR's estimate of all allocation) per I/O
// by all threads and by the event loops; the GC cycles; the TOP allocation sites of the event loops (class and
// three frames) with their share and bytes per I/O; the TOP methods the event loops were sampled in
// (jdk.ExecutionSample, top frame) and the TOP methods on the stack (inclusive); the JIT's activity in the measured
// run: compilations (count, C2 ones, their summed duration, which takes the pinned core from the event loop) and
// deoptimizations by reason and site (each one sends a method back to be compiled again).
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

public class JfrTop {
    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        double ios = Double.parseDouble(args[1]);
        int top = args.length > 2 ? Integer.parseInt(args[2]) : 15;
        java.time.Instant from = java.time.Instant.ofEpochMilli(args.length > 3 ? Long.parseLong(args[3]) : 0);
        Map<String, Long> allocBySite = new HashMap<>();
        Map<String, Integer> selfSamples = new HashMap<>();
        Map<String, Integer> inclusiveSamples = new HashMap<>();
        long allocAll = 0;
        long allocLoops = 0;
        int samples = 0;
        Set<Long> gcs = new HashSet<>();
        int compilations = 0;
        int c2 = 0;
        long compileMillis = 0;
        Map<String, Integer> deopts = new HashMap<>();
        // jdk.ThreadAllocationStatistics: each thread's bytes allocated so far (exact), once a second
        Map<String, long[]> allocatedRange = new HashMap<>();
        for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
            if (e.getStartTime().isBefore(from)) {
                continue;
            }
            String type = e.getEventType().getName();
            switch (type) {
                case "jdk.ObjectAllocationSample" -> {
                    long weight = e.getLong("weight");
                    allocAll += weight;
                    if (isEventLoop(e.getThread("eventThread"))) {
                        allocLoops += weight;
                        allocBySite.merge(e.getClass("objectClass").getName() + " <- " + frames(e.getStackTrace(), Integer.getInteger("depth", 3)),
                                weight, Long::sum);
                    }
                }
                case "jdk.ExecutionSample" -> {
                    if (isEventLoop(e.getThread("sampledThread")) && e.getStackTrace() != null) {
                        samples++;
                        List<RecordedFrame> frames = e.getStackTrace().getFrames();
                        if (!frames.isEmpty()) {
                            selfSamples.merge(method(frames.get(0)), 1, Integer::sum);
                        }
                        Set<String> seen = new HashSet<>();
                        for (RecordedFrame f : frames) {
                            if (seen.add(method(f))) {
                                inclusiveSamples.merge(method(f), 1, Integer::sum);
                            }
                        }
                    }
                }
                case "jdk.GarbageCollection" -> gcs.add(e.getLong("gcId"));
                case "jdk.Compilation" -> {
                    compilations++;
                    compileMillis += e.getDuration().toMillis();
                    if (e.getInt("compileLevel") == 4) {
                        c2++;
                    }
                }
                case "jdk.Deoptimization" -> deopts.merge(e.getString("reason") + " " + e.getString("instruction")
                        + " in " + method(e.getStackTrace() != null && !e.getStackTrace().getFrames().isEmpty()
                        ? e.getStackTrace().getFrames().get(0) : null), 1, Integer::sum);
                case "jdk.ThreadAllocationStatistics" -> {
                    if (isEventLoop(e.getThread("thread"))) {
                        long bytes = e.getLong("allocated");
                        allocatedRange.merge(e.getThread("thread").getJavaName(), new long[] {bytes, bytes},
                                (a, b) -> new long[] {Math.min(a[0], b[0]), Math.max(a[1], b[1])});
                    }
                }
                default -> { }
            }
        }
        long exact = allocatedRange.values().stream().mapToLong(r -> r[1] - r[0]).sum();
        System.out.printf("allocated_bytes_per_io event_loops=%.0f (thread statistics, exact over whole seconds) "
                + "sampled: all_threads=%.0f event_loops=%.0f; gc_cycles=%d ios=%.0f%n",
                exact / ios, allocAll / ios, allocLoops / ios, gcs.size(), ios);
        System.out.println("event-loop allocation sites (share, bytes per I/O):");
        long loops = allocLoops;
        allocBySite.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(top)
                .forEach(en -> System.out.printf("  %5.1f%% %7.1f  %s%n", 100.0 * en.getValue() / loops,
                        en.getValue() / ios, en.getKey()));
        int n = samples;
        System.out.printf("event-loop CPU samples: %d; top frames (self):%n", n);
        print(selfSamples, n, top);
        System.out.println("on the stack (inclusive):");
        print(inclusiveSamples, n, top);
        int deoptTotal = deopts.values().stream().mapToInt(Integer::intValue).sum();
        System.out.printf("jit: compilations=%d (c2 %d) compile_ms=%d deoptimizations=%d (jdk.Compilation is recorded "
                + "only with a threshold of 0 ms, as bench/profile sets it)%n", compilations, c2, compileMillis,
                deoptTotal);
        deopts.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed()).limit(top)
                .forEach(en -> System.out.printf("  %5d  %s%n", en.getValue(), en.getKey()));
    }

    private static boolean isEventLoop(RecordedThread t) {
        return t != null && t.getJavaName() != null && t.getJavaName().contains("eventloop");
    }

    private static void print(Map<String, Integer> counts, int n, int top) {
        counts.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed()).limit(top)
                .forEach(en -> System.out.printf("  %5.1f%%  %s%n", 100.0 * en.getValue() / Math.max(1, n), en.getKey()));
    }

    private static String frames(RecordedStackTrace st, int depth) {
        if (st == null) {
            return "?";
        }
        StringBuilder b = new StringBuilder();
        List<RecordedFrame> frames = st.getFrames();
        for (int i = 0; i < Math.min(depth, frames.size()); i++) {
            b.append(i == 0 ? "" : " < ").append(method(frames.get(i)));
        }
        return b.toString();
    }

    private static String method(RecordedFrame f) {
        if (f == null) {
            return "?";
        }
        String type = f.getMethod().getType().getName();
        return type.substring(type.lastIndexOf('.') + 1) + "." + f.getMethod().getName();
    }
}
