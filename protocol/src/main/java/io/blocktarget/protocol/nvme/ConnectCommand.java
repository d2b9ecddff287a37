package io.blocktarget.protocol.nvme;

/**
 * Fabrics Connect command fields (Base §6.3, Figure "Connect Command - Submission Queue Entry"): RECFMT at
 * byte 40, QID 42, SQSIZE 44 (0's based), CATTR 46, KATO 48 (milliseconds, admin queue only). The 1024-byte
 * {@link ConnectData} travels as in-capsule data.
 */
public record ConnectCommand(int cid, int recfmt, int qid, int sqsize, int cattr, long kato, SglDescriptor dptr) {
    /** SQE byte offsets, for IPO in CONNECT_INVALID_PARAMETERS (Base §6.3 Connect Response). */
    public static final int OFFSET_RECFMT = 40;
    public static final int OFFSET_QID = 42;
    public static final int OFFSET_SQSIZE = 44;
    public static final int OFFSET_CATTR = 46;
    public static final int OFFSET_KATO = 48;
    /** CATTR bit 2: the host disables SQ flow control, SQHD need not be reported (Base §6.3). */
    public static final int CATTR_DISABLE_SQ_FLOW_CONTROL = 1 << 2;
    /** The admin queue holds at least 32 entries (Base §3.3.1.1 / §6.3: SQSIZE ≥ 31). */
    public static final int MIN_ADMIN_SQSIZE = 31;

    /** Number of entries the host asks for (SQSIZE is 0's based). */
    public int queueEntries() {
        return sqsize + 1;
    }

    public boolean isAdminQueue() {
        return qid == 0;
    }

    public boolean sqFlowControlDisabled() {
        return (cattr & CATTR_DISABLE_SQ_FLOW_CONTROL) != 0;
    }

    /**
     * Parses and checks the SQE of a Connect: record format 0 only, SQSIZE ≥ 1 (≥ 31 on the admin queue), and the
     * data pointer must describe exactly 1024 bytes.
     */
    public static Parsed<ConnectCommand> parse(Sqe sqe) {
        if (!sqe.isFabrics() || sqe.fctype() != FabricsCommandType.CONNECT.code()) {
            return Parsed.invalid(NvmeStatus.INVALID_OPCODE);
        }
        int recfmt = sqe.cdw10() & 0xFFFF;
        int qid = sqe.cdw10() >>> 16;
        int sqsize = sqe.cdw11() & 0xFFFF;
        int cattr = sqe.cdw11() >>> 16 & 0xFF;
        ConnectCommand c = new ConnectCommand(sqe.cid(), recfmt, qid, sqsize, cattr,
                Integer.toUnsignedLong(sqe.cdw12()), sqe.dptr());
        if (recfmt != 0) {
            return Parsed.invalid(NvmeStatus.CONNECT_INCOMPATIBLE_FORMAT);
        }
        if (sqsize == 0 || qid == 0 && sqsize < MIN_ADMIN_SQSIZE) {
            return Parsed.invalid(NvmeStatus.CONNECT_INVALID_PARAMETERS,
                    ConnectResponse.invalidParameter(false, OFFSET_SQSIZE));
        }
        if (sqe.dptr().kind() == SglDescriptor.Kind.UNSUPPORTED) {
            return Parsed.invalid(NvmeStatus.SGL_DESCRIPTOR_TYPE_INVALID);
        }
        if (sqe.dptr().lengthUnsigned() != ConnectData.SIZE) {
            return Parsed.invalid(NvmeStatus.DATA_SGL_LENGTH_INVALID);
        }
        return Parsed.ok(c);
    }

    /** The SQE a host sends (for test initiators), data in-capsule at offset 0. */
    public Sqe toSqe() {
        return new Sqe(Sqe.OPCODE_FABRICS, 0, Sqe.PSDT_SGL_MPTR_ADDRESS, cid, FabricsCommandType.CONNECT.code(), 0,
                0, 0, dptr, recfmt | qid << 16, sqsize | cattr << 16, (int) kato, 0, 0, 0);
    }
}
