package io.blocktarget.protocol.scsi;

/** WRITE SAME(10/16) (SBC-4 §5.47, §5.48). NDOB only exists in the 16-byte CDB. */
public record WriteSameCdb(ScsiOpcode opcode, long lba, long numberOfBlocks, boolean unmap, boolean anchor, boolean ndob) implements Cdb {
    /** UNMAP bit: reject when LBPWS / LBPWS10 is zero (SBC-4 §5.47). */
    public static final FieldPointer UNMAP_FIELD = FieldPointer.cdb(1, 3);
    public static final FieldPointer ANCHOR_FIELD = FieldPointer.cdb(1, 4);

    /** NUMBER OF LOGICAL BLOCKS: reject 0 when WSNZ = 1, or above MAXIMUM WRITE SAME LENGTH. */
    public FieldPointer numberOfBlocksField() {
        return opcode.transferLengthField();
    }
}
