package io.blocktarget.protocol.nvme;

import io.blocktarget.protocol.WireCode;

import java.util.Optional;

/**
 * Zone Management Send (79h) (ZNS §3.4.3): SLBA in CDW10..11 (the lowest LBA of the zone), CDW13 bits 7:0 ZSA,
 * bit 8 Select All (SLBA ignored, every zone in the action's source states), bit 9 ZSASO. Set Zone Descriptor
 * Extension carries ZDES × 64 bytes of data; the other actions none.
 */
public record ZoneManagementSendCommand(int cid, int nsid, long slba, Action zsa, boolean selectAll, boolean zsaso,
                                        SglDescriptor dptr) {
    public static final int CDW13_SELECT_ALL = 1 << 8;
    public static final int CDW13_ZSASO = 1 << 9;

    /** Zone Send Action values (ZNS Figure "Zone Management Send – Zone Send Action"). */
    public enum Action implements WireCode {
        CLOSE(0x01), FINISH(0x02), OPEN(0x03), RESET(0x04), OFFLINE(0x05), SET_ZONE_DESCRIPTOR_EXTENSION(0x10),
        FLUSH_EXPLICIT_ZRWA_RANGE(0x11);

        private final int code;

        Action(int code) {
            this.code = code;
        }

        @Override
        public int code() {
            return code;
        }

        public static Optional<Action> of(int code) {
            return WireCode.lookup(Action.class, code);
        }
    }

    /** Parses the command; a reserved ZSA value is Invalid Field in Command. */
    public static Parsed<ZoneManagementSendCommand> parse(Sqe sqe) {
        if (sqe.opcode() != NvmOpcode.ZONE_MANAGEMENT_SEND.code()) {
            return Parsed.invalid(NvmeStatus.INVALID_OPCODE);
        }
        int cdw13 = sqe.cdw13();
        Action zsa = Action.of(cdw13 & 0xFF).orElse(null);
        if (zsa == null) {
            return Parsed.invalid(NvmeStatus.INVALID_FIELD);
        }
        return Parsed.ok(new ZoneManagementSendCommand(sqe.cid(), sqe.nsid(), ReadWriteCommand.slba(sqe), zsa,
                (cdw13 & CDW13_SELECT_ALL) != 0, (cdw13 & CDW13_ZSASO) != 0, sqe.dptr()));
    }

    public Sqe toSqe() {
        return Sqe.of(NvmOpcode.ZONE_MANAGEMENT_SEND.code(), cid, nsid, dptr, (int) slba, (int) (slba >>> 32), 0,
                zsa.code() | (selectAll ? CDW13_SELECT_ALL : 0) | (zsaso ? CDW13_ZSASO : 0));
    }
}
