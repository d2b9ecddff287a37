package io.blocktarget.scsi;

import io.blocktarget.block.BlockGeometry;
import io.blocktarget.protocol.scsi.ReadCapacity10Data;
import io.blocktarget.protocol.scsi.ReadCapacity16Cdb;
import io.blocktarget.protocol.scsi.ReadCapacity16Data;
import io.blocktarget.protocol.scsi.ReadDefectData;
import io.blocktarget.protocol.scsi.ReadDefectDataCdb;
import io.blocktarget.protocol.scsi.ScsiOpcode;
import io.netty.buffer.ByteBuf;

/** READ CAPACITY (10) and (16), SBC-4 §5.19-5.20, and READ DEFECT DATA (10) and (12), §5.18-5.19. */
final class SbcCapacity {
    private static final System.Logger LOG = System.getLogger("blocktarget.scsi");

    private SbcCapacity() {
    }

    /** Last LBA and block length; FFFFFFFFh when the last LBA does not fit, which sends Linux to (16). */
    static void readCapacity10(Task task, BlockGeometry g) {
        ByteBuf out = Task.allocate(ReadCapacity10Data.LENGTH);
        new ReadCapacity10Data(g.blockCount() - 1, g.logicalBlockSize()).encode(out);
        task.dataIn(out, ReadCapacity10Data.LENGTH);
    }

    /**
     * DESIGN §4: block length = LBS, LOGICAL BLOCKS PER PHYSICAL BLOCK EXPONENT = log2(PBS / LBS)
     * (capped at 15), LBPME = 1 (thin provisioning: Linux enables discard) and LBPRZ = 1 (unmapped
     * blocks read zeros, true of every backend).
     */
    static void readCapacity16(Task task, ReadCapacity16Cdb cdb, BlockGeometry g) {
        readCapacity16(task, cdb, g, false);
    }

    /**
     * With {@code zoned} (ZBC-2 §5.1): RC BASIS 01b, the returned LBA is the device's last (Linux then skips the
     * REPORT ZONES capacity check's override), and LBPME = LBPRZ = 0: no logical block provisioning on a host managed
     * device.
     */
    static void readCapacity16(Task task, ReadCapacity16Cdb cdb, BlockGeometry g, boolean zoned) {
        ReadCapacity16Data.Exponent exponent = ReadCapacity16Data.lbppbe(g.logicalBlockSize(), g.physicalBlockSize());
        if (exponent.capped()) {
            LOG.log(System.Logger.Level.DEBUG, "physical block exponent capped at 15 for PBS {0} / LBS {1}",
                    g.physicalBlockSize(), g.logicalBlockSize());
        }
        ByteBuf out = Task.allocate(ReadCapacity16Data.LENGTH);
        new ReadCapacity16Data(g.blockCount() - 1, g.logicalBlockSize(), 0, false, exponent.value(), !zoned, !zoned, 0,
                zoned ? ReadCapacity16Data.RC_BASIS_LAST_LBA : 0).encode(out);
        task.parameterData(out, cdb.allocationLength());
    }

    /**
     * READ DEFECT DATA (SBC-4 §5.18-5.19): RAM and files have no defects, so the answer is the header
     * alone — the lists asked for (PLISTV = REQ_PLIST, GLISTV = REQ_GLIST) are empty, in the format asked
     * for (an empty list is valid in every format, so no RECOVERED ERROR / DEFECT LIST NOT FOUND), cut to
     * the ALLOCATION LENGTH. An ADDRESS DESCRIPTOR INDEX past the (empty) list returns the header too.
     */
    static void readDefectData(Task task, ReadDefectDataCdb cdb) {
        ReadDefectData data = new ReadDefectData(cdb.opcode() == ScsiOpcode.READ_DEFECT_DATA_12, cdb.reqPlist(),
                cdb.reqGlist(), cdb.defectListFormat());
        ByteBuf out = Task.allocate(data.length());
        data.encode(out);
        task.parameterData(out, cdb.allocationLength());
    }
}
