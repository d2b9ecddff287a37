package io.blocktarget.server;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockError;
import io.blocktarget.block.BlockIoException;
import io.blocktarget.block.HoldingDevice;
import io.blocktarget.block.Io;
import io.blocktarget.block.IoCallback;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.config.AccessConfig;
import io.blocktarget.config.BackendKind;
import io.blocktarget.config.IscsiExport;
import io.blocktarget.config.LunConfig;
import io.blocktarget.config.NvmeExport;
import io.blocktarget.config.ServerConfig;
import io.blocktarget.nvme.NvmeLimits;
import io.blocktarget.nvme.NvmePort;
import io.blocktarget.nvme.NvmeSubsystems;
import io.blocktarget.scsi.ItNexus;
import io.blocktarget.scsi.ScsiCommand;
import io.blocktarget.scsi.ScsiResponse;
import io.blocktarget.scsi.TaskAttribute;
import io.blocktarget.server.ControlPlane.ApplyOptions;
import io.blocktarget.server.ControlPlane.ApplyResult;
import io.blocktarget.server.ControlPlane.ControlException;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The registry's {@link ControlPlane#apply}: the diff, all-or-nothing, one apply at a time, snapshots swapped under
 * concurrent readers, removals drained before their device closes, RAM returned to the budget.
 */
class RegistryTest {
    private static final String IQN = ServerConfig.DEFAULT_IQN_PREFIX;
    private static final String NQN = ServerConfig.DEFAULT_NQN_PREFIX;
    private static final String SHARED_TARGET = IQN + "shared";
    private static final String SHARED_SUBSYSTEM = NQN + "shared";

    private final MemoryBudget budget = new MemoryBudget(64L << 20);
    /** Every device opened, by LUN name (last one wins), to check what was closed. */
    private final Map<String, BlockDevice> opened = new ConcurrentHashMap<>();
    private final List<String> openOrder = new CopyOnWriteArrayList<>();
    private volatile Function<LunConfig, BlockDevice> wrap = lunConfig -> null;
    private final Registry registry = newRegistry();

    private Registry newRegistry() {
        ServerConfig server = new ServerConfig(null, "127.0.0.1", 0, 0, 0, budget.limit(), IQN, NQN);
        Registry.BackendOpener real = Registry.opener(budget, Runnable::run);
        Registry.BackendOpener opener = c -> {
            openOrder.add(c.name());
            BlockDevice device = real.open(c);
            BlockDevice wrapped = wrap.apply(c);
            BlockDevice result = wrapped == null ? device : wrapped;
            if (wrapped != null) {
                device.close();
            }
            opened.put(c.name(), result);
            return result;
        };
        NvmeSubsystems nvme = NvmeSubsystems.of(List.of(), List.of(new NvmePort(1, "127.0.0.1", 4420)),
                NvmeLimits.DEFAULT, new ManualClock(), Map.of());
        return new Registry(server, Optional.empty(), budget, opener, null, nvme, new ManualClock());
    }

    @AfterEach
    void close() {
        registry.closeAll();
    }

    /** A RAM LUN on the shared target / subsystem at {@code number} (LUN and NSID). */
    private static LunConfig shared(String name, int number, long size, int lbs) {
        return new LunConfig(name, null, BackendKind.RAM, size, lbs, lbs,
                Optional.of(new IscsiExport(SHARED_TARGET, number)), Optional.of(new NvmeExport(SHARED_SUBSYSTEM, number + 1)),
                false, Optional.empty(), AccessConfig.OPEN);
    }

    /** A RAM LUN on a target and subsystem of its own. */
    private static LunConfig own(String name, long size) {
        return new LunConfig(name, null, BackendKind.RAM, size, 4096, 4096,
                Optional.of(new IscsiExport(IQN + name, 0)), Optional.of(new NvmeExport(NQN + name, 1)),
                false, Optional.empty(), AccessConfig.OPEN);
    }

    private List<String> names() {
        return registry.luns().stream().map(s -> s.config().name()).toList();
    }

    private List<Long> sharedLuns() {
        return registry.snapshot().scsiTargets().get(SHARED_TARGET).luns();
    }

