package io.blocktarget.protocol.nvme;

/**
 * Identify (06h) (Base §5.17): CDW10 bits 7:0 CNS, 31:16 CNTID; CDW11 bits 15:0 CNSSID, 31:24 CSI; CDW14 bits
 * 6:0 UUID index. Always returns 4096 bytes.
 */
public record IdentifyCommand(int cid, int nsid, int cns, int cntid, int cnssid, int csi, int uuidIndex,
                              SglDescriptor dptr) {
    public static final int DATA_SIZE = 4096;
    public static final int CNS_NAMESPACE = 0x00;
    public static final int CNS_CONTROLLER = 0x01;
    public static final int CNS_ACTIVE_NAMESPACES = 0x02;
    public static final int CNS_NAMESPACE_DESCRIPTORS = 0x03;
    /** I/O Command Set specific Identify Namespace (CSI selects the set). */
    public static final int CNS_CS_NAMESPACE = 0x05;
    /** I/O Command Set specific Identify Controller. */
    public static final int CNS_CS_CONTROLLER = 0x06;
    public static final int CNS_CS_ACTIVE_NAMESPACES = 0x07;
    public static final int CNS_CS_INDEPENDENT_NAMESPACE = 0x08;
    /** Identify I/O Command Set data structure (Base 2.0 §5.17.2.21): the command set combinations. */
    public static final int CNS_IO_COMMAND_SET = 0x1C;
    /** Command Set Identifier of the NVM Command Set. */
    public static final int CSI_NVM = 0x00;
    /** Command Set Identifier of the Zoned Namespace Command Set (Base 2.0 Figure "Command Set Identifiers"). */
    public static final int CSI_ZNS = 0x02;

    public static Parsed<IdentifyCommand> parse(Sqe sqe) {
        if (sqe.opcode() != AdminOpcode.IDENTIFY.code()) {
            return Parsed.invalid(NvmeStatus.INVALID_OPCODE);
        }
        IdentifyCommand c = new IdentifyCommand(sqe.cid(), sqe.nsid(), sqe.cdw10() & 0xFF, sqe.cdw10() >>> 16,
                sqe.cdw11() & 0xFFFF, sqe.cdw11() >>> 24, sqe.cdw14() & 0x7F, sqe.dptr());
        if (c.dptr.kind() == SglDescriptor.Kind.UNSUPPORTED) {
            return Parsed.invalid(NvmeStatus.SGL_DESCRIPTOR_TYPE_INVALID);
        }
        if (c.dptr.lengthUnsigned() < DATA_SIZE) {
            return Parsed.invalid(NvmeStatus.DATA_SGL_LENGTH_INVALID);
        }
        return Parsed.ok(c);
    }

    public Sqe toSqe() {
        return Sqe.of(AdminOpcode.IDENTIFY.code(), cid, nsid, dptr, cns | cntid << 16, cnssid | csi << 24, 0, 0,
                uuidIndex);
    }
}
