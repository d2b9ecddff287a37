package io.blocktarget.config;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;

/**
 * The {@code faults:} list of a LUN file, and one rule given alone (the control API's body). Each entry is a flat map;
 * every problem names its key ({@code faults[2].lba}) and says what is allowed.
 */
final class FaultReader {
    static final String DURATION_ALLOWED = FaultKeys.DURATION_ALLOWED;
    private static final long MAX_DURATION = 3_600_000_000_000L;

    private FaultReader() {
    }

    /**
     * {@code faults:} of a LUN file's map; empty list when absent or wrong (then with problems).
     *
     * @param portals the server's portal names: a rule's {@code portal:} must be one
     */
    static List<FaultRuleConfig> read(YamlMap lun, List<String> portals, Problems problems) {
        Optional<Node> node = lun.node(LunKeys.FAULTS);
        if (node.isEmpty()) {
            return List.of();
        }
        String faults = LunKeys.FAULTS.name();
        if (!(node.get() instanceof SequenceNode list)) {
            lun.problem(LunKeys.FAULTS, YamlMap.describe(node.get()) + " is not a list; allowed: a list of fault rules,"
                    + " each a map with the keys " + String.join(", ", FaultKeys.FAULT_RULE.names()));
            return List.of();
        }
        List<FaultRuleConfig> rules = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < list.getValue().size(); i++) {
            Node entry = list.getValue().get(i);
            Optional<FaultRuleConfig> rule = rule(entry, faults + "[" + i + "]", "f" + (i + 1), problems);
            if (rule.isPresent() && rule.get().portal().isPresent() && !portals.contains(rule.get().portal().get())) {
                String portal = rule.get().portal().get();
                problems.add(YamlSource.line(entry), faults + "[" + i + "]." + FaultKeys.PORTAL.name(), portal
                        + " is not a portal of blocktarget.yaml" + KeyPaths.hint(portal, portals)
                        .map(h -> "; did you mean `" + h + "`?").orElse(";") + " allowed: "
                        + String.join(", ", portals));
                continue;
            }
            if (rule.isPresent() && !ids.add(rule.get().id())) {
                problems.add(YamlSource.line(entry), faults + "[" + i + "]." + FaultKeys.ID.name(), rule.get().id()
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
        Optional<YamlMap> parsed = YamlMap.of(node, path, FaultKeys.FAULT_RULE, problems);
        if (parsed.isEmpty()) {
            return Optional.empty();
        }
        YamlMap m = parsed.get();
        String id = m.value(FaultKeys.ID, FaultKeys.ID.type(), defaultId).orElse(defaultId);
        List<String> ops = list(m, FaultKeys.OPS, problems);
        long[] lba = m.value(FaultKeys.LBA, FaultKeys.LBA.type(), new long[]{0, Long.MAX_VALUE})
                .orElse(new long[]{0, Long.MAX_VALUE});
        List<Integer> scsi = list(m, FaultKeys.SCSI_OPCODES, problems);
        List<Integer> nvme = list(m, FaultKeys.NVME_OPCODES, problems);
        List<String> queries = list(m, FaultKeys.QUERIES, problems);
        Optional<String> initiator = m.value(FaultKeys.INITIATOR);
        OptionalInt queue = m.value(FaultKeys.QUEUE).map(q -> OptionalInt.of(q.intValue())).orElse(OptionalInt.empty());
        Optional<String> portal = m.value(FaultKeys.PORTAL);
        FaultRuleConfig.Trigger trigger = m.value(FaultKeys.TRIGGER).orElse(FaultRuleConfig.Trigger.ALWAYS);
        long count = 0;
        double probability = 0;
        long seed = 0;
        long after = 0;
        if (trigger == FaultRuleConfig.Trigger.FIRST || trigger == FaultRuleConfig.Trigger.EVERY) {
            count = required(m, node, problems, FaultKeys.COUNT).orElse(1L);
        }
        if (trigger == FaultRuleConfig.Trigger.PROBABILITY) {
            probability = required(m, node, problems, FaultKeys.PROBABILITY).orElse(1.0);
            seed = m.value(FaultKeys.SEED).orElse(0L);
        }
        if (trigger == FaultRuleConfig.Trigger.AFTER) {
            after = required(m, node, problems, FaultKeys.AFTER).orElse(0L);
        }
        if (trigger == FaultRuleConfig.Trigger.ONCE_PER_LBA && !m.has(FaultKeys.LBA) && problems.count() == before) {
            m.problem(FaultKeys.TRIGGER, "once-per-lba needs an " + FaultKeys.LBA.name() + " range; allowed: "
                    + FaultKeys.LBA.name() + ": " + FaultKeys.LBA_ALLOWED);
        }
        Optional<FaultRuleConfig.Action> actionValue = required(m, node, problems, FaultKeys.ACTION);
        FaultRuleConfig.Action action = actionValue.orElse(FaultRuleConfig.Action.MEDIUM_ERROR);
        onlyWhen(m, trigger.configName(), action.configName());
        if (trigger != FaultRuleConfig.Trigger.PROBABILITY) {
            if (action == FaultRuleConfig.Action.DELAY) {
                // the jitter's generator: the same seed gives the same delays
                seed = m.value(FaultKeys.SEED).orElse(0L);
            } else if (m.has(FaultKeys.SEED)) {
                m.problem(FaultKeys.SEED, "only with " + FaultKeys.TRIGGER.name() + ": probability or "
                        + FaultKeys.ACTION.name() + ": delay; this rule has " + FaultKeys.TRIGGER.name() + ": "
                        + trigger.configName());
            }
        }
        Optional<FaultRuleConfig.Sense> sense = Optional.empty();
        Optional<FaultRuleConfig.NvmeCode> nvmeStatus = Optional.empty();
        long delay = 0;
        long jitter = 0;
        long persist = 0;
        if (action == FaultRuleConfig.Action.STATUS) {
            sense = m.value(FaultKeys.SENSE);
            nvmeStatus = m.value(FaultKeys.NVME_STATUS);
            if (!m.has(FaultKeys.SENSE) && !m.has(FaultKeys.NVME_STATUS)) {
                m.problem(FaultKeys.ACTION, "status needs " + FaultKeys.SENSE.name() + ", " + FaultKeys.NVME_STATUS.name()
                        + " or both; allowed: " + FaultKeys.SENSE.name() + ": " + FaultKeys.SENSE_ALLOWED + "; "
                        + FaultKeys.NVME_STATUS.name() + ": " + FaultKeys.NVME_ALLOWED);
            }
            nvmeStatus = statusField(m, nvmeStatus);
        }
        if (action == FaultRuleConfig.Action.DELAY) {
            delay = required(m, node, problems, FaultKeys.DELAY).orElse(0L);
            jitter = m.value(FaultKeys.JITTER).orElse(0L);
        }
        long iops = 0;
        long bandwidth = 0;
        if (action == FaultRuleConfig.Action.THROTTLE) {
            iops = m.value(FaultKeys.IOPS, FaultKeys.IOPS.type(), 0L).orElse(0L);
            bandwidth = m.value(FaultKeys.BANDWIDTH, FaultKeys.BANDWIDTH.type(), 0L).orElse(0L);
            if (!m.has(FaultKeys.IOPS) && !m.has(FaultKeys.BANDWIDTH)) {
                m.problem(FaultKeys.ACTION, "throttle needs " + FaultKeys.IOPS.name() + ", "
                        + FaultKeys.BANDWIDTH.name() + " or both; allowed: " + FaultKeys.IOPS.name()
                        + ": a number per second; " + FaultKeys.BANDWIDTH.name() + ": " + FaultKeys.THROTTLE_ALLOWED);
            }
        }
        if (action == FaultRuleConfig.Action.TORN_WRITE) {
            persist = m.value(FaultKeys.PERSIST_BLOCKS).orElse(0L);
        }
        FaultRuleConfig.Transport transport = transport(m, node, problems, action, ops);
        if (actionValue.isPresent() && action.deviceLevel()) {
            // the device sees blocks, not who sent them
            for (Key<?> key : List.of(FaultKeys.INITIATOR, FaultKeys.QUEUE, FaultKeys.PORTAL, FaultKeys.SCSI_OPCODES,
                    FaultKeys.NVME_OPCODES, FaultKeys.QUERIES)) {
                if (m.has(key)) {
                    m.problem(key, "not with " + FaultKeys.ACTION.name() + ": " + action.configName() + " (applied by"
                            + " the device, which does not know the sender); allowed: " + FaultKeys.OPS.name() + ", "
                            + FaultKeys.LBA.name() + " and a trigger");
                }
            }
            String op = action == FaultRuleConfig.Action.CORRUPT_READ ? "read" : "write";
            if (!ops.isEmpty() && !ops.equals(List.of(op))) {
                m.problem(FaultKeys.OPS, FaultKeys.ACTION.name() + ": " + action.configName() + " applies to " + op
                        + "s only; allowed: [" + op + "] or no " + FaultKeys.OPS.name());
            }
        }
        if (problems.count() > before) {
            return Optional.empty();
        }
        return Optional.of(new FaultRuleConfig(id, ops, lba[0], lba[1], scsi, nvme, initiator, queue, portal, trigger,
                count, probability, seed, after, action, sense, nvmeStatus, delay, jitter, persist, iops, bandwidth,
                transport, queries));
    }

    /**
     * The keys declared {@code onlyWhen} a trigger or an action ({@link FaultKeys}): given with another, each is a
     * problem ("only with action: delay; this rule has action: busy").
     */
    private static void onlyWhen(YamlMap m, String trigger, String action) {
        for (Key<?> key : FaultKeys.RULE) {
            for (Key.Condition c : key.conditions()) {
                if (c.kind() != Key.Condition.Kind.ONLY_WHEN || !m.has(key)) {
                    continue;
                }
                String actual = c.sibling().equals(FaultKeys.TRIGGER.name()) ? trigger : action;
                if (!c.values().contains(actual)) {
                    m.problem(key, "only with " + c.describe() + "; this rule has " + c.sibling() + ": " + actual);
                    break;
                }
            }
        }
    }

    /**
     * {@code nvme-dnr}, {@code nvme-crd} and {@code nvme-more}: the Status Field bits beside SCT/SC (Base §4.2.3),
     * only with an {@code nvme-status} they qualify.
     */
    private static Optional<FaultRuleConfig.NvmeCode> statusField(YamlMap m, Optional<FaultRuleConfig.NvmeCode> code) {
        if (!m.has(FaultKeys.NVME_STATUS)) {
            for (Key<?> key : List.of(FaultKeys.NVME_DNR, FaultKeys.NVME_CRD, FaultKeys.NVME_MORE)) {
                if (m.has(key)) {
                    m.problem(key, "only with " + FaultKeys.NVME_STATUS.name() + " (the NVMe status it qualifies);"
                            + " this rule has none; allowed: " + FaultKeys.NVME_STATUS.name() + ": "
                            + FaultKeys.NVME_ALLOWED);
                }
            }
            return code;
        }
        Optional<Boolean> dnr = m.value(FaultKeys.NVME_DNR);
        int crd = m.value(FaultKeys.NVME_CRD).orElse(0L).intValue();
        boolean more = m.value(FaultKeys.NVME_MORE).orElse(false);
        return code.map(c -> new FaultRuleConfig.NvmeCode(c.sct(), c.sc(), dnr, crd, more));
    }

    /** The keys of partial-transfer and the connection faults; each only with its action. */
    private static FaultRuleConfig.Transport transport(YamlMap m, Node node, Problems problems,
                                                       FaultRuleConfig.Action action, List<String> ops) {
        FaultRuleConfig.Transport none = FaultRuleConfig.Transport.NONE;
        long transferBlocks = 0;
        FaultRuleConfig.PartialStatus partialStatus = none.partialStatus();
        if (action == FaultRuleConfig.Action.PARTIAL_TRANSFER) {
            transferBlocks = m.value(FaultKeys.TRANSFER_BLOCKS).orElse(0L);
            partialStatus = m.value(FaultKeys.SCSI_STATUS).orElse(partialStatus);
            for (String op : ops) {
                if (!op.equals("read") && !op.equals("write")) {
                    m.problem(FaultKeys.OPS, FaultKeys.ACTION.name() + ": partial-transfer applies to reads and writes"
                            + " only; allowed: [read], [write], [read, write] or no " + FaultKeys.OPS.name());
                    break;
                }
            }
        }
        long stall = 0;
        FaultRuleConfig.StallDirection direction = none.stallDirection();
        if (action == FaultRuleConfig.Action.STALL_CONNECTION) {
            stall = m.value(FaultKeys.STALL).orElse(0L);
            direction = m.value(FaultKeys.STALL_DIRECTION).orElse(direction);
        }
        FaultRuleConfig.DigestKind digest = null;
        if (action == FaultRuleConfig.Action.CORRUPT_DIGEST) {
            digest = required(m, node, problems, FaultKeys.DIGEST).orElse(FaultRuleConfig.DigestKind.HEADER);
        }
        int logout = none.logoutSeconds();
        if (action == FaultRuleConfig.Action.ASYNC_LOGOUT) {
            logout = m.value(FaultKeys.LOGOUT_WITHIN).orElse((long) logout).intValue();
        }
        if (action == FaultRuleConfig.Action.KEEP_ALIVE_STALL) {
            // Keep Alive commands have no blocks, no namespace queue and one opcode: only the host selects them
            for (Key<?> key : List.of(FaultKeys.OPS, FaultKeys.LBA, FaultKeys.QUEUE, FaultKeys.SCSI_OPCODES,
                    FaultKeys.NVME_OPCODES, FaultKeys.QUERIES)) {
                if (m.has(key)) {
                    m.problem(key, "not with " + FaultKeys.ACTION.name() + ": keep-alive-stall (it matches NVMe Keep"
                            + " Alive commands only); allowed: " + FaultKeys.INITIATOR.name() + ", "
                            + FaultKeys.PORTAL.name() + " and a trigger");
                }
            }
        }
        return new FaultRuleConfig.Transport(transferBlocks, partialStatus, stall, direction, digest, logout);
    }

    /** Like {@link YamlMap#required}, but a missing key is reported at the rule's own line. */
    private static <T> Optional<T> required(YamlMap m, Node rule, Problems problems, Key<T> key) {
        if (!m.has(key)) {
            problems.add(YamlSource.line(rule), m.keyPath(key), "missing; allowed: " + key.allowed());
            return Optional.empty();
        }
        return m.value(key);
    }

    /** A list key ({@code ops: [read, write]}), or its one value ({@code ops: read}); each value by the key's type. */
    private static <T> List<T> list(YamlMap m, Key<T> key, Problems problems) {
        Optional<Node> node = m.node(key);
        if (node.isEmpty()) {
            return List.of();
        }
        String noun = key.type().noun();
        String allowed = key.allowed();
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
            m.problem(key, "an empty list; allowed: " + allowed + ", or leave " + key.name() + " out for any");
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
                T v = key.type().parser().parse(scalar);
                if (!out.contains(v)) {
                    out.add(v);
                }
            } catch (InvalidValue e) {
                problems.add(YamlSource.line(item), m.keyPath(key), e);
            }
        }
        return out;
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
