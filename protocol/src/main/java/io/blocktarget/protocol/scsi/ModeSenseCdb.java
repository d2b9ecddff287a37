package io.blocktarget.protocol.scsi;

/** MODE SENSE(6)/(10) (SPC-4 §6.11, §6.12). PC = saved is rejected by the parser (no saved pages). */
public record ModeSenseCdb(ScsiOpcode opcode, boolean dbd, boolean llbaa, PageControl pageControl, int pageCode, int subpageCode, int allocationLength) implements Cdb {
    /** PAGE CODE (byte 2 bits 5-0 in both CDB sizes): where to point for an unsupported page. */
    public static final FieldPointer PAGE_CODE_FIELD = FieldPointer.cdb(2, 5);
    /** SUBPAGE CODE (byte 3). */
    public static final FieldPointer SUBPAGE_CODE_FIELD = FieldPointer.cdb(3, 7);

    public boolean tenByte() {
        return opcode == ScsiOpcode.MODE_SENSE_10;
    }
}
