package io.blocktarget.protocol.nvme;

import io.netty.buffer.ByteBuf;

/**
 * A 16-byte SGL descriptor (Base §4.3.2, Figure "Generic SGL Descriptor Format"): bytes 0..7 address,
 * 8..11 length, 12..14 reserved (or, for keyed descriptors, length is 3 bytes and 11..14 the key), byte 15 the
 * SGL Identifier: type in bits 7:4, subtype in bits 3:0.
 * <p>
 * Over NVMe/TCP the Linux host uses exactly two forms (NVMe/TCP §3.3.2 / Base §4.3.2): a Transport SGL Data
 * Block (type 5, subtype Ah, address 0) for data moved by R2T/H2CData or C2HData, and a Data Block with the
 * Offset subtype (type 0, subtype 1) for in-capsule data, where the address is the offset into the capsule's
 * data (ICDOFF-relative).
 */
public record SglDescriptor(long address, int length, int reserved, int type, int subtype) {
    public static final int SIZE = 16;
    public static final int TYPE_DATA_BLOCK = 0x0;
    public static final int TYPE_BIT_BUCKET = 0x1;
    public static final int TYPE_SEGMENT = 0x2;
    public static final int TYPE_LAST_SEGMENT = 0x3;
    public static final int TYPE_KEYED_DATA_BLOCK = 0x4;
    public static final int TYPE_TRANSPORT_DATA_BLOCK = 0x5;
    public static final int SUBTYPE_ADDRESS = 0x0;
    public static final int SUBTYPE_OFFSET = 0x1;
    public static final int SUBTYPE_TRANSPORT_A = 0xA;

    /** What the transport can do with a descriptor. */
    public enum Kind {
        /** Data moved outside the capsule by the transport (R2T/H2CData, C2HData). */
        TRANSPORT_DATA_BLOCK,
        /** Data inside the command capsule at {@link #address()} bytes from its start. */
        IN_CAPSULE,
        /** Anything else: not usable over NVMe/TCP. */
        UNSUPPORTED
    }

    public SglDescriptor {
        if ((type & ~0xF) != 0 || (subtype & ~0xF) != 0 || (reserved & ~0xFFFFFF) != 0) {
            throw new IllegalArgumentException("SGL identifier out of range");
        }
    }

    /** The descriptor a host writes for transport-moved data of {@code length} bytes. */
    public static SglDescriptor transportDataBlock(int length) {
        return new SglDescriptor(0, length, 0, TYPE_TRANSPORT_DATA_BLOCK, SUBTYPE_TRANSPORT_A);
    }

    /** The descriptor a host writes for in-capsule data at {@code offset} of {@code length} bytes. */
    public static SglDescriptor inCapsule(long offset, int length) {
        return new SglDescriptor(offset, length, 0, TYPE_DATA_BLOCK, SUBTYPE_OFFSET);
    }

    /** Reads 16 bytes at absolute {@code index}; the reader index is unchanged. */
    public static SglDescriptor get(ByteBuf buf, int index) {
        int id = buf.getUnsignedByte(index + 15);
        return new SglDescriptor(buf.getLongLE(index), buf.getIntLE(index + 8), buf.getUnsignedMediumLE(index + 12),
                id >>> 4, id & 0xF);
    }

    public void encode(ByteBuf out) {
        out.writeLongLE(address).writeIntLE(length).writeMediumLE(reserved).writeByte(identifier());
    }

    /** Byte 15: the SGL Identifier. */
    public int identifier() {
        return type << 4 | subtype;
    }

    /** Length as an unsigned value. */
    public long lengthUnsigned() {
        return Integer.toUnsignedLong(length);
    }

    public Kind kind() {
        if (type == TYPE_TRANSPORT_DATA_BLOCK && subtype == SUBTYPE_TRANSPORT_A) {
            return Kind.TRANSPORT_DATA_BLOCK;
        }
        if (type == TYPE_DATA_BLOCK && subtype == SUBTYPE_OFFSET) {
            return Kind.IN_CAPSULE;
        }
        return Kind.UNSUPPORTED;
    }

    /**
     * Pure check of this descriptor against the command's transfer: the descriptor must be one of the two TCP
     * forms, in-capsule data must lie inside the {@code inCapsuleBytes} received, and its length must equal
     * {@code expectedLength} (the command's own NLB × LBS or data structure size; -1 to skip).
     */
    public NvmeStatus validate(long expectedLength, int inCapsuleBytes) {
        return switch (kind()) {
            case UNSUPPORTED -> NvmeStatus.SGL_DESCRIPTOR_TYPE_INVALID;
            case TRANSPORT_DATA_BLOCK -> expectedLength >= 0 && lengthUnsigned() != expectedLength
                    ? NvmeStatus.DATA_SGL_LENGTH_INVALID : NvmeStatus.SUCCESS;
            case IN_CAPSULE -> {
                if (address < 0 || address > inCapsuleBytes) {
                    yield NvmeStatus.SGL_OFFSET_INVALID;
                }
                if (address + lengthUnsigned() > inCapsuleBytes
                        || expectedLength >= 0 && lengthUnsigned() != expectedLength) {
                    yield NvmeStatus.DATA_SGL_LENGTH_INVALID;
                }
                yield NvmeStatus.SUCCESS;
            }
        };
    }
}
