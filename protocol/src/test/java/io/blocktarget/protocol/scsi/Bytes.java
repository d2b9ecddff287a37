package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;

import java.util.HexFormat;
import java.util.function.Consumer;
import java.util.function.Function;

/** Test helpers: hex text to bytes (whitespace and "|" ignored), encoder output to bytes, buffers released. */
final class Bytes {
    private Bytes() {
    }

    static byte[] hex(String text) {
        return HexFormat.of().parseHex(text.replaceAll("[\\s|]", ""));
    }

    /** Runs an encoder against a pooled (leak-tracked) buffer and returns what it wrote. */
    static byte[] encode(Consumer<ByteBuf> encoder) {
        ByteBuf buf = PooledByteBufAllocator.DEFAULT.buffer();
        try {
            encoder.accept(buf);
            return ByteBufUtil.getBytes(buf);
        } finally {
            buf.release();
        }
    }

    /** Applies a pure decoder to {@code bytes} in a leak-tracked buffer with a non-zero reader index. */
    static <T> T decode(byte[] bytes, Function<ByteBuf, T> decoder) {
        ByteBuf buf = PooledByteBufAllocator.DEFAULT.buffer(bytes.length + 3);
        try {
            buf.writeBytes(new byte[] {0x55, 0x55, 0x55}).writeBytes(bytes).skipBytes(3);
            int reader = buf.readerIndex();
            T result = decoder.apply(buf);
            if (buf.readerIndex() != reader) {
                throw new AssertionError("decoder moved the reader index");
            }
            return result;
        } finally {
            buf.release();
        }
    }

    static Cdb cdb(String hex) {
        return decode(hex(hex), Cdb::parse);
    }

    static ByteBuf wrap(byte[] bytes) {
        return Unpooled.wrappedBuffer(bytes);
    }
}
