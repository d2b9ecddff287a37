package io.blocktarget.protocol.nvme;

import io.netty.buffer.ByteBuf;

/**
 * The four NVM reservation commands (NVM Command Set §3 opcodes 0Dh, 0Eh, 11h, 15h; NVMe Base 2.x §7
 * "Reservation Register / Report / Acquire / Release" and §8.1.22 "Reservations"): CDW10 / CDW11 decoded here,
 * the data (keys, little-endian) by {@link #keys}. Parse checks the fields; the namespace and the reservation
 * state decide the rest.
 */
public sealed interface ReservationCommand {
    int cid();

    int nsid();

    SglDescriptor dptr();

    /** Bytes of data the command carries (Register / Acquire 16, Release 8) or returns (Report: NUMD + 1 dwords). */
    long dataLength();

    /** CDW10 bit 3: Ignore Existing Key. */
    int IEKEY = 1 << 3;

    /**
     * Reservation Register (0Dh): CDW10 bits 2:0 RREGA (0 register, 1 unregister, 2 replace), bit 3 IEKEY, bits
     * 31:30 CPTPL (00b no change, 10b clear PTPL, 11b set PTPL; 01b reserved). Data: CRKEY (bytes 7:0), NRKEY
     * (15:8).
     */
    record Register(int cid, int nsid, SglDescriptor dptr, Action action, boolean iekey, Cptpl cptpl)
            implements ReservationCommand {
        public enum Action { REGISTER, UNREGISTER, REPLACE }

        public enum Cptpl { NO_CHANGE, CLEAR, SET }

        @Override
        public long dataLength() {
            return 16;
        }
    }

    /** Reservation Report (0Eh): CDW10 NUMD (0's based dwords), CDW11 bit 0 EDS (extended data structure). */
    record Report(int cid, int nsid, SglDescriptor dptr, long numd, boolean eds) implements ReservationCommand {
        @Override
        public long dataLength() {
            return (numd + 1) * 4;
        }
    }

    /**
     * Reservation Acquire (11h): CDW10 bits 2:0 RACQA (0 acquire, 1 preempt, 2 preempt and abort), bit 3 IEKEY,
     * bits 15:8 RTYPE (1..6). Data: CRKEY (7:0), PRKEY (15:8).
     */
    record Acquire(int cid, int nsid, SglDescriptor dptr, Action action, boolean iekey, int rtype)
            implements ReservationCommand {
        public enum Action { ACQUIRE, PREEMPT, PREEMPT_AND_ABORT }

        @Override
        public long dataLength() {
            return 16;
        }
    }

    /** Reservation Release (15h): CDW10 bits 2:0 RRELA (0 release, 1 clear), bit 3 IEKEY, bits 15:8 RTYPE. Data: CRKEY. */
    record Release(int cid, int nsid, SglDescriptor dptr, Action action, boolean iekey, int rtype)
            implements ReservationCommand {
        public enum Action { RELEASE, CLEAR }

        @Override
        public long dataLength() {
            return 8;
        }
    }

    /**
     * Parses one of the four; reserved action codes (RREGA 3..7, RACQA 3..7, RRELA 2..7), CPTPL 01b and an RTYPE
     * outside 1..6 where one is needed (Acquire, Release) are Invalid Field in Command.
     */
    static Parsed<ReservationCommand> parse(Sqe sqe) {
        int d10 = sqe.cdw10();
        int action = d10 & 0x7;
        boolean iekey = (d10 & IEKEY) != 0;
        int rtype = d10 >>> 8 & 0xFF;
        NvmOpcode op = NvmOpcode.of(sqe.opcode()).orElse(null);
        if (op == null) {
            return Parsed.invalid(NvmeStatus.INVALID_OPCODE);
        }
        return switch (op) {
            case RESERVATION_REGISTER -> {
                int cptpl = d10 >>> 30;
                if (action > 2 || cptpl == 1) {
                    yield Parsed.invalid(NvmeStatus.INVALID_FIELD);
                }
                yield Parsed.ok(new Register(sqe.cid(), sqe.nsid(), sqe.dptr(), Register.Action.values()[action],
                        iekey, cptpl == 0 ? Register.Cptpl.NO_CHANGE : cptpl == 2 ? Register.Cptpl.CLEAR
                        : Register.Cptpl.SET));
            }
            case RESERVATION_REPORT -> Parsed.ok(new Report(sqe.cid(), sqe.nsid(), sqe.dptr(),
                    Integer.toUnsignedLong(d10), (sqe.cdw11() & 1) != 0));
            case RESERVATION_ACQUIRE -> action > 2 || rtype < 1 || rtype > 6
                    ? Parsed.invalid(NvmeStatus.INVALID_FIELD)
                    : Parsed.ok(new Acquire(sqe.cid(), sqe.nsid(), sqe.dptr(), Acquire.Action.values()[action], iekey,
                    rtype));
            // RTYPE matters to Release only (Clear ignores it), so it is checked there
            case RESERVATION_RELEASE -> action > 1 || action == 0 && (rtype < 1 || rtype > 6)
                    ? Parsed.invalid(NvmeStatus.INVALID_FIELD)
                    : Parsed.ok(new Release(sqe.cid(), sqe.nsid(), sqe.dptr(), Release.Action.values()[action], iekey,
                    rtype));
            default -> Parsed.invalid(NvmeStatus.INVALID_OPCODE);
        };
    }

    /** The first key of the data (CRKEY), little-endian. */
    static long currentKey(ByteBuf data) {
        return data.getLongLE(data.readerIndex());
    }

    /** The second key (NRKEY of Register, PRKEY of Acquire), little-endian. */
    static long secondKey(ByteBuf data) {
        return data.getLongLE(data.readerIndex() + 8);
    }

    /** CDW10 of Register as a host writes it. */
    static int registerCdw10(Register.Action action, boolean iekey, Register.Cptpl cptpl) {
        int c = switch (cptpl) {
            case NO_CHANGE -> 0;
            case CLEAR -> 2;
            case SET -> 3;
        };
        return action.ordinal() | (iekey ? IEKEY : 0) | c << 30;
    }
}
