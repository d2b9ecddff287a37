package io.blocktarget.protocol.scsi;

import io.blocktarget.protocol.WireCode;
import java.util.Optional;

/** Persistent reservation TYPE (SPC-4 §6.16.3, Table 195). */
public enum PrType implements WireCode {
    WRITE_EXCLUSIVE(0x1),
    EXCLUSIVE_ACCESS(0x3),
    WRITE_EXCLUSIVE_REGISTRANTS_ONLY(0x5),
    EXCLUSIVE_ACCESS_REGISTRANTS_ONLY(0x6),
    WRITE_EXCLUSIVE_ALL_REGISTRANTS(0x7),
    EXCLUSIVE_ACCESS_ALL_REGISTRANTS(0x8);

    private final int code;

    PrType(int code) {
        this.code = code;
    }

    @Override
    public int code() {
        return code;
    }

    public static Optional<PrType> fromCode(int code) {
        return WireCode.lookup(PrType.class, code);
    }
}
