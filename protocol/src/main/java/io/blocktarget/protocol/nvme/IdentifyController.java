package io.blocktarget.protocol.nvme;

import io.netty.buffer.ByteBuf;

/**
 * Identify Controller data structure, CNS 01h, exactly 4096 bytes (Base §5.17.2.1, Figure "Identify - Identify
 * Controller Data Structure, I/O Command Set Independent"), with the NVMe over Fabrics fields at 1792..2047.
 * Only the fields a fabrics target fills are components; the rest is written as zero.
 * <p>
 * AWUN / AWUPF must not exceed what any namespace gives: Linux before 2026 (and other hosts) fall back to the
 * controller-wide AWUPF for any namespace whose NAWUPF is 0 (see {@link NamespaceGeometry}); the target sets them to
 * the smallest NAWUN of the subsystem's namespaces, 0 unless every one has atomic writes.
 */
public record IdentifyController(
        int vid, int ssvid, String sn, String mn, String fr, int rab, int ieee, int cmic, int mdts, int cntlid,
        int ver, int oaes, int ctratt, int cntrltype, int oacs, int acl, int aerl, int frmw, int lpa, int elpe,
        int npss, int kas, int sqes, int cqes, int maxcmd, long nn, int oncs, int fuses, int fna, int vwc, int awun,
        int awupf, int sgls, String subnqn, long ioccsz, long iorcsz, int icdoff, int fcatt, int msdbd, int ofcs) {
    public static final int SIZE = 4096;
    public static final int OFFSET_SUBNQN = 768;
    public static final int OFFSET_IOCCSZ = 1792;
    /** ACWU (bytes 533:532): atomic compare and write unit, 0's based logical blocks (not a record component). */
    public static final int OFFSET_ACWU = 532;

    /** CNTRLTYPE (byte 111): I/O, discovery, administrative controller. */
    public static final int CNTRLTYPE_IO = 1;
    public static final int CNTRLTYPE_DISCOVERY = 2;
    public static final int CNTRLTYPE_ADMIN = 3;
    /** OAES bit 8: Namespace Attribute Notices; bit 31: Discovery Log Page Change Notices. */
    public static final int OAES_NAMESPACE_ATTRIBUTE = 1 << 8;
    /** OAES bit 11: Asymmetric Namespace Access Change Notices. */
    public static final int OAES_ANA_CHANGE = 1 << 11;
    /** CMIC bit 0: more than one port; bit 1: more than one controller; bit 3: ANA reporting. */
    public static final int CMIC_MULTI_PORT = 1;
    public static final int CMIC_MULTI_CONTROLLER = 1 << 1;
    public static final int CMIC_ANA = 1 << 3;
    /**
     * ANA fields (not record components): ANATT (byte 342), ANACAP (343), ANAGRPMAX (347:344), NANAGRPID (351:348);
     * MNAN (543:540).
     */
    public static final int OFFSET_ANATT = 342;
    public static final int OFFSET_ANACAP = 343;
    public static final int OFFSET_ANAGRPMAX = 344;
    public static final int OFFSET_NANAGRPID = 348;
    public static final int OFFSET_MNAN = 540;
    public static final int OAES_DISCOVERY_LOG_CHANGE = 1 << 31;
    /** OAES bit 27: Zone Descriptor Changed Notices (ZNS §4.1.2, Identify Controller changes). */
    public static final int OAES_ZONE_DESCRIPTOR_CHANGED = 1 << 27;
    /** CTRATT bit 0: 128-bit Host Identifier supported (required for fabrics). */
    public static final int CTRATT_HOST_ID_128 = 1;
    /** LPA bit 1: Commands Supported and Effects log; bit 2: extended data (offset, NUMDU) for Get Log Page. */
    public static final int LPA_COMMANDS_EFFECTS = 1 << 1;
    public static final int LPA_EXTENDED_DATA = 1 << 2;
    /** ONCS bits (NVM Command Set support). */
    public static final int ONCS_COMPARE = 1;
    public static final int ONCS_WRITE_UNCORRECTABLE = 1 << 1;
    public static final int ONCS_DSM = 1 << 2;
    public static final int ONCS_WRITE_ZEROES = 1 << 3;
    public static final int ONCS_SAVE_SELECT = 1 << 4;
    public static final int ONCS_RESERVATIONS = 1 << 5;
    public static final int ONCS_TIMESTAMP = 1 << 6;
    public static final int ONCS_VERIFY = 1 << 7;
    public static final int ONCS_COPY = 1 << 8;
    /** FUSES (bytes 523:522) bit 0: the Compare and Write fused operation is supported (Base §5.17.2.1). */
    public static final int FUSES_COMPARE_AND_WRITE = 1;
    /** OCFS (bytes 534..535, Optional Copy Formats Supported): bit 0 = source range format 0h. */
    public static final int OFFSET_OCFS = 534;
    public static final int OCFS_FORMAT_0 = 1;
    /** VWC bit 0: volatile write cache present; bits 2:1 = 11b: Flush with NSID FFFFFFFFh supported. */
    public static final int VWC_PRESENT = 1;
    public static final int VWC_FLUSH_BROADCAST = 0b110;
    /** SGLS bits 1:0 = 01b: SGLs supported, no alignment; bit 2 keyed SGL; bit 20 SGL offset (in-capsule). */
    public static final int SGLS_SUPPORTED = 1;
    public static final int SGLS_KEYED = 1 << 2;
    public static final int SGLS_OFFSET = 1 << 20;
    /** SQES/CQES: required and maximum entry sizes as log2 (64 and 16 bytes). */
    public static final int SQES_64 = 0x66;
    public static final int CQES_16 = 0x44;

    public void encode(ByteBuf out) {
        int i = out.writerIndex();
        out.writeZero(SIZE);
        out.setShortLE(i, vid);
        out.setShortLE(i + 2, ssvid);
        WireText.setSpacePadded(out, i + 4, sn, 20);
        WireText.setSpacePadded(out, i + 24, mn, 40);
        WireText.setSpacePadded(out, i + 64, fr, 8);
        out.setByte(i + 72, rab);
        out.setMediumLE(i + 73, ieee);
        out.setByte(i + 76, cmic);
        out.setByte(i + 77, mdts);
        out.setShortLE(i + 78, cntlid);
        out.setIntLE(i + 80, ver);
        out.setIntLE(i + 92, oaes);
        out.setIntLE(i + 96, ctratt);
        out.setByte(i + 111, cntrltype);
        out.setShortLE(i + 256, oacs);
        out.setByte(i + 258, acl);
        out.setByte(i + 259, aerl);
        out.setByte(i + 260, frmw);
        out.setByte(i + 261, lpa);
        out.setByte(i + 262, elpe);
        out.setByte(i + 263, npss);
        out.setShortLE(i + 320, kas);
        out.setByte(i + 512, sqes);
        out.setByte(i + 513, cqes);
        out.setShortLE(i + 514, maxcmd);
        out.setIntLE(i + 516, (int) nn);
        out.setShortLE(i + 520, oncs);
        out.setShortLE(i + 522, fuses);
        out.setByte(i + 524, fna);
        out.setByte(i + 525, vwc);
        out.setShortLE(i + 526, awun);
        out.setShortLE(i + 528, awupf);
        out.setIntLE(i + 536, sgls);
        WireText.setNulPadded(out, i + OFFSET_SUBNQN, subnqn, WireText.NQN_FIELD);
        out.setIntLE(i + OFFSET_IOCCSZ, (int) ioccsz);
        out.setIntLE(i + 1796, (int) iorcsz);
        out.setShortLE(i + 1800, icdoff);
        out.setByte(i + 1802, fcatt);
        out.setByte(i + 1803, msdbd);
        out.setShortLE(i + 1804, ofcs);
    }

    /** Reads the 4096 bytes at the reader index (not consumed), for test initiators. */
    public static IdentifyController get(ByteBuf b) {
        int i = b.readerIndex();
        return new IdentifyController(b.getUnsignedShortLE(i), b.getUnsignedShortLE(i + 2),
                WireText.getSpacePadded(b, i + 4, 20), WireText.getSpacePadded(b, i + 24, 40),
                WireText.getSpacePadded(b, i + 64, 8), b.getUnsignedByte(i + 72), b.getUnsignedMediumLE(i + 73),
                b.getUnsignedByte(i + 76), b.getUnsignedByte(i + 77), b.getUnsignedShortLE(i + 78), b.getIntLE(i + 80),
                b.getIntLE(i + 92), b.getIntLE(i + 96), b.getUnsignedByte(i + 111), b.getUnsignedShortLE(i + 256),
                b.getUnsignedByte(i + 258), b.getUnsignedByte(i + 259), b.getUnsignedByte(i + 260),
                b.getUnsignedByte(i + 261), b.getUnsignedByte(i + 262), b.getUnsignedByte(i + 263),
                b.getUnsignedShortLE(i + 320), b.getUnsignedByte(i + 512), b.getUnsignedByte(i + 513),
                b.getUnsignedShortLE(i + 514), b.getUnsignedIntLE(i + 516), b.getUnsignedShortLE(i + 520),
                b.getUnsignedShortLE(i + 522), b.getUnsignedByte(i + 524), b.getUnsignedByte(i + 525),
                b.getUnsignedShortLE(i + 526), b.getUnsignedShortLE(i + 528), b.getIntLE(i + 536),
                WireText.getNulTerminated(b, i + OFFSET_SUBNQN, WireText.NQN_FIELD), b.getUnsignedIntLE(i + 1792),
                b.getUnsignedIntLE(i + 1796), b.getUnsignedShortLE(i + 1800), b.getUnsignedByte(i + 1802),
                b.getUnsignedByte(i + 1803), b.getUnsignedShortLE(i + 1804));
    }

    /** MDTS as a power of two in units of the minimum memory page size (CAP.MPSMIN); 0 = no limit. */
    public static int mdtsFor(long maxTransferBytes, int mpsminBytes) {
        int shift = 0;
        while ((long) mpsminBytes << (shift + 1) <= maxTransferBytes && shift < 255) {
            shift++;
        }
        return shift;
    }
}
