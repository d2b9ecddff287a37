package io.blocktarget.protocol.scsi;

/**
 * PREVENT ALLOW MEDIUM REMOVAL (SBC-4 §5.15, Table "PREVENT field"): PREVENT 00b allows, 01b prevents the removal of
 * the medium for the I_T nexus that sends it; 10b / 11b are obsolete (the parser refuses them).
 */
public record PreventAllowMediumRemovalCdb(boolean prevent) implements Cdb {
    public static final FieldPointer PREVENT_FIELD = FieldPointer.cdb(4, 1);
}
