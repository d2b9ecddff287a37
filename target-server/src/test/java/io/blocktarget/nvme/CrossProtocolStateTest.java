package io.blocktarget.nvme;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.BlockRange;
import io.blocktarget.block.IoCallback;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.nvme.ReservationCommandsTest.Host;
import io.blocktarget.protocol.nvme.NvmOpcode;
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
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One LUN exported over SCSI and NVMe with one {@link LunState} (issue 9 item 1): reservations taken through
 * either protocol bind the other, and a SCSI COMPARE AND WRITE is atomic against NVMe writes of the same blocks.
 */
class CrossProtocolStateTest {
    static final String IQN = "iqn.2026-11.io.blocktarget:pr";
    static final int LBS = ReservationCommandsTest.LBS;
    static final ItNexus NEXUS = new ItNexus("iqn.2026-11.test:host-a,i,0x23d000000001", IQN + ",t,0x0001", 1);
    static final ItNexus OTHER = new ItNexus("iqn.2026-11.test:host-b,i,0x23d000000002", IQN + ",t,0x0001", 1);

    private final HeldReads device = new HeldReads(TestSupport.ram("pr", LBS, 4096, 1024));
    private final LunState state = new LunState("pr");
    private final NvmeTarget nvme = NvmeTargets.create(List.of(new NamespaceSpec(ReservationCommandsTest.NQN, 1,
            "pr", device, state)), List.of(), NvmeLimits.DEFAULT, new ManualClock());
    private final ScsiTargetDevice scsi = ScsiTargetDevices.create(
            List.of(new LogicalUnitSpec(IQN, 0, "pr", device, state))).get(IQN);

    @AfterEach
    void close() {
        device.close();
    }

    /** A RAM device whose reads wait for the test while {@link #holdReads} is set; records writes in order. */
    static final class HeldReads implements BlockDevice {
        final List<String> writes = new CopyOnWriteArrayList<>();
        final List<Runnable> heldReads = new CopyOnWriteArrayList<>();
        volatile boolean holdReads;
        private final BlockDevice delegate;

        HeldReads(BlockDevice delegate) {
            this.delegate = delegate;
        }

        @Override
        public String name() {
            return delegate.name();
        }

        @Override
        public BlockGeometry geometry() {
            return delegate.geometry();
        }

        @Override
        public boolean readOnly() {
            return false;
        }

        @Override
        public boolean volatileWriteCache() {
            return delegate.volatileWriteCache();
        }

        @Override
        public void read(long lba, int blockCount, IoCallback<ByteBuf> callback) {
            if (holdReads) {
                heldReads.add(() -> delegate.read(lba, blockCount, callback));
            } else {
                delegate.read(lba, blockCount, callback);
            }
        }

        @Override
        public void write(long lba, ByteBuf data, boolean fua, IoCallback<Void> callback) {
            writes.add("write " + lba + " " + data.getByte(data.readerIndex()));
            delegate.write(lba, data, fua, callback);
        }

        @Override
        public void flush(IoCallback<Void> callback) {
            delegate.flush(callback);
        }

        @Override
        public void unmap(List<BlockRange> ranges, IoCallback<Void> callback) {
            writes.add("unmap " + ranges);
            delegate.unmap(ranges, callback);
        }

        @Override
        public void writeZeroes(long lba, long blockCount, IoCallback<Void> callback) {
            writes.add("zeroes " + lba);
            delegate.writeZeroes(lba, blockCount, callback);
        }

        @Override
        public void close() {
            delegate.close();
        }
    }

    private CompletableFuture<ScsiResponse> scsiAsync(ItNexus nexus, byte[] cdb, byte[] dataOut) {
        CompletableFuture<ScsiResponse> result = new CompletableFuture<>();
        ByteBuf cdbBuf = Unpooled.wrappedBuffer(Arrays.copyOf(cdb, Math.max(16, cdb.length)));
        ByteBuf out = dataOut == null ? null : Unpooled.wrappedBuffer(dataOut);
        scsi.execute(ScsiCommand.of(nexus, 0, cdbBuf, TaskAttribute.SIMPLE, 1,
                dataOut == null ? 4096 : dataOut.length, out), result::complete);
        return result;
    }

    private ScsiResponse scsi(ItNexus nexus, byte[] cdb, byte[] dataOut) {
        try {
            return scsiAsync(nexus, cdb, dataOut).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("no SCSI completion", e);
        }
    }

    /** The status, releasing what the response carries; the POWER ON unit attention is consumed by {@link #ready}. */
    private ScsiStatus status(ItNexus nexus, byte[] cdb, byte[] dataOut) {
        ScsiResponse r = scsi(nexus, cdb, dataOut);
        release(r);
        return r.status();
    }

