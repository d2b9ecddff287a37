package io.blocktarget.protocol.scsi;

/**
 * RECEIVE COPY RESULTS (SPC-4 §6.18): COPY STATUS (00h) for the LIST IDENTIFIER of an earlier
 * EXTENDED COPY (LID1), or OPERATING PARAMETERS (03h).
 */
public record ReceiveCopyResultsCdb(boolean operatingParameters, int listIdentifier, long allocationLength)
        implements Cdb {
}
