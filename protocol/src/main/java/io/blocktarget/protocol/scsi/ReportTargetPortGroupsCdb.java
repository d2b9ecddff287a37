package io.blocktarget.protocol.scsi;

/**
 * MAINTENANCE IN / REPORT TARGET PORT GROUPS (SPC-4 §6.36): PARAMETER DATA FORMAT 000b (length only
 * header) or 001b (extended header).
 */
public record ReportTargetPortGroupsCdb(boolean extendedHeader, long allocationLength) implements Cdb {
}
