package io.blocktarget.protocol.scsi;

/** INQUIRY (SPC-4 §6.6): standard data when EVPD = 0 (page code then 0), else the VPD page. */
public record InquiryCdb(boolean evpd, int pageCode, int allocationLength) implements Cdb {
    /** PAGE CODE: where to point when the VPD page is not supported. */
    public static final FieldPointer PAGE_CODE_FIELD = FieldPointer.cdb(2, 7);
}
