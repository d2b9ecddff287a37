package io.blocktarget.config;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One entry of a LUN file's {@code faults:} list (issue 11): which commands, when, and what they get. The server
 * turns it into the block layer's rule; its keys are declared in {@link FaultKeys}.
 *
 * @param id            the rule's name in its LUN
 * @param ops           operation kinds ({@code read}, {@code write}, …); empty = any
 * @param firstLba      first LBA of the range, inclusive (0 when no range)
 * @param lastLba       last LBA, inclusive ({@link Long#MAX_VALUE} when no range)
 * @param scsiOpcodes   SCSI operation codes; empty = any
 * @param nvmeOpcodes   NVMe I/O opcodes; empty = any
 * @param initiator     iSCSI initiator name or NVMe host NQN
 * @param queue         NVMe QID
 * @param portal        the portal (of {@code blocktarget.yaml}) whose sessions and controllers match; empty = any
 * @param trigger       when a matching command is hit
 * @param count         first / every: N; else 0
 * @param probability   probability: p in (0, 1]; else 0
 * @param seed          probability: the generator's seed
 * @param afterNanos    after: how long after the rule is installed
 * @param action        what a hit command gets
 * @param sense         status: explicit SCSI sense
 * @param nvmeStatus    status: explicit NVMe status
 * @param delayNanos    delay: the fixed part
 * @param jitterNanos   delay: the random part's bound
 * @param persistBlocks torn-write: blocks that persist (0 = half)
 * @param iops          throttle: commands per second (0 = no limit)
 * @param bandwidth     throttle: bytes per second (0 = no limit)
 * @param transport     the parameters of partial-transfer and the connection faults ({@link Transport#NONE} else)
 * @param queries       the data placement queries that match ({@link #QUERIES}); empty = any command
 */
public record FaultRuleConfig(String id, List<String> ops, long firstLba, long lastLba, List<Integer> scsiOpcodes,
                              List<Integer> nvmeOpcodes, Optional<String> initiator, OptionalInt queue,
                              Optional<String> portal, Trigger trigger, long count, double probability, long seed,
                              long afterNanos, Action action, Optional<Sense> sense, Optional<NvmeCode> nvmeStatus, long delayNanos,
                              long jitterNanos, long persistBlocks, long iops, long bandwidth,
                              Transport transport, List<String> queries) {

    /**
     * {@code queries:} values (issue 32): the commands with which Linux discovers data placement — NVMe Get Features
     * 1Dh (FDP), Get Log Page 20h (FDP Configurations), I/O Management Receive (RUH Status); SCSI INQUIRY of VPD B7h
     * (Block Limits Extension), MODE SENSE of the IO Advice Hints Grouping page (0Ah / 05h), GET STREAM STATUS.
     */
    public static final List<String> QUERIES = List.of("fdp-feature", "fdp-configurations", "ruh-status",
            "block-limits-extension", "io-advice-hints", "stream-status");

    /** A rule without {@code queries:}. */
    public FaultRuleConfig(String id, List<String> ops, long firstLba, long lastLba, List<Integer> scsiOpcodes,
                           List<Integer> nvmeOpcodes, Optional<String> initiator, OptionalInt queue,
                           Optional<String> portal, Trigger trigger, long count, double probability, long seed,
                           long afterNanos, Action action, Optional<Sense> sense, Optional<NvmeCode> nvmeStatus,
                           long delayNanos, long jitterNanos, long persistBlocks, long iops, long bandwidth,
                           Transport transport) {
        this(id, ops, firstLba, lastLba, scsiOpcodes, nvmeOpcodes, initiator, queue, portal, trigger, count,
                probability, seed, afterNanos, action, sense, nvmeStatus, delayNanos, jitterNanos, persistBlocks, iops,
                bandwidth, transport, List.of());
    }

    /** {@code ops:} values: the block layer's IoKind config names (a target-server test pins that both agree). */
    public static final List<String> OPERATION_KINDS = List.of("read", "write", "flush", "unmap", "write-zeroes",
            "compare", "verify", "copy", "atomic-write", "zone-management", "zone-append", "other");

    /** {@code trigger:} values. */
    public enum Trigger {
        ALWAYS, FIRST, EVERY, PROBABILITY, AFTER, ONCE_PER_LBA;

        public String configName() {
            return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        }
    }

    /** {@code action:} values. */
    public enum Action {
        MEDIUM_ERROR, NOT_READY, BUSY, TASK_SET_FULL, ABORTED, STATUS, NO_RESPONSE, DELAY, THROTTLE, CORRUPT_READ,
        TORN_WRITE, PARTIAL_TRANSFER, DROP_CONNECTION, STALL_CONNECTION, CORRUPT_DIGEST, ASYNC_LOGOUT,
        KEEP_ALIVE_STALL;

        public String configName() {
            return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        }

        /** Applied by the device (they need the data): no initiator, queue or opcode to select on there. */
        public boolean deviceLevel() {
            return this == CORRUPT_READ || this == TORN_WRITE;
        }
    }

    /** {@code scsi-status:} of partial-transfer: what the SCSI command ends with after the short transfer. */
    public enum PartialStatus {
        GOOD, CHECK_CONDITION;

        public String configName() {
            return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        }
    }

    /** {@code stall-direction:} what a stalled connection stops doing. */
    public enum StallDirection {
        BOTH, RECEIVE, SEND;

        public String configName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** {@code digest:} of corrupt-digest. */
    public enum DigestKind {
        HEADER, DATA;

        public String configName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * The keys of partial-transfer and of the connection faults.
     *
     * @param transferBlocks  partial-transfer: blocks that are transferred (0 = half)
     * @param partialStatus   partial-transfer: the SCSI status after it
     * @param stallNanos      stall-connection: how long (0 = until the rule is removed)
     * @param stallDirection  stall-connection: what stops
     * @param digest          corrupt-digest: which digest (null for other actions)
     * @param logoutSeconds   async-logout: Parameter3, the seconds the initiator has to log out
     */
    public record Transport(long transferBlocks, PartialStatus partialStatus, long stallNanos,
                            StallDirection stallDirection, DigestKind digest, int logoutSeconds) {
        public static final Transport NONE = new Transport(0, PartialStatus.GOOD, 0, StallDirection.BOTH, null,
                DEFAULT_LOGOUT_SECONDS);

        public Transport {
            Objects.requireNonNull(partialStatus, "partialStatus");
            Objects.requireNonNull(stallDirection, "stallDirection");
        }
    }

    /** async-logout's default Parameter3 (seconds). */
    public static final int DEFAULT_LOGOUT_SECONDS = 10;

    /** SCSI SENSE KEY / ASC / ASCQ, written {@code 3/11/00} (hex). */
    public record Sense(int key, int asc, int ascq) {
        @Override
        public String toString() {
            return String.format("%x/%02x/%02x", key, asc, ascq);
        }
    }

    /**
     * NVMe Status Code Type / Status Code, written {@code 2/81} (hex): any pair but 0/00 (success), named by
     * blocktarget or not, with the Status Field bits a rule may choose (Base §4.2.3, Figure "Completion Queue Entry:
     * Status Field"): Do Not Retry ({@code nvme-dnr}; empty = the status's usual DNR), Command Retry Delay
     * ({@code nvme-crd}, 0..3, which CRDT of Identify Controller the host waits) and More ({@code nvme-more}).
     */
    public record NvmeCode(int sct, int sc, Optional<Boolean> dnr, int crd, boolean more) {
        public NvmeCode(int sct, int sc) {
            this(sct, sc, Optional.empty(), 0, false);
        }

        public NvmeCode {
            Objects.requireNonNull(dnr, "dnr");
            if ((sct & ~0x7) != 0 || (sc & ~0xFF) != 0 || (sct | sc) == 0 || (crd & ~0x3) != 0) {
                throw new IllegalArgumentException("NVMe status " + sct + "/" + sc + " CRD " + crd);
            }
        }

        /** The SCT/SC pair alone, as {@code nvme-status:} writes it. */
        @Override
        public String toString() {
            return String.format("%x/%02x", sct, sc);
        }
    }

    public FaultRuleConfig {
        Objects.requireNonNull(id, "id");
        ops = List.copyOf(ops);
        scsiOpcodes = List.copyOf(scsiOpcodes);
        nvmeOpcodes = List.copyOf(nvmeOpcodes);
        queries = List.copyOf(queries);
        Objects.requireNonNull(initiator, "initiator");
        Objects.requireNonNull(queue, "queue");
        Objects.requireNonNull(portal, "portal");
        Objects.requireNonNull(trigger, "trigger");
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(sense, "sense");
        Objects.requireNonNull(nvmeStatus, "nvmeStatus");
        Objects.requireNonNull(transport, "transport");
    }

    public boolean hasLbaRange() {
        return firstLba != 0 || lastLba != Long.MAX_VALUE;
    }

    public FaultRuleConfig withId(String value) {
        return new FaultRuleConfig(value, ops, firstLba, lastLba, scsiOpcodes, nvmeOpcodes, initiator, queue, portal,
                trigger, count, probability, seed, afterNanos, action, sense, nvmeStatus, delayNanos, jitterNanos,
                persistBlocks, iops, bandwidth, transport, queries);
    }
}
