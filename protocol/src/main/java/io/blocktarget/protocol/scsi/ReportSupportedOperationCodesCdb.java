package io.blocktarget.protocol.scsi;

/** REPORT SUPPORTED OPERATION CODES (SPC-4 §6.35). */
public record ReportSupportedOperationCodesCdb(boolean rctd, ReportingOptions reportingOptions, int requestedOperationCode, int requestedServiceAction, long allocationLength) implements Cdb {
}
