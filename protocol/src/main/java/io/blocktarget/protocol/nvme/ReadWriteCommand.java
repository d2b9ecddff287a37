package io.blocktarget.protocol.nvme;

/**
 * Read (02h), Write (01h) and Compare (05h) (NVM Command Set §3.2.6, §3.2.3, §3.2.1): SLBA in CDW10..11, CDW12
 * bits 15:0 NLB (0's based), 29:26 PRINFO, 30 FUA, 31 LR; CDW13 bits 7:0 DSM hints.
 */
public record ReadWriteCommand(NvmOpcode opcode, int cid, int nsid, long slba, int nlb, boolean fua,
                               boolean lr, int prinfo, int dsm, SglDescriptor dptr) {
    public static final int CDW12_FUA = 1 << 30;
    public static final int CDW12_LR = 1 << 31;

    /** Number of logical blocks (NLB is 0's based). */
    public int blocks() {
        return nlb + 1;
    }

    /** Transfer length in bytes for a namespace of {@code lbs}-byte blocks. */
    public long transferLength(int lbs) {
        return (long) blocks() * lbs;
    }

    /**
     * Parses the command. PRINFO other than 0 on namespaces without protection information is INVALID_FIELD
     * (NVM Command Set §5.3: PRACT/PRCHK have meaning only with end-to-end protection).
     */
    public static Parsed<ReadWriteCommand> parse(Sqe sqe) {
        NvmOpcode op = NvmOpcode.of(sqe.opcode()).orElse(null);
        if (op != NvmOpcode.READ && op != NvmOpcode.WRITE && op != NvmOpcode.COMPARE) {
            return Parsed.invalid(NvmeStatus.INVALID_OPCODE);
        }
        int cdw12 = sqe.cdw12();
        int prinfo = cdw12 >>> 26 & 0xF;
        if (prinfo != 0) {
            return Parsed.invalid(NvmeStatus.INVALID_FIELD);
        }
        return Parsed.ok(new ReadWriteCommand(op, sqe.cid(), sqe.nsid(), slba(sqe), cdw12 & 0xFFFF,
                (cdw12 & CDW12_FUA) != 0, (cdw12 & CDW12_LR) != 0, prinfo, sqe.cdw13() & 0xFF, sqe.dptr()));
    }

    /**
     * Checks this command against a namespace: the LBA range (overflow-safe), the transfer size limit
     * {@code maxTransferBytes} (MDTS) and the data pointer length, which must be exactly NLB × LBS.
     */
    public NvmeStatus validate(long nsze, int lbs, long maxTransferBytes, int inCapsuleBytes) {
        NvmeStatus range = checkRange(slba, blocks(), nsze);
        if (!range.isSuccess()) {
            return range;
        }
        if (transferLength(lbs) > maxTransferBytes) {
            return NvmeStatus.INVALID_FIELD;
        }
        return dptr.validate(transferLength(lbs), inCapsuleBytes);
    }

    static long slba(Sqe sqe) {
        return Integer.toUnsignedLong(sqe.cdw10()) | (long) sqe.cdw11() << 32;
    }

    /** LBA_OUT_OF_RANGE unless [slba, slba+blocks) lies within a namespace of {@code nsze} blocks. */
    public static NvmeStatus checkRange(long slba, long blocks, long nsze) {
        // unsigned SLBA: a value with bit 63 set is beyond any namespace; compare without overflow
        if (slba < 0 || blocks < 0 || slba >= nsze || blocks > nsze - slba) {
            return NvmeStatus.LBA_OUT_OF_RANGE;
        }
        return NvmeStatus.SUCCESS;
    }

    /** The SQE a host sends (for test initiators). */
    public Sqe toSqe() {
        return Sqe.of(opcode.code(), cid, nsid, dptr, (int) slba, (int) (slba >>> 32),
                nlb | prinfo << 26 | (fua ? CDW12_FUA : 0) | (lr ? CDW12_LR : 0), dsm);
    }
}
