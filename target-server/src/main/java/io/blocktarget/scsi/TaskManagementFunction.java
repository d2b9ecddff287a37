package io.blocktarget.scsi;

/**
 * The task management functions the device server performs (SAM-5 §7), each with the tasks it reaches. One task set
 * is shared by every I_T nexus (Control mode page TST = 000b), so the set-wide functions reach other nexuses' tasks.
 */
public enum TaskManagementFunction {
    /** SAM-5 §7.2: one task of the requesting I_T_L nexus, by its task tag. */
    ABORT_TASK(Reach.REQUESTER, Units.ONE),
    /** SAM-5 §7.3: every task of the requesting I_T_L nexus. */
    ABORT_TASK_SET(Reach.REQUESTER, Units.ONE),
    /** SAM-5 §7.4: every task in the task set of the logical unit, from every I_T nexus. */
    CLEAR_TASK_SET(Reach.EVERY_NEXUS, Units.ONE),
    /** SAM-5 §7.7 and §6.3.3: every task of the logical unit, then the logical unit reset. */
    LOGICAL_UNIT_RESET(Reach.EVERY_NEXUS, Units.ONE),
    /** iSCSI TARGET WARM / COLD RESET (RFC 7143 §11.5.1): a hard reset (SAM-5 §6.3.2) of every logical unit. */
    TARGET_RESET(Reach.EVERY_NEXUS, Units.EVERY);

    /** Whose tasks the function aborts. */
    enum Reach { REQUESTER, EVERY_NEXUS }

    /** Which logical units it reaches. */
    enum Units { ONE, EVERY }

    private final Reach reach;
    private final Units units;

    TaskManagementFunction(Reach reach, Units units) {
        this.reach = reach;
        this.units = units;
    }

    Reach reach() {
        return reach;
    }

    Units units() {
        return units;
    }
}
