package io.blocktarget.protocol.scsi;

/** VERIFY(10/16) (SBC-4 §5.30, §5.31). */
public record VerifyCdb(ScsiOpcode opcode, long lba, long verificationLength, boolean dpo, ByteCheck byteCheck) implements Cdb {
    public FieldPointer verificationLengthField() {
        return opcode.transferLengthField();
    }
}