    private static void release(ScsiResponse r) {
        if (r.dataIn() != null) {
            r.dataIn().release();
        }
        if (r.senseData() != null) {
            r.senseData().release();
        }
    }

    private void ready(ItNexus nexus) {
        assertThat(status(nexus, new byte[6], null)).isEqualTo(ScsiStatus.CHECK_CONDITION);  // POWER ON, RESET
        assertThat(status(nexus, new byte[6], null)).isEqualTo(ScsiStatus.GOOD);
    }

    static byte[] rw10(int op, long lba, int blocks) {
        return new byte[] {(byte) op, 0, (byte) (lba >> 24), (byte) (lba >> 16), (byte) (lba >> 8), (byte) lba, 0,
                (byte) (blocks >> 8), (byte) blocks, 0};
    }

    static byte[] prOut(int sa, int type) {
        return new byte[] {0x5F, (byte) sa, (byte) type, 0, 0, 0, 0, 0, 24, 0};
    }

    static byte[] prParams(long key, long saKey) {
        return ByteBuffer.allocate(24).putLong(key).putLong(saKey).array();
    }

    @Test
    void anNvmeHostHoldingWriteExclusiveKeepsScsiWritersOut() {
        ready(NEXUS);
        Host host = new Host(nvme, 1);
        assertThat(host.register(0x77)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.acquire(ReservationCommandsTest.ACQUIRE, ReservationCommandsTest.WE, 0x77, 0))
                .isEqualTo(NvmeStatus.SUCCESS);
        assertThat(status(NEXUS, rw10(0x2A, 0, 1), new byte[LBS])).isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
        assertThat(status(NEXUS, rw10(0x28, 0, 1), null)).isEqualTo(ScsiStatus.GOOD);         // WE: others read
        assertThat(host.write(0)).isEqualTo(NvmeStatus.SUCCESS);
        // SCSI sees the NVMe registration: READ KEYS, READ RESERVATION (type 1 = WE), READ FULL STATUS
        ScsiResponse keys = scsi(NEXUS, new byte[] {0x5E, 0, 0, 0, 0, 0, 0, 0, 64, 0}, null);
        byte[] k = ByteBufUtil.getBytes(keys.dataIn());
        release(keys);
        assertThat(k).isEqualTo(ByteBuffer.allocate(16).putInt(1).putInt(8).putLong(0x77).array());
        ScsiResponse rr = scsi(NEXUS, new byte[] {0x5E, 1, 0, 0, 0, 0, 0, 0, 64, 0}, null);
        byte[] r = ByteBufUtil.getBytes(rr.dataIn());
        release(rr);
        assertThat(ByteBuffer.wrap(r).getLong(8)).isEqualTo(0x77);
        assertThat(r[21]).isEqualTo((byte) 1);
        ScsiResponse full = scsi(NEXUS, new byte[] {0x5E, 3, 0, 0, 0, 0, 0, 4, 0, 0}, null);
        String text = new String(ByteBufUtil.getBytes(full.dataIn()), StandardCharsets.US_ASCII);
        release(full);
        assertThat(text).contains("nqn.2014-08.org.nvmexpress:uuid:a0000000-0000-0000-0000-000000000001");
        // once the SCSI initiator registers, it may preempt the NVMe host; the host's I/O then conflicts
        assertThat(status(NEXUS, prOut(0, 0), prParams(0, 0xAA))).isEqualTo(ScsiStatus.GOOD);
        assertThat(status(NEXUS, prOut(4, 3), prParams(0xAA, 0x77))).isEqualTo(ScsiStatus.GOOD);  // PREEMPT, EA
        assertThat(host.read(0)).isEqualTo(NvmeStatus.RESERVATION_CONFLICT);
        assertThat(host.log(false).bytes()[8]).isEqualTo((byte) 1);                                                // Registration Preempted
    }

