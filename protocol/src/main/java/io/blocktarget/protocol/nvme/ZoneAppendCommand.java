package io.blocktarget.protocol.nvme;

/**
 * Zone Append (7Dh) (ZNS §3.4.1): ZSLBA in CDW10..11 (the lowest LBA of the zone), CDW12 bits 15:0 NLB (0's
 * based), 25 PIREMAP, 29:26 PRINFO, 30 FUA, 31 LR. The controller writes at the zone's write pointer and returns
 * the LBA of the first block written in CQE DW0 (bits 31:0) and DW1 (bits 63:32) — see {@link #assignedLbaDw0}.
 */
public record ZoneAppendCommand(int cid, int nsid, long zslba, int nlb, boolean fua, boolean lr, boolean piremap,
                                SglDescriptor dptr) {
    public static final int CDW12_PIREMAP = 1 << 25;

    public int blocks() {
        return nlb + 1;
    }

    public long transferLength(int lbs) {
        return (long) blocks() * lbs;
    }

    /** PRINFO or PIREMAP without protection information is Invalid Field (NVM Command Set §5.3). */
    public static Parsed<ZoneAppendCommand> parse(Sqe sqe) {
        if (sqe.opcode() != NvmOpcode.ZONE_APPEND.code()) {
            return Parsed.invalid(NvmeStatus.INVALID_OPCODE);
        }
        int cdw12 = sqe.cdw12();
        if ((cdw12 >>> 26 & 0xF) != 0 || (cdw12 & CDW12_PIREMAP) != 0) {
            return Parsed.invalid(NvmeStatus.INVALID_FIELD);
        }
        return Parsed.ok(new ZoneAppendCommand(sqe.cid(), sqe.nsid(), ReadWriteCommand.slba(sqe), cdw12 & 0xFFFF,
                (cdw12 & ReadWriteCommand.CDW12_FUA) != 0, (cdw12 & ReadWriteCommand.CDW12_LR) != 0, false,
                sqe.dptr()));
    }

    /**
     * Checks against the namespace: ZSLBA in the namespace (the blocks go to the write pointer, whose zone checks
     * are the command set's), the Zone Append Size
     * Limit {@code zoneAppendMaxBytes} (over it: Invalid Field, ZNS §3.4.1) and the data pointer, exactly NLB × LBS.
     */
    public NvmeStatus validate(long nsze, int lbs, long zoneAppendMaxBytes, int inCapsuleBytes) {
        NvmeStatus range = ReadWriteCommand.checkRange(zslba, 1, nsze);
        if (!range.isSuccess()) {
            return range;
        }
        if (transferLength(lbs) > zoneAppendMaxBytes) {
            return NvmeStatus.INVALID_FIELD;
        }
        return dptr.validate(transferLength(lbs), inCapsuleBytes);
    }

    /** CQE DW0 for the assigned LBA. */
    public static int assignedLbaDw0(long lba) {
        return (int) lba;
    }

    /** CQE DW1 for the assigned LBA. */
    public static int assignedLbaDw1(long lba) {
        return (int) (lba >>> 32);
    }

    public Sqe toSqe() {
        return Sqe.of(NvmOpcode.ZONE_APPEND.code(), cid, nsid, dptr, (int) zslba, (int) (zslba >>> 32),
                nlb | (piremap ? CDW12_PIREMAP : 0) | (fua ? ReadWriteCommand.CDW12_FUA : 0)
                        | (lr ? ReadWriteCommand.CDW12_LR : 0));
    }
}
