package io.blocktarget.scsi;

import io.blocktarget.block.InFlight;
import io.blocktarget.block.IoKind;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.block.trace.TraceRecord;
import io.blocktarget.block.trace.TraceRing;
import io.blocktarget.block.trace.Tracer;
import io.blocktarget.protocol.scsi.ScsiStatus;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ScsiTraceTest {
    /** Zero cost when off, by structure: without a tracer a task gets no trace record (nothing allocated). */
    @Test
    void withoutATracerTheTaskGetsNoTraceRecord() {
        LunState off = new LunState("off");
        ScsiCommand command = ScsiCommand.of(Scsi.A, 0, Unpooled.wrappedBuffer(new byte[16]), TaskAttribute.SIMPLE,
                1, 0, null);
        assertThat(ScsiTrace.begin(off, new InFlight(), command)).isNull();
        off.startTrace(new Tracer(16, 512, 512, 1 << 20, off.clock()));
        assertThat(ScsiTrace.begin(off, new InFlight(), command)).isNotNull();
        off.stopTrace();
        assertThat(ScsiTrace.begin(off, new InFlight(), command)).isNull();
    }

    /** ZBC-2 §5: REPORT ZONES (ZBC IN 95h/00h) and ZBC OUT (94h) are zone-management at ZONE START LBA / ZONE ID. */
    @Test
    void zbcCommandsAreZoneManagementAtTheirZone() {
        LunState state = new LunState("z");
        Tracer tracer = new Tracer(16, 4096, 4096, 1 << 20, state.clock());
        state.startTrace(tracer);
        byte[] report = ByteBuffer.allocate(16).put((byte) 0x95).put((byte) 0x00).putLong(0x8000).putInt(4096)
                .array();
        byte[] reset = ByteBuffer.allocate(16).put((byte) 0x94).put((byte) 0x04).putLong(0x10000).array();
        long tag = 1;
        for (byte[] cdb : List.of(report, reset)) {
            ScsiCommand command = ScsiCommand.of(Scsi.A, 0, Unpooled.wrappedBuffer(cdb), TaskAttribute.SIMPLE, tag++,
                    0, null);
            ScsiTrace.begin(state, new InFlight(), command).record(new ScsiResponse(ScsiStatus.GOOD, null, null, 0));
        }
        List<TraceRecord> records = new ArrayList<>();
        tracer.ring().reader().poll(16, new TraceRing.Sink() {
            @Override
            public void record(TraceRecord record) {
                records.add(record);
            }

            @Override
            public void dropped(long count) {
                throw new AssertionError("dropped " + count);
            }
        });
        assertThat(records).extracting(TraceRecord::op).containsExactly("ZBC IN REPORT ZONES",
                "ZBC OUT RESET WRITE POINTER");
        assertThat(records).extracting(TraceRecord::kind).containsOnly(IoKind.ZONE_MANAGEMENT);
        assertThat(records).extracting(TraceRecord::lba).containsExactly(0x8000L, 0x10000L);
        assertThat(records).extracting(TraceRecord::blocks).containsOnly(0L);
    }

    /** ORWRITE(16) (SBC-4 §5.14) is a write of TRANSFER LENGTH blocks at LBA, with FUA, like WRITE(16). */
    @Test
    void orWriteIsAWrite() {
        LunState state = new LunState("o");
        Tracer tracer = new Tracer(16, 4096, 4096, 1 << 20, state.clock());
        state.startTrace(tracer);
        byte[] cdb = ByteBuffer.allocate(16).put((byte) 0x8B).put((byte) 0x08).putLong(77).putInt(3).array();
        ScsiCommand command = ScsiCommand.of(Scsi.A, 0, Unpooled.wrappedBuffer(cdb), TaskAttribute.SIMPLE, 1, 3 * 512,
                null);
        ScsiTrace.begin(state, new InFlight(), command).record(new ScsiResponse(ScsiStatus.GOOD, null, null, 0));
        List<TraceRecord> records = new ArrayList<>();
        tracer.ring().reader().poll(16, new TraceRing.Sink() {
            @Override
            public void record(TraceRecord record) {
                records.add(record);
            }

            @Override
            public void dropped(long count) {
                throw new AssertionError("dropped " + count);
            }
        });
        assertThat(records).hasSize(1);
        TraceRecord r = records.getFirst();
        assertThat(r.op()).isEqualTo("ORWRITE(16)");
        assertThat(r.kind()).isEqualTo(IoKind.WRITE);
        assertThat(r.lba()).isEqualTo(77);
        assertThat(r.blocks()).isEqualTo(3);
        assertThat(r.flags() & TraceRecord.FUA).isNotZero();
    }

    @Test
    void namesFollowSpc() {
        assertThat(ScsiTrace.name(0x8A, 0)).isEqualTo("WRITE(16)");
        assertThat(ScsiTrace.name(0x28, 0)).isEqualTo("READ(10)");
        assertThat(ScsiTrace.name(0x9E, 0x10)).isEqualTo("READ CAPACITY(16)");
        assertThat(ScsiTrace.name(0x12, 0)).isEqualTo("INQUIRY");
        assertThat(ScsiTrace.name(0x9C, 0)).isEqualTo("WRITE ATOMIC(16)");
        assertThat(ScsiTrace.name(0xC1, 0)).isEqualTo("0xC1");
    }
}
