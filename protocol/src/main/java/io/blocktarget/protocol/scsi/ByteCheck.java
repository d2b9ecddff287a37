package io.blocktarget.protocol.scsi;

import io.blocktarget.protocol.WireCode;
import java.util.Optional;

/** BYTCHK field of VERIFY and WRITE AND VERIFY (SBC-4 §5.30, §5.38, Table 70); 10b is reserved. */
public enum ByteCheck implements WireCode {
    NONE(0),
    COMPARE(1),
    COMPARE_ONE_BLOCK(3);

    private final int code;

    ByteCheck(int code) {
        this.code = code;
    }

    @Override
    public int code() {
        return code;
    }

    public static Optional<ByteCheck> fromCode(int code) {
        return WireCode.lookup(ByteCheck.class, code);
    }
}
