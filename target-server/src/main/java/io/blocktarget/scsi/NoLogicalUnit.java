package io.blocktarget.scsi;

import io.blocktarget.protocol.scsi.Cdb;
import io.blocktarget.protocol.scsi.CdbError;
import io.blocktarget.protocol.scsi.InquiryCdb;
import io.blocktarget.protocol.scsi.Peripheral;
import io.blocktarget.protocol.scsi.ReportLunsCdb;
import io.blocktarget.protocol.scsi.RequestSenseCdb;
import io.blocktarget.protocol.scsi.SenseData;
import io.blocktarget.protocol.scsi.SenseReason;

import java.lang.System.Logger.Level;

/**
 * Commands addressed to a LUN with no logical unit (SPC-4 §6.6.2, §6.33, §6.39; SAM-5 §5.9.2):
 * standard INQUIRY answers with peripheral qualifier 011b / type 1Fh (Linux scsi_scan then skips
 * the LUN), REPORT LUNS lists the target's LUNs, REQUEST SENSE returns LOGICAL UNIT NOT SUPPORTED as
 * its parameter data with GOOD status, everything else is CHECK CONDITION LOGICAL UNIT NOT SUPPORTED.
 */
final class NoLogicalUnit {
    private static final System.Logger LOG = System.getLogger("blocktarget.scsi");

    private final ScsiTarget target;

    NoLogicalUnit(ScsiTarget target) {
        this.target = target;
    }

    void execute(ScsiCommand command, ScsiCompletion done) {
        Task task = new Task(command, done, false);
        try {
            switch (Cdb.parse(command.cdb())) {
                case InquiryCdb c when !c.evpd() ->
                        task.parameterData(InquiryHandler.standard(Peripheral.NOT_CAPABLE), c.allocationLength());
                case ReportLunsCdb c -> SpcHandlers.reportLuns(task, target, c);
                case RequestSenseCdb c -> SpcHandlers.returnSense(task, c,
                        SenseData.of(SenseReason.LOGICAL_UNIT_NOT_SUPPORTED));
                case CdbError e when isInquiryOrReportLuns(command) -> task.fail(e);
                default -> task.fail(SenseReason.LOGICAL_UNIT_NOT_SUPPORTED);
            }
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "target " + target.targetName() + " LUN " + command.lun() + ": command failed", e);
            task.fail(SenseReason.INTERNAL_TARGET_FAILURE);
        }
    }

    private static boolean isInquiryOrReportLuns(ScsiCommand command) {
        int opcode = command.cdb().isReadable() ? command.cdb().getUnsignedByte(command.cdb().readerIndex()) : -1;
        return opcode == 0x12 || opcode == 0xA0 || opcode == 0x03;
    }
}
