package io.blocktarget.protocol.nvme;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;

import java.io.ByteArrayOutputStream;
import java.util.function.Consumer;

/** Test vectors written as hex with {@code #} comments (offsets), and helpers that release what they allocate. */
public final class TestBytes {
    private TestBytes() {
    }

    /** Parses hex digits, ignoring whitespace, '|' separators and {@code #} comments to end of line. */
    public static byte[] hex(String text) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StringBuilder digits = new StringBuilder();
        for (String line : text.split("\n")) {
            int c = line.indexOf('#');
            digits.append((c >= 0 ? line.substring(0, c) : line).replaceAll("[\\s|]", ""));
        }
        if (digits.length() % 2 != 0) {
            throw new IllegalArgumentException("odd number of hex digits");
        }
        for (int i = 0; i < digits.length(); i += 2) {
            out.write(Integer.parseInt(digits.substring(i, i + 2), 16));
        }
        return out.toByteArray();
    }

    /** {@code n} zero bytes. */
    public static String zeros(int n) {
        return "00".repeat(n);
    }

    /** Runs {@code encoder} into a fresh buffer and returns the bytes written; the buffer is released. */
    public static byte[] encode(Consumer<ByteBuf> encoder) {
        ByteBuf buf = Unpooled.buffer();
        try {
            encoder.accept(buf);
            return ByteBufUtil.getBytes(buf);
        } finally {
            buf.release();
        }
    }

    /** Little-endian 16/32/64-bit value at {@code offset} of {@code b}, for checks on large structures. */
    public static long le(byte[] b, int offset, int size) {
        long v = 0;
        for (int k = size - 1; k >= 0; k--) {
            v = v << 8 | (b[offset + k] & 0xFF);
        }
        return v;
    }

    /** Writes {@code value} little-endian into {@code b} at {@code offset} (building expected arrays by hand). */
    public static void putLe(byte[] b, int offset, long value, int size) {
        for (int k = 0; k < size; k++) {
            b[offset + k] = (byte) (value >>> 8 * k);
        }
    }

    /** ASCII text into {@code b} at {@code offset}, padded with {@code pad} to {@code width}. */
    public static void putText(byte[] b, int offset, String text, int width, char pad) {
        for (int k = 0; k < width; k++) {
            b[offset + k] = (byte) (k < text.length() ? text.charAt(k) : pad);
        }
    }
}
