package io.blocktarget.nvme;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.InFlight;
import io.blocktarget.block.IoKind;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.block.trace.TraceRecord;
import io.blocktarget.block.trace.TraceRing;
import io.blocktarget.block.trace.TraceStats;
import io.blocktarget.block.trace.Tracer;
import io.blocktarget.nvme.ReservationCommandsTest.Host;
import io.blocktarget.protocol.nvme.NvmOpcode;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.SglDescriptor;
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

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The completion hooks of both command sets feed one LUN's trace (DESIGN §10): every command that reached the LUN,
 * in completion order, with the fields the CDB / SQE carried and the status it ended with; nothing while tracing is
 * off. The LUN is exported over SCSI and NVMe with one {@link LunState}, as the server does.
 */
class TraceHooksTest {
    static final String IQN = "iqn.2026-11.io.blocktarget:tr";
    static final String NQN = ReservationCommandsTest.NQN;
    static final int LBS = 4096;
    static final long BLOCKS = 1024;
    static final ItNexus NEXUS = new ItNexus("iqn.2026-11.test:host-a,i,0x23d000000001", IQN + ",t,0x0001", 1);

    private final BlockDevice device = TestSupport.ram("tr", LBS, 16384, BLOCKS);
    private final LunState state = new LunState("tr");
    private final NvmeTarget nvme = NvmeTargets.create(List.of(new NamespaceSpec(NQN, 1, "tr", device, state)),
            List.of(), NvmeLimits.DEFAULT, new ManualClock());
    private final ScsiTargetDevice scsi = ScsiTargetDevices.create(
            List.of(new LogicalUnitSpec(IQN, 0, "tr", device, state))).get(IQN);

    @AfterEach
    void close() {
        device.close();
    }

    private ScsiStatus scsi(byte[] cdb, byte[] dataOut, long tag) {
        CompletableFuture<ScsiResponse> result = new CompletableFuture<>();
        ByteBuf cdbBuf = Unpooled.wrappedBuffer(Arrays.copyOf(cdb, Math.max(16, cdb.length)));
        ByteBuf out = dataOut == null ? null : Unpooled.wrappedBuffer(dataOut);
        scsi.execute(ScsiCommand.of(NEXUS, 0, cdbBuf, TaskAttribute.SIMPLE, tag,
                dataOut == null ? 65536 : dataOut.length, out), result::complete);
        ScsiResponse r;
        try {
            r = result.get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("no SCSI completion", e);
        }
        if (r.dataIn() != null) {
            r.dataIn().release();
        }
        if (r.senseData() != null) {
            r.senseData().release();
        }
        return r.status();
    }

    static byte[] rw16(int op, int byte1, long lba, int blocks) {
        return ByteBuffer.allocate(16).put((byte) op).put((byte) byte1).putLong(lba).putInt(blocks).array();
    }

    static byte[] rw10(int op, int byte1, long lba, int blocks) {
        return new byte[] {(byte) op, (byte) byte1, (byte) (lba >> 24), (byte) (lba >> 16), (byte) (lba >> 8),
            (byte) lba, 0, (byte) (blocks >> 8), (byte) blocks, 0};
    }

    private static List<TraceRecord> read(Tracer tracer) {
        List<TraceRecord> records = new ArrayList<>();
        tracer.ring().reader().poll(10_000, new TraceRing.Sink() {
            @Override
            public void record(TraceRecord record) {
                records.add(record);
            }

            @Override
            public void dropped(long count) {
                throw new AssertionError("dropped " + count);
            }
        });
        return records;
    }

    private void ready() {
        scsi(new byte[6], null, 90);   // POWER ON unit attention
        scsi(new byte[6], null, 91);
    }

