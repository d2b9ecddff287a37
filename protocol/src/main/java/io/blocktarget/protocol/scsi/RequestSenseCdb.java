package io.blocktarget.protocol.scsi;

/** REQUEST SENSE (SPC-4 §6.39): DESC selects descriptor format sense data. */
public record RequestSenseCdb(boolean desc, int allocationLength) implements Cdb {
}
