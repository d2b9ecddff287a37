package io.blocktarget.protocol.scsi;

/** COMPARE AND WRITE (SBC-4 §5.3): the Data-Out buffer holds 2 × numberOfBlocks blocks (verify, then write). */
public record CompareAndWriteCdb(long lba, int numberOfBlocks, boolean dpo, boolean fua) implements Cdb {
    /** NUMBER OF LOGICAL BLOCKS: reject above MAXIMUM COMPARE AND WRITE LENGTH. */
    public static final FieldPointer NUMBER_OF_BLOCKS_FIELD = FieldPointer.cdb(13, 7);
}
