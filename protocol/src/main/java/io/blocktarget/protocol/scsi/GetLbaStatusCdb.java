package io.blocktarget.protocol.scsi;

/** GET LBA STATUS (SBC-4 §5.7). */
public record GetLbaStatusCdb(long startingLba, long allocationLength) implements Cdb {
    public static final FieldPointer STARTING_LBA_FIELD = FieldPointer.cdb(2, 7);
}
