package io.blocktarget.block.fault;

import io.blocktarget.block.IoKind;

import java.util.Objects;
import java.util.Set;

/**
 * Which commands a fault rule applies to. Every given criterion must hold; an empty set or {@code null} means any.
 *
 * @param kinds       operation kinds (both protocols); empty = any
 * @param firstLba    first LBA of the range (inclusive); a command matches when its blocks overlap the range
 * @param lastLba     last LBA of the range (inclusive); {@link Long#MAX_VALUE} = to the end
 * @param scsiOpcodes SCSI operation codes; when this or {@code nvmeOpcodes} is given, a command of the protocol
 *                    whose set is empty does not match (an opcode names a command of one protocol only)
 * @param nvmeOpcodes NVMe I/O command opcodes (NVM Command Set §3)
 * @param initiator   the iSCSI initiator name (IQN) or NVMe host NQN; null = any
 * @param queue       NVMe queue ID (QID); -1 = any (SCSI commands match only -1)
 * @param portal      the id of the portal the command came through (issue 29: the iSCSI TPGT / relative target port,
 *                    the NVMe PORTID); 0 = any — a rule with a portal fails one path while the others serve
 * @param queries     data placement queries (issue 32); empty = any command but the NVMe admin ones
 *                    ({@link FaultQuery#admin}), which match only a rule that names them
 */
public record FaultMatch(Set<IoKind> kinds, long firstLba, long lastLba, Set<Integer> scsiOpcodes,
                         Set<Integer> nvmeOpcodes, String initiator, int queue, int portal, Set<FaultQuery> queries) {

    /** Every command. */
    public static final FaultMatch ANY = new FaultMatch(Set.of(), 0, Long.MAX_VALUE, Set.of(), Set.of(), null, -1);

    /** Any portal. */
    public FaultMatch(Set<IoKind> kinds, long firstLba, long lastLba, Set<Integer> scsiOpcodes,
                      Set<Integer> nvmeOpcodes, String initiator, int queue) {
        this(kinds, firstLba, lastLba, scsiOpcodes, nvmeOpcodes, initiator, queue, 0);
    }

    /** A match without {@code queries}. */
    public FaultMatch(Set<IoKind> kinds, long firstLba, long lastLba, Set<Integer> scsiOpcodes,
                      Set<Integer> nvmeOpcodes, String initiator, int queue, int portal) {
        this(kinds, firstLba, lastLba, scsiOpcodes, nvmeOpcodes, initiator, queue, portal, Set.of());
    }

    public FaultMatch {
        kinds = Set.copyOf(Objects.requireNonNull(kinds, "kinds"));
        scsiOpcodes = Set.copyOf(Objects.requireNonNull(scsiOpcodes, "scsiOpcodes"));
        nvmeOpcodes = Set.copyOf(Objects.requireNonNull(nvmeOpcodes, "nvmeOpcodes"));
        queries = Set.copyOf(Objects.requireNonNull(queries, "queries"));
        if (firstLba < 0 || lastLba < firstLba) {
            throw new IllegalArgumentException("LBA range " + firstLba + "-" + lastLba);
        }
        if (portal < 0 || portal > 0xFFFF) {
            throw new IllegalArgumentException("portal id " + portal);
        }
    }

    public FaultMatch withKinds(Set<IoKind> value) {
        return new FaultMatch(value, firstLba, lastLba, scsiOpcodes, nvmeOpcodes, initiator, queue, portal, queries);
    }

    public FaultMatch withLbas(long first, long last) {
        return new FaultMatch(kinds, first, last, scsiOpcodes, nvmeOpcodes, initiator, queue, portal, queries);
    }

    public FaultMatch withInitiator(String value) {
        return new FaultMatch(kinds, firstLba, lastLba, scsiOpcodes, nvmeOpcodes, value, queue, portal, queries);
    }

    public FaultMatch withQueue(int value) {
        return new FaultMatch(kinds, firstLba, lastLba, scsiOpcodes, nvmeOpcodes, initiator, value, portal, queries);
    }

    public FaultMatch withOpcodes(Set<Integer> scsi, Set<Integer> nvme) {
        return new FaultMatch(kinds, firstLba, lastLba, scsi, nvme, initiator, queue, portal, queries);
    }

    public FaultMatch withPortal(int value) {
        return new FaultMatch(kinds, firstLba, lastLba, scsiOpcodes, nvmeOpcodes, initiator, queue, value, queries);
    }

    /** Whether a range is given (else every command matches whatever LBAs it has, or none). */
    public boolean hasLbaRange() {
        return firstLba != 0 || lastLba != Long.MAX_VALUE;
    }

    /** Whether the rule selects by who sent the command (initiator, queue, opcode, portal). */
    public boolean selectsSender() {
        return initiator != null || queue >= 0 || portal > 0 || !scsiOpcodes.isEmpty() || !nvmeOpcodes.isEmpty()
                || !queries.isEmpty();
    }

    boolean matches(FaultCommand c) {
        if (queries.isEmpty() ? c.query() != null && c.query().admin()
                : c.query() == null || !queries.contains(c.query())) {   // Set.copyOf's contains(null) throws
            return false;
        }
        if (!kinds.isEmpty() && !kinds.contains(c.kind())) {
            return false;
        }
        if (!scsiOpcodes.isEmpty() || !nvmeOpcodes.isEmpty()) {
            Set<Integer> opcodes = switch (c.protocol()) {
                case SCSI -> scsiOpcodes;
                case NVME -> nvmeOpcodes;
                case DEVICE -> Set.of();
            };
            if (!opcodes.contains(c.opcode())) {
                return false;
            }
        }
        if (initiator != null && !initiator.equals(c.initiator())) {
            return false;
        }
        if (queue >= 0 && queue != c.queue()) {
            return false;
        }
        if (portal > 0 && portal != c.portal()) {
            return false;
        }
        if (hasLbaRange()) {
            if (c.lba() < 0 || c.blocks() <= 0) {
                return false; // a command without blocks never touches a range
            }
            long last = c.lba() + c.blocks() - 1;
            return c.lba() <= lastLba && last >= firstLba;
        }
        return true;
    }

    /** First LBA of the command inside the range (the SCSI INFORMATION field, the NVMe error log's LBA). */
    long firstHit(FaultCommand c) {
        return c.lba() < 0 ? 0 : Math.max(c.lba(), firstLba);
    }

    /** Last LBA of the command inside the range. */
    long lastHit(FaultCommand c) {
        return c.lba() < 0 ? 0 : Math.min(c.lba() + Math.max(c.blocks(), 1) - 1, lastLba);
    }
}
