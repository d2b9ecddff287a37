package io.blocktarget.protocol.iscsi;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/** Hand-written byte vectors: hex lines (spaces ignored) and ASCII pieces, concatenated. */
final class Bytes {
    private Bytes() {
    }

    /** {@code hex("43 87 00 00", "00 00 00 13")}: every argument is hex digits with optional spaces. */
    static byte[] hex(String... lines) {
        return HexFormat.of().parseHex(String.join("", lines).replace(" ", ""));
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    static byte[] zeros(int n) {
        return new byte[n];
    }

    /** A fresh heap buffer holding a copy of {@code bytes}; the caller releases it. */
    static ByteBuf buf(byte[] bytes) {
        return Unpooled.copiedBuffer(bytes);
    }

    /** The bytes {@code pdu.encode} writes. */
    static byte[] encode(IscsiPdu pdu) {
        ByteBuf out = Unpooled.buffer();
        try {
            pdu.encode(out);
            return ByteBufUtil.getBytes(out);
        } finally {
            out.release();
        }
    }

    static String toHex(byte[] b) {
        return HexFormat.ofDelimiter(" ").formatHex(b);
    }
}
