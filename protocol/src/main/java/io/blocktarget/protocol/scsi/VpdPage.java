package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

/**
 * A vital product data page (SPC-4 §7.8.1, Table 589): byte 0 peripheral qualifier/type, byte 1
 * PAGE CODE, bytes 2-3 PAGE LENGTH (n - 3), then the page's own bytes. The peripheral byte is the
 * LUN's, hence a parameter of {@link #encode} rather than a field of every page.
 */
public sealed interface VpdPage permits SupportedVpdPages, UnitSerialNumberVpd, DeviceIdentificationVpd,
        BlockLimitsVpd, BlockDeviceCharacteristicsVpd, LogicalBlockProvisioningVpd, ZonedBlockDeviceCharacteristicsVpd,
        ExtendedInquiryVpd, BlockLimitsExtensionVpd {

    int pageCode();

    /** Writes bytes 4..n of the page. */
    void encodePayload(ByteBuf out);

    default void encode(ByteBuf out, Peripheral peripheral) {
        out.writeByte(peripheral.encode());
        out.writeByte(pageCode());
        int lengthIndex = out.writerIndex();
        out.writeShort(0);
        int start = out.writerIndex();
        encodePayload(out);
        out.setShort(lengthIndex, out.writerIndex() - start);
    }
}
