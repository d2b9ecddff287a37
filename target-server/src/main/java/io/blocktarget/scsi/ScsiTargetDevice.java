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

    /**
     * Registers the transport side of an I_T nexus (at login), so that task management reaching every nexus can
     * abort the tasks the transport still holds.
     */
    void attach(ItNexus nexus, NexusTasks tasks);

    /** Undoes {@link #attach} for exactly this registration (a reinstated session may have registered anew). */
    void detach(ItNexus nexus, NexusTasks tasks);

    /**
     * Performs a task management function (SAM-5 §7) received on {@code requester}: aborts the tasks it reaches
     * ({@link TaskManagementFunction}), in the transports and in the task set, waits until every one of them has
     * stopped — its backend I/O ended, its buffers freed — then applies the function's effects on the logical
     * unit (unit attentions, the logical unit reset) and runs {@code done}, on any thread. Only then may the
     * transport answer FUNCTION COMPLETE. {@code lun} is ignored for {@link TaskManagementFunction#TARGET_RESET};
     * {@code taskTag} is used by {@link TaskManagementFunction#ABORT_TASK} only. The caller has checked that the
     * logical unit exists.
     */
    void taskManagement(TaskManagementFunction function, ItNexus requester, long lun, long taskTag, Runnable done);

    /** The nexus is gone (session closed or reinstated): forget its per-nexus state that does not persist. */
    void nexusLost(ItNexus nexus);
}
