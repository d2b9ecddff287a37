package io.blocktarget.cli;

import io.blocktarget.config.BlocktargetConfig;
import io.blocktarget.config.ConfigLoader;
import io.blocktarget.config.ControlConfig;
import io.blocktarget.config.ServerConfig;
import io.blocktarget.control.ControlServer;
import io.blocktarget.server.ConfigWatcher;
import io.blocktarget.server.ControlPlane;
import io.blocktarget.server.Portal;
import io.blocktarget.server.ServerStartException;
import io.blocktarget.server.TargetServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import sun.misc.Signal;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/**
 * {@code blocktarget serve}: start the portals and serve until SIGINT / SIGTERM, then shut down
 * cleanly (connections closed, file backends flushed) and exit 0. With {@code --config DIR}, edits under
 * {@code DIR/luns.d} and SIGHUP reload the directory and apply the difference to the running server.
 */
@Command(name = "serve", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Serve the LUNs of --config DIR (default: the embedded RAM-disk matrix) until SIGINT/SIGTERM.")
final class ServeCommand implements Callable<Integer> {
    private static final Logger LOG = System.getLogger("blocktarget.server");
    /** unix(7): sun_path holds 108 bytes with the terminating NUL (as control-socket is checked). */
    private static final int MAX_SOCKET_PATH_BYTES = 107;

    @Spec
    CommandSpec spec;

    @Option(names = "--config", paramLabel = "DIR",
            description = "Directory with blocktarget.yaml (optional) and luns.d/*.yaml. Default: embedded "
                    + "RAM disks ram-512, ram-4k, ram-16k, ram-64k (1 GiB each).")
    Path configDir;

    @Option(names = "--bind", paramLabel = "ADDR", description = "Address to listen on (default: blocktarget.yaml or 0.0.0.0).")
    String bind;

    @Option(names = "--iscsi-port", paramLabel = "N", description = "iSCSI port, 0 = off (default 3260).")
    Integer iscsiPort;

    @Option(names = "--nvme-port", paramLabel = "N", description = "NVMe/TCP port, 0 = off (default 4420).")
    Integer nvmePort;

    @Option(names = "--discovery-port", paramLabel = "N", description = "NVMe/TCP discovery port, 0 = off (default 8009).")
    Integer discoveryPort;

    @Option(names = "--control-socket", paramLabel = "PATH|off", description = "The control API's Unix socket, or off"
            + " (default: control-socket of blocktarget.yaml, else /run/blocktarget/control.sock as root, else"
            + " $XDG_RUNTIME_DIR/blocktarget.sock). The systemd unit passes /run/blocktarget/control.sock.")
    String controlSocket;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        String usage = checkOptions();
        if (usage != null) {
            err.println("blocktarget serve: " + usage);
            err.flush();
            return Main.EXIT_USAGE;
        }
        Optional<BlocktargetConfig> loaded = ConfigSource.load(configDir, err);
        if (loaded.isEmpty()) {
            return Main.EXIT_USAGE;
        }
        BlocktargetConfig config = loaded.get().withServer(overrides(loaded.get().server()));
        for (String warning : config.warnings()) {
            LOG.log(Level.WARNING, warning);
        }
        Exposure.warning(config).ifPresent(warning -> LOG.log(Level.WARNING, warning));

        TargetServer server = new TargetServer(config, Optional.ofNullable(configDir), this::overrides);
        CountDownLatch stopRequested = new CountDownLatch(1);
        Signal.handle(new Signal("INT"), s -> stopRequested.countDown());
        Signal.handle(new Signal("TERM"), s -> stopRequested.countDown());
        List<String> ignored = IgnoredSignals.ofThisProcess();
        if (!ignored.isEmpty()) {
            LOG.log(Level.WARNING, String.join(", ", ignored) + " ignored: inherited so from the parent process (a"
                    + " background job of a shell without job control, nohup), and the JVM cannot take it back;"
                    + (ignored.contains("SIGTERM") ? " stop the server with SIGKILL" : " stop the server with SIGTERM")
                    + (ignored.contains("SIGHUP") ? ", reload it with `blocktarget reload`" : ""));
        }
        try {
            server.start();
        } catch (ServerStartException e) {
            err.println("blocktarget: " + e.getMessage());
            err.flush();
            return Main.EXIT_RUNTIME_FAILURE;
        }
        ControlServer control;
        try {
            control = startControl(config.server().control(), server);
        } catch (ControlServer.ControlStartException e) {
            err.println("blocktarget: " + e.getMessage());
            err.flush();
            server.stop();
            return Main.EXIT_RUNTIME_FAILURE;
        }
        ConfigWatcher watcher = startWatcher(server);
        printBanner(config, server, out);
        LOG.log(Level.INFO, "serving " + config.luns().size() + " LUNs from " + ConfigSource.describe(configDir)
                + " on " + server.portals().stream().map(p -> p.service().label() + " " + p.address())
                        .collect(Collectors.joining(", "))
                + " (" + server.threading() + ")");
        try {
            stopRequested.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (watcher != null) {
            watcher.close();
        }
        if (control != null) {
            control.close();
        }
        LOG.log(Level.INFO, "stopping: closing connections and flushing backends");
        server.stop();
        LOG.log(Level.INFO, "stopped");
        return Main.EXIT_OK;
    }

    /**
     * The control API (DESIGN §10). A socket or listener the configuration names must start, or serve fails (exit 1).
     * The default socket is different: a second server on the machine (bench/run's poll-mode twin, a test) finds it
     * held by the first — that one serves without a control API and says so, rather than refusing to serve.
     */
    private static ControlServer startControl(ControlConfig control, TargetServer server)
            throws ControlServer.ControlStartException {
        try {
            return ControlServer.start(server.vertx(), server.controlPlane(), control);
        } catch (ControlServer.ControlStartException e) {
            boolean defaultOnly = control.listen().isEmpty()
                    && control.socket().equals(Optional.of(ControlConfig.defaultSocket()));
            if (!defaultOnly) {
                throw e;
            }
            LOG.log(Level.WARNING, "no control API: " + e.getMessage()
                    + " (set control-socket in blocktarget.yaml to give this server its own)");
            return null;
        }
    }

    /**
     * With --config: luns.d/ is watched and SIGHUP reloads the directory (both through the registry's one reload);
     * without, SIGHUP only says there is nothing to reload. sun.misc.Signal needs no JVM flag on JDK 25.
     */
    private ConfigWatcher startWatcher(TargetServer server) {
        if (configDir == null) {
            Signal.handle(new Signal("HUP"), s -> LOG.log(Level.WARNING,
                    "SIGHUP: serving the embedded default, no --config directory to reload"));
            return null;
        }
        try {
            ConfigWatcher watcher = ConfigWatcher.start(server.controlPlane(), configDir);
            Signal.handle(new Signal("HUP"), s -> watcher.requestReload("SIGHUP"));
            return watcher;
        } catch (IOException e) {
            LOG.log(Level.WARNING, "cannot watch " + configDir + " (" + e.getMessage() + "); SIGHUP still reloads");
            Signal.handle(new Signal("HUP"), s -> new Thread(() -> {
                try {
                    server.controlPlane().reload();
                } catch (ControlPlane.ControlException refused) {
                    LOG.log(Level.WARNING, "SIGHUP reload refused: nothing changed");
                }
            }, "blocktarget-sighup").start());
            return null;
        }
    }

    private String checkOptions() {
        for (Integer port : new Integer[] {iscsiPort, nvmePort, discoveryPort}) {
            if (port != null && (port < 0 || port > 65535)) {
                return "port " + port + " out of range; allowed: 0 (off) .. 65535";
            }
        }
        if (controlSocket != null && controlSocket.isBlank()) {
            return "--control-socket: empty; allowed: a socket path, or off";
        }
        if (controlSocket != null && !controlSocket.equals("off") && Path.of(controlSocket).toAbsolutePath().toString()
                .getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_SOCKET_PATH_BYTES) {
            return "--control-socket " + controlSocket + ": longer than " + MAX_SOCKET_PATH_BYTES + " bytes, the most a"
                    + " Unix socket address holds (sun_path, unix(7)); allowed: a shorter path";
        }
        if (bind != null) {
            try {
                if (!isIpLiteral(bind)) {
                    return "--bind " + bind + " is not an IP address; allowed: an IPv4 or IPv6 literal";
                }
                InetAddress.getByName(bind);
            } catch (UnknownHostException e) {
                return "--bind " + bind + " is not an IP address; allowed: an IPv4 or IPv6 literal";
            }
        }
        return null;
    }

    private static boolean isIpLiteral(String s) {
        return s.matches("[0-9.]+") || s.contains(":");
    }

    private ServerConfig overrides(ServerConfig s) {
        ServerConfig r = s;
        if (bind != null) {
            r = r.withBindAddress(bind);
        }
        if (iscsiPort != null) {
            r = r.withIscsiPort(iscsiPort);
        }
        if (nvmePort != null) {
            r = r.withNvmePort(nvmePort);
        }
        if (discoveryPort != null) {
            r = r.withDiscoveryPort(discoveryPort);
        }
        if (controlSocket != null) {
            ControlConfig c = r.control();
            r = r.withControl(new ControlConfig(controlSocket.equals("off") ? Optional.empty()
                    : Optional.of(Path.of(controlSocket).toAbsolutePath().normalize()), c.listen(), c.tokenFile()));
        }
        return r;
    }

    private static void printBanner(BlocktargetConfig config, TargetServer server, PrintWriter out) {
        List<Portal> portals = server.portals();
        out.println("blocktarget " + VersionProvider.version() + ": " + config.luns().size() + " LUNs, "
                + "memory budget " + ConfigLoader.formatSize(config.server().memoryBudget()));
        out.println("portals: " + (portals.isEmpty() ? "none (every port is 0)"
                : portals.stream().map(p -> p.service().label() + " " + p.address()).collect(Collectors.joining(", "))));
        LunTable.print(config, out);
        String host = hostHint(config.server().bindAddress());
        out.println("connect from Linux (HOST: an address of this machine the initiator reaches):");
        portals.stream().filter(p -> p.service() == Portal.Service.ISCSI).findFirst().ifPresent(p ->
                out.println("  iscsiadm -m discovery -t st -p " + host + ":" + p.port() + " && iscsiadm -m node -l"));
        Optional<Portal> nvme = portals.stream().filter(p -> p.service() == Portal.Service.NVME_TCP).findFirst();
        Optional<Portal> discovery = portals.stream()
                .filter(p -> p.service() == Portal.Service.NVME_DISCOVERY).findFirst().or(() -> nvme);
        discovery.ifPresent(p -> out.println("  nvme discover -t tcp -a " + host + " -s " + p.port()
                + " && nvme connect-all -t tcp -a " + host + " -s " + p.port()));
        out.flush();
    }

    private static String hostHint(String bindAddress) {
        return bindAddress.equals("0.0.0.0") || bindAddress.equals("::") ? "HOST" : bindAddress;
    }
}