    @Test
    void scsiCommandsAreRecordedWithTheirCdbFieldsAndStatus() {
        ready();
        Tracer tracer = new Tracer(64, LBS, 16384, 1 << 20, state.clock());
        state.startTrace(tracer);
        assertThat(scsi(rw10(0x2A, 0x08, 8, 4), new byte[4 * LBS], 1)).isEqualTo(ScsiStatus.GOOD);   // WRITE(10) FUA
        assertThat(scsi(rw16(0x88, 0x10, 8, 4), null, 2)).isEqualTo(ScsiStatus.GOOD);                // READ(16) DPO
        byte[] unmap = ByteBuffer.allocate(8 + 32).putShort((short) 38).putShort((short) 32).putInt(0)
                .putLong(100).putInt(3).putInt(0).putLong(200).putInt(5).putInt(0).array();
        assertThat(scsi(new byte[] {0x42, 0, 0, 0, 0, 0, 0, 0, 40, 0}, unmap, 3)).isEqualTo(ScsiStatus.GOOD);
        assertThat(scsi(rw16(0x88, 0, BLOCKS, 1), null, 4)).isEqualTo(ScsiStatus.CHECK_CONDITION);   // beyond the end
        assertThat(scsi(new byte[] {0x35, 0, 0, 0, 0, 0, 0, 0, 0, 0}, null, 5)).isEqualTo(ScsiStatus.GOOD);
        state.stopTrace();
        assertThat(scsi(rw16(0x88, 0, 0, 1), null, 6)).isEqualTo(ScsiStatus.GOOD);                   // not traced

        List<TraceRecord> records = read(tracer);
        assertThat(records).extracting(TraceRecord::tag).containsExactly(1L, 2L, 3L, 4L, 5L);
        assertThat(records).extracting(TraceRecord::seq).containsExactly(0L, 1L, 2L, 3L, 4L);
        assertThat(records).extracting(TraceRecord::op)
                .containsExactly("WRITE(10)", "READ(16)", "UNMAP", "READ(16)", "SYNCHRONIZE CACHE(10)");
        assertThat(records).extracting(TraceRecord::kind)
                .containsExactly(IoKind.WRITE, IoKind.READ, IoKind.UNMAP, IoKind.READ, IoKind.FLUSH);
        TraceRecord write = records.get(0);
        assertThat(write.protocol()).isEqualTo(TraceRecord.Protocol.ISCSI);
        assertThat(write.initiator()).isEqualTo(NEXUS.initiatorPortName());
        assertThat(write.connection()).isEqualTo(NEXUS.targetPortName());
        assertThat(write.opcode()).isEqualTo(0x2A);
        assertThat(write.lba()).isEqualTo(8);
        assertThat(write.blocks()).isEqualTo(4);
        assertThat(write.bytes()).isEqualTo(4L * LBS);
        assertThat(write.flagNames()).containsExactly("fua");
        assertThat(write.queueDepth()).isEqualTo(1);
        assertThat(write.status()).isEqualTo("GOOD");
        assertThat(write.ok()).isTrue();
        assertThat(write.senseKey()).isEqualTo(-1);
        assertThat(write.latencyNanos()).isPositive();
        assertThat(records.get(1).flagNames()).containsExactly("dpo");
        assertThat(records.get(2).lba()).isEqualTo(100);
        assertThat(records.get(2).blocks()).isEqualTo(8);
        TraceRecord failed = records.get(3);
        assertThat(failed.status()).isEqualTo("CHECK CONDITION");
        assertThat(failed.ok()).isFalse();
        assertThat(List.of(failed.senseKey(), failed.asc(), failed.ascq())).containsExactly(0x5, 0x21, 0x00);
        assertThat(records.get(4).lba()).isEqualTo(0);
        assertThat(records.get(4).blocks()).isEqualTo(0);   // SYNCHRONIZE CACHE 0 blocks: to the end, no extent
        for (int i = 1; i < records.size(); i++) {
            assertThat(records.get(i).timeNanos()).isGreaterThanOrEqualTo(records.get(i - 1).timeNanos());
        }

        TraceStats stats = tracer.stats();
        assertThat(stats.commands(IoKind.READ)).isEqualTo(2);
        assertThat(stats.failures(IoKind.READ)).isEqualTo(1);
        assertThat(stats.sizeBuckets(IoKind.WRITE)[14]).isEqualTo(1);                              // 16 KiB
        assertThat(stats.aligned(IoKind.WRITE, TraceStats.Unit.PHYSICAL_BLOCK)).isEqualTo(1);     // LBA 8 × 4 KiB
        assertThat(stats.aligned(IoKind.WRITE, TraceStats.Unit.OPTIMAL_TRANSFER)).isZero();
    }

