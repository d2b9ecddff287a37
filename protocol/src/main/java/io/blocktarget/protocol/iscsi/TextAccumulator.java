package io.blocktarget.protocol.iscsi;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.util.Arrays;

/**
 * Joins the data segments of a Login or Text sequence sent with the C bit (RFC 7143 §11.10.2, §11.12.2):
 * a key=value pair may be split anywhere between two PDUs. Immutable: {@link #append} returns a new
 * accumulator holding a copy of the bytes so far, so the PDUs can be released at once.
 *
 * @param maxLength cap on the joined length (§6.1: at least 8192 bytes must be accepted; pick more)
 */
public record TextAccumulator(byte[] bytes, int maxLength) {
    public TextAccumulator {
        bytes = bytes.clone();
        if (maxLength < 0) {
            throw new IllegalArgumentException("maxLength " + maxLength);
        }
    }

    public static TextAccumulator empty(int maxLength) {
        return new TextAccumulator(new byte[0], maxLength);
    }

    /** The bytes so far followed by the readable bytes of {@code segment} (indices unchanged). */
    public TextAccumulator append(ByteBuf segment) {
        int n = segment.readableBytes();
        if ((long) bytes.length + n > maxLength) {
            throw new IscsiProtocolException(IscsiProtocolException.Reason.TEXT_TOO_LONG,
                    "continued text exceeds " + maxLength + " bytes");
        }
        byte[] joined = Arrays.copyOf(bytes, bytes.length + n);
        segment.getBytes(segment.readerIndex(), joined, bytes.length, n);
        return new TextAccumulator(joined, maxLength);
    }

    public int length() {
        return bytes.length;
    }

    /** Decodes the joined text, once the PDU with C = 0 has been appended. */
    public TextParameters complete() {
        return TextParameters.decode(Unpooled.wrappedBuffer(bytes));
    }

    @Override
    public byte[] bytes() {
        return bytes.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TextAccumulator t && maxLength == t.maxLength && Arrays.equals(bytes, t.bytes);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(bytes) + maxLength;
    }

    @Override
    public String toString() {
        return "TextAccumulator[" + bytes.length + " of " + maxLength + " bytes]";
    }
}
