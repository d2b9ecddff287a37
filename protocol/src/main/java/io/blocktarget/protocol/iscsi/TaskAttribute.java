package io.blocktarget.protocol.iscsi;

import io.blocktarget.protocol.WireCode;
import java.util.Optional;

/** SCSI Command ATTR field, byte 1 bits 0-2 (RFC 7143 §11.3.1.1); 5-7 are reserved. */
public enum TaskAttribute implements WireCode {
    UNTAGGED(0),
    SIMPLE(1),
    ORDERED(2),
    HEAD_OF_QUEUE(3),
    ACA(4);

    private final int code;

    TaskAttribute(int code) {
        this.code = code;
    }

    @Override
    public int code() {
        return code;
    }

    public static Optional<TaskAttribute> fromCode(int code) {
        return WireCode.lookup(TaskAttribute.class, code);
    }
}
