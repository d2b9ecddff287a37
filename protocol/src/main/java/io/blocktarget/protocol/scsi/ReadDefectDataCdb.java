package io.blocktarget.protocol.scsi;

/**
 * READ DEFECT DATA(10/12) (SBC-4 §5.18, §5.19).
 *
 * @param reqPlist               REQ_PLIST: the primary (manufacturer's) defect list is requested
 * @param reqGlist               REQ_GLIST: the grown defect list is requested
 * @param defectListFormat       DEFECT LIST FORMAT, 3 bits (SBC-4 Table "Defect list formats")
 * @param addressDescriptorIndex ADDRESS DESCRIPTOR INDEX (12-byte CDB only; 0 for the 10-byte one)
 * @param allocationLength       ALLOCATION LENGTH
 */
public record ReadDefectDataCdb(ScsiOpcode opcode, boolean reqPlist, boolean reqGlist, int defectListFormat,
                                long addressDescriptorIndex, long allocationLength) implements Cdb {
}
