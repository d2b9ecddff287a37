package io.blocktarget.protocol.iscsi;

import io.blocktarget.protocol.WireCode;
import java.util.Optional;

/** SNACK Request types, RFC 7143 §11.16.1. */
public enum SnackType implements WireCode {
    DATA_R2T(0),
    STATUS(1),
    DATA_ACK(2),
    R_DATA(3);

    private final int code;

    SnackType(int code) {
        this.code = code;
    }

    @Override
    public int code() {
        return code;
    }

    public static Optional<SnackType> fromCode(int code) {
        return WireCode.lookup(SnackType.class, code);
    }
}
