package io.blocktarget.server;

import io.blocktarget.config.BackendKind;
import io.blocktarget.config.ChangeRule;
import io.blocktarget.config.ConfigDiff;
import io.blocktarget.config.ConfigLoader;
import io.blocktarget.config.KeyChange;
import io.blocktarget.config.LunConfig;
import io.blocktarget.config.ServerKeys;
import io.blocktarget.server.Step.Via;
import io.blocktarget.server.Step.Why;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The steps from one {@link ExportPlan} to another: pure. How each changed key applies comes from {@link ConfigDiff}
 * (the key table) and nowhere else; this class only orders the steps that carry those rules out:
 * <ol>
 * <li>what can fail, before initiators see anything: backends opened, then devices grown, then shrunk;</li>
 * <li>server-wide: discovery CHAP, memory budget;</li>
 * <li>LUNs taken out of their exports (removed, re-exported, reopened, replaced), so their numbers are free;</li>
 * <li>access of the targets and subsystems that stay (tightened before a LUN joins them);</li>
 * <li>knobs and fault rules retuned in place;</li>
 * <li>LUNs put into their exports (a new target / subsystem comes with its first LUN, its access already set);</li>
 * <li>targets and subsystems left without LUNs removed.</li>
 * </ol>
 * Server keys that need a restart are warnings, not steps.
 */
public final class PlanDiff {
    private PlanDiff() {
    }

    /** What the server does to one LUN, the most disruptive of its steps. */
    public enum Action {
        ADDED, REMOVED,
        /** Knobs, fault rules or access changed in place: the same device, data and sessions. */
        RETUNED,
        /** Grown or shrunk in place (in-place changes besides, perhaps). */
        RESIZED,
        /** Device and data kept, export moved (sessions see it go and appear elsewhere). */
        REEXPORTED,
        /** The backend opened anew; a file keeps its data. */
        REOPENED,
        /** A new device: a RAM / null LUN's data is lost. */
        REPLACED;

