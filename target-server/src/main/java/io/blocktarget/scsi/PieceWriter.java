package io.blocktarget.scsi;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockIoException;
import io.blocktarget.block.IoCallback;
import io.netty.buffer.ByteBuf;

import java.util.concurrent.atomic.AtomicReference;

/**
 * Writes one buffer of repeated blocks over {@code [lba, end)} piece after piece (WRITE SAME with a
 * non-zero pattern). RAM completes writes inline, so a plain callback chain would recurse once per
 * piece; instead the issuing loop continues when a write completed inline and returns when it did
 * not, the completion then resuming the loop on its own thread.
 */
final class PieceWriter implements IoCallback<Void> {
    /** Where the current piece's write stands relative to the loop that issued it. */
    private enum Phase { ISSUING, WAITING, COMPLETED_INLINE }

    private final BlockDevice device;
    private final ByteBuf piece;
    private final int shift;
    private final long end;
    private final IoCallback<Void> finished;
    private final AtomicReference<Phase> phase = new AtomicReference<>(Phase.WAITING);
    private long next;

    PieceWriter(BlockDevice device, long lba, long end, ByteBuf piece, IoCallback<Void> finished) {
        this.device = device;
        this.piece = piece;
        this.shift = device.geometry().logicalBlockShift();
        this.next = lba;
        this.end = end;
        this.finished = finished;
    }

    void start() {
        pump();
    }

    private void pump() {
        while (next < end) {
            int n = (int) Math.min(piece.readableBytes() >>> shift, end - next);
            long lba = next;
            next += n;
            phase.set(Phase.ISSUING);
            device.write(lba, piece.slice(piece.readerIndex(), n << shift), false, this);
            if (phase.compareAndSet(Phase.ISSUING, Phase.WAITING)) {
                return; // completes later, on another thread, and resumes the loop there
            }
            if (phase.get() != Phase.COMPLETED_INLINE) {
                return; // it failed inline: finished already ran
            }
        }
        finished.complete(null, null);
    }

    @Override
    public void complete(Void result, BlockIoException failure) {
        if (failure != null) {
            phase.set(Phase.WAITING);
            finished.complete(null, failure);
            return;
        }
        if (phase.compareAndSet(Phase.ISSUING, Phase.COMPLETED_INLINE)) {
            return; // the issuing loop goes on
        }
        pump();
    }
}
