package io.blocktarget.config;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.regex.Pattern;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;

/**
 * The {@code faults:} list of a LUN file, and one rule given alone (the control API's body). Each entry is a flat map;
 * every problem names its key ({@code faults[2].lba}) and says what is allowed.
 */
final class FaultReader {
    static final List<String> KEYS = List.of("id", "ops", "lba", "scsi-opcodes", "nvme-opcodes", "initiator", "queue",
            "trigger", "count", "probability", "seed", "after", "action", "sense", "nvme-status", "nvme-dnr",
            "nvme-crd", "nvme-more", "delay", "jitter",
            "persist-blocks", "iops", "bandwidth", "transfer-blocks", "scsi-status", "stall", "stall-direction",
            "digest", "logout-within");
    static final List<String> OPS = FaultRuleConfig.OPERATION_KINDS;
    static final Pattern ID = Pattern.compile("[a-z0-9][a-z0-9-]{0,31}");
    static final String ID_ALLOWED = "1 to 32 lower-case letters, digits and -, starting with a letter or digit";
    static final String LBA_ALLOWED = "an LBA or an inclusive range FIRST-LAST, e.g. 1000-1099";
    static final String DURATION_ALLOWED = "a duration: a number with ns, us, ms or s, e.g. 10ms (at most 1 hour)";
    static final String SENSE_ALLOWED = "KEY/ASC/ASCQ in hex, e.g. 3/11/00 (SENSE KEY 0..f, ASC and ASCQ 00..ff)";
    static final String NVME_ALLOWED = "SCT/SC in hex, SCT 0..7 and SC 00..ff, any pair but 0/00 (success), e.g."
            + " 2/81 (Unrecovered Read Error), 0/82 (Namespace Not Ready), 2/80 (Write Fault), 3/02 (Asymmetric"
            + " Access Inaccessible), 7/ff (vendor specific)";
    static final String CRD_ALLOWED = "0..3: 0 = retry at once, 1..3 = after CRDT1..CRDT3 of Identify Controller";
    static final String THROTTLE_ALLOWED = "bytes per second as a size, e.g. 100MiB or 100MiB/s";
    private static final long MAX_DURATION = 3_600_000_000_000L;

