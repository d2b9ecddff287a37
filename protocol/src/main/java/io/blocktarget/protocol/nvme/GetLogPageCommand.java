package io.blocktarget.protocol.nvme;

/**
 * Get Log Page (02h) (Base §5.16): CDW10 bits 7:0 LID, 14:8 LSP, 15 RAE, 31:16 NUMDL; CDW11 bits 15:0 NUMDU,
 * 31:16 LSI; CDW12/13 LPOL/LPOU (byte offset); CDW14 bits 6:0 UUID index, 23 OT, 31:24 CSI.
 * NUMD = NUMDU:NUMDL is a 0's based count of dwords.
 */
public record GetLogPageCommand(int cid, int nsid, int lid, int lsp, boolean rae, long numd, int lsi, long lpo,
                                boolean ot, int csi, SglDescriptor dptr) {
    public static final int LID_ERROR_INFORMATION = 0x01;
    public static final int LID_SMART_HEALTH = 0x02;
    public static final int LID_FIRMWARE_SLOT = 0x03;
    public static final int LID_CHANGED_NAMESPACE_LIST = 0x04;
    public static final int LID_COMMANDS_SUPPORTED_AND_EFFECTS = 0x05;
    public static final int LID_DISCOVERY = 0x70;
    public static final int LID_ANA = 0x0C;
    /** Changed Zone List, namespace scoped (ZNS §5.3.1): the zones whose descriptors the controller changed. */
    public static final int LID_CHANGED_ZONE_LIST = 0xBF;

    /** Bytes requested: (NUMD + 1) dwords. */
    public long lengthBytes() {
        return (numd + 1) * 4;
    }

    /**
     * Parses and checks the command: the offset must be dword aligned (Base §5.16: LPOL bits 1:0 are
     * reserved for offsets in bytes), OT (index offsets) is not supported, and the data pointer must cover
     * the requested length.
     */
    public static Parsed<GetLogPageCommand> parse(Sqe sqe) {
        if (sqe.opcode() != AdminOpcode.GET_LOG_PAGE.code()) {
            return Parsed.invalid(NvmeStatus.INVALID_OPCODE);
        }
        int d10 = sqe.cdw10();
        int d11 = sqe.cdw11();
        long numd = (d10 >>> 16) | (long) (d11 & 0xFFFF) << 16;
        long lpo = Integer.toUnsignedLong(sqe.cdw12()) | Integer.toUnsignedLong(sqe.cdw13()) << 32;
        GetLogPageCommand c = new GetLogPageCommand(sqe.cid(), sqe.nsid(), d10 & 0xFF, d10 >>> 8 & 0x7F,
                (d10 & 1 << 15) != 0, numd, d11 >>> 16, lpo, (sqe.cdw14() & 1 << 23) != 0, sqe.cdw14() >>> 24,
                sqe.dptr());
        if ((lpo & 3) != 0 || c.ot || lpo < 0) {
            return Parsed.invalid(NvmeStatus.INVALID_FIELD);
        }
        if (c.dptr.kind() == SglDescriptor.Kind.UNSUPPORTED) {
            return Parsed.invalid(NvmeStatus.SGL_DESCRIPTOR_TYPE_INVALID);
        }
        if (c.dptr.lengthUnsigned() < c.lengthBytes()) {
            return Parsed.invalid(NvmeStatus.DATA_SGL_LENGTH_INVALID);
        }
        return Parsed.ok(c);
    }

    public Sqe toSqe() {
        return Sqe.of(AdminOpcode.GET_LOG_PAGE.code(), cid, nsid, dptr,
                lid | lsp << 8 | (rae ? 1 << 15 : 0) | (int) (numd & 0xFFFF) << 16,
                (int) (numd >>> 16 & 0xFFFF) | lsi << 16, (int) lpo, (int) (lpo >>> 32),
                (ot ? 1 << 23 : 0) | csi << 24);
    }
}
