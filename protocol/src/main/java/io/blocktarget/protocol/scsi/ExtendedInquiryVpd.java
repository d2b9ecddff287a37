package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

/**
 * Extended INQUIRY Data VPD page, 86h (SPC-5 §7.7.7), page length 3Ch. The bits a block target reports: SPT and the
 * protection checks (byte 4), the task attributes and GROUP_SUP (byte 5: the grouping function, i.e. GROUP NUMBER in
 * reads and writes, is supported — SBC-4 §4.22), the cache bits V_SUP / NV_SUP (byte 6), LUICLR (byte 7) and the
 * largest sense data it returns (byte 13).
 *
 *
 * @param spt                          SPT, 3 bits (0 with no protection information)
 * @param maximumSupportedSenseDataLength bytes, 0 = not reported
 */
public record ExtendedInquiryVpd(int spt, boolean grdChk, boolean appChk, boolean refChk, boolean uaskSup,
                                 boolean groupSup, boolean priorSup, boolean headSup, boolean ordSup, boolean simpSup,
                                 boolean wuSup, boolean crdSup, boolean nvSup, boolean vSup, boolean luiclr,
                                 int maximumSupportedSenseDataLength) implements VpdPage {
    public static final int PAGE_CODE = 0x86;
    public static final int PAGE_LENGTH = 0x3C;

    public ExtendedInquiryVpd {
        if ((spt & ~0x7) != 0 || (maximumSupportedSenseDataLength & ~0xFF) != 0) {
            throw new IllegalArgumentException("Extended INQUIRY field out of range");
        }
    }

    public int pageCode() {
        return PAGE_CODE;
    }

    /** Bytes 4..63. */
    public void encodePayload(ByteBuf out) {
        out.writeByte(spt << 3 | bit(grdChk, 2) | bit(appChk, 1) | bit(refChk, 0));                   // 4
        out.writeByte(bit(uaskSup, 5) | bit(groupSup, 4) | bit(priorSup, 3) | bit(headSup, 2)
                | bit(ordSup, 1) | bit(simpSup, 0));                                                   // 5
        out.writeByte(bit(wuSup, 3) | bit(crdSup, 2) | bit(nvSup, 1) | bit(vSup, 0));                  // 6
        out.writeByte(bit(luiclr, 0));                                                                 // 7
        out.writeZero(5);                                                   // 8-12: R_SUP, CBCS, microcode, self-test
        out.writeByte(maximumSupportedSenseDataLength);                                                // 13
        out.writeZero(PAGE_LENGTH - 10);                                                               // 14-63
    }


    private static int bit(boolean set, int bit) {
        return set ? 1 << bit : 0;
    }
}
