package io.blocktarget.protocol.nvme;

/**
 * Set Features (09h) and Get Features (0Ah) (Base §5.27 / §5.15): CDW10 bits 7:0 FID, bit 31 SV (Set: save),
 * bits 10:8 SEL (Get: 0 current, 1 default, 2 saved, 3 supported capabilities); CDW11 is the feature value
 * (see {@link FeatureValue}).
 */
public record FeatureCommand(AdminOpcode opcode, int cid, int nsid, FeatureId fid, boolean sv, int sel, int cdw11,
                             SglDescriptor dptr) {
    public static final int SEL_CURRENT = 0;
    public static final int SEL_DEFAULT = 1;
    public static final int SEL_SAVED = 2;
    public static final int SEL_SUPPORTED_CAPABILITIES = 3;

    /**
     * Parses either command. An unknown FID is INVALID_FIELD; SV=1 is FEATURE_NOT_SAVEABLE (we keep no
     * saved values); SEL 4..7 is INVALID_FIELD.
     */
    public static Parsed<FeatureCommand> parse(Sqe sqe) {
        AdminOpcode op = AdminOpcode.of(sqe.opcode()).orElse(null);
        if (op != AdminOpcode.SET_FEATURES && op != AdminOpcode.GET_FEATURES) {
            return Parsed.invalid(NvmeStatus.INVALID_OPCODE);
        }
        int d10 = sqe.cdw10();
        FeatureId fid = FeatureId.of(d10 & 0xFF).orElse(null);
        if (fid == null) {
            return Parsed.invalid(NvmeStatus.INVALID_FIELD);
        }
        boolean sv = op == AdminOpcode.SET_FEATURES && (d10 & 1 << 31) != 0;
        int sel = op == AdminOpcode.GET_FEATURES ? d10 >>> 8 & 0x7 : 0;
        if (sv) {
            return Parsed.invalid(NvmeStatus.FEATURE_NOT_SAVEABLE);
        }
        if (sel > SEL_SUPPORTED_CAPABILITIES) {
            return Parsed.invalid(NvmeStatus.INVALID_FIELD);
        }
        return Parsed.ok(new FeatureCommand(op, sqe.cid(), sqe.nsid(), fid, sv, sel, sqe.cdw11(), sqe.dptr()));
    }

    /**
     * The typed value of a Set Features CDW11, validated (e.g. Number of Queues FFFFh is INVALID_FIELD), or
     * INVALID_FIELD for features without a typed value here.
     */
    public Parsed<FeatureValue> value() {
        return FeatureValue.decode(fid, cdw11);
    }

    public Sqe toSqe() {
        return Sqe.of(opcode.code(), cid, nsid, dptr, fid.code() | sel << 8 | (sv ? 1 << 31 : 0), cdw11);
    }
}
