package io.blocktarget.protocol.nvme;

import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;

/**
 * Fixed-width text fields: ASCII space-padded (Identify SN/MN/FR, Discovery TRSVCID/TRADDR; Base §1.5
 * "ASCII string") and UTF-8 NUL-padded NQNs (Base §4.5 "NVMe Qualified Names": at most 223 bytes in a 256-byte
 * field, NUL terminated).
 */
public final class WireText {
    /** Longest NQN in bytes (Base §4.5). */
    public static final int NQN_MAX = 223;
    public static final int NQN_FIELD = 256;

    private WireText() {
    }

    /** Writes {@code text} at absolute {@code index}, truncated or padded with spaces to {@code width}. */
    public static void setSpacePadded(ByteBuf buf, int index, String text, int width) {
        setPadded(buf, index, text.getBytes(StandardCharsets.US_ASCII), width, ' ');
    }

    /** Writes {@code text} at absolute {@code index}, padded with NULs to {@code width} (at least one NUL). */
    public static void setNulPadded(ByteBuf buf, int index, String text, int width) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length >= width) {
            throw new IllegalArgumentException("text of " + bytes.length + " bytes does not fit " + width);
        }
        setPadded(buf, index, bytes, width, 0);
    }

    private static void setPadded(ByteBuf buf, int index, byte[] bytes, int width, int pad) {
        int n = Math.min(bytes.length, width);
        buf.setBytes(index, bytes, 0, n);
        for (int i = n; i < width; i++) {
            buf.setByte(index + i, pad);
        }
    }

    /**
     * The NUL-terminated UTF-8 string in the {@code width}-byte field at {@code index}, or {@code null} when the
     * field has no NUL (an over-long or unterminated NQN).
     */
    public static String getNulTerminated(ByteBuf buf, int index, int width) {
        int end = buf.indexOf(index, index + width, (byte) 0);
        return end < 0 ? null : buf.toString(index, end - index, StandardCharsets.UTF_8);
    }

    /** The space-padded ASCII field at {@code index} with trailing spaces and NULs removed. */
    public static String getSpacePadded(ByteBuf buf, int index, int width) {
        return buf.toString(index, width, StandardCharsets.US_ASCII).replaceAll("[ \\x00]+$", "");
    }
}
