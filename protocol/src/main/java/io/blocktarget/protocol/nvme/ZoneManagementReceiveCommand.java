package io.blocktarget.protocol.nvme;

import io.blocktarget.protocol.WireCode;

import java.util.Optional;

/**
 * Zone Management Receive (7Ah) (ZNS §3.4.2): SLBA in CDW10..11 (report from the zone containing it), CDW12 NUMD
 * (0's based dwords of data), CDW13 bits 7:0 ZRA, 15:8 ZRASF (reporting option), bit 16 Partial Report.
 */
public record ZoneManagementReceiveCommand(int cid, int nsid, long slba, long numd, Action zra, ReportingOption zrasf,
                                           boolean partial, SglDescriptor dptr) {
    public static final int CDW13_PARTIAL = 1 << 16;

    /** Zone Receive Action values. */
    public enum Action implements WireCode {
        REPORT_ZONES(0x00), EXTENDED_REPORT_ZONES(0x01);

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

    /** Zone Receive Action Specific Field for (Extended) Report Zones: which zones to list. */
    public enum ReportingOption implements WireCode {
        ALL(0x0, null), EMPTY(0x1, ZoneState.EMPTY), IMPLICITLY_OPENED(0x2, ZoneState.IMPLICITLY_OPENED),
        EXPLICITLY_OPENED(0x3, ZoneState.EXPLICITLY_OPENED), CLOSED(0x4, ZoneState.CLOSED), FULL(0x5, ZoneState.FULL),
        READ_ONLY(0x6, ZoneState.READ_ONLY), OFFLINE(0x7, ZoneState.OFFLINE);

        private final int code;
        private final ZoneState state;

        ReportingOption(int code, ZoneState state) {
            this.code = code;
            this.state = state;
        }

        @Override
        public int code() {
            return code;
        }

        /** Whether a zone in {@code zs} is listed. */
        public boolean matches(ZoneState zs) {
            return state == null || state == zs;
        }

        public static Optional<ReportingOption> of(int code) {
            return WireCode.lookup(ReportingOption.class, code);
        }
    }

    /** Bytes the host asked for: (NUMD + 1) dwords. */
    public long lengthBytes() {
        return (numd + 1) * 4;
    }

    /** Parses the command: reserved ZRA or ZRASF values are Invalid Field; the data pointer must cover NUMD. */
    public static Parsed<ZoneManagementReceiveCommand> parse(Sqe sqe) {
        if (sqe.opcode() != NvmOpcode.ZONE_MANAGEMENT_RECEIVE.code()) {
            return Parsed.invalid(NvmeStatus.INVALID_OPCODE);
        }
        int cdw13 = sqe.cdw13();
        Action zra = Action.of(cdw13 & 0xFF).orElse(null);
        ReportingOption zrasf = ReportingOption.of(cdw13 >>> 8 & 0xFF).orElse(null);
        if (zra == null || zrasf == null) {
            return Parsed.invalid(NvmeStatus.INVALID_FIELD);
        }
        ZoneManagementReceiveCommand c = new ZoneManagementReceiveCommand(sqe.cid(), sqe.nsid(),
                ReadWriteCommand.slba(sqe), Integer.toUnsignedLong(sqe.cdw12()), zra, zrasf,
                (cdw13 & CDW13_PARTIAL) != 0, sqe.dptr());
        if (c.dptr.kind() == SglDescriptor.Kind.UNSUPPORTED) {
            return Parsed.invalid(NvmeStatus.SGL_DESCRIPTOR_TYPE_INVALID);
        }
        if (c.dptr.lengthUnsigned() < c.lengthBytes()) {
            return Parsed.invalid(NvmeStatus.DATA_SGL_LENGTH_INVALID);
        }
        return Parsed.ok(c);
    }

    public Sqe toSqe() {
        return Sqe.of(NvmOpcode.ZONE_MANAGEMENT_RECEIVE.code(), cid, nsid, dptr, (int) slba, (int) (slba >>> 32),
                (int) numd, zra.code() | zrasf.code() << 8 | (partial ? CDW13_PARTIAL : 0));
    }
}
