package io.blocktarget.transport.iscsi;

import io.blocktarget.protocol.iscsi.Bhs;
import io.blocktarget.protocol.iscsi.Digest;
import io.blocktarget.protocol.iscsi.IscsiFraming;
import io.blocktarget.protocol.iscsi.TargetPdu;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;

/**
 * Turns a target PDU into one wire frame without copying its data segment (DESIGN §3): a small buffer
 * with BHS and header digest, the PDU's own data buffer, and a tail with padding and data digest, as a
 * composite. The frame takes over the PDU's data buffer (RFC 7143 §11.1 frame layout).
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

    static ByteBuf frame(TargetPdu pdu, ByteBufAllocator alloc, Digest headerDigest, Digest dataDigest) {
        ByteBuf header = alloc.buffer(Bhs.LENGTH + Digest.CRC32C.length());
        ByteBuf data = pdu.data();
        try {
            IscsiFraming.encodeHeader(pdu, header, headerDigest);
        } catch (RuntimeException e) {
            header.release();
            data.release();
            throw e;
        }
        int length = data.readableBytes();
        if (length == 0) {
            data.release();
            return header;
        }
        int pad = Bhs.padding(length);
        CompositeByteBuf frame = alloc.compositeBuffer(3);
        frame.addComponent(true, header);
        if (pad == 0 && dataDigest == Digest.NONE) {
            frame.addComponent(true, data);
            return frame;
        }
        ByteBuf tail = alloc.buffer(pad + dataDigest.length());
        tail.writeZero(pad);
        if (dataDigest == Digest.CRC32C) {
            tail.writeIntLE(IscsiFraming.dataDigest(data, pad));
        }
        frame.addComponent(true, data);
        frame.addComponent(true, tail);
        return frame;
    }
}
