package io.blocktarget.nvme;

import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.Parsed;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.util.function.Consumer;

/** Completing commands: a status alone, or a data structure encoded into a fresh buffer the receiver releases. */
final class Replies {
    private Replies() {
    }

    static void status(NvmeCompletion done, NvmeStatus status) {
        done.complete(status, 0, 0, null);
    }

    /** Completes with the failure of a parse. */
    static void invalid(NvmeCompletion done, Parsed<?> parsed) {
        int dw0 = parsed instanceof Parsed.Invalid<?> invalid ? invalid.dw0() : 0;
        done.complete(parsed.status(), dw0, 0, null);
    }

    /** Completes with {@code size} bytes written by {@code encoder} (a 4096-byte Identify structure, …). */
    static void data(NvmeCompletion done, int size, Consumer<ByteBuf> encoder) {
        ByteBuf out = ByteBufAllocator.DEFAULT.buffer(size, size);
        try {
            encoder.accept(out);
        } catch (RuntimeException e) {
            out.release();
            throw e;
        }
        done.complete(NvmeStatus.SUCCESS, 0, 0, out);
    }
}
