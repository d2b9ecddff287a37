package io.blocktarget.protocol.scsi;

/**
 * PRE-FETCH(10/16) (SBC-4 §5.12, §5.13): bring PREFETCH LENGTH blocks from LOGICAL BLOCK ADDRESS into
 * the cache; 0 means up to the last logical block of the medium.
 */
public record PreFetchCdb(ScsiOpcode opcode, long lba, long prefetchLength, boolean immed) implements Cdb {
    /** PREFETCH LENGTH: bytes 7-8 of the 10-byte CDB, 10-13 of the 16-byte one. */
    public FieldPointer prefetchLengthField() {
        return opcode.transferLengthField();
    }
}
