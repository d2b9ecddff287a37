package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

/**
 * Control mode page, 0Ah (SPC-4 §7.5.8, Table 449), page length 0Ah. D_SENSE = 1 asks for
 * descriptor-format sense data; QERR, TST and TAS describe task set behaviour to the initiator.
 *
 * @param tst                     TST, 3 bits: 000b one task set for all I_T nexuses
 * @param queueAlgorithmModifier  4 bits: 0 restricted reordering, 1 unrestricted
 * @param qerr                    2 bits
 */
public record ControlModePage(int tst, boolean tmfOnly, boolean dSense, boolean gltsd, int queueAlgorithmModifier,
                              int qerr, boolean swp, boolean tas, int busyTimeoutPeriod,
                              int extendedSelfTestCompletionTime) implements ModePage {
    public static final int PAGE_CODE = 0x0A;
    public static final int PAGE_LENGTH = 0x0A;
    /** Changeable values: D_SENSE and SWP (software write protect). */
    public static final ControlModePage CHANGEABLE = new ControlModePage(0, false, true, false, 0, 0, true, false, 0, 0);

    public ControlModePage {
        if ((tst & ~0x7) != 0 || (queueAlgorithmModifier & ~0xF) != 0 || (qerr & ~0x3) != 0
                || (busyTimeoutPeriod & ~0xFFFF) != 0 || (extendedSelfTestCompletionTime & ~0xFFFF) != 0) {
            throw new IllegalArgumentException("Control mode page field out of range");
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
        out.writeByte(tst << 5 | (tmfOnly ? 0x10 : 0) | (dSense ? 0x04 : 0) | (gltsd ? 0x02 : 0)); // 2 (DPICZ, RLEC = 0)
        out.writeByte(queueAlgorithmModifier << 4 | qerr << 1);        // 3: QAM, NUAR = 0, QERR
        out.writeByte(swp ? 0x08 : 0);                                 // 4: VS RAC UA_INTLCK_CTRL = 0, SWP
        out.writeByte(tas ? 0x40 : 0);                                 // 5: ATO = 0, TAS, ATMPE RWWP = 0, AUTOLOAD MODE = 0
        out.writeShort(0);                                             // 6-7: obsolete
        out.writeShort(busyTimeoutPeriod);                             // 8-9
        out.writeShort(extendedSelfTestCompletionTime);                // 10-11
    }

    static ControlModePage decode(ByteBuf page) {
        int i = page.readerIndex();
        int b2 = page.getUnsignedByte(i + 2);
        int b3 = page.getUnsignedByte(i + 3);
        return new ControlModePage(b2 >>> 5, (b2 & 0x10) != 0, (b2 & 0x04) != 0, (b2 & 0x02) != 0, b3 >>> 4,
                (b3 >>> 1) & 0x3, (page.getUnsignedByte(i + 4) & 0x08) != 0, (page.getUnsignedByte(i + 5) & 0x40) != 0,
                page.getUnsignedShort(i + 8), page.getUnsignedShort(i + 10));
    }
}
