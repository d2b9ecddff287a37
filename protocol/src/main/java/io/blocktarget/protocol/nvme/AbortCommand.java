package io.blocktarget.protocol.nvme;

/** Abort (08h) (Base §5.1): CDW10 bits 15:0 SQID, 31:16 CID of the command to abort. */
public record AbortCommand(int cid, int sqid, int abortCid) {
    public static Parsed<AbortCommand> parse(Sqe sqe) {
        if (sqe.opcode() != AdminOpcode.ABORT.code()) {
            return Parsed.invalid(NvmeStatus.INVALID_OPCODE);
        }
        return Parsed.ok(new AbortCommand(sqe.cid(), sqe.cdw10() & 0xFFFF, sqe.cdw10() >>> 16));
    }

    /** CQE DW0 bit 0 = 1: the command was not aborted (Base §5.1.1); 0 = aborted. */
    public static int resultNotAborted() {
        return 1;
    }

    public Sqe toSqe() {
        return Sqe.of(AdminOpcode.ABORT.code(), cid, 0, SglDescriptor.transportDataBlock(0), sqid | abortCid << 16);
    }
}
