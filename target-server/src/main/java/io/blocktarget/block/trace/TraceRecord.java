package io.blocktarget.block.trace;

import io.blocktarget.block.IoKind;

import java.util.Objects;

/**
 * One command as the device saw it, recorded when it completed (DESIGN §10 "Trace"). Protocol-neutral: the command
 * sets fill in their own opcode name (SBC-4 / NVM Command Set spelling: {@code WRITE(16)}, {@code Write},
 * {@code Dataset Management}) and status; {@link #kind} is the shared vocabulary beside it.
 *
 * @param seq          position in the LUN's trace, from 0, in completion order (assigned by the {@link TraceRing})
 * @param timeNanos    arrival, nanoseconds since the Unix epoch
 * @param protocol     which command set carried it
 * @param initiator    iSCSI initiator port name ({@code IQN,i,0xISID}) or NVMe host NQN
 * @param connection   iSCSI: the target port name it arrived on; NVMe: {@code cntlid N}
 * @param queue        NVMe queue ID (SQID); -1 for iSCSI (one task set per nexus)
 * @param tag          iSCSI Initiator Task Tag; NVMe Command Identifier (CID)
 * @param opcode       the operation code (SCSI: byte 0 of the CDB; NVMe: SQE byte 0)
 * @param op           the spec's name of the command
 * @param kind         what it does to the device
 * @param lba          first logical block addressed; -1 when the command addresses none
 * @param blocks       logical blocks addressed (UNMAP / Dataset Management: all ranges together)
 * @param bytes        {@code blocks} × logical block size
 * @param flags        {@link #FUA}, {@link #DPO}, {@link #ATOMIC}, {@link #FUSE_FIRST}, {@link #FUSE_SECOND}
 * @param queueDepth   commands in flight on the LUN at arrival, this one included (both protocols)
 * @param latencyNanos arrival to completion
 * @param status       spec name of the status: {@code GOOD}, {@code CHECK CONDITION}, {@code SUCCESS}, ...
 * @param ok           whether the command succeeded
 * @param senseKey     SCSI sense key, ASC and ASCQ of a CHECK CONDITION; -1 otherwise
 * @param asc          see {@code senseKey}
 * @param ascq         see {@code senseKey}
 * @param sct          NVMe Status Code Type; -1 for SCSI
 * @param sc           NVMe Status Code; -1 for SCSI
 * @param dnr          NVMe Do Not Retry
 * @param placement    the data placement identifier the write carried (issue 32): the SCSI GROUP NUMBER of a WRITE
 *                     (10 / 12 / 16) when not 0, the NVMe DSPEC of a Write / Write Zeroes / Copy with DTYPE 2 (data
 *                     placement, TP4146); -1 when none — as sent, whether or not the LUN has {@code placement:}
 */
public record TraceRecord(long seq, long timeNanos, Protocol protocol, String initiator, String connection, int queue,
                          long tag, int opcode, String op, IoKind kind, long lba, long blocks, long bytes, int flags,
                          int queueDepth, long latencyNanos, String status, boolean ok, int senseKey, int asc,
                          int ascq, int sct, int sc, boolean dnr, int placement) {
    /** Force Unit Access (SBC-4 §5.40 FUA bit; NVM Command Set CDW12 bit 30). */
    public static final int FUA = 1;
    /** Disable Page Out (SBC-4). */
    public static final int DPO = 1 << 1;
    /** WRITE ATOMIC(16) or an NVMe write within the atomic limits. */
    public static final int ATOMIC = 1 << 2;
    /** NVMe FUSE = 01b: first command of a fused operation (Base §4.1). */
    public static final int FUSE_FIRST = 1 << 3;
    /** NVMe FUSE = 10b: second command of a fused operation. */
    public static final int FUSE_SECOND = 1 << 4;

    /** Which command set a record came from. */
    public enum Protocol {
        ISCSI, NVME;

        public String label() {
            return this == ISCSI ? "iscsi" : "nvme";
        }
    }

    public TraceRecord {
        Objects.requireNonNull(protocol, "protocol");
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(status, "status");
    }

    /** A record without a placement identifier. */
    public TraceRecord(long seq, long timeNanos, Protocol protocol, String initiator, String connection, int queue,
                       long tag, int opcode, String op, IoKind kind, long lba, long blocks, long bytes, int flags,
                       int queueDepth, long latencyNanos, String status, boolean ok, int senseKey, int asc, int ascq,
                       int sct, int sc, boolean dnr) {
        this(seq, timeNanos, protocol, initiator, connection, queue, tag, opcode, op, kind, lba, blocks, bytes, flags,
                queueDepth, latencyNanos, status, ok, senseKey, asc, ascq, sct, sc, dnr, -1);
    }

    /** The flag names, in a fixed order ({@code fua dpo atomic fuse-first fuse-second}). */
    public java.util.List<String> flagNames() {
        java.util.List<String> names = new java.util.ArrayList<>(2);
        if ((flags & FUA) != 0) {
            names.add("fua");
        }
        if ((flags & DPO) != 0) {
            names.add("dpo");
        }
        if ((flags & ATOMIC) != 0) {
            names.add("atomic");
        }
        if ((flags & FUSE_FIRST) != 0) {
            names.add("fuse-first");
        }
        if ((flags & FUSE_SECOND) != 0) {
            names.add("fuse-second");
        }
        return names;
    }
}
