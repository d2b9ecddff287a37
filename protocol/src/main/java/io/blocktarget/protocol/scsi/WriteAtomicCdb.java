package io.blocktarget.protocol.scsi;

/**
 * WRITE ATOMIC(16) (SBC-4 §5.48): the blocks are written all or nothing (§4.29). With a non-zero ATOMIC BOUNDARY the
 * device server may split the write into atomic units at boundaries of that many blocks.
 *
 * @param atomicBoundary ATOMIC BOUNDARY, in logical blocks (0 = the whole transfer is one atomic unit)
 * @param transferLength TRANSFER LENGTH, in logical blocks (16 bits)
 */
public record WriteAtomicCdb(long lba, int atomicBoundary, int transferLength, boolean dpo, boolean fua)
        implements Cdb {
    public static final FieldPointer LBA_FIELD = FieldPointer.cdb(2, 7);
    public static final FieldPointer ATOMIC_BOUNDARY_FIELD = FieldPointer.cdb(10, 7);
    public static final FieldPointer TRANSFER_LENGTH_FIELD = FieldPointer.cdb(12, 7);
}
