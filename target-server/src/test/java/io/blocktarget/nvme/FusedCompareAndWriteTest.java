package io.blocktarget.nvme;

import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.HoldingDevice;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.config.DeviceKnobs;
import io.blocktarget.time.ManualClock;
import io.blocktarget.nvme.TestSupport.Reply;
import io.blocktarget.protocol.nvme.IdentifyController;
import io.blocktarget.protocol.nvme.NvmOpcode;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.protocol.scsi.ScsiStatus;
import io.blocktarget.scsi.ItNexus;
import io.blocktarget.scsi.LogicalUnitSpec;
import io.blocktarget.scsi.ScsiCommand;
import io.blocktarget.scsi.ScsiResponse;
import io.blocktarget.scsi.ScsiTargetDevice;
import io.blocktarget.scsi.ScsiTargetDevices;
import io.blocktarget.scsi.TaskAttribute;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fused Compare and Write operation (Base §3.4.2 "Fused Operations", NVM Command Set §3.2.3 "Compare"): FUSES
 * bit 0 and ONCS bit 0 advertise it, NACWU / ACWU its atomic unit; the Compare runs first and the Write only when it
 * succeeded (else Command Aborted due to Failed Fused Command), both under the LBA range lock a SCSI COMPARE AND
 * WRITE takes (SBC-4 §5.3), so the two exclude each other on the same blocks; a pair that is not Compare then Write
 * of one range is Invalid Field in Command, and a fused command without its other half Command Aborted due to
 * Missing Fused Command.
 */
class FusedCompareAndWriteTest {
    private static final String NQN = "nqn.2026-11.io.blocktarget:fused";
    private static final String IQN = "iqn.2026-11.io.blocktarget:fused";
    private static final ItNexus NEXUS = new ItNexus("iqn.2026-11.test:host-a,i,0x23d000000001", IQN + ",t,0x0001", 1);
    private static final int LBS = 4096;

    private final MemoryBudget budget = new MemoryBudget(1L << 30);
    private final RamBlockDevice ram = new RamBlockDevice("f", new BlockGeometry(LBS, 16384, 1024), false, budget);

    @AfterEach
    void close() {
        ram.close();
    }

    private static byte[] pattern(int length, long seed) {
        byte[] b = new byte[length];
        new java.util.Random(seed).nextBytes(b);
        return b;
    }

    private static TestHost host(NamespaceSpec spec) {
        return TestHost.enabled(NvmeTargets.create(List.of(spec), List.of(), NvmeLimits.DEFAULT,
                new ManualClock()), NQN);
    }

    private static Sqe rw(NvmOpcode opcode, int cid, long slba, int blocks, int fuse) {
        return TestHost.rw(opcode, cid, 1, slba, blocks, LBS, false).withFuse(fuse);
    }

    /** Submits the pair; both replies, first then second. */
    private static Reply[] fused(NvmeQueue queue, Sqe first, byte[] compare, Sqe second, byte[] write) {
        CompletableFuture<Reply> one = new CompletableFuture<>();
        CompletableFuture<Reply> two = new CompletableFuture<>();
        ByteBuf a = Unpooled.wrappedBuffer(compare);
        ByteBuf b = write == null ? null : Unpooled.wrappedBuffer(write);
        queue.submitFused(first, a, (s, dw0, dw1, data) -> one.complete(new Reply(s, dw0, dw1, data)),
                second, b, (s, dw0, dw1, data) -> two.complete(new Reply(s, dw0, dw1, data)));
        try {
            return new Reply[] {one.get(10, TimeUnit.SECONDS), two.get(10, TimeUnit.SECONDS)};
        } catch (Exception e) {
            throw new AssertionError(e);
        } finally {
            a.release();
            if (b != null) {
                b.release();
            }
        }
    }

