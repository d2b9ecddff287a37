package io.blocktarget.protocol.scsi;

/** UNMAP (SBC-4 §5.32). */
public record UnmapCdb(boolean anchor, int parameterListLength) implements Cdb {
    /** ANCHOR: reject with INVALID FIELD IN CDB when ANC_SUP = 0 (SBC-4 §5.32.1). */
    public static final FieldPointer ANCHOR_FIELD = FieldPointer.cdb(1, 0);
}
