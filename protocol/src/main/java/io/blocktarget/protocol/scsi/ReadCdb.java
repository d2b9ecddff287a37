package io.blocktarget.protocol.scsi;

/** READ(6/10/12/16) (SBC-4 §5.8-5.12). {@code lba} and {@code transferLength} are unsigned widened; READ(6) length 0 means 256. */
public record ReadCdb(ScsiOpcode opcode, long lba, long transferLength, boolean dpo, boolean fua) implements Cdb {
    /** TRANSFER LENGTH field of this CDB size, for INVALID FIELD IN CDB (e.g. above MAXIMUM TRANSFER LENGTH). */
    public FieldPointer transferLengthField() {
        return opcode.transferLengthField();
    }
}
