package io.blocktarget.block.fault;


import io.blocktarget.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The fault rules of one LUN (DESIGN §10) and the commands they hold. The installed rules are an immutable snapshot
 * behind one volatile reference, replaced whole on every change (copy on write): a command evaluates the snapshot it
 * read, so rules may be added and removed while I/O runs. No rule = a null snapshot: the hooks' whole cost is that
 * one volatile read.
 */
public final class LunFaults {
    /** The snapshot: the rules the command sets' hooks apply, those the device decorator applies, all in order. */
    private record Installed(List<ActiveRule> command, List<ActiveRule> device, List<ActiveRule> keepAlive,
                             List<ActiveRule> all) {
        static Installed of(List<ActiveRule> all) {
            if (all.isEmpty()) {
                return null;
            }
            List<ActiveRule> command = new ArrayList<>();
            List<ActiveRule> device = new ArrayList<>();
            List<ActiveRule> keepAlive = new ArrayList<>();
            for (ActiveRule r : all) {
                FaultAction a = r.rule().action();
                (a.deviceLevel() ? device : a instanceof FaultAction.KeepAliveStall ? keepAlive : command).add(r);
            }
            return new Installed(List.copyOf(command), List.copyOf(device), List.copyOf(keepAlive), List.copyOf(all));
        }
    }

    private final Clock clock;
    private final Holds holds = new Holds();
    private volatile Installed installed;

    /** @param clock the server's: {@link FaultTrigger.After}, delays and throttles (tests pass a manual one) */
    public LunFaults(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** The clock delays and throttles run on: the command sets' hooks schedule delayed commands on it. */
    public Clock clock() {
        return clock;
    }

    /** Whether the command sets' hooks have anything to apply (one volatile read). */
    public boolean commandRules() {
        Installed i = installed;
        return i != null && !i.command().isEmpty();
    }

    /** Whether the device decorator has anything to apply (one volatile read). */
    public boolean deviceRules() {
        Installed i = installed;
        return i != null && !i.device().isEmpty();
    }

    /** Whether a keep-alive-stall rule is installed (one volatile read; NVMe Keep Alive commands ask). */
    public boolean keepAliveRules() {
        Installed i = installed;
        return i != null && !i.keepAlive().isEmpty();
    }

    /** The first keep-alive-stall rule that hits the Keep Alive command {@code c}, or null. */
    public FaultHit keepAlive(FaultCommand c) {
        Installed i = installed;
        return i == null ? null : first(i.keepAlive(), c);
    }

    /** The first hook-level rule that hits {@code c}, or null. Every matching rule counts the command. */
    public FaultHit command(FaultCommand c) {
        Installed i = installed;
        return i == null ? null : first(i.command(), c);
    }

    /** The first device-level rule that hits {@code c}, or null. */
    public FaultHit device(FaultCommand c) {
        Installed i = installed;
        return i == null ? null : first(i.device(), c);
    }

    private FaultHit first(List<ActiveRule> rules, FaultCommand c) {
        long now = rules.isEmpty() ? 0 : clock.nanoTime();
        for (ActiveRule r : rules) {
            FaultHit hit = r.test(c, now);
            if (hit != null) {
                return hit;
            }
        }
        return null;
    }

    /**
     * Installs {@code rule} after the present ones (its origin is itself).
     *
     * @throws IllegalArgumentException when a rule of that id exists
     */
    public ActiveRule add(FaultRule rule) {
        return add(rule, rule);
    }

    /**
     * Installs {@code rule} after the present ones; {@code origin} is what it was made from (the configuration's
     * form, for listing it as given).
     *
     * @throws IllegalArgumentException when a rule of that id exists
     */
    public synchronized ActiveRule add(FaultRule rule, Object origin) {
        List<ActiveRule> all = new ArrayList<>(rules());
        for (ActiveRule r : all) {
            if (r.rule().id().equals(rule.id())) {
                throw new IllegalArgumentException("a fault rule with id " + rule.id() + " exists");
            }
        }
        ActiveRule active = new ActiveRule(rule, origin, clock.nanoTime());
        all.add(active);
        installed = Installed.of(all);
        return active;
    }

    /** Removes the rule {@code id}; false when there is none. Commands it holds stay held until released. */
    public synchronized boolean remove(String id) {
        List<ActiveRule> all = new ArrayList<>(rules());
        List<ActiveRule> gone = all.stream().filter(r -> r.rule().id().equals(id)).toList();
        all.removeAll(gone);
        installed = Installed.of(all);
        gone.forEach(ActiveRule::retire);
        return !gone.isEmpty();
    }

    /** Replaces every rule (a LUN file's {@code faults:}); counters start from zero. */
    public void replace(List<FaultRule> rules) {
        replace(rules, rules);
    }

    /** As {@link #replace(List)}, each rule with the origin at the same index (its configuration form). */
    public synchronized void replace(List<FaultRule> rules, List<?> origins) {
        if (rules.size() != origins.size()) {
            throw new IllegalArgumentException(rules.size() + " rules, " + origins.size() + " origins");
        }
        long now = clock.nanoTime();
        List<ActiveRule> all = new ArrayList<>();
        for (int i = 0; i < rules.size(); i++) {
            all.add(new ActiveRule(rules.get(i), origins.get(i), now));
        }
        List<ActiveRule> gone = rules();
        installed = Installed.of(all);
        gone.forEach(ActiveRule::retire);
    }

    /** A fresh id not in use: {@code f1}, {@code f2} … */
    public synchronized String nextId() {
        for (int n = 1; ; n++) {
            String id = "f" + n;
            if (rules().stream().noneMatch(r -> r.rule().id().equals(id))) {
                return id;
            }
        }
    }

    /** The installed rules in order, with their counters. */
    public List<ActiveRule> rules() {
        Installed i = installed;
        return i == null ? List.of() : i.all();
    }

    /** Commands held by no-response rules. */
    public Holds holds() {
        return holds;
    }
}
