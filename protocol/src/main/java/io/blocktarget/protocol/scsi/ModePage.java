package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

/**
 * A mode page in page_0 format (SPC-4 §7.5.7, Table 437): byte 0 PS (7), SPF (6) = 0, PAGE CODE
 * (5-0); byte 1 PAGE LENGTH (n - 1). PS is 0: nothing is saveable. The "changeable values" of a
 * page (PC = 01b) are the same record type with one bits in the fields an initiator may change.
 */
public sealed interface ModePage permits CachingModePage, ControlModePage, InformationalExceptionsModePage {

    int pageCode();

    /** PAGE LENGTH: the bytes after byte 1. */
    int pageLength();

    /** Writes bytes 2..n. */
    void encodeParameters(ByteBuf out);

    default void encode(ByteBuf out) {
        out.writeByte(pageCode());
        out.writeByte(pageLength());
        encodeParameters(out);
    }

    /** Decodes a whole page (byte 0 onwards) of this page's type, as a MODE SELECT parameter list carries it. */
    static ModePage decode(int pageCode, ByteBuf page) {
        return switch (pageCode) {
            case CachingModePage.PAGE_CODE -> CachingModePage.decode(page);
            case ControlModePage.PAGE_CODE -> ControlModePage.decode(page);
            case InformationalExceptionsModePage.PAGE_CODE -> InformationalExceptionsModePage.decode(page);
            default -> throw new IllegalArgumentException("unknown mode page " + pageCode);
        };
    }
}