    @Test
    void applyTellsAddedRemovedResizedAndReplacedApart() throws Exception {
        ApplyResult first = registry.apply(List.of(shared("a", 0, 1 << 20, 512), shared("b", 1, 1 << 20, 4096),
                shared("c", 2, 1 << 20, 4096), own("e", 1 << 20)));
        assertThat(first.added()).containsExactly("a", "b", "c", "e");
        assertThat(first.removed()).isEmpty();
        BlockDevice e = opened.get("e");
        Io.write(e, 0, new byte[4096]);
        assertThat(budget.used()).isEqualTo(64 << 10);
        BlockDevice oldC = opened.get("c");

        ApplyResult second = registry.apply(List.of(shared("d", 3, 2 << 20, 16384), shared("a", 0, 1 << 20, 512),
                shared("b", 1, 4 << 20, 4096), shared("c", 2, 1 << 20, 65536)), ApplyOptions.FORCE);

        assertThat(second.added()).containsExactly("d");
        assertThat(second.removed()).containsExactly("e");
        assertThat(second.resized()).containsExactly("b");
        assertThat(second.replaced()).containsExactly("c");
        assertThat(second.changes()).filteredOn(c -> c.lun().equals("c")).singleElement()
                .satisfies(c -> assertThat(c.keys()).extracting(k -> k.key() + " " + k.before() + " -> " + k.after()
                        + " " + k.rule()).containsExactly("logical-block-size 4KiB -> 64KiB REPLACE",
                        "physical-block-size 4KiB -> 64KiB REPLACE"));
        assertThat(names()).containsExactly("d", "a", "b", "c");   // the desired order
        assertThat(registry.lun("b").orElseThrow().config().size()).isEqualTo(4 << 20);
        assertThat(opened.get("b").geometry().blockCount()).isEqualTo(1024);
        assertThat(sharedLuns()).containsExactly(0L, 1L, 2L, 3L);
        assertThat(registry.snapshot().scsiTargets()).doesNotContainKey(IQN + "e");   // its only LUN went: target gone
        assertThat(registry.snapshot().scsiTargets().get(SHARED_TARGET)).isNotNull();
        // the replaced LUN's old device is closed, its memory returned; e's memory returned too
        assertThat(Io.<ByteBuf>failureOf(cb -> oldC.read(0, 1, cb))).isEqualTo(BlockError.CLOSED);
        assertThat(Io.<ByteBuf>failureOf(cb -> e.read(0, 1, cb))).isEqualTo(BlockError.CLOSED);
        assertThat(budget.used()).isZero();
        assertThat(registry.lun("c").orElseThrow().config().logicalBlockSize()).isEqualTo(65536);

        assertThat(registry.apply(List.of(shared("d", 3, 2 << 20, 16384), shared("a", 0, 1 << 20, 512),
                shared("b", 1, 4 << 20, 4096), shared("c", 2, 1 << 20, 65536))).changedNothing()).isTrue();
    }

    @Test
    void aFailingBackendChangesNothingAndClosesWhatWasOpened() throws Exception {
        registry.apply(List.of(own("a", 1 << 20)));
        Registry.Snapshot before = registry.snapshot();
        wrap = c -> {
            if (c.name().equals("broken")) {
                throw new IllegalStateException("disk on fire");
            }
            return null;
        };
        ControlException e = org.junit.jupiter.api.Assertions.assertThrows(ControlException.class,
                () -> registry.apply(List.of(own("x", 1 << 20), own("broken", 1 << 20))));
        assertThat(e.kind()).isEqualTo(ControlException.Kind.UNAVAILABLE);
        assertThat(e.lun()).isEqualTo("broken");
        assertThat(e.getMessage()).contains("disk on fire").contains("nothing changed");
        assertThat(registry.snapshot()).isSameAs(before);
        assertThat(names()).containsExactly("a");   // a not removed either
        assertThat(Io.<ByteBuf>failureOf(cb -> opened.get("x").read(0, 1, cb))).isEqualTo(BlockError.CLOSED);
        assertThat(Io.read(opened.get("a"), 0, 1)).hasSize(4096);
    }

    @Test
    void aFailingResizeSizesBackTheOnesDoneBefore() throws Exception {
        wrap = c -> c.name().equals("stuck") ? new RefusingResize(c.name()) : null;
        registry.apply(List.of(own("first", 1 << 20), own("stuck", 1 << 20)));
        assertThatThrownBy(() -> registry.apply(List.of(own("first", 2 << 20), own("stuck", 2 << 20))))
                .isInstanceOf(ControlException.class).hasMessageContaining("stuck");
        assertThat(opened.get("first").geometry().blockCount()).isEqualTo(256);   // sized back
        assertThat(registry.lun("first").orElseThrow().config().size()).isEqualTo(1 << 20);
    }

