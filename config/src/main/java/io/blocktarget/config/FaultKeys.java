package io.blocktarget.config;

import static io.blocktarget.config.Key.keys;

import io.blocktarget.config.FaultRuleConfig.Action;
import io.blocktarget.config.FaultRuleConfig.DigestKind;
import io.blocktarget.config.FaultRuleConfig.PartialStatus;
import io.blocktarget.config.FaultRuleConfig.StallDirection;
import io.blocktarget.config.FaultRuleConfig.Trigger;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The keys of one fault rule — an entry of a LUN file's {@code faults:} list, and the control API's body of
 * {@code POST /v1/luns/NAME/faults} — declared once ({@link Key}). Which key goes with which trigger or action is
 * declared here too ({@code onlyWhen}); the reader checks it and the schema says it.
 */
public final class FaultKeys {
    private FaultKeys() {
    }

    static final Pattern ID_PATTERN = Pattern.compile("[a-z0-9][a-z0-9-]{0,31}");
    static final String ID_ALLOWED = "1 to 32 lower-case letters, digits and -, starting with a letter or digit";
    static final String LBA_ALLOWED = "an LBA or an inclusive range FIRST-LAST, e.g. 1000-1099";
    static final String DURATION_ALLOWED = "a duration: a number with ns, us, ms or s, e.g. 10ms (at most 1 hour)";
    /** The text a duration may have (the reader also takes spaces and upper case). */
    static final String DURATION_TEXT = "^ *[0-9]+(\\.[0-9]*)? *([nNuUmM]?[sS]) *$";
    static final String SENSE_ALLOWED = "KEY/ASC/ASCQ in hex, e.g. 3/11/00 (SENSE KEY 0..f, ASC and ASCQ 00..ff)";
    static final String NVME_ALLOWED = "SCT/SC in hex, SCT 0..7 and SC 00..ff, any pair but 0/00 (success), e.g."
            + " 2/81 (Unrecovered Read Error), 0/82 (Namespace Not Ready), 2/80 (Write Fault), 3/02 (Asymmetric"
            + " Access Inaccessible), 7/ff (vendor specific)";
    static final String CRD_ALLOWED = "0..3: 0 = retry at once, 1..3 = after CRDT1..CRDT3 of Identify Controller";
    static final String THROTTLE_ALLOWED = "bytes per second as a size, e.g. 100MiB or 100MiB/s";
    static final String OPCODE_ALLOWED = "a list of operation codes 0..255, e.g. [0x28, 0x88]";
    static final String PROBABILITY_ALLOWED = "a number in (0, 1], e.g. 0.01";

