package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

/**
 * Informational Exceptions Control mode page, 1Ch (SPC-4 §7.5.11, Table 463), page length 0Ah.
 *
 * @param mrie METHOD OF REPORTING INFORMATIONAL EXCEPTIONS, 4 bits (0 = no reporting)
 */
public record InformationalExceptionsModePage(boolean perf, boolean ebf, boolean ewasc, boolean dexcpt,
                                              boolean test, boolean logerr, int mrie, long intervalTimer,
                                              long reportCount) implements ModePage {
    public static final int PAGE_CODE = 0x1C;
    public static final int PAGE_LENGTH = 0x0A;
    /** Changeable values: none. */
    public static final InformationalExceptionsModePage CHANGEABLE =
            new InformationalExceptionsModePage(false, false, false, false, false, false, 0, 0, 0);

    public InformationalExceptionsModePage {
        if ((mrie & ~0xF) != 0 || (intervalTimer & ~0xFFFF_FFFFL) != 0 || (reportCount & ~0xFFFF_FFFFL) != 0) {
            throw new IllegalArgumentException("Informational Exceptions field out of range");
        }
    }

    @Override
    public int pageCode() {
        return PAGE_CODE;
    }

    @Override
    public int pageLength() {
        return PAGE_LENGTH;
    }

    @Override
    public void encodeParameters(ByteBuf out) {
        out.writeByte((perf ? 0x80 : 0) | (ebf ? 0x20 : 0) | (ewasc ? 0x10 : 0) | (dexcpt ? 0x08 : 0)
                | (test ? 0x04 : 0) | (logerr ? 0x01 : 0));      // 2: EBACKERR = 0
        out.writeByte(mrie);                                     // 3
        out.writeInt((int) intervalTimer);                       // 4-7
        out.writeInt((int) reportCount);                         // 8-11
    }

    static InformationalExceptionsModePage decode(ByteBuf page) {
        int i = page.readerIndex();
        int b2 = page.getUnsignedByte(i + 2);
        return new InformationalExceptionsModePage((b2 & 0x80) != 0, (b2 & 0x20) != 0, (b2 & 0x10) != 0,
                (b2 & 0x08) != 0, (b2 & 0x04) != 0, (b2 & 0x01) != 0, page.getUnsignedByte(i + 3) & 0xF,
                page.getUnsignedInt(i + 4), page.getUnsignedInt(i + 8));
    }
}
