package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

import java.util.Optional;

/**
 * Big-endian field access to one CDB by byte offset, plus the checks that reject it. A failed check
 * throws {@link Rejected}, which never leaves {@link CdbParser#parse}: it only saves threading an
 * error value through every field read.
 */
final class CdbFields {
    private final ByteBuf buf;
    private final int base;
    private final int length;

    CdbFields(ByteBuf buf, int base, int length) {
        this.buf = buf;
        this.base = base;
        this.length = length;
    }

    int length() {
        return length;
    }

    int u8(int i) {
        return buf.getUnsignedByte(base + i);
    }

    int u16(int i) {
        return buf.getUnsignedShort(base + i);
    }

    long u32(int i) {
        return buf.getUnsignedInt(base + i);
    }

    /** A 64-bit field as a signed long; callers treat negative values as LBAs beyond 2^63. */
    long u64(int i) {
        return buf.getLong(base + i);
    }

    boolean bit(int i, int bit) {
        return (u8(i) & (1 << bit)) != 0;
    }

    /** Bits {@code hi}..{@code lo} of byte {@code i}, right-aligned. */
    int bits(int i, int hi, int lo) {
        return (u8(i) >>> lo) & ((1 << (hi - lo + 1)) - 1);
    }

    /** Rejects byte {@code i} when any bit in {@code mask} is set, pointing at the highest offending bit. */
    void reserved(int i, int mask) {
        int bad = u8(i) & mask;
        if (bad != 0) {
            throw invalidField(i, 31 - Integer.numberOfLeadingZeros(bad));
        }
    }

    /** Rejects any non-zero byte in {@code from}..{@code to} inclusive. */
    void reservedBytes(int from, int to) {
        for (int i = from; i <= to; i++) {
            reserved(i, 0xFF);
        }
    }

    /**
     * The CONTROL byte, last in every CDB (SAM-5 §5.2): NACA = 1 is refused because we report
     * NORMACA = 0, and LINK = 1 because linked commands are not supported (SAM-4 made them obsolete).
     */
    void checkControl() {
        int control = length - 1;
        if (bit(control, 2)) {
            throw invalidField(control, 2);
        }
        if (bit(control, 0)) {
            throw invalidField(control, 0);
        }
    }

    /**
     * Rejects an LBA range that cannot exist on any medium: LBA or LBA + count beyond 2^63 - 1
     * (byte offsets are longs). Capacity checks against the real medium happen in the device server.
     */
    void checkLbaRange(long lba, long count) {
        if (lba < 0 || lba + count < 0) {
            throw new Rejected(new CdbError(SenseReason.LBA_OUT_OF_RANGE, Optional.empty()));
        }
    }

    static Rejected invalidField(int field, int bit) {
        return new Rejected(CdbError.invalidField(field, bit));
    }

    /** Carries a {@link CdbError} out of a nested field check; no stack trace. */
    static final class Rejected extends RuntimeException {
        final CdbError error;

        Rejected(CdbError error) {
            super(null, null, false, false);
            this.error = error;
        }
    }
}
