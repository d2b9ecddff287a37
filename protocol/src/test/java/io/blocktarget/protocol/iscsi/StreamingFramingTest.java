package io.blocktarget.protocol.iscsi;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.ByteToMessageDecoder;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The framing API driven the way the transport's Netty decoder will drive it (the loop in the
 * {@link IscsiFraming} javadoc), fed one byte at a time and at random splits: the same PDUs come out,
 * and every buffer is released.
 */
class StreamingFramingTest {
    /** Minimal decoder over IscsiFraming; the real one (with phase-dependent limits) lives in the transport. */
    private static final class FrameDecoder extends ByteToMessageDecoder {
        private final FrameLimits limits;

        FrameDecoder(FrameLimits limits) {
            this.limits = limits;
        }

        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
            if (in.readableBytes() < Bhs.LENGTH) {
                return;
            }
            FrameLayout layout = IscsiFraming.layout(in, limits);
            if (in.readableBytes() < layout.totalLength()) {
                return;
            }
            ByteBuf wire = in.readRetainedSlice(layout.totalLength());
            try {
                out.add(IscsiFraming.decode(wire, limits));
            } finally {
                wire.release();
            }
        }
    }

    @Test
    void oneByteAtATimeAndRandomSplitsGiveTheSamePdus() {
        Random r = new Random(1982);
        FrameLimits limits = new FrameLimits(PduSource.INITIATOR, 8192, Bhs.MAX_AHS_LENGTH, Digest.CRC32C,
                Digest.CRC32C);
        List<IscsiPdu> sent = new ArrayList<>();
        ByteBuf stream = Unpooled.buffer();
        for (int i = 0; i < 20; i++) {
            for (IscsiPdu pdu : Samples.all(r)) {
                if (pdu.opcode().source() == PduSource.INITIATOR) {
                    IscsiFraming.encode(pdu, stream, Digest.CRC32C, Digest.CRC32C);
                    sent.add(pdu);
                } else {
                    pdu.release();
                }
            }
        }
        byte[] bytes = ByteBufUtil.getBytes(stream);
        stream.release();
        try {
            for (boolean oneByte : new boolean[] {true, false}) {
                EmbeddedChannel channel = new EmbeddedChannel(new FrameDecoder(limits));
                int at = 0;
                while (at < bytes.length) {
                    int n = oneByte ? 1 : Math.min(bytes.length - at, 1 + r.nextInt(300));
                    channel.writeInbound(Unpooled.copiedBuffer(bytes, at, n));
                    at += n;
                }
                List<IscsiPdu> received = new ArrayList<>();
                for (IscsiPdu pdu; (pdu = channel.readInbound()) != null; ) {
                    received.add(pdu);
                }
                try {
                    assertThat(received).isEqualTo(sent);
                } finally {
                    received.forEach(IscsiPdu::release);
                }
                assertThat(channel.finish()).isFalse();
            }
        } finally {
            sent.forEach(IscsiPdu::release);
        }
    }
}
