package io.blocktarget.server;

import io.blocktarget.block.IoKind;
import io.blocktarget.block.fault.FaultAction;
import io.blocktarget.block.fault.FaultMatch;
import io.blocktarget.block.fault.FaultRule;
import io.blocktarget.block.fault.FaultStatus;
import io.blocktarget.block.fault.FaultTrigger;
import io.blocktarget.config.FaultRuleConfig;

import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** A validated {@code faults:} entry (config) as the block layer's rule: the one place that maps one to the other. */
public final class FaultRules {
    private FaultRules() {
    }

    /** Rules of a server whose portals are not known: none may name a portal. */
    public static List<FaultRule> of(List<FaultRuleConfig> rules) {
        return of(rules, List.of());
    }

    /** @param portals the server's portal names, portal 1 first: a rule's {@code portal:} becomes that id */
    public static List<FaultRule> of(List<FaultRuleConfig> rules, List<String> portals) {
        return rules.stream().map(r -> of(r, portals)).toList();
    }

    public static FaultRule of(FaultRuleConfig c) {
        return of(c, List.of());
    }

    /**
     * @param portals the server's portal names, portal 1 first
     * @throws IllegalArgumentException when the rule names a portal not among them (the config reader checks it)
     */
    public static FaultRule of(FaultRuleConfig c, List<String> portals) {
        int portal = 0;
        if (c.portal().isPresent()) {
            portal = portals.indexOf(c.portal().get()) + 1;
            if (portal == 0) {
                throw new IllegalArgumentException("portal " + c.portal().get() + " is not one of " + portals);
            }
        }
        Set<IoKind> kinds = EnumSet.noneOf(IoKind.class);
        for (String op : c.ops()) {
            kinds.add(kind(op));
        }
        if (c.action() == FaultRuleConfig.Action.PARTIAL_TRANSFER && kinds.isEmpty()) {
            kinds = EnumSet.of(IoKind.READ, IoKind.WRITE); // the only commands that transfer blocks
        }
        FaultMatch match = new FaultMatch(kinds, c.firstLba(), c.lastLba(), new HashSet<>(c.scsiOpcodes()),
                new HashSet<>(c.nvmeOpcodes()), c.initiator().orElse(null), c.queue().orElse(-1), portal,
                c.queries().stream().map(io.blocktarget.block.fault.FaultQuery::of).collect(
                        java.util.stream.Collectors.toSet()));
        FaultTrigger trigger = switch (c.trigger()) {
            case ALWAYS -> new FaultTrigger.Always();
            case FIRST -> new FaultTrigger.FirstN(c.count());
            case EVERY -> new FaultTrigger.EveryNth(c.count());
            case PROBABILITY -> new FaultTrigger.Probability(c.probability(), c.seed());
            case AFTER -> new FaultTrigger.After(c.afterNanos());
            case ONCE_PER_LBA -> new FaultTrigger.OncePerLba();
        };
        FaultAction action = switch (c.action()) {
            case MEDIUM_ERROR -> fail(FaultStatus.Condition.MEDIUM_ERROR);
            case NOT_READY -> fail(FaultStatus.Condition.NOT_READY);
            case BUSY -> fail(FaultStatus.Condition.BUSY);
            case TASK_SET_FULL -> fail(FaultStatus.Condition.TASK_SET_FULL);
            case ABORTED -> fail(FaultStatus.Condition.ABORTED);
            case STATUS -> new FaultAction.Fail(new FaultStatus(FaultStatus.Condition.EXPLICIT,
                    c.sense().map(FaultRuleConfig.Sense::key).orElse(-1), c.sense().map(FaultRuleConfig.Sense::asc).orElse(0),
                    c.sense().map(FaultRuleConfig.Sense::ascq).orElse(0),
                    c.nvmeStatus().map(FaultRuleConfig.NvmeCode::sct).orElse(-1),
                    c.nvmeStatus().map(FaultRuleConfig.NvmeCode::sc).orElse(0),
                    c.nvmeStatus().flatMap(FaultRuleConfig.NvmeCode::dnr).map(d -> d ? 1 : 0).orElse(-1),
                    c.nvmeStatus().map(FaultRuleConfig.NvmeCode::crd).orElse(0),
                    c.nvmeStatus().map(FaultRuleConfig.NvmeCode::more).orElse(false)));
            case NO_RESPONSE -> new FaultAction.NoResponse();
            case DELAY -> new FaultAction.Delay(c.delayNanos(), c.jitterNanos(), c.seed());
            case THROTTLE -> new FaultAction.Throttle(c.iops(), c.bandwidth());
            case CORRUPT_READ -> new FaultAction.CorruptRead();
            case TORN_WRITE -> new FaultAction.TornWrite(c.persistBlocks());
            case PARTIAL_TRANSFER -> new FaultAction.PartialTransfer(c.transport().transferBlocks(),
                    c.transport().partialStatus() == FaultRuleConfig.PartialStatus.CHECK_CONDITION);
            case DROP_CONNECTION -> new FaultAction.DropConnection();
            case STALL_CONNECTION -> new FaultAction.StallConnection(c.transport().stallNanos(),
                    switch (c.transport().stallDirection()) {
                        case BOTH -> FaultAction.StallDirection.BOTH;
                        case RECEIVE -> FaultAction.StallDirection.RECEIVE;
                        case SEND -> FaultAction.StallDirection.SEND;
                    });
            case CORRUPT_DIGEST -> new FaultAction.CorruptDigest(switch (c.transport().digest()) {
                case HEADER -> FaultAction.DigestKind.HEADER;
                case DATA -> FaultAction.DigestKind.DATA;
            });
            case ASYNC_LOGOUT -> new FaultAction.AsyncLogout(c.transport().logoutSeconds());
            case KEEP_ALIVE_STALL -> new FaultAction.KeepAliveStall();
        };
        return new FaultRule(c.id(), match, trigger, action);
    }

    private static FaultAction fail(FaultStatus.Condition condition) {
        return new FaultAction.Fail(FaultStatus.of(condition));
    }

    static IoKind kind(String op) {
        for (IoKind k : IoKind.values()) {
            if (k.configName().equals(op)) {
                return k;
            }
        }
        throw new IllegalArgumentException("operation kind " + op); // validated by the configuration
    }
}
