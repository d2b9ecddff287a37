package io.blocktarget.protocol.scsi;

import io.blocktarget.protocol.WireCode;
import java.util.Optional;

/** REPORTING OPTIONS of REPORT SUPPORTED OPERATION CODES (SPC-4 §6.35.1, Table 232). */
public enum ReportingOptions implements WireCode {
    ALL(0),
    ONE_COMMAND(1),
    ONE_COMMAND_WITH_SERVICE_ACTION(2),
    ONE_COMMAND_EITHER(3);

    private final int code;

    ReportingOptions(int code) {
        this.code = code;
    }

    @Override
    public int code() {
        return code;
    }

    public static Optional<ReportingOptions> fromCode(int code) {
        return WireCode.lookup(ReportingOptions.class, code);
    }
}
