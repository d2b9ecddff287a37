package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

import java.util.List;

/**
 * Standard INQUIRY data (SPC-4 §6.6.2, Table 138), 96 bytes: the 36-byte mandatory part, the
 * vendor specific and reserved bytes 36-57, eight VERSION DESCRIPTORs (58-73) and reserved 74-95.
 * VERSION is 06h (SPC-4): Linux uses READ CAPACITY(16) and the VPD pages only for SPC-3 or later.
 *
 * @param tpgs 2-bit TARGET PORT GROUP SUPPORT (0 = ALUA not supported)
 */
public record StandardInquiryData(Peripheral peripheral, boolean rmb, int version, boolean normaca, boolean hisup,
                                  int tpgs, boolean thirdPartyCopy, boolean protect, boolean cmdque,
                                  String vendorId, String productId, String productRevision,
                                  List<VersionDescriptor> versionDescriptors) {
    public static final int VERSION_SPC_4 = 0x06;
    public static final int LENGTH = 96;
    /** RESPONSE DATA FORMAT: 2 is the only value SPC-3 and later allow. */
    static final int RESPONSE_DATA_FORMAT = 2;

    public StandardInquiryData {
        versionDescriptors = List.copyOf(versionDescriptors);
        if (versionDescriptors.size() > 8 || tpgs < 0 || tpgs > 3 || version < 0 || version > 0xFF) {
            throw new IllegalArgumentException("invalid standard INQUIRY data");
        }
        if (WireText.ascii(vendorId).length > 8 || WireText.ascii(productId).length > 16
                || WireText.ascii(productRevision).length > 4) {
            throw new IllegalArgumentException("vendor/product/revision longer than 8/16/4 bytes");
        }
    }

    public void encode(ByteBuf out) {
        out.writeByte(peripheral.encode());                                  // 0
        out.writeByte(rmb ? 0x80 : 0);                                       // 1: RMB, LU_CONG = 0
        out.writeByte(version);                                              // 2: VERSION
        out.writeByte((normaca ? 0x20 : 0) | (hisup ? 0x10 : 0) | RESPONSE_DATA_FORMAT); // 3
        out.writeByte(LENGTH - 5);                                           // 4: ADDITIONAL LENGTH (n - 4)
        out.writeByte(tpgs << 4 | (thirdPartyCopy ? 0x08 : 0) | (protect ? 0x01 : 0)); // 5: SCCS ACC TPGS 3PC PROTECT
        out.writeByte(0);                                                    // 6: ENCSERV, MULTIP = 0
        out.writeByte(cmdque ? 0x02 : 0);                                    // 7: CMDQUE
        WireText.writeAsciiPadded(out, vendorId, 8);                         // 8-15: T10 VENDOR IDENTIFICATION
        WireText.writeAsciiPadded(out, productId, 16);                       // 16-31: PRODUCT IDENTIFICATION
        WireText.writeAsciiPadded(out, productRevision, 4);                  // 32-35: PRODUCT REVISION LEVEL
        out.writeZero(22);                                                   // 36-57: vendor specific, reserved
        for (VersionDescriptor d : versionDescriptors) {                     // 58-73: VERSION DESCRIPTOR 1..8
            out.writeShort(d.code());
        }
        out.writeZero(2 * (8 - versionDescriptors.size()) + 22);             // unused descriptors, 74-95 reserved
    }
}
