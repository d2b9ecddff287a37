package io.blocktarget.protocol.iscsi;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;

import java.util.Optional;

/**
 * The 48-byte Basic Header Segment (RFC 7143 §11.2.1): common field accessors, big-endian helpers
 * (every iSCSI field is big-endian, §11.1: "network byte order"), and the shared prelude of every PDU
 * codec. All accessors take an absolute {@code base} index and never move reader/writer indices.
 */
public final class Bhs {
    /** §11.2: the BHS is always 48 bytes. */
    public static final int LENGTH = 48;
    /** TotalAHSLength is one byte counting 4-byte words: at most 1020 bytes of AHS. */
    public static final int MAX_AHS_LENGTH = 255 * 4;
    /** DataSegmentLength is 24 bits. */
    public static final int MAX_DATA_SEGMENT_LENGTH = 0xFF_FFFF;
    /** The reserved ITT/TTT value (§11.2.1.8, §11.18.2). */
    public static final int RESERVED_TAG = 0xFFFF_FFFF;

    static final int IMMEDIATE_BIT = 0x40;
    static final int OPCODE_MASK = 0x3f;
    static final int FINAL_BIT = 0x80;

    private Bhs() {
    }

    // ---- big-endian helpers (ByteBuf's get/set are big-endian; the names say so for the reader) ----

    public static int u8(ByteBuf buf, int index) {
        return buf.getUnsignedByte(index);
    }

    public static int u16BE(ByteBuf buf, int index) {
        return buf.getUnsignedShort(index);
    }

    public static int u24BE(ByteBuf buf, int index) {
        return buf.getUnsignedMedium(index);
    }

    /** A 32-bit unsigned field widened to long (lengths, offsets, residual counts). */
    public static long u32BE(ByteBuf buf, int index) {
        return buf.getUnsignedInt(index);
    }

    /** A 32-bit field kept as its raw bits (tags and sequence numbers, compared with {@link SerialNumbers}). */
    public static int int32BE(ByteBuf buf, int index) {
        return buf.getInt(index);
    }

    /** The 6-byte ISID (§11.12.5) as the low 48 bits of a long. */
    public static long u48BE(ByteBuf buf, int index) {
        return ((long) buf.getUnsignedShort(index) << 32) | buf.getUnsignedInt(index + 2);
    }

    public static long int64BE(ByteBuf buf, int index) {
        return buf.getLong(index);
    }

    public static void setU16BE(ByteBuf buf, int index, int value) {
        buf.setShort(index, value);
    }

    public static void setU24BE(ByteBuf buf, int index, int value) {
        buf.setMedium(index, value);
    }

    public static void setU32BE(ByteBuf buf, int index, long value) {
        buf.setInt(index, (int) value);
    }

    public static void setU48BE(ByteBuf buf, int index, long value) {
        buf.setShort(index, (int) (value >>> 32));
        buf.setInt(index + 2, (int) value);
    }

    // ---- common BHS fields (§11.2.1) ----

    /** Byte 0 bits 0-5. */
    public static int opcodeCode(ByteBuf buf, int base) {
        return buf.getUnsignedByte(base) & OPCODE_MASK;
    }

    /** Byte 0 bit 6: the I (immediate delivery) bit. */
    public static boolean immediate(ByteBuf buf, int base) {
        return (buf.getUnsignedByte(base) & IMMEDIATE_BIT) != 0;
    }

    /** Byte 1 bit 7: the F (final) bit. */
    public static boolean finalBit(ByteBuf buf, int base) {
        return (buf.getUnsignedByte(base + 1) & FINAL_BIT) != 0;
    }

    /** Byte 4, converted from 4-byte words to bytes. */
    public static int totalAhsLength(ByteBuf buf, int base) {
        return buf.getUnsignedByte(base + 4) * 4;
    }

    /** Bytes 5-7: length of the data segment without padding. */
    public static int dataSegmentLength(ByteBuf buf, int base) {
        return buf.getUnsignedMedium(base + 5);
    }

    /** Bytes 8-15: LUN (or opcode-specific). */
    public static long lun(ByteBuf buf, int base) {
        return buf.getLong(base + 8);
    }

    /** Bytes 16-19: Initiator Task Tag. */
    public static int itt(ByteBuf buf, int base) {
        return buf.getInt(base + 16);
    }

    /** Bytes 20-23: Target Transfer Tag of a Data-Out, R2T, NOP or SNACK (§11.7.4, §11.8.4). */
    public static int ttt(ByteBuf buf, int base) {
        return buf.getInt(base + 20);
    }

    /** Bytes of padding that bring {@code length} to a 4-byte boundary (§11.1). */
    public static int padding(int length) {
        return -length & 3;
    }

    /** A copy of the BHS at {@code base} (up to 48 bytes available), for a Reject's data segment. */
    static byte[] copyHeader(ByteBuf buf, int base) {
        int n = Math.min(LENGTH, Math.max(0, buf.writerIndex() - base));
        return ByteBufUtil.getBytes(buf, base, n);
    }

    // ---- decode prelude ----

