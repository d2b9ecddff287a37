package io.blocktarget.protocol.scsi;

import io.blocktarget.protocol.WireCode;
import java.util.Optional;

/** SELECT REPORT field of REPORT LUNS (SPC-4 §6.33, Table 220). */
public enum SelectReport implements WireCode {
    LOGICAL_UNITS(0x00),
    WELL_KNOWN_LOGICAL_UNITS(0x01),
    ALL_LOGICAL_UNITS(0x02);

    private final int code;

    SelectReport(int code) {
        this.code = code;
    }

    @Override
    public int code() {
        return code;
    }

    public static Optional<SelectReport> fromCode(int code) {
        return WireCode.lookup(SelectReport.class, code);
    }
}
