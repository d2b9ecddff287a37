package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

/**
 * Mode parameter block descriptor for direct access devices (SBC-4 §6.4.2): short LBA form (8 bytes,
 * Table 178) or long LBA form (16 bytes, Table 179, MODE SENSE(10) with LLBAA = 1).
 */
public record BlockDescriptor(long numberOfBlocks, int blockLength) {
    public static final int SHORT_LENGTH = 8;
    public static final int LONG_LENGTH = 16;

    public BlockDescriptor {
        if (numberOfBlocks < 0 || (blockLength & ~0xFFFFFF) != 0) {
            throw new IllegalArgumentException("block descriptor out of range");
        }
    }

    /** Short form; NUMBER OF LOGICAL BLOCKS saturates at FFFFFFFFh (SBC-4 §6.4.2.2). */
    public void encodeShort(ByteBuf out) {
        out.writeInt((int) Math.min(numberOfBlocks, 0xFFFF_FFFFL)); // 0-3
        out.writeByte(0);                                          // 4: reserved
        out.writeMedium(blockLength);                              // 5-7
    }

    public void encodeLong(ByteBuf out) {
        out.writeLong(numberOfBlocks); // 0-7
        out.writeInt(0);               // 8-11: reserved
        out.writeInt(blockLength);     // 12-15
    }

    static BlockDescriptor decodeShort(ByteBuf buf, int index) {
        return new BlockDescriptor(buf.getUnsignedInt(index), buf.getUnsignedMedium(index + 5));
    }

    static BlockDescriptor decodeLong(ByteBuf buf, int index) {
        return new BlockDescriptor(buf.getLong(index), (int) buf.getUnsignedInt(index + 12) & 0xFFFFFF);
    }
}
