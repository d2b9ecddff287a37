package io.blocktarget.protocol;

import io.netty.buffer.ByteBuf;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * CRC32C (Castagnoli, RFC 3720 §12.1 / B.4), the header and data digest of both iSCSI and NVMe/TCP.
 * Computed over buffer regions without copying (the JDK intrinsic uses SSE4.2 / CLMUL). The value
 * returned is the standard CRC32C; both protocols put it on the wire least significant byte first.
 */
public final class Crc32c {
    private Crc32c() {
    }

    /** CRC32C of {@code length} bytes of {@code buf} starting at absolute {@code index}; indices unchanged. */
    public static int compute(ByteBuf buf, int index, int length) {
        CRC32C crc = new CRC32C();
        update(crc, buf, index, length);
        return (int) crc.getValue();
    }

    /** CRC32C of the readable bytes of {@code buf}. */
    public static int compute(ByteBuf buf) {
        return compute(buf, buf.readerIndex(), buf.readableBytes());
    }

    /** Feeds a region into a running CRC (e.g. data segment then its pad bytes). */
    public static void update(CRC32C crc, ByteBuf buf, int index, int length) {
        if (length == 0) {
            return;
        }
        if (buf.hasArray()) {
            crc.update(buf.array(), buf.arrayOffset() + index, length);
            return;
        }
        if (buf.nioBufferCount() == 1) {
            crc.update(buf.internalNioBuffer(index, length));
            return;
        }
        for (ByteBuffer bb : buf.nioBuffers(index, length)) {
            crc.update(bb);
        }
    }
}
