package io.blocktarget.protocol.scsi;

/** SENSE KEY values (SPC-4 §4.5.6, Table 43). */
public enum SenseKey {
    NO_SENSE(0x0),
    RECOVERED_ERROR(0x1),
    NOT_READY(0x2),
    MEDIUM_ERROR(0x3),
    HARDWARE_ERROR(0x4),
    ILLEGAL_REQUEST(0x5),
    UNIT_ATTENTION(0x6),
    DATA_PROTECT(0x7),
    BLANK_CHECK(0x8),
    VENDOR_SPECIFIC(0x9),
    COPY_ABORTED(0xA),
    ABORTED_COMMAND(0xB),
    VOLUME_OVERFLOW(0xD),
    MISCOMPARE(0xE),
    COMPLETED(0xF);

    private final int code;

    SenseKey(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }
}