    private static final ValueType<String> IDV = ValueType.text("an id", ID_ALLOWED, text -> {
        if (!ID.matcher(text).matches()) {
            throw new InvalidValue(text + " is not an id", ID_ALLOWED);
        }
        return text;
    });
    private static final ValueType<FaultRuleConfig.Trigger> TRIGGER = enumType("a trigger",
            FaultRuleConfig.Trigger.values(), FaultRuleConfig.Trigger::configName);
    private static final ValueType<FaultRuleConfig.Action> ACTION = enumType("an action",
            FaultRuleConfig.Action.values(), FaultRuleConfig.Action::configName);
    private static final ValueType<FaultRuleConfig.PartialStatus> PARTIAL_STATUS = enumType("a SCSI status",
            FaultRuleConfig.PartialStatus.values(), FaultRuleConfig.PartialStatus::configName);
    private static final ValueType<FaultRuleConfig.StallDirection> STALL_DIRECTION = enumType("a direction",
            FaultRuleConfig.StallDirection.values(), FaultRuleConfig.StallDirection::configName);
    private static final ValueType<FaultRuleConfig.DigestKind> DIGEST = enumType("a digest",
            FaultRuleConfig.DigestKind.values(), FaultRuleConfig.DigestKind::configName);
    private static final ValueType<long[]> LBA = ValueType.text("an LBA range", LBA_ALLOWED, text -> {
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
    });
    private static final ValueType<Long> DURATION = ValueType.text("a duration", DURATION_ALLOWED,
            FaultReader::parseDuration);
    private static final ValueType<FaultRuleConfig.Sense> SENSE = ValueType.text("sense", SENSE_ALLOWED, text -> {
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
    });
    private static final ValueType<FaultRuleConfig.NvmeCode> NVME = ValueType.text("an NVMe status", NVME_ALLOWED,
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
            });

    private FaultReader() {
    }

    /** {@code faults:} of a LUN file's map; empty list when absent or wrong (then with problems). */
    static List<FaultRuleConfig> read(YamlMap lun, Problems problems) {
        Optional<Node> node = lun.node("faults");
        if (node.isEmpty()) {
            return List.of();
        }
        if (!(node.get() instanceof SequenceNode list)) {
            lun.problem("faults", YamlMap.describe(node.get()) + " is not a list; allowed: a list of fault rules,"
                    + " each a map with the keys " + String.join(", ", KEYS));
            return List.of();
        }
        List<FaultRuleConfig> rules = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < list.getValue().size(); i++) {
            Node entry = list.getValue().get(i);
            Optional<FaultRuleConfig> rule = rule(entry, "faults[" + i + "]", "f" + (i + 1), problems);
            if (rule.isPresent() && !ids.add(rule.get().id())) {
                problems.add(YamlSource.line(entry), "faults[" + i + "].id", rule.get().id()
                        + " is the id of an earlier rule; allowed: each id once per LUN");
            } else {
                rule.ifPresent(rules::add);
            }
        }
        return List.copyOf(rules);
    }

    /**
     * One rule as a map at {@code path} ("" for a document of its own); {@code defaultId} when it has no id.
     */
    static Optional<FaultRuleConfig> rule(Node node, String path, String defaultId, Problems problems) {
        int before = problems.count();
        Optional<YamlMap> parsed = YamlMap.of(node, path, KEYS, "a fault rule", problems);
        if (parsed.isEmpty()) {
            return Optional.empty();
        }
        YamlMap m = parsed.get();
        String id = m.value("id", IDV, defaultId).orElse(defaultId);
        List<String> ops = list(m, "ops", "an operation kind", String.join(", ", OPS), text -> {
            if (!OPS.contains(text)) {
                throw new InvalidValue(text + " is not an operation kind", String.join(", ", OPS));
            }
            return text;
        }, problems);
        long[] lba = m.value("lba", LBA, new long[]{0, Long.MAX_VALUE}).orElse(new long[]{0, Long.MAX_VALUE});
        String opcodeAllowed = "a list of operation codes 0..255, e.g. [0x28, 0x88]";
        List<Integer> scsi = list(m, "scsi-opcodes", "an operation code", opcodeAllowed, FaultReader::opcode, problems);
        List<Integer> nvme = list(m, "nvme-opcodes", "an operation code", opcodeAllowed, FaultReader::opcode, problems);
        Optional<String> initiator = m.value("initiator", ValueType.text("a name",
                "an iSCSI initiator name (iqn.…) or NVMe host NQN (nqn.…)", text -> {
                    if (text.isBlank() || text.length() > 223) {
                        throw new InvalidValue(text + " is not an initiator name",
                                "an iSCSI initiator name or NVMe host NQN, 1..223 characters");
                    }
                    return text;
                }));
        OptionalInt queue = m.value("queue", ValueType.integer(0, 65535, "an NVMe queue ID 0..65535"))
                .map(q -> OptionalInt.of(q.intValue())).orElse(OptionalInt.empty());
        FaultRuleConfig.Trigger trigger = m.value("trigger", TRIGGER, FaultRuleConfig.Trigger.ALWAYS)
                .orElse(FaultRuleConfig.Trigger.ALWAYS);
        long count = 0;
        double probability = 0;
        long seed = 0;
        long after = 0;
        boolean counting = trigger == FaultRuleConfig.Trigger.FIRST || trigger == FaultRuleConfig.Trigger.EVERY;
        if (counting) {
            count = required(m, node, problems, "count", ValueType.integer(1, Long.MAX_VALUE, "a count of commands, at least 1"))
                    .orElse(1L);
        } else {
            only(m, "count", "trigger: first or every", trigger);
        }
        if (trigger == FaultRuleConfig.Trigger.PROBABILITY) {
            probability = required(m, node, problems, "probability", ValueType.text("a probability", "a number in (0, 1], e.g. 0.01",
                    text -> {
                        try {
                            double p = Double.parseDouble(text);
                            if (p > 0 && p <= 1) {
                                return p;
                            }
                        } catch (NumberFormatException e) {
                            // below
                        }
                        throw new InvalidValue(text + " is not a probability", "a number in (0, 1], e.g. 0.01");
                    })).orElse(1.0);
            seed = m.value("seed", ValueType.integer(Long.MIN_VALUE, Long.MAX_VALUE, "an integer"), 0L).orElse(0L);
        } else {
            only(m, "probability", "trigger: probability", trigger);
        }
        if (trigger == FaultRuleConfig.Trigger.AFTER) {
            after = required(m, node, problems, "after", DURATION).orElse(0L);
        } else {
            only(m, "after", "trigger: after", trigger);
        }
        if (trigger == FaultRuleConfig.Trigger.ONCE_PER_LBA && !m.has("lba") && problems.count() == before) {
            m.problem("trigger", "once-per-lba needs an lba range; allowed: lba: " + LBA_ALLOWED);
        }
        Optional<FaultRuleConfig.Action> actionValue = required(m, node, problems, "action", ACTION);
        FaultRuleConfig.Action action = actionValue.orElse(FaultRuleConfig.Action.MEDIUM_ERROR);
        if (trigger != FaultRuleConfig.Trigger.PROBABILITY) {
            if (action == FaultRuleConfig.Action.DELAY) {
                // the jitter's generator: the same seed gives the same delays
                seed = m.value("seed", ValueType.integer(Long.MIN_VALUE, Long.MAX_VALUE, "an integer"), 0L).orElse(0L);
            } else if (m.has("seed")) {
                m.problem("seed", "only with trigger: probability or action: delay; this rule has trigger: "
                        + trigger.configName());
            }
        }
        Optional<FaultRuleConfig.Sense> sense = Optional.empty();
        Optional<FaultRuleConfig.NvmeCode> nvmeStatus = Optional.empty();
        long delay = 0;
        long jitter = 0;
        long persist = 0;
        if (action == FaultRuleConfig.Action.STATUS) {
            sense = m.value("sense", SENSE);
            nvmeStatus = m.value("nvme-status", NVME);
            if (!m.has("sense") && !m.has("nvme-status")) {
                m.problem("action", "status needs sense, nvme-status or both; allowed: sense: " + SENSE_ALLOWED
                        + "; nvme-status: " + NVME_ALLOWED);
            }
            nvmeStatus = statusField(m, nvmeStatus);
        } else {
            for (String key : List.of("sense", "nvme-status", "nvme-dnr", "nvme-crd", "nvme-more")) {
                only(m, key, "action: status", action);
            }
        }
        if (action == FaultRuleConfig.Action.DELAY) {
            delay = required(m, node, problems, "delay", DURATION).orElse(0L);
            jitter = m.value("jitter", DURATION, 0L).orElse(0L);
        } else {
            only(m, "delay", "action: delay", action);
            only(m, "jitter", "action: delay", action);
        }
        long iops = 0;
        long bandwidth = 0;
        if (action == FaultRuleConfig.Action.THROTTLE) {
            iops = m.value("iops", ValueType.integer(1, 100_000_000, "commands per second, 1 to 100000000"), 0L)
                    .orElse(0L);
            bandwidth = m.value("bandwidth", ValueType.text("a bandwidth", THROTTLE_ALLOWED, text -> {
                String t = text.strip();
                String size = t.endsWith("/s") ? t.substring(0, t.length() - 2).strip() : t;
                long bytes = Sizes.parse(size);
                if (bytes <= 0) {
                    throw new InvalidValue(text + " is not positive", THROTTLE_ALLOWED);
                }
                return bytes;
            }), 0L).orElse(0L);
            if (!m.has("iops") && !m.has("bandwidth")) {
                m.problem("action", "throttle needs iops, bandwidth or both; allowed: iops: a number per second;"
                        + " bandwidth: " + THROTTLE_ALLOWED);
            }
        } else {
            only(m, "iops", "action: throttle", action);
            only(m, "bandwidth", "action: throttle", action);
        }
        if (action == FaultRuleConfig.Action.TORN_WRITE) {
            persist = m.value("persist-blocks", ValueType.integer(0, Integer.MAX_VALUE,
                    "blocks of the write that persist, 0 = half of them"), 0L).orElse(0L);
        } else {
            only(m, "persist-blocks", "action: torn-write", action);
        }
        FaultRuleConfig.Transport transport = transport(m, node, problems, action, ops);
        if (actionValue.isPresent() && action.deviceLevel()) {
            // the device sees blocks, not who sent them
            for (String key : List.of("initiator", "queue", "scsi-opcodes", "nvme-opcodes")) {
                if (m.has(key)) {
                    m.problem(key, "not with action: " + action.configName() + " (applied by the device, which"
                            + " does not know the sender); allowed: ops, lba and a trigger");
                }
            }
            String op = action == FaultRuleConfig.Action.CORRUPT_READ ? "read" : "write";
            if (!ops.isEmpty() && !ops.equals(List.of(op))) {
                m.problem("ops", "action: " + action.configName() + " applies to " + op + "s only; allowed: [" + op
                        + "] or no ops");
            }
        }
        if (problems.count() > before) {
            return Optional.empty();
        }
        return Optional.of(new FaultRuleConfig(id, ops, lba[0], lba[1], scsi, nvme, initiator, queue, trigger, count,
                probability, seed, after, action, sense, nvmeStatus, delay, jitter, persist, iops, bandwidth,
                transport));
    }

    /**
     * {@code nvme-dnr}, {@code nvme-crd} and {@code nvme-more}: the Status Field bits beside SCT/SC (Base §4.2.3),
     * only with an {@code nvme-status} they qualify.
     */
    private static Optional<FaultRuleConfig.NvmeCode> statusField(YamlMap m, Optional<FaultRuleConfig.NvmeCode> code) {
        if (!m.has("nvme-status")) {
            for (String key : List.of("nvme-dnr", "nvme-crd", "nvme-more")) {
                if (m.has(key)) {
                    m.problem(key, "only with nvme-status (the NVMe status it qualifies); this rule has none;"
                            + " allowed: nvme-status: " + NVME_ALLOWED);
                }
            }
            return code;
        }
        Optional<Boolean> dnr = m.value("nvme-dnr", ValueType.BOOLEAN);
        int crd = m.value("nvme-crd", ValueType.integer(0, 3, CRD_ALLOWED), 0L).orElse(0L).intValue();
        boolean more = m.value("nvme-more", ValueType.BOOLEAN, false).orElse(false);
        return code.map(c -> new FaultRuleConfig.NvmeCode(c.sct(), c.sc(), dnr, crd, more));
    }

    /** The keys of partial-transfer and the connection faults; each only with its action. */
    private static FaultRuleConfig.Transport transport(YamlMap m, Node node, Problems problems,
                                                       FaultRuleConfig.Action action, List<String> ops) {
        FaultRuleConfig.Transport none = FaultRuleConfig.Transport.NONE;
        long transferBlocks = 0;
        FaultRuleConfig.PartialStatus partialStatus = none.partialStatus();
        if (action == FaultRuleConfig.Action.PARTIAL_TRANSFER) {
            transferBlocks = m.value("transfer-blocks", ValueType.integer(0, Integer.MAX_VALUE,
                    "blocks that are transferred, 0 = half of them (at most all but one)"), 0L).orElse(0L);
            partialStatus = m.value("scsi-status", PARTIAL_STATUS, partialStatus).orElse(partialStatus);
            for (String op : ops) {
                if (!op.equals("read") && !op.equals("write")) {
                    m.problem("ops", "action: partial-transfer applies to reads and writes only; allowed: [read],"
                            + " [write], [read, write] or no ops");
                    break;
                }
            }
        } else {
            only(m, "transfer-blocks", "action: partial-transfer", action);
            only(m, "scsi-status", "action: partial-transfer", action);
        }
        long stall = 0;
        FaultRuleConfig.StallDirection direction = none.stallDirection();
        if (action == FaultRuleConfig.Action.STALL_CONNECTION) {
            stall = m.value("stall", DURATION, 0L).orElse(0L);
            direction = m.value("stall-direction", STALL_DIRECTION, direction).orElse(direction);
        } else {
            only(m, "stall", "action: stall-connection", action);
            only(m, "stall-direction", "action: stall-connection", action);
        }
        FaultRuleConfig.DigestKind digest = null;
        if (action == FaultRuleConfig.Action.CORRUPT_DIGEST) {
            digest = required(m, node, problems, "digest", DIGEST).orElse(FaultRuleConfig.DigestKind.HEADER);
        } else {
            only(m, "digest", "action: corrupt-digest", action);
        }
        int logout = none.logoutSeconds();
        if (action == FaultRuleConfig.Action.ASYNC_LOGOUT) {
            logout = m.value("logout-within", ValueType.integer(0, 3600,
                    "seconds the initiator has to log out (AsyncEvent 1 Parameter3), 0 to 3600"),
                    (long) logout).orElse((long) logout).intValue();
        } else {
            only(m, "logout-within", "action: async-logout", action);
        }
        if (action == FaultRuleConfig.Action.KEEP_ALIVE_STALL) {
            // Keep Alive commands have no blocks, no namespace queue and one opcode: only the host selects them
            for (String key : List.of("ops", "lba", "queue", "scsi-opcodes", "nvme-opcodes")) {
                if (m.has(key)) {
                    m.problem(key, "not with action: keep-alive-stall (it matches NVMe Keep Alive commands only);"
                            + " allowed: initiator and a trigger");
                }
            }
        }
        return new FaultRuleConfig.Transport(transferBlocks, partialStatus, stall, direction, digest, logout);
    }

    /** Like {@link YamlMap#required}, but a missing key is reported at the rule's own line. */
    private static <T> Optional<T> required(YamlMap m, Node rule, Problems problems, String key, ValueType<T> type) {
        if (!m.has(key)) {
            problems.add(YamlSource.line(rule), m.keyPath(key), "missing; allowed: " + type.allowed());
            return Optional.empty();
        }
        return m.value(key, type);
    }

    private static void only(YamlMap m, String key, String with, Object actual) {
        if (m.has(key)) {
            String shown = actual instanceof FaultRuleConfig.Trigger t ? "trigger: " + t.configName()
                    : "action: " + ((FaultRuleConfig.Action) actual).configName();
            m.problem(key, "only with " + with + "; this rule has " + shown);
        }
    }

    private static int opcode(String text) throws InvalidValue {
        String t = text.strip().toLowerCase(Locale.ROOT);
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

    private static <T> List<T> list(YamlMap m, String key, String noun, String allowed, ValueType.TextParser<T> parser,
                                    Problems problems) {
        Optional<Node> node = m.node(key);
        if (node.isEmpty()) {
            return List.of();
        }
        List<Node> items;
        if (node.get() instanceof SequenceNode seq) {
            items = seq.getValue();
        } else if (node.get() instanceof ScalarNode && !YamlSource.isEmpty(node.get())) {
            items = List.of(node.get()); // one value without brackets: ops: read
        } else {
            m.problem(key, YamlMap.describe(node.get()) + " is not a list; allowed: " + allowed);
            return List.of();
        }
        if (items.isEmpty()) {
            m.problem(key, "an empty list; allowed: " + allowed + ", or leave " + key + " out for any");
            return List.of();
        }
        List<T> out = new ArrayList<>();
        for (Node item : items) {
            if (!(item instanceof ScalarNode scalar) || YamlSource.isEmpty(item)) {
                problems.add(YamlSource.line(item), m.keyPath(key), YamlMap.describe(item) + " is not " + noun
                        + "; allowed: " + allowed);
                continue;
            }
            try {
                T v = parser.parse(scalar.getValue());
                if (!out.contains(v)) {
                    out.add(v);
                }
            } catch (InvalidValue e) {
                problems.add(YamlSource.line(item), m.keyPath(key), e);
            }
        }
        return out;
    }

    private static <E> ValueType<E> enumType(String noun, E[] values, java.util.function.Function<E, String> name) {
        List<String> names = java.util.Arrays.stream(values).map(name).toList();
        String allowed = String.join(", ", names);
        return ValueType.text(noun, allowed, text -> {
            for (E v : values) {
                if (name.apply(v).equals(text)) {
                    return v;
                }
            }
            throw new InvalidValue(text + " is not " + noun, allowed);
        });
    }

    /** {@code 10ms}, {@code 1.5s}, {@code 200us}, {@code 500ns} to nanoseconds. */
    static long parseDuration(String text) throws InvalidValue {
        String t = text.strip().toLowerCase(Locale.ROOT).replace(" ", "");
        long unit;
        String number;
        if (t.endsWith("ns")) {
            unit = 1;
            number = t.substring(0, t.length() - 2);
        } else if (t.endsWith("us")) {
            unit = 1_000;
            number = t.substring(0, t.length() - 2);
        } else if (t.endsWith("ms")) {
            unit = 1_000_000;
            number = t.substring(0, t.length() - 2);
        } else if (t.endsWith("s")) {
            unit = 1_000_000_000;
            number = t.substring(0, t.length() - 1);
        } else {
            throw new InvalidValue(text + " has no unit", DURATION_ALLOWED);
        }
        try {
            java.math.BigDecimal nanos = new java.math.BigDecimal(number).multiply(java.math.BigDecimal.valueOf(unit));
            if (nanos.signum() < 0 || nanos.compareTo(java.math.BigDecimal.valueOf(MAX_DURATION)) > 0
                    || nanos.stripTrailingZeros().scale() > 0) {
                throw new InvalidValue(text + " is out of range", DURATION_ALLOWED);
            }
            return nanos.longValueExact();
        } catch (NumberFormatException | ArithmeticException e) {
            throw new InvalidValue(text + " is not a duration", DURATION_ALLOWED);
        }
    }

    /** The shortest exact text of a duration: {@code 10ms}, {@code 1500us}. */
    static String formatDuration(long nanos) {
        if (nanos != 0 && nanos % 1_000_000_000 == 0) {
            return nanos / 1_000_000_000 + "s";
        }
        if (nanos != 0 && nanos % 1_000_000 == 0) {
            return nanos / 1_000_000 + "ms";
        }
        if (nanos != 0 && nanos % 1_000 == 0) {
            return nanos / 1_000 + "us";
        }
        return nanos + "ns";
    }
}
