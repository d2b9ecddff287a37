package io.blocktarget.protocol.scsi;

import io.blocktarget.protocol.WireCode;
import java.util.Optional;

/** PERSISTENT RESERVE OUT service actions (SPC-4 §6.16.2, Table 193). */
public enum PrOutServiceAction implements WireCode {
    REGISTER(0x00),
    RESERVE(0x01),
    RELEASE(0x02),
    CLEAR(0x03),
    PREEMPT(0x04),
    PREEMPT_AND_ABORT(0x05),
    REGISTER_AND_IGNORE_EXISTING_KEY(0x06),
    REGISTER_AND_MOVE(0x07);

    private final int code;

    PrOutServiceAction(int code) {
        this.code = code;
    }

    @Override
    public int code() {
        return code;
    }

    public static Optional<PrOutServiceAction> fromCode(int code) {
        return WireCode.lookup(PrOutServiceAction.class, code);
    }
}
