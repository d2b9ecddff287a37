package io.blocktarget.nvme;

import io.blocktarget.block.AtomicWrites;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.scsi.ScsiStatus;
import io.blocktarget.scsi.ItNexus;
import io.blocktarget.scsi.LogicalUnitSpec;
import io.blocktarget.scsi.ScsiCommand;
import io.blocktarget.scsi.ScsiResponse;
import io.blocktarget.scsi.ScsiTargetDevice;
import io.blocktarget.scsi.ScsiTargetDevices;
import io.blocktarget.scsi.TaskAttribute;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One RAM LUN with {@code atomic:} exported over SCSI and NVMe with one {@link LunState}: a reader on an NVMe queue
 * (its own thread) never sees a SCSI WRITE ATOMIC(16) half applied, while the same reader does see a SCSI WRITE(16)
 * of the same blocks half applied (the negative control: the check can fail).
 */
class CrossProtocolAtomicTest {
    private static final String IQN = "iqn.2026-11.io.blocktarget:xatomic";
    private static final String NQN = "nqn.2026-11.io.blocktarget:xatomic";
    private static final int LBS = 4096;
    private static final int BLOCKS = 16;
    private static final long LBA = 8;   // straddles the first two 64 KiB chunks
    private static final ItNexus NEXUS = new ItNexus("iqn.2026-11.test:host-a,i,0x23d000000001", IQN + ",t,0x0001", 1);

    private final MemoryBudget budget = new MemoryBudget(1L << 30);
    private final RamBlockDevice device = new RamBlockDevice("xa", new BlockGeometry(LBS, LBS, 1024), false, budget);
    private final LunState state = new LunState("xa", null, Optional.of(new AtomicWrites(BLOCKS, 0, 1, 1)));
    private final ScsiTargetDevice scsi = ScsiTargetDevices.create(
            List.of(new LogicalUnitSpec(IQN, 0, "xa", device, state))).get(IQN);
    private final TestHost nvme = TestHost.enabled(NvmeTargets.create(List.of(new NamespaceSpec(NQN, 1, "xa", device,
            state)), List.of(), NvmeLimits.DEFAULT, new ManualClock()), NQN);

    @AfterEach
    void close() {
        nvme.admin.close();
        device.close();
    }

    private ScsiResponse scsi(byte[] cdb, byte[] dataOut) throws Exception {
        CompletableFuture<ScsiResponse> result = new CompletableFuture<>();
        ByteBuf cdbBuf = Unpooled.wrappedBuffer(Arrays.copyOf(cdb, 16));
        ByteBuf out = dataOut == null ? null : Unpooled.wrappedBuffer(dataOut);
        scsi.execute(ScsiCommand.of(NEXUS, 0, cdbBuf, TaskAttribute.SIMPLE, 1, dataOut == null ? 0 : dataOut.length,
                out), result::complete);
        ScsiResponse r = result.get(30, TimeUnit.SECONDS);
        cdbBuf.release();
        if (out != null) {
            out.release();
        }
        if (r.dataIn() != null) {
            r.dataIn().release();
        }
        if (r.senseData() != null) {
            r.senseData().release();
        }
        return r;
    }

    /** WRITE ATOMIC(16) (9Ch) or WRITE(16) (8Ah) of BLOCKS blocks at LBA. */
    private static byte[] cdb(int opcode) {
        byte[] c = new byte[16];
        c[0] = (byte) opcode;
        c[9] = (byte) LBA;
        c[13] = BLOCKS;              // TRANSFER LENGTH: bytes 12-13 of WRITE ATOMIC(16), 10-13 of WRITE(16)
        return c;
    }

    private long tornReads(int opcode, long maxWrites, long maxMillis, boolean stopAtFirstTear) throws Exception {
        // SCSI: the first command meets POWER ON unit attention
        scsi(new byte[6], null);
        NvmeQueue queue = nvme.connectIo(1);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong torn = new AtomicLong();
        AtomicLong reads = new AtomicLong();
        Thread reader = Thread.ofPlatform().start(() -> {
            while (!stop.get()) {
                TestSupport.Reply r = nvme.read(queue, 1, LBA, BLOCKS, LBS);
                assertThat(r.status()).isEqualTo(NvmeStatus.SUCCESS);
                byte[] b = r.bytes();
                for (byte x : b) {
                    if (x != b[0]) {
                        torn.incrementAndGet();
                        break;
                    }
                }
                reads.incrementAndGet();
            }
        });
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(maxMillis);
        byte[] data = new byte[BLOCKS * LBS];
        try {
            for (long gen = 1; gen <= maxWrites && System.nanoTime() < deadline; gen++) {
                if (stopAtFirstTear && torn.get() > 0) {
                    break;
                }
                Arrays.fill(data, (byte) gen);
                assertThat(scsi(cdb(opcode), data).status()).isEqualTo(ScsiStatus.GOOD);
            }
        } finally {
            stop.set(true);
            reader.join();
        }
        nvme.disconnect(queue);
        assertThat(reads.get()).isPositive();
        assertThat(state.rangeLocks().heldCount()).isZero();
        return torn.get();
    }

    @Test
    void nvmeReadersNeverSeeAScsiAtomicWriteHalfApplied() throws Exception {
        assertThat(tornReads(0x9C, 5_000, 8_000, false)).isZero();
    }

    @Test
    void nvmeReadersDoSeeAPlainScsiWriteHalfApplied() throws Exception {
        assertThat(tornReads(0x8A, Long.MAX_VALUE, 30_000, true)).isPositive();
    }
}