    static final ValueType<String> ID_TYPE = ValueType.text("an id", ID_ALLOWED, text -> {
        if (!ID_PATTERN.matcher(text).matches()) {
            throw new InvalidValue(text + " is not an id", ID_ALLOWED);
        }
        return text;
    }).withSchema(ValueType.schema("type", "string", "pattern", "^" + ID_PATTERN.pattern() + "$"));
    static final ValueType<String> QUERY_TYPE = ValueType.oneOf("a data placement query", FaultRuleConfig.QUERIES,
            q -> q);
    static final ValueType<String> OP_TYPE = ValueType.oneOf("an operation kind", FaultRuleConfig.OPERATION_KINDS,
            s -> s);
    static final ValueType<long[]> LBA_TYPE = ValueType.text("an LBA range", LBA_ALLOWED, text -> {
        String[] parts = text.strip().split("-", -1);
        if (parts.length > 2) {
            throw new InvalidValue(text + " is not an LBA range", LBA_ALLOWED);
        }
        try {
            long first = Long.parseLong(parts[0].strip());
            long last = parts.length == 2 ? Long.parseLong(parts[1].strip()) : first;
            if (first < 0 || last < first) {
                throw new InvalidValue(text + " is not a range from a smaller to a larger LBA", LBA_ALLOWED);
            }
            return new long[]{first, last};
        } catch (NumberFormatException e) {
            throw new InvalidValue(text + " is not an LBA range", LBA_ALLOWED);
        }
    }).withSchema(ValueType.schema("type", List.of("integer", "string"), "minimum", 0,
            "pattern", "^ *[0-9]+( *- *[0-9]+)? *$"));
    static final ValueType<Integer> OPCODE_TYPE = ValueType.text("an operation code", OPCODE_ALLOWED,
            FaultKeys::opcode).withSchema(ValueType.schema("type", List.of("integer", "string"), "minimum", 0,
            "maximum", 255, "pattern", "^ *(0[xX][0-9a-fA-F]{1,2}|[0-9]{1,3}) *$"));
    static final ValueType<String> INITIATOR_TYPE = ValueType.text("a name",
            "an iSCSI initiator name (iqn.…) or NVMe host NQN (nqn.…)", text -> {
                if (text.isBlank() || text.length() > 223) {
                    throw new InvalidValue(text + " is not an initiator name",
                            "an iSCSI initiator name or NVMe host NQN, 1..223 characters");
                }
                return text;
            }).withSchema(ValueType.schema("type", "string", "minLength", 1, "maxLength", 223));
    static final ValueType<Trigger> TRIGGER_TYPE = ValueType.oneOf("a trigger", List.of(Trigger.values()),
            Trigger::configName);
    static final ValueType<Action> ACTION_TYPE = ValueType.oneOf("an action", List.of(Action.values()),
            Action::configName);
    static final ValueType<PartialStatus> PARTIAL_STATUS_TYPE = ValueType.oneOf("a SCSI status",
            List.of(PartialStatus.values()), PartialStatus::configName);
    static final ValueType<StallDirection> STALL_DIRECTION_TYPE = ValueType.oneOf("a direction",
            List.of(StallDirection.values()), StallDirection::configName);
    static final ValueType<DigestKind> DIGEST_TYPE = ValueType.oneOf("a digest", List.of(DigestKind.values()),
            DigestKind::configName);
    static final ValueType<Long> DURATION_TYPE = ValueType.text("a duration", DURATION_ALLOWED,
            FaultReader::parseDuration).withSchema(ValueType.schema("type", "string", "pattern", DURATION_TEXT));
    static final ValueType<Double> PROBABILITY_TYPE = ValueType.text("a probability", PROBABILITY_ALLOWED, text -> {
        try {
            double p = Double.parseDouble(text);
            if (p > 0 && p <= 1) {
                return p;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new InvalidValue(text + " is not a probability", PROBABILITY_ALLOWED);
    }).withSchema(ValueType.schema("type", List.of("number", "string"), "exclusiveMinimum", 0, "maximum", 1));
    static final ValueType<FaultRuleConfig.Sense> SENSE_TYPE = ValueType.text("sense", SENSE_ALLOWED, text -> {
        String[] p = text.strip().split("/");
        try {
            if (p.length == 3) {
                int key = Integer.parseInt(p[0], 16);
                int asc = Integer.parseInt(p[1], 16);
                int ascq = Integer.parseInt(p[2], 16);
                if (key >= 0 && key <= 15 && asc >= 0 && asc <= 255 && ascq >= 0 && ascq <= 255) {
                    return new FaultRuleConfig.Sense(key, asc, ascq);
                }
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new InvalidValue(text + " is not KEY/ASC/ASCQ", SENSE_ALLOWED);
    }).withSchema(ValueType.schema("type", "string",
            "pattern", "^ *[0-9a-fA-F]{1,2}/[0-9a-fA-F]{1,2}/[0-9a-fA-F]{1,2} *$"));
    static final ValueType<FaultRuleConfig.NvmeCode> NVME_STATUS_TYPE = ValueType.text("an NVMe status", NVME_ALLOWED,
            text -> {
                String[] p = text.strip().split("/");
                try {
                    if (p.length == 2) {
                        int sct = Integer.parseInt(p[0], 16);
                        int sc = Integer.parseInt(p[1], 16);
                        if (sct >= 0 && sct <= 7 && sc >= 0 && sc <= 255 && (sct | sc) != 0) {
                            return new FaultRuleConfig.NvmeCode(sct, sc);
                        }
                        throw new InvalidValue(text + " is out of range or success", NVME_ALLOWED);
                    }
                } catch (NumberFormatException e) {
                    // below
                }
                throw new InvalidValue(text + " is not SCT/SC", NVME_ALLOWED);
            }).withSchema(ValueType.schema("type", "string", "pattern", "^ *0*[0-7]/[0-9a-fA-F]{1,2} *$"));
    static final ValueType<Long> BANDWIDTH_TYPE = ValueType.text("a bandwidth", THROTTLE_ALLOWED, text -> {
        String t = text.strip();
        String size = t.endsWith("/s") ? t.substring(0, t.length() - 2).strip() : t;
        long bytes = Sizes.parse(size);
        if (bytes <= 0) {
            throw new InvalidValue(text + " is not positive", THROTTLE_ALLOWED);
        }
        return bytes;
    }).withSchema(ValueType.schema("type", List.of("integer", "string"), "minimum", 1,
            "pattern", "^ *[0-9]+ ?(B|KiB|MiB|GiB|TiB)? *(/s)? *$"));

    // ---- the keys

    public static final Key<String> ID = Key.value("id", ID_TYPE)
            .defaultText("f1, f2, ... by position (a rule added at runtime: the first free)")
            .doc("the rule's name within the LUN").example("bad-sectors");
    public static final Key<String> OPS = Key.list("ops", OP_TYPE).singleAllowed().defaultText("every command")
            .doc("the operation kinds that match (INQUIRY and Identify included when absent)")
            .example(List.of("read", "write"));
    public static final Key<long[]> LBA = Key.value("lba", LBA_TYPE).defaultText("any")
            .doc("N or FIRST-LAST (inclusive): commands whose blocks overlap it; commands without blocks never match a"
                    + " range")
            .example("1000-1099");
    public static final Key<Integer> SCSI_OPCODES = Key.list("scsi-opcodes", OPCODE_TYPE).singleAllowed()
            .defaultText("any")
            .doc("SCSI operation codes that match; given, NVMe commands do not match").example(List.of("0x28", "0x88"));
    public static final Key<Integer> NVME_OPCODES = Key.list("nvme-opcodes", OPCODE_TYPE).singleAllowed()
            .defaultText("any")
            .doc("NVMe I/O opcodes that match; given, SCSI commands do not match").example(List.of("0x02"));
    public static final Key<String> QUERIES = Key.list("queries", QUERY_TYPE).singleAllowed().defaultText("any")
            .doc("the data placement queries that match (docs/placement.md): fdp-feature (NVMe Get Features 1Dh),"
                    + " fdp-configurations (Get Log Page 20h), ruh-status (I/O Management Receive), block-limits-extension"
                    + " (SCSI INQUIRY VPD B7h), io-advice-hints (MODE SENSE 0Ah / 05h), stream-status (GET STREAM"
                    + " STATUS); given, other commands do not match")
            .example(List.of("fdp-configurations"));
    public static final Key<String> INITIATOR = Key.value("initiator", INITIATOR_TYPE).defaultText("any")
            .doc("the iSCSI initiator name (IQN) or NVMe host NQN that matches")
            .example("iqn.2004-10.com.ubuntu:01:abc");
    public static final Key<Long> QUEUE = Key.value("queue", ValueType.integer(0, 65535, "an NVMe queue ID 0..65535"))
            .defaultText("any").doc("the NVMe QID that matches (iSCSI commands never match)").example(1);
    public static final Key<String> PORTAL = Key.value("portal", Names.PORTAL_NAME_TYPE).defaultText("any")
            .doc("the portal (of blocktarget.yaml's portals:) whose sessions and controllers match: drop-connection,"
                    + " stall-connection or no-response there fail one path while the others serve")
            .example("a");
    public static final Key<Trigger> TRIGGER = Key.value("trigger", TRIGGER_TYPE).defaults(Trigger.ALWAYS, "always")
            .doc("when a matching command is hit: always; first (the first count); every (every count-th);"
                    + " probability; after (from that long after the rule was installed); once-per-lba (each block of"
                    + " lba fails once, then heals)")
            .example("first");
    public static final Key<Long> COUNT = Key.value("count", ValueType.integer(1, Long.MAX_VALUE,
                    "a count of commands, at least 1"))
            .requiredWhen(TRIGGER, "first", "every").onlyWhen(TRIGGER, "first", "every")
            .doc("trigger first / every: N").example(3);
    public static final Key<Double> PROBABILITY = Key.value("probability", PROBABILITY_TYPE)
            .requiredWhen(TRIGGER, "probability").onlyWhen(TRIGGER, "probability")
            .doc("trigger probability: p in (0, 1]").example(0.01);
    public static final Key<Long> SEED = Key.value("seed", ValueType.integer(Long.MIN_VALUE, Long.MAX_VALUE,
                    "an integer"))
            .defaults(0L, "0")
            .doc("trigger probability or action delay: the generator's seed (the same seed gives the same sequence)")
            .example(42);
    public static final Key<Long> AFTER = Key.value("after", DURATION_TYPE)
            .requiredWhen(TRIGGER, "after").onlyWhen(TRIGGER, "after")
            .doc("trigger after: how long after the rule is installed").example("10s");
    public static final Key<Action> ACTION = Key.value("action", ACTION_TYPE).required()
            .doc("what a hit command gets: medium-error, not-ready, busy, task-set-full, aborted, status, no-response,"
                    + " delay, throttle, corrupt-read, torn-write, partial-transfer, drop-connection, stall-connection,"
                    + " corrupt-digest, async-logout, keep-alive-stall")
            .example("medium-error");
    public static final Key<FaultRuleConfig.Sense> SENSE = Key.value("sense", SENSE_TYPE)
            .onlyWhen(ACTION, "status")
            .doc("action status: the SCSI sense KEY/ASC/ASCQ in hex").example("3/11/00");
    public static final Key<FaultRuleConfig.NvmeCode> NVME_STATUS = Key.value("nvme-status", NVME_STATUS_TYPE)
            .onlyWhen(ACTION, "status")
            .doc("action status: the NVMe SCT/SC in hex, any pair but 0/00").example("2/81");
    public static final Key<Boolean> NVME_DNR = Key.value("nvme-dnr", ValueType.BOOLEAN)
            .onlyWhen(ACTION, "status").needs(NVME_STATUS)
            .defaultText("the status's usual DNR")
            .doc("with nvme-status: Do Not Retry").example(true);
    public static final Key<Long> NVME_CRD = Key.value("nvme-crd", ValueType.integer(0, 3, CRD_ALLOWED))
            .onlyWhen(ACTION, "status").needs(NVME_STATUS)
            .defaults(0L, "0").doc("with nvme-status: Command Retry Delay, which CRDT the host waits").example(1);
    public static final Key<Boolean> NVME_MORE = Key.value("nvme-more", ValueType.BOOLEAN)
            .onlyWhen(ACTION, "status").needs(NVME_STATUS)
            .defaults(false, "false").doc("with nvme-status: More (M)").example(true);
    public static final Key<Long> DELAY = Key.value("delay", DURATION_TYPE)
            .requiredWhen(ACTION, "delay").onlyWhen(ACTION, "delay")
            .doc("action delay: the fixed part").example("10ms");
    public static final Key<Long> JITTER = Key.value("jitter", DURATION_TYPE).onlyWhen(ACTION, "delay")
            .defaults(0L, "0").doc("action delay: the random part's bound").example("2ms");
    public static final Key<Long> PERSIST_BLOCKS = Key.value("persist-blocks", ValueType.integer(0, Integer.MAX_VALUE,
                    "blocks of the write that persist, 0 = half of them"))
            .onlyWhen(ACTION, "torn-write").defaults(0L, "0 (half)")
            .doc("action torn-write: blocks of the write that reach the medium (at most all but one)").example(1);
    public static final Key<Long> IOPS = Key.value("iops", ValueType.integer(1, 100_000_000,
                    "commands per second, 1 to 100000000"))
            .onlyWhen(ACTION, "throttle").defaultText("no limit")
            .doc("action throttle: commands per second (a token bucket shared by every session of the LUN)")
            .example(1000);
    public static final Key<Long> BANDWIDTH = Key.value("bandwidth", BANDWIDTH_TYPE).onlyWhen(ACTION, "throttle")
            .defaultText("no limit").doc("action throttle: bytes per second").example("100MiB/s");
    public static final Key<Long> TRANSFER_BLOCKS = Key.value("transfer-blocks", ValueType.integer(0, Integer.MAX_VALUE,
                    "blocks that are transferred, 0 = half of them (at most all but one)"))
            .onlyWhen(ACTION, "partial-transfer").defaults(0L, "0 (half)")
            .doc("action partial-transfer: blocks that are transferred").example(2);
    public static final Key<PartialStatus> SCSI_STATUS = Key.value("scsi-status", PARTIAL_STATUS_TYPE)
            .onlyWhen(ACTION, "partial-transfer").defaults(PartialStatus.GOOD, "good")
            .doc("action partial-transfer: the SCSI status after the short transfer").example("check-condition");
    public static final Key<Long> STALL = Key.value("stall", DURATION_TYPE).onlyWhen(ACTION, "stall-connection")
            .defaults(0L, "until the rule is removed")
            .doc("action stall-connection: how long the connection stops").example("30s");
    public static final Key<StallDirection> STALL_DIRECTION = Key.value("stall-direction", STALL_DIRECTION_TYPE)
            .onlyWhen(ACTION, "stall-connection").defaults(StallDirection.BOTH, "both")
            .doc("action stall-connection: what stops (receive: reading, send: writing)").example("receive");
    public static final Key<DigestKind> DIGEST = Key.value("digest", DIGEST_TYPE)
            .requiredWhen(ACTION, "corrupt-digest").onlyWhen(ACTION, "corrupt-digest")
            .doc("action corrupt-digest: which digest goes out wrong by one bit").example("data");
    public static final Key<Long> LOGOUT_WITHIN = Key.value("logout-within", ValueType.integer(0, 3600,
                    "seconds the initiator has to log out (AsyncEvent 1 Parameter3), 0 to 3600"))
            .onlyWhen(ACTION, "async-logout").defaults((long) FaultRuleConfig.DEFAULT_LOGOUT_SECONDS, "10")
            .doc("action async-logout: seconds the initiator has to log out").example(5);

    /** The keys of one rule, in the order problems list them. */
    static final List<Key<?>> RULE = keys(ID, OPS, LBA, SCSI_OPCODES, NVME_OPCODES, QUERIES, INITIATOR, QUEUE, PORTAL,
            TRIGGER,
            COUNT, PROBABILITY, SEED, AFTER, ACTION, SENSE, NVME_STATUS, NVME_DNR, NVME_CRD, NVME_MORE, DELAY, JITTER,
            PERSIST_BLOCKS, IOPS, BANDWIDTH, TRANSFER_BLOCKS, SCSI_STATUS, STALL, STALL_DIRECTION, DIGEST,
            LOGOUT_WITHIN);

    /** One rule as a section (the API's body of a fault rule). */
    public static final Key<Void> FAULT_RULE = Key.section("", "a fault rule", RULE);

    private static int opcode(String text) throws InvalidValue {
        String t = text.strip().toLowerCase(java.util.Locale.ROOT);
        try {
            int v = t.startsWith("0x") ? Integer.parseInt(t.substring(2), 16) : Integer.parseInt(t);
            if (v >= 0 && v <= 255) {
                return v;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new InvalidValue(text + " is not an operation code", "0..255, decimal or 0x-hex");
    }
}
