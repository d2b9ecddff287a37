package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

/**
 * Caching mode page, 08h (SBC-4 §6.5.5, Table 192), page length 12h. Only WCE (write cache
 * enable) and RCD (read cache disable) are modelled; the retention, pre-fetch and segment fields are
 * zero. Linux sd reads WCE/RCD here for its "write back" / "write through" cache type, and flips WCE
 * with MODE SELECT when root writes /sys/.../cache_type.
 */
public record CachingModePage(boolean wce, boolean rcd) implements ModePage {
    public static final int PAGE_CODE = 0x08;
    public static final int PAGE_LENGTH = 0x12;
    /** Changeable values: WCE only. */
    public static final CachingModePage CHANGEABLE = new CachingModePage(true, false);

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
        out.writeByte((wce ? 0x04 : 0) | (rcd ? 0x01 : 0)); // 2: IC ABPF CAP DISC SIZE WCE MF RCD
        out.writeZero(PAGE_LENGTH - 1);                     // 3-19
    }

    static CachingModePage decode(ByteBuf page) {
        int b2 = page.getUnsignedByte(page.readerIndex() + 2);
        return new CachingModePage((b2 & 0x04) != 0, (b2 & 0x01) != 0);
    }
}
