package io.blocktarget.protocol.scsi;

import io.blocktarget.protocol.WireCode;
import java.util.Optional;

/** PERSISTENT RESERVE IN service actions (SPC-4 §6.15.1, Table 178). */
public enum PrInServiceAction implements WireCode {
    READ_KEYS(0x00),
    READ_RESERVATION(0x01),
    REPORT_CAPABILITIES(0x02),
    READ_FULL_STATUS(0x03);

    private final int code;

    PrInServiceAction(int code) {
        this.code = code;
    }

    @Override
    public int code() {
        return code;
    }

    public static Optional<PrInServiceAction> fromCode(int code) {
        return WireCode.lookup(PrInServiceAction.class, code);
    }
}
