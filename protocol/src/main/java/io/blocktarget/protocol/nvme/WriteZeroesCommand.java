package io.blocktarget.protocol.nvme;

/**
 * Write Zeroes (08h) (NVM Command Set §3.2.8): SLBA in CDW10..11, CDW12 bits 15:0 NLB (0's based), 25 DEAC
 * (deallocate), 29:26 PRINFO, 30 FUA, 31 LR. No data transfer.
 */
public record WriteZeroesCommand(int cid, int nsid, long slba, int nlb, boolean deac, boolean fua, boolean lr) {
    public static final int CDW12_DEAC = 1 << 25;

    public int blocks() {
        return nlb + 1;
    }

    public static Parsed<WriteZeroesCommand> parse(Sqe sqe) {
        if (sqe.opcode() != NvmOpcode.WRITE_ZEROES.code()) {
            return Parsed.invalid(NvmeStatus.INVALID_OPCODE);
        }
        int cdw12 = sqe.cdw12();
        if ((cdw12 >>> 26 & 0xF) != 0) {
            return Parsed.invalid(NvmeStatus.INVALID_FIELD);
        }
        return Parsed.ok(new WriteZeroesCommand(sqe.cid(), sqe.nsid(), ReadWriteCommand.slba(sqe), cdw12 & 0xFFFF,
                (cdw12 & CDW12_DEAC) != 0, (cdw12 & ReadWriteCommand.CDW12_FUA) != 0,
                (cdw12 & ReadWriteCommand.CDW12_LR) != 0));
    }

    public NvmeStatus validate(long nsze) {
        return ReadWriteCommand.checkRange(slba, blocks(), nsze);
    }

    public Sqe toSqe() {
        return Sqe.of(NvmOpcode.WRITE_ZEROES.code(), cid, nsid, SglDescriptor.transportDataBlock(0), (int) slba,
                (int) (slba >>> 32), nlb | (deac ? CDW12_DEAC : 0) | (fua ? ReadWriteCommand.CDW12_FUA : 0)
                        | (lr ? ReadWriteCommand.CDW12_LR : 0));
    }
}
