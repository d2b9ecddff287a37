package io.blocktarget.protocol.scsi;

/** EXTENDED COPY (LID1), SPC-4 §6.4: operation code 83h, service action 00h, PARAMETER LIST LENGTH. */
public record ExtendedCopyCdb(long parameterListLength) implements Cdb {
    public static final FieldPointer PARAMETER_LIST_LENGTH_FIELD = FieldPointer.cdb(10, 7);
}
