package io.blocktarget.protocol.iscsi;

/**
 * The O/U (overflow/underflow) bit pair of SCSI Response and Data-In (RFC 7143 §11.4.5, §11.7.5) and the
 * o/u pair for the bidirectional read residual. Both bits set is a protocol error, so a pair is one value.
 */
public enum ResidualFlag {
    NONE,
    OVERFLOW,
    UNDERFLOW;

    /** Bits for a pair whose overflow bit is {@code overflowBit} and underflow bit is {@code overflowBit >> 1}. */
    int bits(int overflowBit) {
        return switch (this) {
            case NONE -> 0;
            case OVERFLOW -> overflowBit;
            case UNDERFLOW -> overflowBit >> 1;
        };
    }

    /** Null when both bits are set (the caller reports the protocol error). */
    static ResidualFlag fromBits(int flags, int overflowBit) {
        boolean over = (flags & overflowBit) != 0;
        boolean under = (flags & (overflowBit >> 1)) != 0;
        if (over && under) {
            return null;
        }
        return over ? OVERFLOW : under ? UNDERFLOW : NONE;
    }
}
