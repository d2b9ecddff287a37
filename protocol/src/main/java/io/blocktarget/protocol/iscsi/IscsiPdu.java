package io.blocktarget.protocol.iscsi;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * One iSCSI PDU (RFC 7143 §11). Records behind two sealed families by direction.
 *
 * <h2>Frames</h2>
 * Every record has {@code static X decode(ByteBuf frame)} over a <em>digest-free</em> frame: the 48-byte
 * BHS at the frame's reader index, the AHS, then the data segment (its padding may follow or not).
 * {@link IscsiFraming} turns wire bytes (with digests) into such frames. Decoders never move the frame's
 * indices and throw nothing but {@link IscsiProtocolException}.
 *
 * <h2>Ownership of data segments</h2>
 * The caller owns the frame it passes to {@code decode} and releases it when it likes. A PDU that has a
 * data segment holds a <em>retained slice</em> of the frame in {@link #data()}: whoever holds the PDU
 * releases it exactly once with {@link #release()} (no-op for PDUs without data). A PDU built for encoding
 * takes ownership of the buffer passed as its data in the same way. {@link #encode} and
 * {@link #encodeHeader} copy and never release; a transport that wants zero copy writes
 * {@code encodeHeader} into a small buffer and composes it with {@code data().retainedSlice()}.
 */
public sealed interface IscsiPdu permits InitiatorPdu, TargetPdu {
    IscsiOpcode opcode();

    /** Bytes 16-19; {@link Bhs#RESERVED_TAG} where the PDU belongs to no task. */
    int itt();

    /** The data segment, without padding; the empty buffer when there is none. */
    default ByteBuf data() {
        return Unpooled.EMPTY_BUFFER;
    }

    /** Writes the BHS and AHS (no digest). */
    void encodeHeader(ByteBuf out);

    /** Writes BHS, AHS, data segment and its zero padding; no digests (see {@link IscsiFraming#encode}). */
    default void encode(ByteBuf out) {
        encodeHeader(out);
        ByteBuf d = data();
        out.writeBytes(d, d.readerIndex(), d.readableBytes());
        out.writeZero(Bhs.padding(d.readableBytes()));
    }

    /** Releases the data segment this PDU owns. */
    default void release() {
        data().release();
    }
}
