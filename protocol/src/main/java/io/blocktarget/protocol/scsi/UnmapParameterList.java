package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.List;

import static io.blocktarget.protocol.scsi.SenseReason.LBA_OUT_OF_RANGE;
import static io.blocktarget.protocol.scsi.SenseReason.PARAMETER_LIST_LENGTH_ERROR;

/**
 * UNMAP parameter list (SBC-4 §5.32.2, Tables 93-94): 8-byte header — UNMAP DATA LENGTH (n - 1),
 * UNMAP BLOCK DESCRIPTOR DATA LENGTH (n - 7), 4 reserved — then 16-byte descriptors: LBA (8),
 * NUMBER OF LOGICAL BLOCKS (4), reserved (4).
 */
public record UnmapParameterList(List<Descriptor> descriptors) {
    public static final int HEADER_LENGTH = 8;
    public static final int DESCRIPTOR_LENGTH = 16;

    /** One range to unmap; {@code lba} ≥ 0 and {@code lba + numberOfBlocks} does not overflow. */
    public record Descriptor(long lba, long numberOfBlocks) {
    }

    public UnmapParameterList {
        descriptors = List.copyOf(descriptors);
    }

    /** LBA field of descriptor {@code index}, for INVALID FIELD IN PARAMETER LIST. */
    public static FieldPointer lbaField(int index) {
        return FieldPointer.parameter(HEADER_LENGTH + DESCRIPTOR_LENGTH * index, 7);
    }

    /** NUMBER OF LOGICAL BLOCKS of descriptor {@code index} (e.g. above MAXIMUM UNMAP LBA COUNT). */
    public static FieldPointer numberOfBlocksField(int index) {
        return FieldPointer.parameter(HEADER_LENGTH + DESCRIPTOR_LENGTH * index + 8, 7);
    }

    /**
     * Parses the readable bytes (the PARAMETER LIST LENGTH bytes received; indices untouched).
     * 0 bytes: nothing to do. 1..7 bytes, or a header whose lengths claim more bytes than were sent:
     * PARAMETER LIST LENGTH ERROR. A descriptor data length that is not a multiple of 16 leaves an
     * incomplete last descriptor, which SBC-4 says to ignore. Descriptor count and range limits
     * (Block Limits VPD) are the device server's to check, with {@link #numberOfBlocksField}.
     */
    public static Parsed<UnmapParameterList> parse(ByteBuf list) {
        int base = list.readerIndex();
        int length = list.readableBytes();
        if (length == 0) {
            return Parsed.ok(new UnmapParameterList(List.of()));
        }
        if (length < HEADER_LENGTH) {
            return Parsed.invalid(PARAMETER_LIST_LENGTH_ERROR);
        }
        int unmapDataLength = list.getUnsignedShort(base);
        int descriptorDataLength = list.getUnsignedShort(base + 2);
        if (unmapDataLength > length - 2 || descriptorDataLength > length - HEADER_LENGTH) {
            return Parsed.invalid(PARAMETER_LIST_LENGTH_ERROR);
        }
        List<Descriptor> descriptors = new ArrayList<>();
        for (int i = 0; i < descriptorDataLength / DESCRIPTOR_LENGTH; i++) {
            int at = base + HEADER_LENGTH + i * DESCRIPTOR_LENGTH;
            long lba = list.getLong(at);
            long blocks = list.getUnsignedInt(at + 8);
            if (lba < 0 || lba + blocks < 0) {
                return Parsed.invalid(LBA_OUT_OF_RANGE);
            }
            descriptors.add(new Descriptor(lba, blocks));
        }
        return Parsed.ok(new UnmapParameterList(descriptors));
    }
}
