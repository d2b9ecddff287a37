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
     * Makes {@code desired} (already validated, cross-checked as a whole by the config module) the server's LUN set:
     * LUNs whose name is new are added, missing ones removed (new commands refused, in-flight ones drained, memory
     * returned to the budget), ones whose only difference is {@code size} resized, ones changed otherwise replaced.
     * Initiators are told as the specs say (unit attentions, AENs, discovery log changes). Concurrent calls serialize.
     * All or nothing: when any step cannot be done (a backend cannot be opened or grown), nothing has changed.
     *
     * @throws ControlException naming the LUN and what refused
     */
    ApplyResult apply(List<LunConfig> desired) throws ControlException;

    /**
     * Re-reads the config directory ({@link #configDir()}) through the config module's one validation and
     * {@link #apply applies} its LUNs — what SIGHUP and an edit under {@code luns.d/} do. A directory that fails
     * validation changes nothing: its problems are logged one line each ({@code file:line: key: message}) and the
     * call fails INVALID naming the first problem's LUN and key. Fails UNAVAILABLE without a config directory.
     */
    ApplyResult reload() throws ControlException;

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
     */
    record LunStatus(LunConfig config, long allocatedBytes, int inFlight) {
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
     */
    record SessionInfo(String id, String protocol, String initiator, String target, List<String> connections,
                       Map<String, String> parameters) {
    }

    /** What {@link #apply} changed, by LUN name. */
    record ApplyResult(List<String> added, List<String> removed, List<String> resized, List<String> replaced,
                       List<String> retuned) {
        /** Without knob-only changes ({@code retuned}: same device, sessions kept, initiators told). */
        public ApplyResult(List<String> added, List<String> removed, List<String> resized, List<String> replaced) {
            this(added, removed, resized, replaced, List.of());
        }

        public boolean changedNothing() {
            return added.isEmpty() && removed.isEmpty() && resized.isEmpty() && replaced.isEmpty() && retuned.isEmpty();
        }
    }

    /** A change the server refused; {@code lun} names the LUN, {@code key} the config key when one is to blame. */
    final class ControlException extends Exception {
        public enum Kind { NOT_FOUND, CONFLICT, INVALID, UNAVAILABLE }

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
