package io.blocktarget.protocol.scsi;

/** REPORT LUNS (SPC-4 §6.33). */
public record ReportLunsCdb(SelectReport selectReport, long allocationLength) implements Cdb {
}
