package io.blocktarget.protocol.scsi;

/** WRITE(6/10/12/16) (SBC-4 §5.32-5.36). WRITE(6) length 0 means 256. */
/**
 * WRITE(6/10/12/16): {@code groupNumber} is the GROUP NUMBER (SBC-4 §4.22; six bits of byte 6, 10 or 14 — WRITE(6)
 * has none), the stream of a logical unit with data placement.
 */
public record WriteCdb(ScsiOpcode opcode, long lba, long transferLength, boolean dpo, boolean fua, int groupNumber)
        implements Cdb {
    public WriteCdb(ScsiOpcode opcode, long lba, long transferLength, boolean dpo, boolean fua) {
        this(opcode, lba, transferLength, dpo, fua, 0);
    }

    public FieldPointer transferLengthField() {
        return opcode.transferLengthField();
    }
}