    @Test
    void aScsiReservationKeepsNvmeHostsOut() {
        ready(NEXUS);
        ready(OTHER);
        Host host = new Host(nvme, 2);
        assertThat(status(NEXUS, prOut(0, 0), prParams(0, 0xAA))).isEqualTo(ScsiStatus.GOOD);
        assertThat(status(NEXUS, prOut(1, 5), prParams(0xAA, 0))).isEqualTo(ScsiStatus.GOOD);  // RESERVE WERO
        assertThat(host.write(0)).isEqualTo(NvmeStatus.RESERVATION_CONFLICT);
        assertThat(host.writeZeroes(0)).isEqualTo(NvmeStatus.RESERVATION_CONFLICT);
        assertThat(host.read(0)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.register(0x22)).isEqualTo(NvmeStatus.SUCCESS);                          // a registrant now
        assertThat(host.write(0)).isEqualTo(NvmeStatus.SUCCESS);                                 // WERO admits it
        assertThat(status(OTHER, rw10(0x2A, 0, 1), new byte[LBS])).isEqualTo(ScsiStatus.RESERVATION_CONFLICT);
        // the NVMe report lists the SCSI holder (RTYPE 3 = WERO) next to the host
        byte[] report = host.report(64 + 2 * 64, true).bytes();
        assertThat(report[4]).isEqualTo((byte) ReservationCommandsTest.WERO);
        assertThat(ReservationCommandsTest.le16(report, 5)).isEqualTo(2);
        assertThat(report[66]).isEqualTo((byte) 1);
        assertThat(ReservationCommandsTest.le64(report, 72)).isEqualTo(0xAA);
        // RELEASE by SCSI: the NVMe registrant learns Reservation Released
        assertThat(status(NEXUS, prOut(2, 5), prParams(0xAA, 0))).isEqualTo(ScsiStatus.GOOD);
        assertThat(host.log(false).bytes()[8]).isEqualTo((byte) 2);
        // SPC-2 RESERVE(6) shuts NVMe hosts out entirely, reads included
        assertThat(status(NEXUS, prOut(3, 0), prParams(0xAA, 0))).isEqualTo(ScsiStatus.GOOD);  // CLEAR
        assertThat(status(NEXUS, new byte[] {0x16, 0, 0, 0, 0, 0}, null)).isEqualTo(ScsiStatus.GOOD);
        assertThat(host.read(0)).isEqualTo(NvmeStatus.RESERVATION_CONFLICT);
        assertThat(status(NEXUS, new byte[] {0x17, 0, 0, 0, 0, 0}, null)).isEqualTo(ScsiStatus.GOOD);
        assertThat(host.read(0)).isEqualTo(NvmeStatus.SUCCESS);
    }

    /**
     * COMPARE AND WRITE holds its blocks from the compare (read) to the write: an NVMe Write of the same block
     * submitted meanwhile reaches the device only after the CAW wrote (SBC-4 §5.3). Without the shared lock
     * the NVMe write lands between the compare and the write.
     */
    @Test
    void compareAndWriteIsAtomicAgainstNvmeWritesOfTheSameBlocks() throws Exception {
        ready(NEXUS);
        Host host = new Host(nvme, 3);
        byte[] caw = new byte[2 * LBS];              // verify zeros (the fresh block), then write 0x11...
        Arrays.fill(caw, LBS, 2 * LBS, (byte) 0x11);
        device.holdReads = true;
        CompletableFuture<ScsiResponse> cawDone = scsiAsync(NEXUS,
                new byte[] {(byte) 0x89, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 1, 0, 0}, caw);
        assertThat(device.heldReads).hasSize(1);                                     // CAW is comparing
        byte[] nvmeData = new byte[LBS];
        Arrays.fill(nvmeData, (byte) 0x22);
        CompletableFuture<NvmeStatus> nvmeDone = new CompletableFuture<>();
        host.io.submit(TestHost.rw(NvmOpcode.WRITE, host.next(), 1, 5, 1, LBS, false),
                Unpooled.wrappedBuffer(nvmeData), (status, dw0, dw1, data) -> nvmeDone.complete(status));
        CompletableFuture<NvmeStatus> disjoint = new CompletableFuture<>();
        host.io.submit(TestHost.rw(NvmOpcode.WRITE, host.next(), 1, 9, 1, LBS, false),
                Unpooled.wrappedBuffer(nvmeData), (status, dw0, dw1, data) -> disjoint.complete(status));
        assertThat(disjoint.getNow(null)).isEqualTo(NvmeStatus.SUCCESS);               // other blocks: not held up
        assertThat(nvmeDone).isNotDone();
        assertThat(device.writes).containsExactly("write 9 34");
        device.holdReads = false;
        device.heldReads.forEach(Runnable::run);
        ScsiResponse r = cawDone.get(30, TimeUnit.SECONDS);
        release(r);
        assertThat(r.status()).isEqualTo(ScsiStatus.GOOD);
        assertThat(nvmeDone.get(30, TimeUnit.SECONDS)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(device.writes).containsExactly("write 9 34", "write 5 17", "write 5 34"); // CAW, then NVMe
        assertThat(state.rangeLocks().heldCount()).isZero();
    }
}
