package io.blocktarget.protocol.iscsi;

/**
 * Serial number arithmetic (RFC 1982, SERIAL_BITS = 32) for CmdSN, StatSN, DataSN and R2TSN (RFC 7143
 * §4.2.2.1). Values are the raw 32 bits in an {@code int}. Two numbers exactly 2^31 apart are not
 * comparable: neither {@link #lessThan} nor {@link #greaterThan} holds, as RFC 1982 §3.2 leaves it undefined.
 */
public final class SerialNumbers {
    private static final long MASK = 0xFFFF_FFFFL;

    private SerialNumbers() {
    }

    /** RFC 1982 §3.2: s1 &lt; s2. The signed 32-bit difference does it: positive within 2^31 - 1. */
    public static boolean lessThan(int s1, int s2) {
        return s2 - s1 > 0;
    }

    public static boolean greaterThan(int s1, int s2) {
        return s1 - s2 > 0;
    }

    public static boolean lessOrEqual(int s1, int s2) {
        return s1 == s2 || lessThan(s1, s2);
    }

    public static boolean greaterOrEqual(int s1, int s2) {
        return s1 == s2 || greaterThan(s1, s2);
    }

    /** low ≤ sn ≤ high in serial order, e.g. ExpCmdSN ≤ CmdSN ≤ MaxCmdSN (§4.2.2.1). */
    public static boolean inWindow(int sn, int low, int high) {
        return lessOrEqual(low, sn) && lessOrEqual(sn, high);
    }

    /**
     * RFC 1982 §3.1 addition: {@code n} must be in 0 .. 2^31 - 1; the sum wraps modulo 2^32.
     */
    public static int add(int sn, int n) {
        if (n < 0) {
            throw new IllegalArgumentException("RFC 1982 addition is defined for 0 <= n <= 2^31-1, got " + n);
        }
        return sn + n;
    }

    /** The unsigned value widened to long, for logs and arithmetic on counts. */
    public static long toUnsigned(int sn) {
        return sn & MASK;
    }

    /**
     * Commands the target can still accept: MaxCmdSN - ExpCmdSN + 1. 0 when MaxCmdSN = ExpCmdSN - 1 (the
     * window is closed, §4.2.2.1); -1 when MaxCmdSN is further behind, which the RFC forbids.
     */
    public static long windowSize(int expCmdSN, int maxCmdSN) {
        int diff = maxCmdSN - expCmdSN + 1;
        return diff < 0 ? -1 : diff;
    }
}