        /** As the CLI and the API write it. */
        public String label() {
            return this == REEXPORTED ? "re-exported" : name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * One LUN's change and the keys behind it.
     *
     * @param keys the changed keys with their rules (empty for added and removed LUNs)
     */
    public record LunChange(String lun, Action action, List<KeyChange> keys) {
        public LunChange {
            Objects.requireNonNull(lun, "lun");
            Objects.requireNonNull(action, "action");
            keys = List.copyOf(keys);
        }

        /** The strongest rule among the keys; empty for an added or removed LUN. */
        public Optional<ChangeRule> rule() {
            return ConfigDiff.strongest(keys);
        }
    }

    /**
     * The difference of two plans.
     *
     * @param steps   in the order they apply
     * @param luns    every LUN added, removed or changed (by a key), in the new plan's order, removals last
     * @param restart server keys (and any LUN key) that take effect at the next start only
     * @param notes   what the diff decided beyond the key rules (a key declared in place whose change the in-place
     *                steps cannot carry out is applied by reopening instead), and the new plan's
     *                {@link ExportPlan#warnings()} the old one did not have
     */
    public record Result(List<Step> steps, List<LunChange> luns, List<KeyChange> restart, List<String> notes) {
        public Result {
            steps = List.copyOf(steps);
            luns = List.copyOf(luns);
            restart = List.copyOf(restart);
            notes = List.copyOf(notes);
        }

        /** The steps that lose data ({@link Step#losesData()}): a change with any needs --force. */
        public List<Step> dataLoss() {
            return steps.stream().filter(Step::losesData).toList();
        }

        /**
         * The key a refusal of {@code step} names (the request field at fault): {@code size} for a shrink, else the
         * key of the step's LUN with the strongest rule.
         */
        public String key(Step step) {
            if (step instanceof Step.Resize) {
                return "size";
            }
            return luns.stream().filter(c -> c.lun().equals(step.subject())).findFirst()
                    .flatMap(c -> c.keys().stream().max(java.util.Comparator.comparing(KeyChange::rule)))
                    .map(KeyChange::key).orElse(null);
        }

        /** The notes, then one line per restart key naming what to do. */
        public List<String> warnings() {
            List<String> warnings = new ArrayList<>(notes);
            for (KeyChange k : restart) {
                warnings.add(k.key() + ": " + shown(k.before()) + " -> " + shown(k.after()) + " takes effect when the"
                        + " server starts again (stop blocktarget serve and start it); it keeps "
                        + shown(k.before()) + " until then");
            }
            return warnings;
        }

        public boolean isEmpty() {
            return steps.isEmpty();
        }

        private static String shown(String value) {
            return value.isEmpty() ? "(none)" : value;
        }
    }

    /** The steps from {@code before} to {@code after}. */
    public static List<Step> diff(ExportPlan before, ExportPlan after) {
        return of(before, after).steps();
    }

    /** The steps, LUN changes and warnings from {@code before} to {@code after}. */
    public static Result of(ExportPlan before, ExportPlan after) {
        List<Step> opens = new ArrayList<>();
        List<Step> grows = new ArrayList<>();
        List<Step> shrinks = new ArrayList<>();
        List<Step> server = new ArrayList<>();
        List<Step> unexports = new ArrayList<>();
        List<Step> access = new ArrayList<>();
        List<Step> retunes = new ArrayList<>();
        List<Step> exports = new ArrayList<>();
        List<Step> removals = new ArrayList<>();
        List<LunChange> changes = new ArrayList<>();
        List<KeyChange> restart = new ArrayList<>();
        List<String> notes = new ArrayList<>();

        Map<String, LunConfig> old = new LinkedHashMap<>();
        before.luns().forEach(l -> old.put(l.name(), l));
        for (LunConfig b : after.luns()) {
            LunConfig a = old.get(b.name());
            if (a == null) {
                changes.add(new LunChange(b.name(), Action.ADDED, List.of()));
                opens.add(new Step.OpenBackend(b, Why.ADD));
                exports.add(new Step.Export(b, Why.ADD));
                continue;
            }
            List<KeyChange> keys = ConfigDiff.lun(a, before.server(), b, after.server());
            if (keys.isEmpty()) {
                continue;   // at most where it was read from, or a secret file's content (access steps below)
            }
            keys.stream().filter(k -> k.rule() == ChangeRule.RESTART).forEach(restart::add);
            Set<ChangeRule> rules = EnumSet.noneOf(ChangeRule.class);
            keys.forEach(k -> rules.add(k.rule()));
            Why whole = rules.contains(ChangeRule.REPLACE) ? Why.REPLACE
                    : rules.contains(ChangeRule.REOPEN) ? Why.REOPEN : null;
            if (whole == null && !inPlaceCovers(a, b)) {
                // Declared resize / re-export / in place, yet it changes what those steps cannot: open it anew.
                whole = a.backend() == BackendKind.FILE && b.backend() == BackendKind.FILE ? Why.REOPEN : Why.REPLACE;
                notes.add("LUN " + b.name() + ": " + keys.stream().map(KeyChange::key).toList() + " cannot be applied"
                        + " in place; the LUN is " + (whole == Why.REOPEN ? "reopened" : "replaced"));
            }
            if (whole != null) {
                changes.add(new LunChange(b.name(), whole == Why.REPLACE ? Action.REPLACED : Action.REOPENED, keys));
                opens.add(new Step.OpenBackend(b, whole));
                unexports.add(new Step.Unexport(a, whole));
                exports.add(new Step.Export(b, whole));
                continue;
            }
            boolean resized = rules.contains(ChangeRule.RESIZE) && a.size() != b.size();
            if (resized) {
                (b.size() < a.size() ? shrinks : grows).add(new Step.Resize(a, b));
            }
            Set<Via> moved = EnumSet.noneOf(Via.class);
            if (rules.contains(ChangeRule.REEXPORT)) {
                if (!a.iscsi().equals(b.iscsi())) {
                    moved.add(Via.ISCSI);
                }
                if (!a.nvme().equals(b.nvme())) {
                    moved.add(Via.NVME);
                }
                Set<Via> out = EnumSet.copyOf(moved);
                out.retainAll(Via.of(a));
                Set<Via> in = EnumSet.copyOf(moved);
                in.retainAll(Via.of(b));
                if (!out.isEmpty()) {
                    unexports.add(new Step.Unexport(a, Why.REEXPORT, out));
                }
                if (!in.isEmpty()) {
                    exports.add(new Step.Export(b, Why.REEXPORT, in));
                }
            }
            if (rules.contains(ChangeRule.IN_PLACE)) {
                Set<Via> knobs = EnumSet.noneOf(Via.class);
                if (!a.features().knobs().equals(b.features().knobs())) {
                    knobs.addAll(Via.of(a));
                    knobs.retainAll(Via.of(b));
                    knobs.removeAll(moved);   // a re-exported unit / namespace is built with the new knobs
                }
                boolean faults = !a.features().faults().equals(b.features().faults());
                if (!knobs.isEmpty() || faults) {
                    retunes.add(new Step.Retune(a, b, knobs, faults));
                }
            }
            changes.add(new LunChange(b.name(), !moved.isEmpty() ? Action.REEXPORTED : resized ? Action.RESIZED
                    : Action.RETUNED, keys));
        }
        Set<String> kept = new java.util.HashSet<>();
        after.luns().forEach(l -> kept.add(l.name()));
        for (LunConfig a : before.luns()) {
            if (!kept.contains(a.name())) {
                changes.add(new LunChange(a.name(), Action.REMOVED, List.of()));
                unexports.add(new Step.Unexport(a, Why.REMOVE));
            }
        }

        after.targets().forEach((name, t) -> {
            ExportPlan.IscsiTarget was = before.targets().get(name);
            if (was != null && !was.access().equals(t.access())) {
                access.add(new Step.SetTargetAccess(name, was.access(), t.access()));
            }
        });
        after.subsystems().forEach((nqn, s) -> {
            ExportPlan.NvmeSubsystem was = before.subsystems().get(nqn);
            if (was != null && !was.access().equals(s.access())) {
                access.add(new Step.SetSubsystemAccess(nqn, was.access(), s.access()));
            }
        });
        before.targets().forEach((name, t) -> {
            if (!after.targets().containsKey(name)) {
                removals.add(new Step.RemoveTarget(name, t.access()));
            }
        });
        before.subsystems().forEach((nqn, s) -> {
            if (!after.subsystems().containsKey(nqn)) {
                removals.add(new Step.RemoveSubsystem(nqn, s.access()));
            }
        });

        boolean discoveryChap = false;
        boolean memoryBudget = false;
        for (KeyChange k : ConfigDiff.server(before.server(), after.server())) {
            if (k.rule() == ChangeRule.RESTART) {
                restart.add(k);
            } else if (under(k.key(), ServerKeys.DISCOVERY_CHAP.name())) {
                discoveryChap = true;   // the section's keys (user, secret files) change the one CHAP setting
            } else if (k.key().equals(ServerKeys.MEMORY_BUDGET.name())) {
                memoryBudget = true;
            }
            // iqn-prefix / nqn-prefix: the derived exports of the LUNs changed, and their keys say so
        }
        // in the keys' declaration order
        if (memoryBudget) {
            server.add(new Step.SetMemoryBudget(before.server().memoryBudget(), after.server().memoryBudget()));
        }
        if (discoveryChap && !before.discovery().equals(after.discovery())) {
            server.add(new Step.SetDiscoveryChap(before.discovery().iscsiChap(), after.discovery().iscsiChap()));
        }

        List<Step> steps = new ArrayList<>();
        steps.addAll(opens);
        steps.addAll(grows);
        steps.addAll(shrinks);
        steps.addAll(server);
        steps.addAll(unexports);
        steps.addAll(access);
        steps.addAll(retunes);
        steps.addAll(exports);
        steps.addAll(removals);
        java.util.Set<String> known = new java.util.HashSet<>(before.warnings());
        after.warnings().stream().filter(w -> !known.contains(w)).forEach(notes::add);
        return new Result(steps, changes, restart, notes);
    }

    /**
     * Whether the in-place steps — resize (size), re-export (exports, a unit / namespace rebuilt with the new knobs),
     * retune (knobs, fault rules) and the target / subsystem access steps (access) — turn {@code a} into {@code b}.
     */
    static boolean inPlaceCovers(LunConfig a, LunConfig b) {
        LunConfig reached = new LunConfig(b.name(), b.source(), a.backend(), b.size(), a.logicalBlockSize(),
                a.physicalBlockSize(), b.iscsi(), b.nvme(), a.readOnly(), a.file(), b.access(),
                a.features().withKnobs(b.features().knobs()).withFaults(b.features().faults()));
        return reached.equals(b);
    }

    /** What {@link #refusal} needs to know about a LUN beyond its configuration. */
    public record Facts(long allocatedBytes, int sessions) {
    }

    /**
     * The refusal of {@code lossy} steps without --force, saying what would be lost: e.g. "replaces LUN t16: its
     * 1 GiB RAM data (37 MiB allocated) is lost and its 2 sessions see a new disk; give --force".
     *
     * @param facts what the server knows of a LUN now, by name
     */
    public static String refusal(List<Step> lossy, java.util.function.Function<String, Facts> facts) {
        List<String> parts = new ArrayList<>();
        for (Step step : lossy) {
            Facts f = facts.apply(step.subject());
            String sessions = f.sessions() == 0 ? "" : " and its " + f.sessions()
                    + (f.sessions() == 1 ? " session sees" : " sessions see") + " a new disk";
            if (step instanceof Step.Unexport u) {
                LunConfig lun = u.lun();
                parts.add("replaces LUN " + lun.name() + ": " + (lun.backend() == BackendKind.RAM
                        ? "its " + ConfigLoader.formatSize(lun.size()) + " RAM data ("
                                + ConfigLoader.formatSize(f.allocatedBytes()) + " allocated) is lost"
                        : "it is a " + lun.backend().configName() + " LUN (nothing kept across a replace)") + sessions);
            } else if (step instanceof Step.Resize r) {
                parts.add("shrinks LUN " + r.after().name() + " from " + ConfigLoader.formatSize(r.before().size())
                        + " to " + ConfigLoader.formatSize(r.after().size()) + ": the data beyond "
                        + ConfigLoader.formatSize(r.after().size()) + " is lost"
                        + (r.before().backend() == BackendKind.RAM ? " (" + ConfigLoader.formatSize(f.allocatedBytes())
                        + " allocated on the LUN now)" : ""));
            }
        }
        return String.join("; ", parts) + "; give --force";
    }

    /** {@code key} is {@code section} or one of its keys ({@code section.x}). */
    private static boolean under(String key, String section) {
        return key.equals(section) || key.startsWith(section + ".");
    }
}
