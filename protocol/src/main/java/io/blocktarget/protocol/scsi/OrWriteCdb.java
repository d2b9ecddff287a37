package io.blocktarget.protocol.scsi;

/**
 * ORWRITE(16) (SBC-4 §5.14): each logical block written becomes the bitwise OR of its data on the medium and the
 * Data-Out Buffer's. ORPROTECT must be zero (no protection information); GROUP NUMBER is ignored.
 */
public record OrWriteCdb(long lba, long transferLength, boolean dpo, boolean fua) implements Cdb {
    public FieldPointer transferLengthField() {
        return ScsiOpcode.ORWRITE_16.transferLengthField();
    }
}
