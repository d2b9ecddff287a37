package io.blocktarget.scsi;

import io.blocktarget.block.InFlight;
import io.blocktarget.block.LunState;
import io.blocktarget.block.trace.Tracer;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ScsiTraceTest {
    /** Zero cost when off, by structure: without a tracer the hook hands back the very completion it got. */
    @Test
    void withoutATracerTheHookReturnsTheCompletionItself() {
        LunState off = new LunState("off");
        ScsiCompletion done = response -> { };
        ScsiCommand command = new ScsiCommand(Scsi.A, 0, Unpooled.wrappedBuffer(new byte[16]), TaskAttribute.SIMPLE,
                1, 0, null);
        assertThat(ScsiTrace.wrap(off, new InFlight(), command, done)).isSameAs(done);
        off.startTrace(new Tracer(16, 512, 512, 1 << 20));
        assertThat(ScsiTrace.wrap(off, new InFlight(), command, done)).isNotSameAs(done);
        off.stopTrace();
        assertThat(ScsiTrace.wrap(off, new InFlight(), command, done)).isSameAs(done);
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
