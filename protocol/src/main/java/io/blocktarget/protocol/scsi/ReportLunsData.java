package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

import java.util.List;

/**
 * REPORT LUNS parameter data (SPC-4 §6.33, Table 221): LUN LIST LENGTH (4), 4 reserved, then one
 * 8-byte LUN per logical unit, encoded by {@link ScsiLun}.
 */
public record ReportLunsData(List<Integer> luns) {
    public ReportLunsData {
        luns = List.copyOf(luns);
        luns.forEach(ScsiLun::encode); // validates the range
    }

    public void encode(ByteBuf out) {
        out.writeInt(8 * luns.size()); // 0-3: LUN LIST LENGTH
        out.writeInt(0);               // 4-7: reserved
        luns.forEach(lun -> out.writeLong(ScsiLun.encode(lun)));
    }
}
