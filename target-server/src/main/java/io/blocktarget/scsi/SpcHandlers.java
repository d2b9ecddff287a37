package io.blocktarget.scsi;

import io.blocktarget.protocol.scsi.ReportLunsCdb;
import io.blocktarget.protocol.scsi.ReportLunsData;
import io.blocktarget.protocol.scsi.ReportTargetPortGroupsCdb;
import io.blocktarget.protocol.scsi.ReportSupportedOperationCodesCdb;
import io.blocktarget.protocol.scsi.ReportingOptions;
import io.blocktarget.protocol.scsi.RequestSenseCdb;
import io.blocktarget.protocol.scsi.SelectReport;
import io.blocktarget.protocol.scsi.SenseData;
import io.blocktarget.protocol.scsi.SenseReason;
import io.blocktarget.protocol.scsi.SupportedOperationCodes;
import io.blocktarget.protocol.scsi.TargetPortGroupsData;
import io.netty.buffer.ByteBuf;

import java.util.List;

/**
 * SPC-4 commands that need no medium: REPORT LUNS, REQUEST SENSE, REPORT SUPPORTED OPERATION CODES,
 * REPORT TARGET PORT GROUPS.
 */
final class SpcHandlers {
    private SpcHandlers() {
    }

    /**
     * REPORT LUNS (SPC-4 §6.33): the target's LUNs for SELECT REPORT 00h / 02h, none for 01h (no
     * well-known logical units). Clears REPORTED LUNS DATA HAS CHANGED for the nexus.
     */
    static void reportLuns(Task task, ScsiTarget target, ReportLunsCdb cdb) {
        List<Integer> luns = cdb.selectReport() == SelectReport.WELL_KNOWN_LOGICAL_UNITS
                ? List.of() : target.luns().stream().map(Long::intValue).toList();
        ByteBuf out = Task.allocate(8 + 8 * luns.size());
        new ReportLunsData(luns).encode(out);
        target.reportedLunsSeen(task.nexus());
        task.parameterData(out, cdb.allocationLength());
    }

    /**
     * REQUEST SENSE (SPC-4 §6.39): a pending unit attention is returned (and cleared) as parameter
     * data with GOOD status; otherwise NO SENSE. DESC selects the format.
     */
    static void requestSense(Task task, RequestSenseCdb cdb, UnitAttentions unitAttentions) {
        SenseReason reason = unitAttentions.take(task.nexus()).orElse(SenseReason.NO_SENSE);
        returnSense(task, cdb, SenseData.of(reason));
    }

    static void returnSense(Task task, RequestSenseCdb cdb, SenseData sense) {
        task.parameterData(Task.encode(sense, cdb.desc()), cdb.allocationLength());
    }

    /**
     * REPORT SUPPORTED OPERATION CODES (SPC-4 §6.35): all commands, or one with its CDB usage data.
     * WRITE SAME is left out where the logical unit does not advertise it (see {@link UnitLimits}); the GROUP
     * NUMBER bits of WRITE(10/12/16) are used only by a logical unit with streams (ScsiStreams).
     */
    static void reportSupportedOperationCodes(Task task, ReportSupportedOperationCodesCdb cdb, UnitLimits limits) {
        ByteBuf out = Task.allocate(1024);
        if (cdb.reportingOptions() == ReportingOptions.ALL) {
            new SupportedOperationCodes.AllCommands(limits.supportedOpcodes(), cdb.rctd()).encode(out);
        } else {
            SupportedOperationCodes.OneCommand one = SupportedOperationCodes.OneCommand.forRequest(
                    limits.supportedOpcodes(), cdb);
            int start = out.writerIndex();
            one.encode(out);
            int group = one.command().map(io.blocktarget.protocol.scsi.ScsiOpcode::groupNumberByte).orElse(-1);
            if (group >= 0 && !limits.supports(io.blocktarget.protocol.scsi.ScsiOpcode.GET_STREAM_STATUS)) {
                // GROUP NUMBER is read but ignored without streams: not a field this unit uses (usage bits 0)
                out.setByte(start + 4 + group, out.getByte(start + 4 + group) & ~0x3F);
            }
        }
        task.parameterData(out, cdb.allocationLength());
    }

    /**
     * REPORT TARGET PORT GROUPS (SPC-5 §6.37): a group per portal with the LUN's state on it ({@link Alua#report});
     * the asking nexus's relative target port is in the group of its portal, as VPD 83h tells the same nexus.
     */
    static void reportTargetPortGroups(Task task, ReportTargetPortGroupsCdb cdb,
                                       io.blocktarget.block.lun.PathStates paths) {
        TargetPortGroupsData data = Alua.report(paths, cdb.extendedHeader());
        ByteBuf out = Task.allocate(8 + 12 * data.groups().size());
        data.encode(out);
        task.parameterData(out, cdb.allocationLength());
    }
}
