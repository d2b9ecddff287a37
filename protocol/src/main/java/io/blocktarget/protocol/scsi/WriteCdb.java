package io.blocktarget.protocol.scsi;

/** WRITE(6/10/12/16) (SBC-4 §5.32-5.36). WRITE(6) length 0 means 256. */
public record WriteCdb(ScsiOpcode opcode, long lba, long transferLength, boolean dpo, boolean fua) implements Cdb {
    public FieldPointer transferLengthField() {
        return opcode.transferLengthField();
    }
}
