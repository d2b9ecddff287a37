package io.blocktarget.protocol.scsi;

import java.util.Optional;

/**
 * A CDB the parser rejected: the reason (e.g. INVALID COMMAND OPERATION CODE, INVALID FIELD IN CDB)
 * and, when one field is to blame, the SENSE KEY SPECIFIC field pointer (SPC-4 §4.5.2.4.2).
 */
public record CdbError(SenseReason reason, Optional<FieldPointer> fieldPointer) implements Cdb {

    static CdbError invalidField(int field, int bit) {
        return new CdbError(SenseReason.INVALID_FIELD_IN_CDB, Optional.of(FieldPointer.cdb(field, bit)));
    }

    /** The sense data to return with CHECK CONDITION. */
    public SenseData senseData() {
        return SenseData.of(reason, fieldPointer);
    }
}
