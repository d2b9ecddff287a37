package io.blocktarget.block;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;

import java.util.ArrayList;
import java.util.List;

/**
 * Builds the buffer a read returns from pieces in order: slices of backend memory (ownership passes
 * to the assembly) and runs of zeros (merged, then cut from {@link ZeroBuffers}). One piece is
 * returned as is; several become one {@link CompositeByteBuf} whose component limit is the piece
 * count, so Netty never consolidates (copies) it.
 */
public final class ReadAssembly {
    private final List<ByteBuf> pieces;
    private long pendingZeros;

    public ReadAssembly(int expectedPieces) {
        this.pieces = new ArrayList<>(expectedPieces);
    }

    /** Appends a buffer; the assembly (and later the reader) owns it. */
    public ReadAssembly add(ByteBuf piece) {
        flushZeros();
        pieces.add(piece);
        return this;
    }

    public ReadAssembly addZeros(long length) {
        pendingZeros += length;
        return this;
    }

    private void flushZeros() {
        while (pendingZeros > 0) {
            int n = (int) Math.min(pendingZeros, ZeroBuffers.REGION_SIZE);
            pieces.add(ZeroBuffers.slice(n));
            pendingZeros -= n;
        }
    }

    /** The assembled buffer, owned by the caller. */
    public ByteBuf build() {
        flushZeros();
        return switch (pieces.size()) {
            case 0 -> Unpooled.EMPTY_BUFFER;
            case 1 -> pieces.getFirst();
            default -> ByteBufAllocator.DEFAULT.compositeDirectBuffer(pieces.size()).addComponents(true, pieces);
        };
    }

    /** Releases the pieces gathered so far, when the read fails half-way. */
    public void discard() {
        pieces.forEach(ByteBuf::release);
        pieces.clear();
    }
}
