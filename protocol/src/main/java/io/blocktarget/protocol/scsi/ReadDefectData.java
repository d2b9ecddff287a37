package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

/**
 * READ DEFECT DATA parameter data with an empty defect list: the header alone (SBC-4 §5.18.2, Table
 * "READ DEFECT DATA (10) parameter data": 4 bytes; §5.19.2, "READ DEFECT DATA (12) parameter data":
 * 8 bytes). A RAM disk or a file has no defects: the lists asked for are valid (PLISTV / GLISTV = 1)
 * and empty (DEFECT LIST LENGTH 0), in the format asked for — any format describes zero descriptors.
 *
 * @param twelve           the 12-byte command's header (GENERATION CODE, 4-byte length)
 * @param plistv           PLISTV: the primary list is returned
 * @param glistv           GLISTV: the grown list is returned
 * @param defectListFormat DEFECT LIST FORMAT of the returned list
 */
public record ReadDefectData(boolean twelve, boolean plistv, boolean glistv, int defectListFormat) {
    public ReadDefectData {
        if ((defectListFormat & ~0x7) != 0) {
            throw new IllegalArgumentException("defect list format " + defectListFormat);
        }
    }

    public int length() {
        return twelve ? 8 : 4;
    }

    public void encode(ByteBuf out) {
        out.writeByte(0);                                                                // 0: reserved
        out.writeByte((plistv ? 0x10 : 0) | (glistv ? 0x08 : 0) | defectListFormat);    // 1
        if (twelve) {
            out.writeShort(0);                                                           // 2-3: GENERATION CODE
            out.writeInt(0);                                                             // 4-7: DEFECT LIST LENGTH
        } else {
            out.writeShort(0);                                                           // 2-3: DEFECT LIST LENGTH
        }
    }
}
