package io.blocktarget.scsi;

import java.util.List;

/** A SCSI target device: the logical units behind one iSCSI target name (SAM-5 §4.6). */
public interface ScsiTargetDevice {

    /** The iSCSI target name (IQN) this device is exported as. */
    String targetName();

    /** The LUNs, ascending. */
    List<Long> luns();

    /**
     * Executes one command. Commands to a LUN that does not exist get the SPC answer (INQUIRY with
     * peripheral qualifier 011b, REPORT LUNS served, others CHECK CONDITION LOGICAL UNIT NOT
     * SUPPORTED). Never throws for anything the initiator sent.
     */
    void execute(ScsiCommand command, ScsiCompletion done);

    /** LOGICAL UNIT RESET (SAM-5 §7.7): releases RESERVE(6) reservations, sets unit attentions for other nexuses. */
    void logicalUnitReset(ItNexus requester, long lun);

    /** TARGET WARM/COLD RESET: a logical unit reset of every LUN. */
    void targetReset(ItNexus requester);

    /** The nexus is gone (session closed or reinstated): forget its per-nexus state that does not persist. */
    void nexusLost(ItNexus nexus);
}
