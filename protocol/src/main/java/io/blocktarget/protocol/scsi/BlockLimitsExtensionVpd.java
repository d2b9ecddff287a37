package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

/**
 * Block Limits Extension VPD page, B7h (SBC-5 §6.6.5), page length 3Ch: byte 5 bit 0 RSCS (reduced stream control
 * supported), bytes 6-7 MAXIMUM NUMBER OF STREAMS, 8-9 OPTIMAL STREAM WRITE SIZE (logical blocks), 10-13 STREAM
 * GRANULARITY SIZE (in optimal stream write sizes); the scattered-write limits from byte 16 are 0 (not reported).
 * With RSCS set SBC-5 §4.32.3 requires the IO Advice Hints Grouping mode page and fewer than 64 streams. Linux reads
 * byte 5 bit 0 only ({@code sd_read_block_limits_ext}), and only when B7h is listed in VPD page 00h; without RSCS it
 * sends GROUP NUMBER 0 on every write ({@code sd_group_number}).
 *
 */
public record BlockLimitsExtensionVpd(boolean rscs, int maximumNumberOfStreams, int optimalStreamWriteSize,
                                      long streamGranularitySize) implements VpdPage {
    public static final int PAGE_CODE = 0xB7;
    public static final int PAGE_LENGTH = 0x3C;
    /** SBC-5 §4.32.3: with RSCS set, fewer than 64 streams. */
    public static final int MAX_STREAMS_WITH_RSCS = 63;

    public BlockLimitsExtensionVpd {
        if (maximumNumberOfStreams < 0 || maximumNumberOfStreams > 0xFFFF || optimalStreamWriteSize < 0
                || optimalStreamWriteSize > 0xFFFF || streamGranularitySize < 0
                || streamGranularitySize > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("Block Limits Extension field out of range");
        }
        if (rscs && maximumNumberOfStreams > MAX_STREAMS_WITH_RSCS) {
            throw new IllegalArgumentException("RSCS allows at most 63 streams, not " + maximumNumberOfStreams);
        }
    }

    public int pageCode() {
        return PAGE_CODE;
    }

    /** Bytes 4..63. */
    public void encodePayload(ByteBuf out) {
        out.writeByte(0);                                   // 4: reserved
        out.writeByte(rscs ? 0x01 : 0);                     // 5: RSCS
        out.writeShort(maximumNumberOfStreams);             // 6-7
        out.writeShort(optimalStreamWriteSize);             // 8-9
        out.writeInt((int) streamGranularitySize);          // 10-13
        out.writeZero(PAGE_LENGTH - 10);                    // 14-63: scattered-write limits not reported, reserved
    }

}
