package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

import java.util.Optional;

/**
 * Logical Block Provisioning, B2h (SBC-4 §6.6.4, Table 214). Linux sd reads LBPU / LBPWS /
 * LBPWS10 here to choose its discard method (UNMAP, WRITE SAME(16) or (10) with UNMAP).
 *
 * @param lbprz                      3-bit LBPRZ: 000b unmapped blocks read not-zero, 001b read zeros
 * @param provisioningGroupDescriptor present ⇒ DP = 1 and the descriptor follows byte 7
 */
public record LogicalBlockProvisioningVpd(int thresholdExponent, boolean lbpu, boolean lbpws, boolean lbpws10,
                                          int lbprz, boolean ancSup, int minimumPercentage,
                                          ProvisioningType provisioningType, int thresholdPercentage,
                                          Optional<Designator> provisioningGroupDescriptor) implements VpdPage {

    /** PROVISIONING TYPE (SBC-4 Table 216). */
    public enum ProvisioningType {
        NOT_REPORTED(0), RESOURCE_PROVISIONED(1), THIN_PROVISIONED(2);

        private final int code;

        ProvisioningType(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }
    }

    public LogicalBlockProvisioningVpd {
        if ((thresholdExponent & ~0xFF) != 0 || (lbprz & ~0x7) != 0 || (minimumPercentage & ~0x1F) != 0
                || (thresholdPercentage & ~0xFF) != 0) {
            throw new IllegalArgumentException("Logical Block Provisioning field out of range");
        }
    }

    @Override
    public int pageCode() {
        return 0xB2;
    }

    @Override
    public void encodePayload(ByteBuf out) {
        out.writeByte(thresholdExponent);                                           // 4
        out.writeByte((lbpu ? 0x80 : 0) | (lbpws ? 0x40 : 0) | (lbpws10 ? 0x20 : 0) // 5
                | lbprz << 2 | (ancSup ? 0x02 : 0) | (provisioningGroupDescriptor.isPresent() ? 0x01 : 0));
        out.writeByte(minimumPercentage << 3 | provisioningType.code());            // 6
        out.writeByte(thresholdPercentage);                                         // 7
        provisioningGroupDescriptor.ifPresent(d -> d.encode(out));                  // 8..n
    }
}