    @Test
    void nvmeCommandsAreRecordedWithQueueCidAndStatus() {
        Host host = new Host(nvme, 1);
        Tracer tracer = new Tracer(64, LBS, 16384, 1 << 20, state.clock());
        state.startTrace(tracer);
        assertThat(TestSupport.submit(host.io, TestHost.rw(NvmOpcode.WRITE, 0x41, 1, 12, 4, LBS, true),
                Unpooled.wrappedBuffer(new byte[4 * LBS])).status()).isEqualTo(NvmeStatus.SUCCESS);
        TestSupport.Reply read = TestSupport.submit(host.io, TestHost.rw(NvmOpcode.READ, 0x42, 1, 12, 2, LBS, false),
                null);
        read.release();
        ByteBuf ranges = Unpooled.wrappedBuffer(ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN)
                .putInt(0).putInt(7).putLong(300).putInt(0).putInt(9).putLong(400).array());
        assertThat(TestSupport.submit(host.io, TestHost.dsm(0x43, 1, 1, false, false, true,
                SglDescriptor.inCapsule(0, 32)), ranges).status()).isEqualTo(NvmeStatus.SUCCESS);
        TestSupport.Reply beyond = TestSupport.submit(host.io,
                TestHost.rw(NvmOpcode.READ, 0x44, 1, BLOCKS, 1, LBS, false), null);
        beyond.release();
        assertThat(beyond.status()).isEqualTo(NvmeStatus.LBA_OUT_OF_RANGE);
        state.stopTrace();

