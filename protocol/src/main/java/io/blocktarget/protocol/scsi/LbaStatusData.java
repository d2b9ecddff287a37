package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

import java.util.List;

/**
 * GET LBA STATUS parameter data (SBC-4 §5.7.2, Tables 35-36): PARAMETER DATA LENGTH (n - 3),
 * 4 reserved, then 16-byte LBA status descriptors.
 */
public record LbaStatusData(List<Descriptor> descriptors) {
    /** PARAMETER DATA LENGTH and the reserved bytes before the first descriptor. */
    public static final int HEADER_LENGTH = 8;
    public static final int DESCRIPTOR_LENGTH = 16;

    /** PROVISIONING STATUS (SBC-4 Table 37). */
    public enum ProvisioningStatus {
        MAPPED(0x0), DEALLOCATED(0x1), ANCHORED(0x2);

        private final int code;

        ProvisioningStatus(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }
    }

    public record Descriptor(long lba, long numberOfBlocks, ProvisioningStatus status) {
        public Descriptor {
            if (numberOfBlocks < 0 || numberOfBlocks > 0xFFFF_FFFFL) {
                throw new IllegalArgumentException("NUMBER OF LOGICAL BLOCKS is 32 bits");
            }
        }
    }

    public LbaStatusData {
        descriptors = List.copyOf(descriptors);
    }

    public void encode(ByteBuf out) {
        out.writeInt(4 + 16 * descriptors.size()); // 0-3: PARAMETER DATA LENGTH
        out.writeInt(0);                           // 4-7: reserved
        for (Descriptor d : descriptors) {
            out.writeLong(d.lba());                // 0-7: LBA
            out.writeInt((int) d.numberOfBlocks()); // 8-11
            out.writeByte(d.status().code());      // 12: PROVISIONING STATUS
            out.writeMedium(0);                    // 13-15: reserved
        }
    }
}