    @Test
    void identifyAdvertisesTheFusedOperationAndItsAtomicUnit() {
        TestHost host = host(new NamespaceSpec(NQN, 1, "f", ram));
        ByteBuf id = host.identifyData(0x01, 0);
        assertThat(id.getUnsignedShortLE(522)).as("FUSES").isEqualTo(IdentifyController.FUSES_COMPARE_AND_WRITE);
        assertThat(id.getUnsignedShortLE(520) & IdentifyController.ONCS_COMPARE).as("ONCS Compare").isNotZero();
        assertThat(id.getUnsignedShortLE(532)).as("ACWU").isEqualTo(3);
        id.release();
        ByteBuf ns = host.identifyData(0x00, 1);
        assertThat(ns.getUnsignedShortLE(38)).as("NACWU = NAWUN: the physical block").isEqualTo(3);
        ns.release();
        host.admin.close();
        // commands.compare: false switches the Compare off, and with it the fused operation
        DeviceKnobs off = DeviceKnobs.DEFAULTS.withCommands(java.util.Map.of(DeviceKnobs.Command.COMPARE, false));
        TestHost without = host(new NamespaceSpec(NQN, 1, "f", ram, new LunState("f"), java.util.Optional.empty(),
                io.blocktarget.config.LunFeatures.NONE.withKnobs(off)));
        id = without.identifyData(0x01, 0);
        assertThat(id.getUnsignedShortLE(522)).isZero();
        assertThat(id.getUnsignedShortLE(532)).isZero();
        id.release();
        NvmeQueue io = without.connectIo(1);
        Reply[] r = fused(io, rw(NvmOpcode.COMPARE, 1, 0, 1, Sqe.FUSE_FIRST), new byte[LBS],
                rw(NvmOpcode.WRITE, 2, 0, 1, Sqe.FUSE_SECOND), new byte[LBS]);
        assertThat(r[0].status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        assertThat(r[1].status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        without.admin.close();
    }

    @Test
    void aMatchingCompareWritesAndAMismatchAbortsTheWrite() throws Exception {
        TestHost host = host(new NamespaceSpec(NQN, 1, "f", ram));
        NvmeQueue io = host.connectIo(1);
        byte[] old = pattern(2 * LBS, 1);
        assertThat(host.write(io, 1, 6, old, LBS, false).status()).isEqualTo(NvmeStatus.SUCCESS);
        byte[] next = pattern(2 * LBS, 2);
        // blocks 6..7: across the 16 KiB physical block at 8 and within one 64 KiB chunk
        Reply[] ok = fused(io, rw(NvmOpcode.COMPARE, 1, 6, 2, Sqe.FUSE_FIRST), old,
                rw(NvmOpcode.WRITE, 2, 6, 2, Sqe.FUSE_SECOND), next);
        assertThat(ok[0].status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(ok[1].status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.read(io, 1, 6, 2, LBS).bytes()).isEqualTo(next);
        // the same compare again: the medium now holds next, so it miscompares and the write is not run
        Reply[] miss = fused(io, rw(NvmOpcode.COMPARE, 3, 6, 2, Sqe.FUSE_FIRST), old,
                rw(NvmOpcode.WRITE, 4, 6, 2, Sqe.FUSE_SECOND), pattern(2 * LBS, 3));
        assertThat(miss[0].status()).isEqualTo(NvmeStatus.COMPARE_FAILURE);
        assertThat(miss[1].status()).isEqualTo(NvmeStatus.ABORTED_FAILED_FUSED);
        assertThat(miss[1].status().toCqeStatus().sc()).isEqualTo(0x09);
        assertThat(miss[1].status().toCqeStatus().sct()).isZero();
        assertThat(host.read(io, 1, 6, 2, LBS).bytes()).isEqualTo(next);
        // across two 64 KiB chunks (the write goes the copy-on-write path): still all or nothing
        byte[] wide = pattern(4 * LBS, 4);
        Reply[] across = fused(io, rw(NvmOpcode.COMPARE, 5, 14, 4, Sqe.FUSE_FIRST), new byte[4 * LBS],
                rw(NvmOpcode.WRITE, 6, 14, 4, Sqe.FUSE_SECOND), wide);
        assertThat(across[0].status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(across[1].status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.read(io, 1, 14, 4, LBS).bytes()).isEqualTo(wide);
        host.admin.close();
    }

    @Test
    void pairsThatAreNotCompareThenWriteOfOneRangeAreInvalidForBoth() {
        TestHost host = host(new NamespaceSpec(NQN, 1, "f", ram));
        NvmeQueue io = host.connectIo(1);
        byte[] b = new byte[LBS];
        List<Sqe[]> pairs = List.of(
                new Sqe[] {rw(NvmOpcode.COMPARE, 1, 0, 1, Sqe.FUSE_FIRST), rw(NvmOpcode.WRITE, 2, 1, 1, Sqe.FUSE_SECOND)},
                new Sqe[] {rw(NvmOpcode.COMPARE, 1, 0, 1, Sqe.FUSE_FIRST), rw(NvmOpcode.WRITE, 2, 0, 2, Sqe.FUSE_SECOND)},
                new Sqe[] {rw(NvmOpcode.READ, 1, 0, 1, Sqe.FUSE_FIRST), rw(NvmOpcode.WRITE, 2, 0, 1, Sqe.FUSE_SECOND)},
                new Sqe[] {rw(NvmOpcode.COMPARE, 1, 0, 1, Sqe.FUSE_FIRST), rw(NvmOpcode.COMPARE, 2, 0, 1, Sqe.FUSE_SECOND)});
        for (Sqe[] pair : pairs) {
            Reply[] r = fused(io, pair[0], b, pair[1], b);
            assertThat(r[0].status()).as("%s", Arrays.toString(pair)).isEqualTo(NvmeStatus.INVALID_FIELD);
            assertThat(r[1].status()).as("%s", Arrays.toString(pair)).isEqualTo(NvmeStatus.INVALID_FIELD);
        }
        host.admin.close();
    }

    @Test
    void aFusedCommandAloneIsMissingItsOtherHalf() {
        TestHost host = host(new NamespaceSpec(NQN, 1, "f", ram));
        NvmeQueue io = host.connectIo(1);
        Reply first = host.io(io, rw(NvmOpcode.COMPARE, 1, 0, 1, Sqe.FUSE_FIRST), Unpooled.wrappedBuffer(new byte[LBS]));
        assertThat(first.status()).isEqualTo(NvmeStatus.ABORTED_MISSING_FUSED);
        assertThat(first.status().toCqeStatus().sc()).isEqualTo(0x0A);
        Reply second = host.io(io, rw(NvmOpcode.WRITE, 2, 0, 1, Sqe.FUSE_SECOND), Unpooled.wrappedBuffer(new byte[LBS]));
        assertThat(second.status()).isEqualTo(NvmeStatus.ABORTED_MISSING_FUSED);
        // FUSE 11b is reserved; admin commands are never fused
        Reply reserved = host.io(io, rw(NvmOpcode.READ, 3, 0, 1, 0b11), null);
        assertThat(reserved.status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        Reply admin = host.admin(Sqe.of(0x18, 4, 0, SglDescriptor.transportDataBlock(0)).withFuse(Sqe.FUSE_FIRST));
        assertThat(admin.status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        host.admin.close();
    }

    /** A failing Compare (out of range) aborts the Write; a failing Write leaves the Compare's status alone. */
    @Test
    void failuresOfEitherHalf() {
        TestHost host = host(new NamespaceSpec(NQN, 1, "f", ram));
        NvmeQueue io = host.connectIo(1);
        byte[] b = new byte[LBS];
        Reply[] outOfRange = fused(io, rw(NvmOpcode.COMPARE, 1, 1024, 1, Sqe.FUSE_FIRST), b,
                rw(NvmOpcode.WRITE, 2, 1024, 1, Sqe.FUSE_SECOND), b);
        assertThat(outOfRange[0].status()).isEqualTo(NvmeStatus.LBA_OUT_OF_RANGE);
        assertThat(outOfRange[1].status()).isEqualTo(NvmeStatus.ABORTED_FAILED_FUSED);
        // the Write's data did not arrive whole: the Compare succeeds (zeros), the Write fails, nothing is written
        Reply[] shortWrite = fused(io, rw(NvmOpcode.COMPARE, 3, 5, 1, Sqe.FUSE_FIRST), b,
                rw(NvmOpcode.WRITE, 4, 5, 1, Sqe.FUSE_SECOND), new byte[LBS / 2]);
        assertThat(shortWrite[0].status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(shortWrite[1].status()).isEqualTo(NvmeStatus.DATA_TRANSFER_ERROR);
        assertThat(host.read(io, 1, 5, 1, LBS).bytes()).containsOnly(0);
        host.admin.close();
    }

    // --- the same range lock as SCSI COMPARE AND WRITE ---

    private ScsiResponse scsi(ScsiTargetDevice scsi, byte[] cdb, byte[] dataOut, CompletableFuture<ScsiResponse> r) {
        ByteBuf cdbBuf = Unpooled.wrappedBuffer(Arrays.copyOf(cdb, 16));
        ByteBuf out = dataOut == null ? null : Unpooled.wrappedBuffer(dataOut);
        scsi.execute(ScsiCommand.of(NEXUS, 0, cdbBuf, TaskAttribute.SIMPLE, 1, dataOut == null ? 0 : dataOut.length,
                out), response -> {
                    cdbBuf.release();
                    if (out != null) {
                        out.release();
                    }
                    if (response.dataIn() != null) {
                        response.dataIn().release();
                    }
                    if (response.senseData() != null) {
                        response.senseData().release();
                    }
                    r.complete(response);
                });
        return r.getNow(null);
    }

    /** COMPARE AND WRITE (89h) of {@code blocks} at {@code lba} (SBC-4 §5.3). */
    private static byte[] caw(int lba, int blocks) {
        byte[] c = new byte[16];
        c[0] = (byte) 0x89;
        c[9] = (byte) lba;
        c[13] = (byte) blocks;
        return c;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] c = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    /**
     * A SCSI COMPARE AND WRITE holding blocks 4..5 (its read held) keeps an NVMe fused Compare and Write of block 5
     * from even reading; once it is done, the fused pair compares against what it wrote — and the other way round.
     */
    @Test
    void scsiCompareAndWriteAndTheNvmeFusedPairExcludeEachOther() throws Exception {
        HoldingDevice held = new HoldingDevice(ram);
        LunState state = new LunState("f");
        ScsiTargetDevice scsi = ScsiTargetDevices.create(List.of(new LogicalUnitSpec(IQN, 0, "f", held, state)))
                .get(IQN);
        TestHost host = host(new NamespaceSpec(NQN, 1, "f", held, state));
        NvmeQueue io = host.connectIo(1);
        scsi(scsi, new byte[6], null, new CompletableFuture<>());             // POWER ON unit attention
        byte[] scsiData = pattern(2 * LBS, 5);
        CompletableFuture<ScsiResponse> cawDone = new CompletableFuture<>();
        scsi(scsi, caw(4, 2), concat(new byte[2 * LBS], scsiData), cawDone);
        assertThat(held.heldCount()).as("the CAW's read, under its exclusive lock").isEqualTo(1);
        byte[] nvmeData = pattern(LBS, 6);
        CompletableFuture<Reply[]> pair = CompletableFuture.supplyAsync(() -> fused(io,
                rw(NvmOpcode.COMPARE, 1, 5, 1, Sqe.FUSE_FIRST), Arrays.copyOfRange(scsiData, LBS, 2 * LBS),
                rw(NvmOpcode.WRITE, 2, 5, 1, Sqe.FUSE_SECOND), nvmeData));
        assertThat(held.heldCount()).as("the fused pair waits for the lock, it has not read").isEqualTo(1);
        assertThat(pair).isNotDone();
        held.releaseAll();                                                    // the CAW reads, compares, writes
        assertThat(cawDone.get(10, TimeUnit.SECONDS).status()).isEqualTo(ScsiStatus.GOOD);
        awaitHeld(held, 1);                                                   // now the fused pair's read
        held.releaseAll();
        Reply[] r = pair.get(10, TimeUnit.SECONDS);
        assertThat(r[0].status()).as("it compared against the CAW's data").isEqualTo(NvmeStatus.SUCCESS);
        assertThat(r[1].status()).isEqualTo(NvmeStatus.SUCCESS);
        // and the other way round: the fused pair holds block 5, the CAW waits
        CompletableFuture<Reply[]> second = CompletableFuture.supplyAsync(() -> fused(io,
                rw(NvmOpcode.COMPARE, 3, 5, 1, Sqe.FUSE_FIRST), nvmeData,
                rw(NvmOpcode.WRITE, 4, 5, 1, Sqe.FUSE_SECOND), scsiData));
        awaitHeld(held, 1);
        CompletableFuture<ScsiResponse> cawAfter = new CompletableFuture<>();
        scsi(scsi, caw(5, 1), concat(Arrays.copyOf(scsiData, LBS), nvmeData), cawAfter);
        assertThat(held.heldCount()).as("the CAW waits for the fused pair's lock").isEqualTo(1);
        held.releaseAll();
        assertThat(second.get(10, TimeUnit.SECONDS)[1].status()).isEqualTo(NvmeStatus.SUCCESS);
        awaitHeld(held, 1);
        held.releaseAll();
        assertThat(cawAfter.get(10, TimeUnit.SECONDS).status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(state.rangeLocks().heldCount()).isZero();
        host.admin.close();
    }

    /** The pair runs on another thread: wait (bounded) until its read is held. */
    private static void awaitHeld(HoldingDevice held, int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (held.heldCount() < count && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(held.heldCount()).isEqualTo(count);
    }
}
