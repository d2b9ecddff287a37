package io.blocktarget.transport.iscsi;

import io.blocktarget.protocol.iscsi.Bhs;
import io.blocktarget.protocol.iscsi.Digest;
import io.blocktarget.protocol.iscsi.IscsiFraming;
import io.blocktarget.protocol.iscsi.TargetPdu;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;

/**
 * Turns a target PDU into its wire frame without copying its data segment (DESIGN §3; RFC 7143 §11.1 frame layout).
 * The frame takes over the PDU's data buffer.
 */
final class PduWriter {
    private PduWriter() {
    }

    /**
     * Makes {@code frame}'s header digest (after the BHS and its AHS, RFC 7143 §11.1) or data digest (its last 4
     * bytes) wrong by one bit — a fault rule's corrupt-digest. Only our own buffers change: the header buffer and
     * the tail, never the PDU's data (which may be the backend's memory).
     *
     * @return false when the frame has no such digest (no data segment for a data digest)
     */
    static boolean corruptDigest(ByteBuf frame, boolean header) {
        int at;
        if (header) {
            at = frame.readerIndex() + Bhs.LENGTH + 4 * frame.getUnsignedByte(frame.readerIndex() + 4);
        } else {
            if (frame.getMedium(frame.readerIndex() + 5) == 0) {
                return false;
            }
            at = frame.writerIndex() - 1;
        }
        frame.setByte(at, frame.getByte(at) ^ 0x01);
        return true;
    }

    /** Where the parts of a frame go, in order; {@code last} on the frame's last part. */
    interface Sink {
        void part(ByteBuf part, boolean last);
    }

    /**
     * Writes {@code pdu} to {@code sink} in parts, without copying its data segment: a small buffer with the BHS and
     * header digest, the PDU's own data buffer (ownership passes on), and a tail with pad and data digest when there
     * are any. A frame in parts needs no composite buffer, which the socket could hand to writev only through NIO
     * views allocated per write.
     */
    static void write(TargetPdu pdu, ByteBufAllocator alloc, Digest headerDigest, Digest dataDigest, Sink sink) {
        ByteBuf header = alloc.buffer(Bhs.LENGTH + Digest.CRC32C.length());
        ByteBuf data = pdu.data();
        try {
            IscsiFraming.encodeHeader(pdu, header, headerDigest);
        } catch (RuntimeException e) {
            header.release();
            data.release();
            throw e;
        }
        if (!data.isReadable()) {
            data.release();
            sink.part(header, true);
            return;
        }
        sink.part(header, false);
        writeData(data, alloc, dataDigest, sink);
    }

    /**
     * The rest of a frame whose header went before: its data segment ({@code data}, not empty; ownership passes on),
     * then a tail with pad and data digest when there are any.
     */
    static void writeData(ByteBuf data, ByteBufAllocator alloc, Digest dataDigest, Sink sink) {
        int length = data.readableBytes();
        int pad = Bhs.padding(length);
        if (pad == 0 && dataDigest == Digest.NONE) {
            sink.part(data, true);
            return;
        }
        ByteBuf tail = alloc.buffer(pad + dataDigest.length());
        tail.writeZero(pad);
        if (dataDigest == Digest.CRC32C) {
            tail.writeIntLE(IscsiFraming.dataDigest(data, pad));
        }
        sink.part(data, false);
        sink.part(tail, true);
    }

    /** The same as one buffer (a composite of the parts): a fault rule corrupting a digest needs the whole frame. */
    static ByteBuf frame(TargetPdu pdu, ByteBufAllocator alloc, Digest headerDigest, Digest dataDigest) {
        CompositeByteBuf frame = alloc.compositeBuffer(3);
        write(pdu, alloc, headerDigest, dataDigest, (part, last) -> frame.addComponent(true, part));
        return frame;
    }
}