    /** A device that refuses every resize (as a block device too small would); reads and writes go to a null device. */
    private static final class RefusingResize implements BlockDevice {
        private final BlockDevice inner;

        RefusingResize(String name) {
            inner = new io.blocktarget.block.nil.NullBlockDevice(name,
                    new io.blocktarget.block.BlockGeometry(4096, 4096, 256), false);
        }

        @Override
        public void resize(long newBlockCount, IoCallback<Void> callback) {
            callback.complete(null, new BlockIoException(BlockError.INVALID_LENGTH, "too small"));
        }

        @Override
        public String name() {
            return inner.name();
        }

        @Override
        public io.blocktarget.block.BlockGeometry geometry() {
            return inner.geometry();
        }

        @Override
        public boolean readOnly() {
            return false;
        }

        @Override
        public void read(long lba, int blockCount, IoCallback<ByteBuf> callback) {
            inner.read(lba, blockCount, callback);
        }

        @Override
        public void write(long lba, ByteBuf data, boolean fua, IoCallback<Void> callback) {
            inner.write(lba, data, fua, callback);
        }

        @Override
        public void flush(IoCallback<Void> callback) {
            inner.flush(callback);
        }

        @Override
        public void unmap(List<io.blocktarget.block.BlockRange> ranges, IoCallback<Void> callback) {
            inner.unmap(ranges, callback);
        }

        @Override
        public void writeZeroes(long lba, long blockCount, IoCallback<Void> callback) {
            inner.writeZeroes(lba, blockCount, callback);
        }

        @Override
        public void close() {
            inner.close();
        }
    }

