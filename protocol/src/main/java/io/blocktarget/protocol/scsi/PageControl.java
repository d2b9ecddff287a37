package io.blocktarget.protocol.scsi;

import io.blocktarget.protocol.WireCode;
import java.util.Optional;

/** PC field of MODE SENSE (SPC-4 §6.11.1, Table 160). */
public enum PageControl implements WireCode {
    CURRENT(0),
    CHANGEABLE(1),
    DEFAULT(2),
    SAVED(3);

    private final int code;

    PageControl(int code) {
        this.code = code;
    }

    @Override
    public int code() {
        return code;
    }

    public static Optional<PageControl> fromCode(int code) {
        return WireCode.lookup(PageControl.class, code);
    }
}
