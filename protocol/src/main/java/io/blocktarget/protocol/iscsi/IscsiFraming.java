package io.blocktarget.protocol.iscsi;

import io.blocktarget.protocol.Crc32c;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.util.zip.CRC32C;

/**
 * Pure framing of the iSCSI byte stream (RFC 7143 §11.1): no state, no allocation before the caps are
 * checked. A transport decoder does:
 * <pre>
 *   if (in.readableBytes() &lt; Bhs.LENGTH) wait;
 *   FrameLayout layout = IscsiFraming.layout(in, limits);      // caps checked here
 *   if (in.readableBytes() &lt; layout.totalLength()) wait;
 *   ByteBuf wire = in.readRetainedSlice(layout.totalLength());
 *   try { pdu = IscsiFraming.decode(wire, layout, limits); } finally { wire.release(); }
 *   ... use pdu ...; pdu.release();
 * </pre>
 * Digests are CRC32C (§13.1, RFC 3720 B.4) and go on the wire least significant byte first.
 */
public final class IscsiFraming {
    private IscsiFraming() {
    }

    /**
     * Reads the BHS at the reader index of {@code in} (which must hold at least 48 readable bytes, else
     * {@code TRUNCATED}) and returns the sizes of the whole PDU, after checking TotalAHSLength and
     * DataSegmentLength against {@code limits}. Nothing is allocated and no index moves.
     */
    public static FrameLayout layout(ByteBuf in, FrameLimits limits) {
        int base = in.readerIndex();
        if (in.readableBytes() < Bhs.LENGTH) {
            throw Bhs.error(IscsiProtocolException.Reason.TRUNCATED, in, base,
                    "need 48 bytes of BHS, have " + in.readableBytes());
        }
        int ahs = Bhs.totalAhsLength(in, base);
        if (ahs > limits.maxAhsLength()) {
            throw Bhs.error(IscsiProtocolException.Reason.AHS_TOO_LONG, in, base,
                    "TotalAHSLength " + ahs + " bytes exceeds " + limits.maxAhsLength());
        }
        int dsl = Bhs.dataSegmentLength(in, base);
        if (dsl > limits.maxDataSegmentLength()) {
            throw Bhs.error(IscsiProtocolException.Reason.DATA_SEGMENT_TOO_LONG, in, base,
                    "DataSegmentLength " + dsl + " exceeds MaxRecvDataSegmentLength " + limits.maxDataSegmentLength());
        }
        return new FrameLayout(ahs, limits.headerDigest().length(), dsl, dsl == 0 ? 0 : limits.dataDigest().length());
    }

    /**
     * Verifies the digests of one complete wire frame (exactly {@code layout.totalLength()} readable bytes)
     * and decodes it. The caller keeps ownership of {@code wire}; the PDU owns a retained slice of its data.
     * Opcodes from the wrong side are {@code BAD_OPCODE}.
     */
    public static IscsiPdu decode(ByteBuf wire, FrameLimits limits) {
        return decode(wire, layout(wire, limits), limits);
    }

    /**
     * {@link #decode(ByteBuf, FrameLimits)} with the layout the caller already has from {@link #layout} of the same
     * frame and limits (a decoder that waited for the whole frame), so that it is not worked out twice.
     */
    public static IscsiPdu decode(ByteBuf wire, FrameLayout layout, FrameLimits limits) {
        int base = wire.readerIndex();
        if (wire.readableBytes() != layout.totalLength()) {
            throw Bhs.error(IscsiProtocolException.Reason.TRUNCATED, wire, base,
                    "frame of " + wire.readableBytes() + " bytes, layout says " + layout.totalLength());
        }
        if (layout.headerDigestLength() > 0) {
            int expected = Crc32c.compute(wire, base, layout.headerLength());
            if (wire.getIntLE(base + layout.headerLength()) != expected) {
                throw Bhs.error(IscsiProtocolException.Reason.HEADER_DIGEST_ERROR, wire, base, "header CRC32C mismatch");
            }
        }
        int dataAt = base + layout.dataOffset();
        if (layout.dataDigestLength() > 0) {
            int expected = Crc32c.compute(wire, dataAt, layout.paddedDataLength());
            if (wire.getIntLE(dataAt + layout.paddedDataLength()) != expected) {
                throw Bhs.error(IscsiProtocolException.Reason.DATA_DIGEST_ERROR, wire, base, "data CRC32C mismatch");
            }
        }
        if (layout.headerDigestLength() == 0) {
            // Header and data are contiguous: the PDU decoders read them in place and retain a slice of only the
            // data they keep, so no view of the frame of our own (nor its reference count) per PDU. Without a data
            // digest the frame is the whole of wire.
            return IscsiPdus.decode(layout.dataDigestLength() == 0 ? wire
                    : wire.slice(base, layout.headerLength() + layout.paddedDataLength()), limits.sender());
        }
        ByteBuf frame = Unpooled.wrappedBuffer(wire.retainedSlice(base, layout.headerLength()),
                wire.retainedSlice(dataAt, layout.paddedDataLength()));
        try {
            return IscsiPdus.decode(frame, limits.sender());
        } finally {
            frame.release();
        }
    }

    /** Writes {@code pdu} with the given digests: BHS, AHS, [header CRC], data, padding, [data CRC]. */
    public static void encode(IscsiPdu pdu, ByteBuf out, Digest headerDigest, Digest dataDigest) {
        encodeHeader(pdu, out, headerDigest);
        ByteBuf data = pdu.data();
        int length = data.readableBytes();
        if (length == 0) {
            return;
        }
        int pad = Bhs.padding(length);
        out.writeBytes(data, data.readerIndex(), length);
        out.writeZero(pad);
        if (dataDigest == Digest.CRC32C) {
            out.writeIntLE(dataDigest(data, pad));
        }
    }

    /**
     * Writes BHS, AHS and the header digest only: a zero-copy sender follows it with
     * {@code pdu.data().retainedSlice()}, {@link Bhs#padding} zero bytes and {@link #dataDigest} (LE).
     */
    public static void encodeHeader(IscsiPdu pdu, ByteBuf out, Digest headerDigest) {
        int start = out.writerIndex();
        pdu.encodeHeader(out);
        if (headerDigest == Digest.CRC32C) {
            out.writeIntLE(Crc32c.compute(out, start, out.writerIndex() - start));
        }
    }

    /** CRC32C of a data segment followed by {@code pad} zero bytes — for transports that send data zero-copy. */
    public static int dataDigest(ByteBuf data, int pad) {
        CRC32C crc = new CRC32C();
        Crc32c.update(crc, data, data.readerIndex(), data.readableBytes());
        crc.update(new byte[pad], 0, pad);
        return (int) crc.getValue();
    }
}
