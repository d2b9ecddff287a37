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
import java.util.concurrent.atomic.AtomicLong;

/**
 * Collects Netty's LEAK reports in memory for {@link NettyLeakExtension}, which fails the test with them
 * (so they are not logged as well). Installs a {@link ResourceLeakDetectorFactory} whose detectors record
 * each report instead of logging it, and sets the level to PARANOID so every buffer is tracked.
 */
public final class LeakReports {
    private static final Queue<String> REPORTS = new ConcurrentLinkedQueue<>();
    /** Resource types the installed factory made detectors for; must contain ByteBuf. */
    private static final Set<String> DETECTORS = ConcurrentHashMap.newKeySet();
    private static volatile boolean installed;
    /** Objects tracked since the last {@link #flush}: none, and nothing new can have leaked. */
    private static final AtomicLong TRACKED = new AtomicLong();
    /** Buffers {@link #flush} allocates to make Netty poll (each is tracked too: level PARANOID). */
    private static final int POLLING_ALLOCATIONS = 8;

    private LeakReports() {
    }

    static synchronized void install() {
        if (installed) {
            return;
        }
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
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
     * Skipped unless a buffer was tracked since the last flush, or {@code always}: the collections cost
     * ~20 ms, and most tests of config and many decoder tests track none.
     */
    static void flush(boolean always) {
        long tracked = TRACKED.get();
        if (tracked == 0 && !always) {
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
        // what other threads tracked meanwhile stays counted for the next flush
        TRACKED.addAndGet(-(tracked + POLLING_ALLOCATIONS));
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
            TRACKED.incrementAndGet();
            return super.track(obj);
        }

        @Override
        public ResourceLeakTracker<T> trackForcibly(T obj) {
            TRACKED.incrementAndGet();
            return super.trackForcibly(obj);
        }

        @Override
        protected boolean needReport() {
            return true;   // report even when no logger shows ERROR
        }

        @Override
        protected void reportTracedLeak(String resourceType, String records) {
            REPORTS.add("LEAK: " + resourceType + ".release() was not called before it was garbage-collected."
                    + records);
        }

        @Override
        protected void reportUntracedLeak(String resourceType) {
            REPORTS.add("LEAK: " + resourceType + ".release() was not called before it was garbage-collected"
                    + " (no access records)");
        }
    }
}
