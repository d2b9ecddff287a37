package io.blocktarget.scsi;

/**
 * Which of one I_T nexus's tasks a task management function aborts: those of {@code lun} (or of every LUN) and,
 * for ABORT TASK, the one with {@code taskTag} (SAM-5 §7).
 *
 * @param lun     the logical unit, or {@link #ANY}
 * @param taskTag the task tag (iSCSI ITT, unsigned), or {@link #ANY}
 */
public record TaskScope(long lun, long taskTag) {
    public static final long ANY = -1;

    public boolean matches(long taskLun, long tag) {
        return (lun == ANY || lun == taskLun) && (taskTag == ANY || taskTag == tag);
    }
}