    /** Where the parts of one digest-free frame are: BHS at {@code base}, AHS, then the data segment. */
    record Parts(int base, int ahsLength, int dataSegmentLength) {
        int ahsIndex() {
            return base + LENGTH;
        }

        int dataIndex() {
            return base + LENGTH + ahsLength;
        }
    }

    /**
     * Checks a digest-free frame starting at its reader index: opcode as expected, AHS and data segment
     * allowed for the opcode and present in full. Padding after the data segment is optional here.
     */
    static Parts open(ByteBuf frame, IscsiOpcode expected) {
        int base = frame.readerIndex();
        if (frame.readableBytes() < LENGTH) {
            throw new IscsiProtocolException(IscsiProtocolException.Reason.TRUNCATED,
                    "frame has " + frame.readableBytes() + " bytes, the BHS needs 48", copyHeader(frame, base));
        }
        int code = opcodeCode(frame, base);
        if (code != expected.code()) {
            throw error(IscsiProtocolException.Reason.BAD_OPCODE, frame, base,
                    "opcode 0x" + Integer.toHexString(code) + " is not " + expected);
        }
        int ahs = totalAhsLength(frame, base);
        int dsl = dataSegmentLength(frame, base);
        if (ahs != 0 && !expected.ahsAllowed()) {
            throw error(IscsiProtocolException.Reason.AHS_NOT_ALLOWED, frame, base,
                    expected + " must have TotalAHSLength 0, has " + ahs / 4);
        }
        if (dsl != 0 && !expected.dataAllowed()) {
            throw error(IscsiProtocolException.Reason.DATA_SEGMENT_NOT_ALLOWED, frame, base,
                    expected + " must have DataSegmentLength 0, has " + dsl);
        }
        if ((long) LENGTH + ahs + dsl > frame.readableBytes()) {
            throw error(IscsiProtocolException.Reason.TRUNCATED, frame, base,
                    "header announces " + (LENGTH + ahs + dsl) + " bytes, frame has " + frame.readableBytes());
        }
        return new Parts(base, ahs, dsl);
    }

    static IscsiProtocolException error(IscsiProtocolException.Reason reason, ByteBuf frame, int base, String message) {
        return new IscsiProtocolException(reason, message, copyHeader(frame, base));
    }

    /**
     * The data segment as a retained slice (the caller of the PDU decoder owns it through the PDU and
     * releases it with {@link IscsiPdu#release()}), or the unreleasable empty buffer.
     */
    static ByteBuf retainedData(ByteBuf frame, Parts parts) {
        if (parts.dataSegmentLength() == 0) {
            return Unpooled.EMPTY_BUFFER;
        }
        return frame.retainedSlice(parts.dataIndex(), parts.dataSegmentLength());
    }

    static <E> E require(Optional<E> value, ByteBuf frame, int base, String message) {
        return value.orElseThrow(() -> error(IscsiProtocolException.Reason.INVALID_FIELD, frame, base, message));
    }

    // ---- encode prelude ----

    /**
     * Writes a zeroed 48-byte BHS with byte 0 (I bit, opcode), byte 1, TotalAHSLength and DataSegmentLength
     * filled in; returns its start index for the opcode-specific fields. Reserved fields stay zero (§11.2.1).
     */
    static int begin(ByteBuf out, IscsiOpcode opcode, boolean immediate, int byte1, int ahsLength, int dataLength) {
        if ((ahsLength & 3) != 0 || ahsLength > MAX_AHS_LENGTH) {
            throw new IllegalArgumentException("AHS length " + ahsLength);
        }
        if (dataLength < 0 || dataLength > MAX_DATA_SEGMENT_LENGTH) {
            throw new IllegalArgumentException("data segment length " + dataLength);
        }
        int base = out.writerIndex();
        out.writeZero(LENGTH);
        out.setByte(base, opcode.code() | (immediate ? IMMEDIATE_BIT : 0));
        out.setByte(base + 1, byte1);
        out.setByte(base + 4, ahsLength / 4);
        out.setMedium(base + 5, dataLength);
        return base;
    }

    /** Checks that a value built for encoding fits an unsigned field of {@code bits} bits. */
    static long checkUnsigned(long value, int bits, String name) {
        if (value < 0 || value >>> bits != 0) {
            throw new IllegalArgumentException(name + " " + value + " does not fit " + bits + " unsigned bits");
        }
        return value;
    }

    /** Bytes 24-35 of every target response (§11.4 ff.): StatSN, ExpCmdSN, MaxCmdSN. */
    static void setStatusSequenceNumbers(ByteBuf out, int base, int statSN, int expCmdSN, int maxCmdSN) {
        out.setInt(base + 24, statSN);
        out.setInt(base + 28, expCmdSN);
        out.setInt(base + 32, maxCmdSN);
    }

    /** Bytes 8-23 of the task-related PDUs: LUN, ITT, TTT. */
    static void setTaskFields(ByteBuf out, int base, long lun, int itt, int ttt) {
        out.setLong(base + 8, lun);
        out.setInt(base + 16, itt);
        out.setInt(base + 20, ttt);
    }

    static int flag(boolean set, int bit) {
        return set ? bit : 0;
    }

    static boolean bit(int value, int bit) {
        return (value & bit) != 0;
    }
}
