package io.blocktarget.protocol.nvme;

/**
 * The NVM commands that name an LBA range and move no data: Verify (0Ch, NVM Command Set §3.2.9) and Write
 * Uncorrectable (04h, §3.2.7). SLBA in CDW10..11, CDW12 bits 15:0 NLB (0's based); Verify adds 29:26 PRINFO,
 * 30 FUA, 31 LR. PRINFO other than 0 on namespaces without protection information is Invalid Field.
 */
public record LbaRangeCommand(NvmOpcode opcode, int cid, int nsid, long slba, int nlb, boolean fua, boolean lr) {

    public int blocks() {
        return nlb + 1;
    }

    public static Parsed<LbaRangeCommand> parse(Sqe sqe) {
        NvmOpcode op = NvmOpcode.of(sqe.opcode()).orElse(null);
        if (op != NvmOpcode.VERIFY && op != NvmOpcode.WRITE_UNCORRECTABLE) {
            return Parsed.invalid(NvmeStatus.INVALID_OPCODE);
        }
        int cdw12 = sqe.cdw12();
        if ((cdw12 >>> 26 & 0xF) != 0) {
            return Parsed.invalid(NvmeStatus.INVALID_FIELD);
        }
        boolean verify = op == NvmOpcode.VERIFY;
        return Parsed.ok(new LbaRangeCommand(op, sqe.cid(), sqe.nsid(), ReadWriteCommand.slba(sqe), cdw12 & 0xFFFF,
                verify && (cdw12 & ReadWriteCommand.CDW12_FUA) != 0,
                verify && (cdw12 & ReadWriteCommand.CDW12_LR) != 0));
    }

    /** LBA_OUT_OF_RANGE unless the range lies within a namespace of {@code nsze} blocks. */
    public NvmeStatus validate(long nsze) {
        return ReadWriteCommand.checkRange(slba, blocks(), nsze);
    }

    /** The SQE a host sends (for test initiators). */
    public Sqe toSqe() {
        return Sqe.of(opcode.code(), cid, nsid, SglDescriptor.transportDataBlock(0), (int) slba, (int) (slba >>> 32),
                nlb | (fua ? ReadWriteCommand.CDW12_FUA : 0) | (lr ? ReadWriteCommand.CDW12_LR : 0));
    }
}
