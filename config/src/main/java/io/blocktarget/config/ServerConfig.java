package io.blocktarget.config;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * Server-wide settings from {@code blocktarget.yaml} (all optional).
 *
 * @param source        the file it came from, {@code null} when absent / embedded
 * @param bindAddress   address every listener binds to
 * @param iscsiPort     iSCSI portal port, 0 = no iSCSI listener
 * @param nvmePort      NVMe/TCP I/O port (also serves discovery), 0 = no NVMe/TCP listener
 * @param discoveryPort NVMe/TCP discovery-only port, 0 = none
 * @param memoryBudget  bytes of RAM all RAM disks together may allocate
 * @param iqnPrefix     prefix of derived target IQNs, e.g. {@code iqn.2026-11.io.blocktarget:}
 * @param nqnPrefix     prefix of derived subsystem NQNs, e.g. {@code nqn.2026-11.io.blocktarget:}
 * @param eventLoops    I/O event loops (threads serving connections), 0 = one per CPU the process may use
 * @param poll          poll mode: the event loops spin instead of sleeping (one busy core each, lowest latency)
 * @param control       where the control API listens ({@code control-socket}, {@code control-listen},
 *                      {@code control-token-file})
 * @param discoveryChap CHAP (and mutual CHAP) an iSCSI discovery session must pass ({@code discovery-chap},
 *                      RFC 7143 §12.1.3); empty: discovery is open
 * @param pollWindowNanos {@code poll-window}: how long an event loop keeps polling after its last work before it
 *                      sleeps, 0 = it sleeps at once, {@link #POLL_WINDOW_AUTO} = adaptive (the default: it polls
 *                      only while commands arrive often); not with {@code poll}
 * @param portals       {@code portals:} as declared; empty = none declared, the one {@link PortalConfig#DEFAULT_NAME}
 *                      portal of {@code bind}, {@code iscsi-port} and {@code nvme-port} ({@link #effectivePortals()})
 */
public record ServerConfig(
        Path source,
        String bindAddress,
        int iscsiPort,
        int nvmePort,
        int discoveryPort,
        long memoryBudget,
        String iqnPrefix,
        String nqnPrefix,
        int eventLoops,
        boolean poll,
        ControlConfig control,
        Optional<ChapConfig> discoveryChap,
        long pollWindowNanos,
        java.util.List<PortalConfig> portals) {

    public static final String DEFAULT_BIND_ADDRESS = "0.0.0.0";
    public static final int DEFAULT_ISCSI_PORT = 3260;
    public static final int DEFAULT_NVME_PORT = 4420;
    public static final int DEFAULT_DISCOVERY_PORT = 8009;
    public static final String DEFAULT_IQN_PREFIX = "iqn.2026-11.io.blocktarget:";
    public static final String DEFAULT_NQN_PREFIX = "nqn.2026-11.io.blocktarget:";

    public ServerConfig {
        Objects.requireNonNull(bindAddress, "bindAddress");
        Objects.requireNonNull(iqnPrefix, "iqnPrefix");
        Objects.requireNonNull(nqnPrefix, "nqnPrefix");
        Objects.requireNonNull(control, "control");
        Objects.requireNonNull(discoveryChap, "discoveryChap");
        if (eventLoops < 0) {
            throw new IllegalArgumentException("eventLoops < 0");
        }
        if (pollWindowNanos < POLL_WINDOW_AUTO) {
            throw new IllegalArgumentException("pollWindowNanos < POLL_WINDOW_AUTO");
        }
        portals = java.util.List.copyOf(portals);
    }

    /** {@code poll-window: auto}: adaptive polling, the default (the server's AdaptivePollStrategy). */
    public static final long POLL_WINDOW_AUTO = -1;

    /** No {@code portals:}: the one default portal. */
    public ServerConfig(Path source, String bindAddress, int iscsiPort, int nvmePort, int discoveryPort,
                        long memoryBudget, String iqnPrefix, String nqnPrefix, int eventLoops, boolean poll,
                        ControlConfig control, Optional<ChapConfig> discoveryChap, long pollWindowNanos) {
        this(source, bindAddress, iscsiPort, nvmePort, discoveryPort, memoryBudget, iqnPrefix, nqnPrefix, eventLoops,
                poll, control, discoveryChap, pollWindowNanos, java.util.List.of());
    }

    /**
     * The portals the server listens on: {@code portals:} as declared, else one named {@link
     * PortalConfig#DEFAULT_NAME} on {@code bind} with {@code iscsi-port} and {@code nvme-port}.
     */
    public java.util.List<PortalConfig> effectivePortals() {
        return portals.isEmpty()
                ? java.util.List.of(new PortalConfig(PortalConfig.DEFAULT_NAME, bindAddress, iscsiPort, nvmePort))
                : portals;
    }

    /** The names of {@link #effectivePortals()}, in order. */
    public java.util.List<String> portalNames() {
        return effectivePortals().stream().map(PortalConfig::name).toList();
    }

    /** The default poll window ({@link #POLL_WINDOW_AUTO}). */
    public ServerConfig(Path source, String bindAddress, int iscsiPort, int nvmePort, int discoveryPort,
                        long memoryBudget, String iqnPrefix, String nqnPrefix, int eventLoops, boolean poll,
                        ControlConfig control, Optional<ChapConfig> discoveryChap) {
        this(source, bindAddress, iscsiPort, nvmePort, discoveryPort, memoryBudget, iqnPrefix, nqnPrefix, eventLoops,
                poll, control, discoveryChap, POLL_WINDOW_AUTO);
    }

    /** Open iSCSI discovery. */
    public ServerConfig(Path source, String bindAddress, int iscsiPort, int nvmePort, int discoveryPort,
                        long memoryBudget, String iqnPrefix, String nqnPrefix, int eventLoops, boolean poll,
                        ControlConfig control) {
        this(source, bindAddress, iscsiPort, nvmePort, discoveryPort, memoryBudget, iqnPrefix, nqnPrefix, eventLoops,
                poll, control, Optional.empty());
    }

    /** The default control socket. */
    public ServerConfig(Path source, String bindAddress, int iscsiPort, int nvmePort, int discoveryPort,
                        long memoryBudget, String iqnPrefix, String nqnPrefix, int eventLoops, boolean poll) {
        this(source, bindAddress, iscsiPort, nvmePort, discoveryPort, memoryBudget, iqnPrefix, nqnPrefix, eventLoops,
                poll, ControlConfig.defaults());
    }

    /** Default threading: one sleeping event loop per CPU. */
    public ServerConfig(Path source, String bindAddress, int iscsiPort, int nvmePort, int discoveryPort,
                        long memoryBudget, String iqnPrefix, String nqnPrefix) {
        this(source, bindAddress, iscsiPort, nvmePort, discoveryPort, memoryBudget, iqnPrefix, nqnPrefix, 0, false);
    }

    /** The event loops to start: {@link #eventLoops()}, or one per CPU the process may use when 0. */
    public int eventLoopCount() {
        return eventLoops > 0 ? eventLoops : Runtime.getRuntime().availableProcessors();
    }

    public ServerConfig withBindAddress(String address) {
        return new ServerConfig(source, address, iscsiPort, nvmePort, discoveryPort, memoryBudget, iqnPrefix,
                nqnPrefix, eventLoops, poll, control, discoveryChap, pollWindowNanos, portals);
    }

    public ServerConfig withIscsiPort(int port) {
        return new ServerConfig(source, bindAddress, port, nvmePort, discoveryPort, memoryBudget, iqnPrefix,
                nqnPrefix, eventLoops, poll, control, discoveryChap, pollWindowNanos, portals);
    }

    public ServerConfig withNvmePort(int port) {
        return new ServerConfig(source, bindAddress, iscsiPort, port, discoveryPort, memoryBudget, iqnPrefix,
                nqnPrefix, eventLoops, poll, control, discoveryChap, pollWindowNanos, portals);
    }

    public ServerConfig withDiscoveryPort(int port) {
        return new ServerConfig(source, bindAddress, iscsiPort, nvmePort, port, memoryBudget, iqnPrefix,
                nqnPrefix, eventLoops, poll, control, discoveryChap, pollWindowNanos, portals);
    }

    public ServerConfig withEventLoops(int count) {
        return new ServerConfig(source, bindAddress, iscsiPort, nvmePort, discoveryPort, memoryBudget, iqnPrefix,
                nqnPrefix, count, poll, control, discoveryChap, pollWindowNanos, portals);
    }

    public ServerConfig withPoll(boolean on) {
        return new ServerConfig(source, bindAddress, iscsiPort, nvmePort, discoveryPort, memoryBudget, iqnPrefix,
                nqnPrefix, eventLoops, on, control, discoveryChap, pollWindowNanos, portals);
    }

    public ServerConfig withControl(ControlConfig newControl) {
        return new ServerConfig(source, bindAddress, iscsiPort, nvmePort, discoveryPort, memoryBudget, iqnPrefix,
                nqnPrefix, eventLoops, poll, newControl, discoveryChap, pollWindowNanos, portals);
    }

    public ServerConfig withDiscoveryChap(Optional<ChapConfig> chap) {
        return new ServerConfig(source, bindAddress, iscsiPort, nvmePort, discoveryPort, memoryBudget, iqnPrefix,
                nqnPrefix, eventLoops, poll, control, chap, pollWindowNanos, portals);
    }

    public ServerConfig withPortals(java.util.List<PortalConfig> value) {
        return new ServerConfig(source, bindAddress, iscsiPort, nvmePort, discoveryPort, memoryBudget, iqnPrefix,
                nqnPrefix, eventLoops, poll, control, discoveryChap, pollWindowNanos, value);
    }

    public ServerConfig withPollWindow(long nanos) {
        return new ServerConfig(source, bindAddress, iscsiPort, nvmePort, discoveryPort, memoryBudget, iqnPrefix,
                nqnPrefix, eventLoops, poll, control, discoveryChap, nanos, portals);
    }
}
