package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

/**
 * The atomic write fields of the Block Limits VPD page (SBC-4 §6.6.3, bytes 44-63), in logical blocks, each a
 * 32-bit unsigned field: MAXIMUM ATOMIC TRANSFER LENGTH (44-47), ATOMIC ALIGNMENT (48-51), ATOMIC TRANSFER LENGTH
 * GRANULARITY (52-55), MAXIMUM ATOMIC TRANSFER LENGTH WITH ATOMIC BOUNDARY (56-59), MAXIMUM ATOMIC BOUNDARY SIZE
 * (60-63). {@link BlockLimitsVpd} writes them as zeros (no atomic writes); a logical unit with atomic writes puts
 * these over them.
 */
public record BlockLimitsAtomicFields(long maximumAtomicTransferLength, long atomicAlignment,
                                      long atomicTransferLengthGranularity,
                                      long maximumAtomicTransferLengthWithAtomicBoundary,
                                      long maximumAtomicBoundarySize) {
    /** Offset of MAXIMUM ATOMIC TRANSFER LENGTH from the start of the page (byte 0 = PERIPHERAL QUALIFIER). */
    public static final int OFFSET = 44;

    public BlockLimitsAtomicFields {
        for (long v : new long[] {maximumAtomicTransferLength, atomicAlignment, atomicTransferLengthGranularity,
                maximumAtomicTransferLengthWithAtomicBoundary, maximumAtomicBoundarySize}) {
            if (v < 0 || v > 0xFFFF_FFFFL) {
                throw new IllegalArgumentException("32-bit field out of range: " + v);
            }
        }
    }

    /** Writes the 20 bytes over those of an encoded Block Limits page starting at {@code pageStart}. */
    public void encodeInto(ByteBuf page, int pageStart) {
        int i = pageStart + OFFSET;
        page.setInt(i, (int) maximumAtomicTransferLength);
        page.setInt(i + 4, (int) atomicAlignment);
        page.setInt(i + 8, (int) atomicTransferLengthGranularity);
        page.setInt(i + 12, (int) maximumAtomicTransferLengthWithAtomicBoundary);
        page.setInt(i + 16, (int) maximumAtomicBoundarySize);
    }
}
