package io.blocktarget.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import io.netty.util.ResourceLeakTracker;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAdder;

/**
 * Collects Netty's LEAK reports in memory for {@link NettyLeakExtension}, which fails the test with them
 * (so they are not logged as well). Installs a {@link ResourceLeakDetectorFactory} whose detectors record
 * each report instead of logging it and track every buffer, as level PARANOID does.
 *
 * <p>A report says where the buffer was made. Where it was last touched too only with
 * {@code BLOCKTARGET_LEAK_RECORDS=1} (then the level is PARANOID): Netty records that by capturing a stack trace at
 * every access of every buffer, which made a byte-at-a-time decoder test or an 8 MiB compare take tens of seconds
 * (issue 26); without, the detector tracks every buffer at level SIMPLE, whose buffers record nothing on access.
 */
public final class LeakReports {
    private static final Queue<String> REPORTS = new ConcurrentLinkedQueue<>();
    /** Resource types the installed factory made detectors for; must contain ByteBuf. */
    private static final Set<String> DETECTORS = ConcurrentHashMap.newKeySet();
    private static volatile boolean installed;
    /** BLOCKTARGET_LEAK_RECORDS=1: reports say where the buffer was accessed last, at a great cost (above). */
    private static final boolean ACCESS_RECORDS = "1".equals(System.getenv("BLOCKTARGET_LEAK_RECORDS"));
    /**
     * The trackers made since the last {@link #flush} that are still open (their buffer not released): none, and
     * nothing new can have leaked — a buffer leaks by becoming unreachable unreleased, and every one tracked since
     * was released. Replaced by each flush; a tracker counts itself out of the epoch it was made in.
     */
    private static volatile Epoch epoch = new Epoch();
    /** Buffers {@link #flush} allocates to make Netty poll (each is tracked too). */
    private static final int POLLING_ALLOCATIONS = 8;

    private LeakReports() {
    }

    static synchronized void install() {
        if (installed) {
            return;
        }
        ResourceLeakDetector.setLevel(ACCESS_RECORDS ? ResourceLeakDetector.Level.PARANOID
                : ResourceLeakDetector.Level.SIMPLE);
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new ResourceLeakDetectorFactory() {
            @Override
            public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval,
                                                                       long maxActive) {
                DETECTORS.add(resource.getName());
                return new CollectingDetector<>(resource, samplingInterval);
            }
        });
        installed = true;
    }

    /** Fails when ByteBuf's detector was made before {@link #install()}: its leaks would go unnoticed. */
    static void verifyInstalled() {
        UnpooledByteBufAllocator.DEFAULT.heapBuffer(1).release();   // initialises AbstractByteBuf
        if (!DETECTORS.contains(ByteBuf.class.getName())) {
            throw new IllegalStateException("Netty's ByteBuf leak detector was created before NettyLeakExtension "
                    + "installed its factory; leaks would not fail tests");
        }
    }

    /**
     * Makes the reports of every buffer unreachable by now appear: two garbage collections, each awaited
     * through a sentinel weak reference, then allocations (Netty polls its reference queue when it tracks a
     * new buffer). Two, because the one reference-handler thread may enqueue the first sentinel before the
     * buffers' trackers found by the same collection; it enqueues the second only after that whole batch.
     * The two full collections cost ~100 ms of CPU in a test JVM, more than most unit tests (issue 26: they were
     * 80 % of the quick tier), so they are skipped where nothing can have leaked since the last ones: unless
     * {@code always}, when every buffer tracked since is released (most tests release all they make); with
     * {@code always} (a class's end, where buffers held by its test instances and event loops are let go) only when
     * no buffer was tracked since at all.
     */
    static void flush(boolean always) {
        Epoch current = epoch;
        if (always ? current.made.sum() == 0 : current.open.sum() == 0) {
            return;
        }
        for (int round = 0; round < 2; round++) {
            ReferenceQueue<Object> queue = new ReferenceQueue<>();
            WeakReference<Object> sentinel = new WeakReference<>(new Object(), queue);
            try {
                int attempt = 0;
                do {
                    System.gc();
                } while (queue.remove(20) == null && ++attempt < 50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            sentinel.clear();
        }
        for (int i = 0; i < POLLING_ALLOCATIONS / 2; i++) {
            UnpooledByteBufAllocator.DEFAULT.heapBuffer(1).release();
            UnpooledByteBufAllocator.DEFAULT.directBuffer(1).release();
        }
        // buffers still open now are reachable (a collection would have reported them): the next test starts clean
        epoch = new Epoch();
    }

    /** The trackers made in one interval between flushes, and those of them still open. */
    private static final class Epoch {
        final LongAdder made = new LongAdder();
        final LongAdder open = new LongAdder();
    }

    /** Netty's tracker, counted in the epoch it was made in until its buffer is released. */
    private record Counted<T>(ResourceLeakTracker<T> tracker, Epoch made) implements ResourceLeakTracker<T> {
        static <T> ResourceLeakTracker<T> of(ResourceLeakTracker<T> tracker) {
            if (tracker == null) {
                return null;
            }
            Epoch made = epoch;
            made.made.increment();
            made.open.increment();
            return new Counted<>(tracker, made);
        }

        @Override
        public void record() {
            tracker.record();
        }

        @Override
        public void record(Object hint) {
            tracker.record(hint);
        }

        @Override
        public Throwable getCloseStackTraceIfAny() {
            return tracker.getCloseStackTraceIfAny();
        }

        @Override
        public boolean close(T trackedObject) {
            boolean closed = tracker.close(trackedObject);
            if (closed) {
                made.open.decrement();
            }
            return closed;
        }
    }

    /** Returns and forgets the reports collected so far. */
    static List<String> drain() {
        List<String> out = new ArrayList<>();
        for (String r; (r = REPORTS.poll()) != null; ) {
            out.add(r);
        }
        return out;
    }

    private static final class CollectingDetector<T> extends ResourceLeakDetector<T> {
        CollectingDetector(Class<T> resource, int samplingInterval) {
            super(resource, samplingInterval);
        }

        @Override
        public ResourceLeakTracker<T> track(T obj) {
            // level SIMPLE would sample one buffer in 128: every buffer is tracked here all the same
            return Counted.of(ACCESS_RECORDS ? super.track(obj) : super.trackForcibly(obj));
        }

        @Override
        public ResourceLeakTracker<T> trackForcibly(T obj) {
            return Counted.of(super.trackForcibly(obj));
        }

        @Override
        protected boolean needReport() {
            return true;   // report even when no logger shows ERROR
        }

        @Override
        protected void reportTracedLeak(String resourceType, String records) {
            REPORTS.add("LEAK: " + resourceType + ".release() was not called before it was garbage-collected."
                    + records + (ACCESS_RECORDS ? "" : "\n(BLOCKTARGET_LEAK_RECORDS=1: where it was accessed too)"));
        }

        @Override
        protected void reportUntracedLeak(String resourceType) {
            REPORTS.add("LEAK: " + resourceType + ".release() was not called before it was garbage-collected"
                    + " (no access records)");
        }
    }
}
