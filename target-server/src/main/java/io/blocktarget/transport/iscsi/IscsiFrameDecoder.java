package io.blocktarget.transport.iscsi;

import io.blocktarget.protocol.iscsi.Bhs;
import io.blocktarget.protocol.iscsi.FrameLayout;
import io.blocktarget.protocol.iscsi.FrameLimits;
import io.blocktarget.protocol.iscsi.IscsiFraming;
import io.blocktarget.protocol.iscsi.IscsiProtocolException;
import io.blocktarget.protocol.iscsi.PduSource;
import io.blocktarget.transport.tcp.StreamTuning;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.util.List;

/**
 * Cuts the initiator's byte stream into PDUs (RFC 7143 §11.1). The lengths in the BHS are checked against
 * the current {@link FrameLimits} before a frame is buffered; a frame is decoded only when complete. It emits
 * {@link io.blocktarget.protocol.iscsi.InitiatorPdu}s (the receiver owns and releases them) and
 * {@link FrameError}s. After an error whose disposition is CLOSE_CONNECTION the framing is lost: the
 * decoder discards everything that follows. One PDU per {@code decode} call, so a limits change made while
 * handling a PDU (digests after login) applies to the very next frame.
 */
final class IscsiFrameDecoder extends ByteToMessageDecoder {
    /** A frame that could not be decoded; {@code error.reason().disposition()} says what to do. */
    record FrameError(IscsiProtocolException error) {
    }

    private enum State { FRAMING, DISCARDING }

    private FrameLimits limits = FrameLimits.loginFrom(PduSource.INITIATOR);
    private State state = State.FRAMING;

    IscsiFrameDecoder() {
        StreamTuning.apply(this);
    }

    /** Called on the event loop by the connection when negotiation changes digests or segment caps. */
    void limits(FrameLimits newLimits) {
        this.limits = newLimits;
    }

    FrameLimits limits() {
        return limits;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (state == State.DISCARDING) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (in.readableBytes() < Bhs.LENGTH) {
            return;
        }
        FrameLayout layout;
        try {
            layout = IscsiFraming.layout(in, limits);
        } catch (IscsiProtocolException e) {
            state = State.DISCARDING;
            in.skipBytes(in.readableBytes());
            out.add(new FrameError(e));
            return;
        }
        if (in.readableBytes() < layout.totalLength()) {
            return;
        }
        // A view of the frame for the decode alone, neither retained nor released: the PDU retains a slice of the
        // data it keeps, which also keeps ByteToMessageDecoder from compacting the cumulation under it (it does that
        // only at reference count 1). A read's SCSI Command keeps nothing, so it costs no reference count at all.
        ByteBuf wire = in.slice(in.readerIndex(), layout.totalLength());
        in.skipBytes(layout.totalLength());
        try {
            out.add(IscsiFraming.decode(wire, layout, limits));
        } catch (IscsiProtocolException e) {
            if (e.reason().disposition() == IscsiProtocolException.Disposition.CLOSE_CONNECTION) {
                state = State.DISCARDING;
                in.skipBytes(in.readableBytes());
            }
            out.add(new FrameError(e));
        }
    }
}