    @Test
    void concurrentAppliesRunOneAtATime() throws Exception {
        CountDownLatch inOpener = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger active = new AtomicInteger();
        AtomicInteger maxActive = new AtomicInteger();
        wrap = c -> {
            maxActive.accumulateAndGet(active.incrementAndGet(), Math::max);
            try {
                if (c.name().equals("slow")) {
                    inOpener.countDown();
                    release.await(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                active.decrementAndGet();
            }
            return null;
        };
        java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(2);
        CompletableFuture<ApplyResult> first = CompletableFuture.supplyAsync(
                () -> applyUnchecked(List.of(own("slow", 1 << 20))), threads);
        assertThat(inOpener.await(10, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<ApplyResult> second = CompletableFuture.supplyAsync(
                () -> applyUnchecked(List.of(own("quick", 1 << 20))), threads);
        // the second waits for the lock while the first is inside
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!registry.applyWaiting() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(registry.applyWaiting()).isTrue();
        assertThat(openOrder).containsExactly("slow");
        release.countDown();
        assertThat(first.get(10, TimeUnit.SECONDS).added()).containsExactly("slow");
        // the second saw the first's result: it removes slow
        ApplyResult secondResult = second.get(10, TimeUnit.SECONDS);
        assertThat(secondResult.added()).containsExactly("quick");
        assertThat(secondResult.removed()).containsExactly("slow");
        assertThat(maxActive.get()).isEqualTo(1);
        assertThat(names()).containsExactly("quick");
        threads.shutdown();
    }

    private ApplyResult applyUnchecked(List<LunConfig> desired) {
        try {
            return registry.apply(desired);
        } catch (ControlException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Readers always see one whole snapshot (the LUN list of set A or of set B, each LUN with its own device); the
     * shared target's inventory goes step by step (a LUN out, then the others in) and the LUN both sets keep never
     * leaves it.
     */
    @Test
    void readersSeeWholeSnapshotsWhileAppliesSwapThem() throws Exception {
        List<LunConfig> setA = List.of(shared("a0", 0, 1 << 20, 4096), shared("a1", 1, 1 << 20, 4096));
        List<LunConfig> setB = List.of(shared("a0", 0, 1 << 20, 4096), shared("b2", 2, 1 << 20, 4096),
                shared("b3", 3, 1 << 20, 4096));
        registry.apply(setA);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<String> torn = new AtomicReference<>();
        AtomicInteger reads = new AtomicInteger();
        List<Thread> readers = new ArrayList<>();
        for (int t = 0; t < 3; t++) {
            Thread reader = new Thread(() -> {
                while (!stop.get() && torn.get() == null) {
                    Registry.Snapshot s = registry.snapshot();
                    List<String> luns = s.luns().stream().map(Lun::name).toList();
                    if (!luns.equals(List.of("a0", "a1")) && !luns.equals(List.of("a0", "b2", "b3"))) {
                        torn.set("LUN list " + luns);
                    }
                    for (Lun lun : s.luns()) {
                        if (!lun.name().equals(lun.device().name())) {
                            torn.set("LUN " + lun.name() + " with the device of " + lun.device().name());
                        }
                    }
                    List<Long> inventory = registry.snapshot().scsiTargets().get(SHARED_TARGET).luns();
                    if (!inventory.contains(0L) || !List.of(0L, 1L, 2L, 3L).containsAll(inventory)) {
                        torn.set("inventory " + inventory);   // a0 is in both sets: untouched by every step
                    }
                    reads.incrementAndGet();
                }
            });
            reader.start();
            readers.add(reader);
        }
        for (int i = 0; i < 100; i++) {
            registry.apply(i % 2 == 0 ? setB : setA);
        }
        while (reads.get() < 1000 && torn.get() == null) {
            Thread.onSpinWait();
        }
        stop.set(true);
        for (Thread r : readers) {
            r.join(10_000);
        }
        assertThat(torn.get()).isNull();
        assertThat(names()).containsExactly("a0", "a1");
        assertThat(budget.used()).isZero();
    }

    /** A removal refuses new commands at once, waits for the one held in the backend, then closes the device. */
    @Test
    void removalDrainsTheCommandInFlightBeforeClosing() throws Exception {
        AtomicReference<HoldingDevice> holding = new AtomicReference<>();
        wrap = c -> {
            HoldingDevice h = new HoldingDevice(new io.blocktarget.block.ram.RamBlockDevice(c.name(),
                    new io.blocktarget.block.BlockGeometry(4096, 4096, c.blockCount()), false, budget));
            holding.set(h);
            return h;
        };
        registry.apply(List.of(shared("keep", 0, 1 << 20, 4096), shared("going", 1, 1 << 20, 4096)));
        Lun going = registry.snapshot().lun("going").orElseThrow();
        var target = registry.snapshot().scsiTargets().get(SHARED_TARGET);
        ItNexus nexus = new ItNexus("iqn.2026-11.test:host,i,0x23d000000001", SHARED_TARGET + ",t,0x0001", 1);
        // READ(10) of LBA 0 (past the POWER ON unit attention first)
        release(runScsi(target, nexus, 1, new byte[] {0x00, 0, 0, 0, 0, 0}).get(5, TimeUnit.SECONDS));
        CompletableFuture<ScsiResponse> read = runScsi(target, nexus, 1, new byte[] {0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0});
        assertThat(holding.get().heldCount()).isEqualTo(1);

        java.util.concurrent.ExecutorService thread = java.util.concurrent.Executors.newSingleThreadExecutor();
        CompletableFuture<ApplyResult> removal = CompletableFuture.supplyAsync(
                () -> applyUnchecked(List.of(shared("keep", 0, 1 << 20, 4096))), thread);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (going.state().inFlight().state() != io.blocktarget.block.InFlight.State.DRAINING
                && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(removal).isNotDone();
        assertThat(sharedLuns()).containsExactly(0L);   // gone from the inventory already
        // the drain is visible: out of the plan, still listed, draining, with its command in flight
        assertThat(registry.lunConfigs()).extracting(LunConfig::name).containsExactly("keep");
        ControlPlane.LunStatus draining = registry.lun("going").orElseThrow();
        assertThat(draining.state()).isEqualTo(LunPhase.DRAINING);
        assertThat(draining.inFlight()).isEqualTo(1);
        assertThat(registry.luns()).extracting(l -> l.config().name() + " " + l.state().label())
                .containsExactly("keep active", "going draining");
        ScsiResponse refused = runScsi(target, nexus, 1, new byte[] {0x00, 0, 0, 0, 0, 0}).get(5, TimeUnit.SECONDS);
        assertThat((int) refused.senseData().getUnsignedByte(12)).as("ASC LOGICAL UNIT NOT SUPPORTED in %s", io.netty.buffer.ByteBufUtil.hexDump(refused.senseData())).isEqualTo(0x25);
        release(refused);

        holding.get().releaseAll();
        assertThat(removal.get(10, TimeUnit.SECONDS).removed()).containsExactly("going");
        assertThat(registry.lun("going")).isEmpty();
        ScsiResponse r = read.get(5, TimeUnit.SECONDS);
        assertThat(r.status()).isEqualTo(io.blocktarget.protocol.scsi.ScsiStatus.GOOD);
        release(r);
        CompletableFuture<BlockError> afterClose = new CompletableFuture<>();
        going.device().read(0, 1, (data, failure) -> afterClose.complete(failure == null ? null : failure.error()));
        holding.get().releaseAll();   // the holding wrapper holds this completion too
        assertThat(afterClose.get(5, TimeUnit.SECONDS)).isEqualTo(BlockError.CLOSED);
        assertThat(budget.used()).isZero();
        thread.shutdown();
    }

    /** Issue 14 item 2: a LUN asking for TLS is refused by the API as by serve while the build has no TLS engine. */
    @Test
    void exportsThatCannotCoexistAreRefusedBeforeAnythingChanges() throws Exception {
        registry.apply(List.of(shared("a", 0, 1 << 20, 4096)));
        Registry.Snapshot before = registry.snapshot();
        ControlException clash = org.junit.jupiter.api.Assertions.assertThrows(ControlException.class,
                () -> registry.apply(List.of(shared("a", 0, 1 << 20, 4096), shared("b", 0, 1 << 20, 4096))));
        assertThat(clash.kind()).isEqualTo(ControlException.Kind.CONFLICT);
        assertThat(clash.lun()).isEqualTo("b");
        assertThat(clash.key()).isEqualTo("export.iscsi.lun");
        LunConfig badNsid = new LunConfig("c", null, BackendKind.RAM, 1 << 20, 4096, 4096, Optional.empty(),
                Optional.of(new NvmeExport(SHARED_SUBSYSTEM, 0)), false, Optional.empty(), AccessConfig.OPEN);
        ControlException invalid = org.junit.jupiter.api.Assertions.assertThrows(ControlException.class,
                () -> registry.apply(List.of(shared("a", 0, 1 << 20, 4096), badNsid)));
        assertThat(invalid.kind()).isEqualTo(ControlException.Kind.INVALID);
        assertThat(invalid.key()).isEqualTo("export.nvme.nsid");
        assertThat(registry.snapshot()).isSameAs(before);
        assertThat(openOrder).containsExactly("a");   // nothing opened for the refused applies
    }

    private static CompletableFuture<ScsiResponse> runScsi(io.blocktarget.scsi.ScsiTargetDevice target, ItNexus nexus,
                                                         long lun, byte[] cdb) {
        byte[] padded = new byte[16];
        System.arraycopy(cdb, 0, padded, 0, cdb.length);
        ByteBuf buf = Unpooled.wrappedBuffer(padded);
        CompletableFuture<ScsiResponse> done = new CompletableFuture<>();
        target.execute(ScsiCommand.of(nexus, lun, buf, TaskAttribute.SIMPLE, 1, 4096, null), done::complete);
        buf.release();
        return done;
    }

    /** {@code base} with other knobs: a knob-only change. */
    private static LunConfig withKnobs(LunConfig base, io.blocktarget.config.DeviceKnobs knobs) {
        return new LunConfig(base.name(), base.source(), base.backend(), base.size(), base.logicalBlockSize(),
                base.physicalBlockSize(), base.iscsi(), base.nvme(), base.readOnly(), base.file(), base.access(),
                base.features().withKnobs(knobs));
    }

    /**
     * Issue 11: a change of knobs only is "retuned" — the same device (data kept, nothing reopened), the same
     * logical unit (the nexus keeps its state) which raises INQUIRY DATA HAS CHANGED, the namespace replaced in
     * place; a knob change together with another key is still a replacement.
     */
    @Test
    void aKnobOnlyChangeIsRetunedInPlace() throws Exception {
        LunConfig plain = shared("a", 0, 1 << 20, 4096);
        registry.apply(List.of(plain));
        BlockDevice device = opened.get("a");
        BlockDevice served = registry.snapshot().lun("a").orElseThrow().device(); // the decorated chain
        Io.write(device, 0, new byte[4096]);
        io.blocktarget.scsi.ScsiTargetDevice target = registry.snapshot().scsiTargets().get(SHARED_TARGET);
        ItNexus nexus = new ItNexus("iqn.2026-11.test:host,i,0x23d000000001", SHARED_TARGET + ",t,0x0001", 1);
        release(runScsi(target, nexus, 0, new byte[] {0x00, 0, 0, 0, 0, 0}).get(5, TimeUnit.SECONDS)); // POWER ON
        ScsiResponse ready = runScsi(target, nexus, 0, new byte[] {0x00, 0, 0, 0, 0, 0}).get(5, TimeUnit.SECONDS);
        assertThat(ready.status()).isEqualTo(io.blocktarget.protocol.scsi.ScsiStatus.GOOD);

        io.blocktarget.config.DeviceKnobs knobs = io.blocktarget.config.DeviceKnobs.DEFAULTS.withLimits(
                Map.of(io.blocktarget.config.DeviceKnobs.Limit.MAX_TRANSFER, 1L << 19));
        ApplyResult result = registry.apply(List.of(withKnobs(plain, knobs)));

        assertThat(result.retuned()).containsExactly("a");
        assertThat(result.steps()).containsExactly("retune LUN a in place: knobs (data and sessions kept)");
        assertThat(Registry.describe(result)).isEqualTo("retuned a");
        assertThat(openOrder).containsExactly("a");                          // nothing reopened
        assertThat(registry.snapshot().lun("a").orElseThrow().device()).isSameAs(served);
        assertThat(registry.lun("a").orElseThrow().config().features().knobs()).isEqualTo(knobs);
        assertThat(registry.snapshot().scsiTargets().get(SHARED_TARGET)).isSameAs(target);
        ScsiResponse attention = runScsi(target, nexus, 0, new byte[] {0x00, 0, 0, 0, 0, 0}).get(5, TimeUnit.SECONDS);
        assertThat((int) attention.senseData().getUnsignedByte(12)).isEqualTo(0x3F);  // INQUIRY DATA HAS CHANGED
        assertThat((int) attention.senseData().getUnsignedByte(13)).isEqualTo(0x03);
        release(attention);
        // READ(10) of 129 blocks: above the new 512 KiB maximum transfer, within the 1 MiB LUN (past its end the
        // range would answer first, LBA OUT OF RANGE)
        ScsiResponse tooLong = runScsi(target, nexus, 0, new byte[] {0x28, 0, 0, 0, 0, 0, 0, 0x00, (byte) 0x81, 0})
                .get(5, TimeUnit.SECONDS);
        assertThat((int) tooLong.senseData().getUnsignedByte(12)).isEqualTo(0x24);
        release(tooLong);
        assertThat(Io.read(device, 0, 1)).isEqualTo(new byte[4096]);       // data still there

        // knobs and size at once: a resize and a retune, the device (and its data) kept
        LunConfig both = new LunConfig("a", null, BackendKind.RAM, 2 << 20, 4096, 4096, plain.iscsi(), plain.nvme(),
                false, Optional.empty(), AccessConfig.OPEN, plain.features());
        ApplyResult grown = registry.apply(List.of(both));
        assertThat(grown.resized()).containsExactly("a");
        assertThat(grown.steps()).containsExactly("grow LUN a from 1 MiB to 2 MiB",
                "retune LUN a in place: knobs (data and sessions kept)");
        assertThat(registry.snapshot().lun("a").orElseThrow().device()).isSameAs(served);
        assertThat(Io.read(device, 0, 1)).isEqualTo(new byte[4096]);
        // back to the same knobs is no change
        assertThat(registry.apply(List.of(both)).changedNothing()).isTrue();
    }

    @Test
    void reloadWithoutAConfigDirIsUnavailable() {
        assertThatThrownBy(registry::reload).isInstanceOf(ControlException.class)
                .extracting(t -> ((ControlException) t).kind()).isEqualTo(ControlException.Kind.UNAVAILABLE);
    }

    @Test
    void theSameLunTwiceIsAConflict() {
        assertThatThrownBy(() -> registry.apply(List.of(own("a", 1 << 20), own("a", 2 << 20))))
                .isInstanceOf(ControlException.class).hasMessageContaining("twice");
        assertThat(names()).isEmpty();
    }

    @Test
    void sessionIdsNameTheSubsystemOfANvmeController() {
        assertThat(Registry.nvmeId(NQN + "x", 3)).isEqualTo("nvme:3@" + NQN + "x");
        assertThat(registry.dropSession("nvme:3@" + NQN + "x")).isFalse();
        assertThat(registry.dropSession("nvme:zz@x")).isFalse();
        assertThat(registry.dropSession("iscsi:1")).isFalse();
        assertThat(registry.sessions()).isEmpty();
        assertThat(registry.memoryBudgetBytes()).isEqualTo(64L << 20);
    }

    private static void release(ScsiResponse r) {
        if (r.dataIn() != null) {
            r.dataIn().release();
        }
        if (r.senseData() != null) {
            r.senseData().release();
        }
    }
}
