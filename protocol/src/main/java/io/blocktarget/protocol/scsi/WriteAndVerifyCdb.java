package io.blocktarget.protocol.scsi;

/** WRITE AND VERIFY(10/16) (SBC-4 §5.38, §5.40). */
public record WriteAndVerifyCdb(ScsiOpcode opcode, long lba, long transferLength, boolean dpo, ByteCheck byteCheck) implements Cdb {
    public FieldPointer transferLengthField() {
        return opcode.transferLengthField();
    }
}
