package io.blocktarget.block.fault;

/**
 * A protocol-neutral failure and, optionally, the exact status each protocol reports. The command sets map the
 * condition (SCSI sense / status; NVMe SCT / SC) unless an explicit value is given.
 *
 * @param condition what happened
 * @param senseKey  explicit SCSI SENSE KEY (0..15), -1 = from the condition; with {@code asc} and {@code ascq}
 * @param asc       ADDITIONAL SENSE CODE, with senseKey
 * @param ascq      ADDITIONAL SENSE CODE QUALIFIER, with senseKey
 * @param sct       explicit NVMe Status Code Type (0..7), -1 = from the condition; with {@code sc}
 * @param sc        NVMe Status Code, with sct: any pair but 0/00, whether the command set names it or not
 * @param dnr       with sct: Do Not Retry 1 (set) or 0 (clear); -1 = the status's usual (clear for a code with no row)
 * @param crd       with sct: Command Retry Delay 0..3 (Base §4.2.3: which CRDT the host waits before a retry)
 * @param more      with sct: More (M), "more status information in the Error Information log"
 */
public record FaultStatus(Condition condition, int senseKey, int asc, int ascq, int sct, int sc, int dnr, int crd,
                          boolean more) {

    /** The protocol-neutral conditions. */
    public enum Condition {
        /** SCSI MEDIUM ERROR / UNRECOVERED READ ERROR (reads) or WRITE ERROR; NVMe Unrecovered Read Error / Write Fault. */
        MEDIUM_ERROR,
        /** SCSI NOT READY / LOGICAL UNIT NOT READY, CAUSE NOT REPORTABLE; NVMe Namespace Not Ready. */
        NOT_READY,
        /** SCSI BUSY status; NVMe Namespace Not Ready (retryable, no DNR — NVMe has no BUSY). */
        BUSY,
        /** SCSI TASK SET FULL status; NVMe Namespace Not Ready too (the host retries). */
        TASK_SET_FULL,
        /** SCSI ABORTED COMMAND, no additional sense; NVMe Command Interrupted (retry). */
        ABORTED,
        /** Only the explicit values (a protocol without one gets MEDIUM_ERROR's). */
        EXPLICIT
    }

    public FaultStatus {
        if (senseKey < -1 || senseKey > 15 || asc < 0 || asc > 255 || ascq < 0 || ascq > 255) {
            throw new IllegalArgumentException("sense " + senseKey + "/" + asc + "/" + ascq);
        }
        if (sct < -1 || sct > 7 || sc < 0 || sc > 255 || dnr < -1 || dnr > 1 || crd < 0 || crd > 3) {
            throw new IllegalArgumentException("NVMe status " + sct + "/" + sc + " DNR " + dnr + " CRD " + crd);
        }
    }

    /** Explicit values with the NVMe status's usual DNR, no CRD, no M. */
    public FaultStatus(Condition condition, int senseKey, int asc, int ascq, int sct, int sc) {
        this(condition, senseKey, asc, ascq, sct, sc, -1, 0, false);
    }

    public static FaultStatus of(Condition condition) {
        return new FaultStatus(condition, -1, 0, 0, -1, 0);
    }

    public boolean explicitSense() {
        return senseKey >= 0;
    }

    public boolean explicitNvme() {
        return sct >= 0;
    }
}