        List<TraceRecord> records = read(tracer);
        assertThat(records).extracting(TraceRecord::tag).containsExactly(0x41L, 0x42L, 0x43L, 0x44L);
        assertThat(records).extracting(TraceRecord::op)
                .containsExactly("Write", "Read", "Dataset Management", "Read");
        assertThat(records).extracting(TraceRecord::kind)
                .containsExactly(IoKind.WRITE, IoKind.READ, IoKind.UNMAP, IoKind.READ);
        TraceRecord write = records.get(0);
        assertThat(write.protocol()).isEqualTo(TraceRecord.Protocol.NVME);
        assertThat(write.initiator()).isEqualTo("nqn.2014-08.org.nvmexpress:uuid:host-1");
        assertThat(write.connection()).isEqualTo("cntlid " + host.io.cntlid());
        assertThat(write.queue()).isEqualTo(1);
        assertThat(write.lba()).isEqualTo(12);
        assertThat(write.blocks()).isEqualTo(4);
        assertThat(write.bytes()).isEqualTo(4L * LBS);
        assertThat(write.flagNames()).containsExactly("fua");
        assertThat(write.status()).isEqualTo("SUCCESS");
        assertThat(List.of(write.sct(), write.sc())).containsExactly(0, 0);
        assertThat(records.get(1).flagNames()).isEmpty();
        assertThat(records.get(2).lba()).isEqualTo(300);
        assertThat(records.get(2).blocks()).isEqualTo(16);
        TraceRecord failed = records.get(3);
        assertThat(failed.ok()).isFalse();
        assertThat(failed.status()).isEqualTo("LBA OUT OF RANGE");
        assertThat(List.of(failed.sct(), failed.sc())).containsExactly(0, 0x80);
        assertThat(failed.dnr()).isTrue();
    }

    /**
     * Each write's data placement identifier as sent (issue 32): the GROUP NUMBER of WRITE(10) / (12) / (16) — six
     * bits of byte 6, 10, 14; 0 is none — and the DSPEC of a Write / Write Zeroes with DTYPE 2 (CDW12 23:20, CDW13
     * 31:16); another DTYPE, a read, or no directive: none (-1). The LUN has no placement: the trace shows what the
     * initiator sent regardless.
     */
    @Test
    void writesAreRecordedWithTheirPlacementIdentifier() {
        ready();
        Host host = new Host(nvme, 1);
        Tracer tracer = new Tracer(64, LBS, 16384, 1 << 20, state.clock());
        state.startTrace(tracer);
        byte[] w10 = rw10(0x2A, 0, 0, 1);
        w10[6] = (byte) 0xC3;   // reserved bits 7:6 are not part of the GROUP NUMBER
        assertThat(scsi(w10, new byte[LBS], 1)).isEqualTo(ScsiStatus.GOOD);
        byte[] w12 = {(byte) 0xAA, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0x3F, 0};
        assertThat(scsi(w12, new byte[LBS], 2)).isEqualTo(ScsiStatus.GOOD);
        byte[] w16 = rw16(0x8A, 0, 2, 1);
        assertThat(scsi(w16, new byte[LBS], 3)).isEqualTo(ScsiStatus.GOOD);   // GROUP NUMBER 0: none
        byte[] r16 = rw16(0x88, 0, 2, 1);
        r16 = Arrays.copyOf(r16, 16);
        r16[14] = 5;
        assertThat(scsi(r16, null, 4)).isEqualTo(ScsiStatus.GOOD);              // a read's GROUP NUMBER: not recorded
        byte[] w16g = rw16(0x8A, 0, 3, 1);
        w16g = Arrays.copyOf(w16g, 16);
        w16g[14] = 0x01;
        assertThat(scsi(w16g, new byte[LBS], 5)).isEqualTo(ScsiStatus.GOOD);
        var write = TestHost.rw(NvmOpcode.WRITE, 0x41, 1, 12, 1, LBS, false);
        var placed = new io.blocktarget.protocol.nvme.Sqe(write.opcode(), write.fuse(), write.psdt(), write.cid(),
                write.nsid(), write.cdw2(), write.cdw3(), write.mptr(), write.dptr(), write.cdw10(), write.cdw11(),
                write.cdw12() | 2 << 20, write.cdw13() | 0xFFFF << 16, write.cdw14(), write.cdw15());
        assertThat(TestSupport.submit(host.io, placed, Unpooled.wrappedBuffer(new byte[LBS])).status())
                .isEqualTo(NvmeStatus.SUCCESS);
        var streams = new io.blocktarget.protocol.nvme.Sqe(write.opcode(), write.fuse(), write.psdt(), 0x42,
                write.nsid(), write.cdw2(), write.cdw3(), write.mptr(), write.dptr(), write.cdw10(), write.cdw11(),
                write.cdw12() | 1 << 20, write.cdw13() | 5 << 16, write.cdw14(), write.cdw15());
        assertThat(TestSupport.submit(host.io, streams, Unpooled.wrappedBuffer(new byte[LBS])).status())
                .isEqualTo(NvmeStatus.SUCCESS);                                    // DTYPE 1 (streams): none
        var zeroes = io.blocktarget.protocol.nvme.Sqe.of(NvmOpcode.WRITE_ZEROES.code(), 0x43, 1,
                SglDescriptor.transportDataBlock(0), 20, 0, 1 | 2 << 20, 7 << 16);
        assertThat(TestSupport.submit(host.io, zeroes, null).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(TestSupport.submit(host.io, TestHost.rw(NvmOpcode.WRITE, 0x44, 1, 30, 1, LBS, false),
                Unpooled.wrappedBuffer(new byte[LBS])).status()).isEqualTo(NvmeStatus.SUCCESS);
        state.stopTrace();

        List<TraceRecord> records = read(tracer);
        assertThat(records).extracting(TraceRecord::tag).containsExactly(1L, 2L, 3L, 4L, 5L, 0x41L, 0x42L, 0x43L,
                0x44L);
        assertThat(records).extracting(TraceRecord::placement).containsExactly(3, 0x3F, -1, -1, 1, 0xFFFF, -1, 7,
                -1);
    }

    /** Zero cost when off, by structure: without a tracer a request gets no trace record (nothing allocated). */
    @Test
    void withoutATracerTheRequestGetsNoTraceRecord() {
        LunState off = new LunState("off");
        assertThat(NvmeTrace.begin(off, new InFlight(), null, 1, null, null)).isNull();
        off.startTrace(new Tracer(16, 512, 512, 1 << 20, off.clock()));
        off.stopTrace();
        assertThat(NvmeTrace.begin(off, new InFlight(), null, 1, null, null)).isNull();
        assertThat(off.tracer()).isNull();
        assertThat(off.lastTracer()).isNotNull();
    }

    /** Queue depth at arrival counts the commands in flight on the LUN, both protocols, this one included. */
    @Test
    void queueDepthIsTheInFlightCountAtArrival() {
        Host host = new Host(nvme, 2);
        Tracer tracer = new Tracer(64, LBS, 16384, 1 << 20, state.clock());
        state.startTrace(tracer);
        InFlight inFlight = state.inFlight();
        assertThat(inFlight.enter()).isTrue();   // two commands of someone else in flight
        assertThat(inFlight.enter()).isTrue();
        TestSupport.Reply r = TestSupport.submit(host.io, TestHost.rw(NvmOpcode.READ, 0x51, 1, 0, 1, LBS, false),
                null);
        r.release();
        inFlight.exit();
        inFlight.exit();
        assertThat(read(tracer)).extracting(TraceRecord::queueDepth).containsExactly(3);
    }
}
