package io.blocktarget.server;

import io.blocktarget.config.LunConfig;
import io.blocktarget.config.ServerConfig;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the control layer (HTTP API, CLI, config-dir watcher, SIGHUP) may do to a running server (DESIGN §10). The
 * server's registry implements it; every change — from a file, the API or a reload — goes through
 * {@link #apply}: one validation (the config module's, before the call) and one apply.
 */
public interface ControlPlane {

    /** The server-wide configuration in force (ports, prefixes, budget). */
    ServerConfig serverConfig();

    /** The config directory the server was started with; empty when it serves the embedded default or API-only LUNs. */
    Optional<Path> configDir();

    /** Every LUN of the current snapshot, in config order. */
    List<LunStatus> luns();

    /** One LUN of the current snapshot by name. */
    Optional<LunStatus> lun(String name);

    /**
     * Makes {@code desired} (already validated, cross-checked as a whole by the config module) the server's LUN set,
     * under the server keys in force: the plan of {@code desired} ({@link ExportPlan}) is diffed against the one
     * served ({@link PlanDiff}: how each changed key applies comes from the key table) and its steps applied in order
     * ({@link StepRunner}). Initiators are told as the specs say (unit attentions, AENs, discovery log changes).
     * Concurrent calls serialize. All or nothing: when a step fails, the steps done are undone and the previous plan
     * keeps serving. A change that loses data (a RAM / null LUN replaced, a LUN shrunk) is refused NEEDS_FORCE, saying
     * what would be lost, unless {@code options} force it; a dry run says what would be done and does nothing.
     *
     * @throws ControlException naming the LUN and what refused
     */
    ApplyResult apply(List<LunConfig> desired, ApplyOptions options) throws ControlException;

    /** What {@link #exclusively} runs. */
    @FunctionalInterface
    interface Exclusive<T, E extends Exception> {
        T run() throws E;
    }

    /**
     * Runs {@code action} while no apply or reload runs: what an API change does to serve a LUN set and write its
     * LUN file back. A {@link #reload} reads the directory and applies it under the same lock, so it never sees a
     * file the served set disagrees with (a reload that read the directory before an API write-back and applied after
     * it dropped the LUN just added, while its file stayed). Reentrant: {@code action} may apply.
     */
    default <T, E extends Exception> T exclusively(Exclusive<T, E> action) throws E {
        return action.run();
    }

    /** {@link #apply(List, ApplyOptions)} without --force: a change that loses data is refused. */
    default ApplyResult apply(List<LunConfig> desired) throws ControlException {
        return apply(desired, ApplyOptions.NONE);
    }

    /**
     * Re-reads the config directory ({@link #configDir()}), {@code blocktarget.yaml} included, through the config
     * module's one validation and {@link #apply applies} it — what SIGHUP and an edit under {@code luns.d/} do.
     * Server keys that need a restart are warnings. A directory that fails validation changes nothing: its problems
     * are logged one line each ({@code file:line: key: message}) and the call fails INVALID naming the first problem's
     * LUN and key. Fails UNAVAILABLE without a config directory.
     */
    ApplyResult reload(ApplyOptions options) throws ControlException;

    /** {@link #reload(ApplyOptions)} without --force. */
    default ApplyResult reload() throws ControlException {
        return reload(ApplyOptions.NONE);
    }

    /**
     * The configurations of the LUNs the server's plan has, in order: the base an API change computes the desired
     * list from (LUNs being opened or drained by an apply in progress are not in it).
     */
    default List<LunConfig> lunConfigs() {
        return luns().stream().filter(s -> s.state() != LunPhase.OPENING && s.state() != LunPhase.DRAINING
                && s.state() != LunPhase.REMOVING).map(LunStatus::config).toList();
    }

    /**
     * How to apply.
     *
     * @param force           allow a change that loses data (a RAM / null LUN replaced, a LUN shrunk)
     * @param dryRun          say what would be done, do nothing
     * @param transitionNanos paths whose state changes are transitioning this long first ({@code path set
     *                        --transition}); 0: at once
     */
    record ApplyOptions(boolean force, boolean dryRun, long transitionNanos) {
        public static final ApplyOptions NONE = new ApplyOptions(false, false);
        public static final ApplyOptions FORCE = new ApplyOptions(true, false);

        public ApplyOptions {
            if (transitionNanos < 0) {
                throw new IllegalArgumentException("transitionNanos < 0");
            }
        }

        /** Path changes at once. */
        public ApplyOptions(boolean force, boolean dryRun) {
            this(force, dryRun, 0);
        }

        public ApplyOptions withTransition(long nanos) {
            return new ApplyOptions(force, dryRun, nanos);
        }
    }

    /** The server's portals, portal 1 first (issue 29); one named default without {@code portals:}. */
    default List<ExportPlan.PortalSpec> portals() {
        return ExportPlan.portals(serverConfig());
    }

    /**
     * The state of every LUN on every portal, LUNs in config order.
     *
     * @param lun        the LUN
     * @param portal     the portal's name
     * @param portalId   its id (TPGT, ALUA target port group, NVMe PORTID)
     * @param state      the state now, as {@code paths:} words it ({@code transitioning} during a transition)
     * @param configured the state the LUN's configuration gives
     * @param origin     what set it last: configured, implicit (the target: a change, a transition's end) or explicit
     *                   (an initiator's SET TARGET PORT GROUPS)
     */
    record PathStatus(String lun, String portal, int portalId, String state, String configured, String origin) {
    }

    /** The path states of every LUN (issue 29); empty in control planes that serve no devices. */
    default List<PathStatus> paths() {
        return List.of();
    }

    /**
     * Who is told when an initiator changed a LUN's path states (SCSI SET TARGET PORT GROUPS): called with the LUN's
     * name on the thread that made the change — an event loop, so it must not block — and replacing the previous
     * listener (null: none). The control layer writes the change to the LUN's file, as for {@code path set}.
     */
    default void onExplicitPathChange(java.util.function.Consumer<String> listener) {
    }

    /**
     * The fault rules of LUN {@code name} (issue 11), changed in place at runtime (not written to luns.d); empty when
     * there is no such LUN.
     */
    default Optional<io.blocktarget.block.fault.LunFaults> faults(String name) {
        return Optional.empty();
    }

    /**
     * The device state of a LUN of the current snapshot (its trace is switched there); a LUN replaced by a change
     * has a new one. Empty for an unknown LUN, and in control planes that serve no devices.
     */
    default Optional<io.blocktarget.block.lun.LunState> lunState(String name) {
        return Optional.empty();
    }

    /** iSCSI sessions and NVMe controllers now connected, discovery ones included. */
    List<SessionInfo> sessions();

    /** Drops a session (iSCSI: all its connections closed) or controller (NVMe: all its queues); false if unknown. */
    boolean dropSession(String id);

    /** Bytes all RAM disks may allocate together, and the bytes they hold now. */
    long memoryBudgetBytes();

    long memoryUsedBytes();

    /**
     * A LUN as it is now.
     *
     * @param config         its configuration (size = the current capacity)
     * @param allocatedBytes backend memory or file space in use (RAM: chunks allocated; file: blocks; null: 0)
     * @param inFlight       commands executing on it now, both protocols
     * @param state          where it is in its life (a change in progress shows here)
     * @param lastError      why the last change of it failed (it was undone), until a change of it succeeds
     */
    record LunStatus(LunConfig config, long allocatedBytes, int inFlight, LunPhase state, Optional<String> lastError) {
        public LunStatus {
            java.util.Objects.requireNonNull(config, "config");
            java.util.Objects.requireNonNull(state, "state");
            java.util.Objects.requireNonNull(lastError, "lastError");
        }

        /** An active LUN without an error. */
        public LunStatus(LunConfig config, long allocatedBytes, int inFlight) {
            this(config, allocatedBytes, inFlight, LunPhase.ACTIVE, Optional.empty());
        }
    }

    /**
     * One iSCSI session or NVMe controller.
     *
     * @param id         stable while it lives: {@code iscsi:<TSIH>} or {@code nvme:<CNTLID>@<subsystem NQN>} (a
     *                   CNTLID is unique within its subsystem only, Base §3.1.2.1)
     * @param protocol   {@code iscsi} or {@code nvme}
     * @param initiator  iSCSI InitiatorName (with ISID) or NVMe host NQN
     * @param target     iSCSI TargetName (empty for discovery) or subsystem NQN
     * @param connections one entry per TCP connection (iSCSI) or queue (NVMe): "local -> remote"
     * @param parameters negotiated keys (iSCSI operational keys; NVMe: KATO, queue count / size, digests ...)
     * @param commands   its commands by state, every state of the transport's command machine listed (issue 27): the
     *                   final ones (DONE, ABORTED) count every command ended, the others those in that state now
     */
    record SessionInfo(String id, String protocol, String initiator, String target, List<String> connections,
                       Map<String, String> parameters, Map<String, Long> commands) {
        /** A session whose transport counts no commands. */
        public SessionInfo(String id, String protocol, String initiator, String target, List<String> connections,
                    Map<String, String> parameters) {
            this(id, protocol, initiator, target, connections, parameters, Map.of());
        }
    }

    /**
     * What {@link #apply} changed (or, in a dry run, would change).
     *
     * @param changes  every LUN added, removed or changed, with its changed keys and their rules
     * @param steps    what was done, one line per step, in order
     * @param warnings what is allowed but worth telling whoever asked (the server logs them too): RAM over the
     *                 memory budget, a fault rule beyond its LUN, server keys that need a restart
     * @param dryRun   nothing was done
     */
    record ApplyResult(List<PlanDiff.LunChange> changes, List<String> steps, List<String> warnings, boolean dryRun) {
        public ApplyResult {
            changes = List.copyOf(changes);
            steps = List.copyOf(steps);
            warnings = List.copyOf(warnings);
        }

        public List<String> added() {
            return names(PlanDiff.Action.ADDED);
        }

        public List<String> removed() {
            return names(PlanDiff.Action.REMOVED);
        }

        /** Grown or shrunk in place (perhaps with in-place changes besides). */
        public List<String> resized() {
            return names(PlanDiff.Action.RESIZED);
        }

        /** Opened anew: replaced or reopened. */
        public List<String> replaced() {
            List<String> both = new java.util.ArrayList<>(names(PlanDiff.Action.REPLACED));
            both.addAll(names(PlanDiff.Action.REOPENED));
            return both;
        }

        /** Changed in place (knobs, fault rules, access): the same device, sessions kept. */
        public List<String> retuned() {
            return names(PlanDiff.Action.RETUNED);
        }

        /** Device and data kept, export moved. */
        public List<String> reexported() {
            return names(PlanDiff.Action.REEXPORTED);
        }

        public boolean changedNothing() {
            return changes.isEmpty() && steps.isEmpty();
        }

        private List<String> names(PlanDiff.Action action) {
            return changes.stream().filter(c -> c.action() == action).map(PlanDiff.LunChange::lun).toList();
        }
    }

    /** A change the server refused; {@code lun} names the LUN, {@code key} the config key when one is to blame. */
    final class ControlException extends Exception {
        /** NEEDS_FORCE: the change loses data (the message says what) and was not forced. */
        public enum Kind { NOT_FOUND, CONFLICT, INVALID, UNAVAILABLE, NEEDS_FORCE }

        private final Kind kind;
        private final String lun;
        private final String key;

        public ControlException(Kind kind, String lun, String key, String message) {
            super(message);
            this.kind = kind;
            this.lun = lun;
            this.key = key;
        }

        public Kind kind() {
            return kind;
        }

        public String lun() {
            return lun;
        }

        /** The LUN config key at fault, or null. */
        public String key() {
            return key;
        }
    }
}
