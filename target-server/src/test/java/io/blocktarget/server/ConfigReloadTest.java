package io.blocktarget.server;

import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.config.ConfigLoader;
import io.blocktarget.config.ServerConfig;
import io.blocktarget.nvme.NvmeLimits;
import io.blocktarget.nvme.NvmePort;
import io.blocktarget.nvme.NvmeSubsystems;
import io.blocktarget.server.ControlPlane.ApplyResult;
import io.blocktarget.server.ControlPlane.ControlException;
import io.blocktarget.time.ManualClock;
import io.blocktarget.transport.iscsi.IscsiSettings;
import io.blocktarget.transport.iscsi.IscsiTransport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The config directory as the source of truth (issue 9 item 6): {@link ControlPlane#reload} through the config
 * module's validation, a directory that fails it changes nothing and logs one {@code file:line: key:} line per
 * problem, and the watcher applies edits under luns.d (debounced) and SIGHUP-style requests.
 */
class ConfigReloadTest {
    @TempDir
    Path dir;

    private final MemoryBudget budget = new MemoryBudget(64L << 20);
    /** A transport without sockets: what the registry sets on it is what logins would see. */
    private final IscsiTransport iscsi = IscsiTransport.create(null, List.of(), IscsiSettings.defaults(),
            new ManualClock());
    private Registry registry;
    private final List<String> logged = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            logged.add(record.getMessage());
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void start() throws Exception {
        Files.createDirectories(dir.resolve("luns.d"));
        Files.writeString(dir.resolve("blocktarget.yaml"), "memory-budget: 64MiB\n");
        lun("a", "backend: ram\nsize: 1MiB\n");
        ServerConfig server = ConfigLoader.load(dir).server();
        NvmeSubsystems nvme = NvmeSubsystems.of(List.of(), List.of(new NvmePort(1, "127.0.0.1", 4420)),
                NvmeLimits.DEFAULT, new ManualClock(), Map.of());
        registry = new Registry(server, Optional.of(dir), budget, Registry.opener(budget, Runnable::run), iscsi, nvme,
                new ManualClock());
        registry.reload();
        Logger.getLogger("blocktarget.server").addHandler(capture);
    }

    @AfterEach
    void stop() {
        Logger.getLogger("blocktarget.server").removeHandler(capture);
        registry.closeAll();
    }

    /**
     * An API change applies and then writes its LUN file; a reload reads the directory and applies it. Run together,
     * a reload that read the directory before the file was written and applied after the change dropped the LUN just
     * added (its file stayed: the blktests hook's cleanup then found no LUN to remove). The change runs exclusively,
     * so the reload waits for the write and sees the file.
     */
    @Test
    void aReloadWaitsForAnApplyAndItsWriteBack() throws Exception {
        Path staging = dir.resolve("staging");
        Files.createDirectories(staging.resolve("luns.d"));
        Files.copy(dir.resolve("blocktarget.yaml"), staging.resolve("blocktarget.yaml"));
        Files.writeString(staging.resolve("luns.d/a.yaml"), "backend: ram\nsize: 1MiB\n");
        Files.writeString(staging.resolve("luns.d/b.yaml"), "backend: ram\nsize: 2MiB\n");
        var desired = ConfigLoader.load(staging).luns();
        AtomicReference<Throwable> reloadFailed = new AtomicReference<>();
        Thread[] reloader = new Thread[1];
        registry.exclusively(() -> {
            registry.apply(desired);   // b served, its file not written yet
            reloader[0] = Thread.ofPlatform().start(() -> {
                try {
                    registry.reload();
                } catch (Throwable t) {
                    reloadFailed.set(t);
                }
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (reloader[0].getState() != Thread.State.WAITING) {   // parked on the apply lock
                assertThat(System.nanoTime()).as("the reload reached the lock").isLessThan(deadline);
                Thread.onSpinWait();
            }
            lun("b", "backend: ram\nsize: 2MiB\n");   // the write-back
            return null;
        });
        reloader[0].join();
        assertThat(reloadFailed.get()).isNull();
        assertThat(names()).containsExactly("a", "b");
    }

    private void lun(String name, String yaml) throws Exception {
        Path tmp = dir.resolve(name + ".tmp");
        Files.writeString(tmp, yaml);
        Files.move(tmp, dir.resolve("luns.d").resolve(name + ".yaml"), java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    private List<String> names() {
        return registry.luns().stream().map(s -> s.config().name()).toList();
    }

    @Test
    void reloadAppliesTheDirectory() throws Exception {
        lun("b", "backend: ram\nsize: 2MiB\nlogical-block-size: 16KiB\n");
        lun("a", "backend: ram\nsize: 4MiB\n");
        ApplyResult result = registry.reload();
        assertThat(result.added()).containsExactly("b");
        assertThat(result.resized()).containsExactly("a");
        assertThat(result.removed()).isEmpty();
        assertThat(result.replaced()).isEmpty();
        assertThat(result.changes()).extracting(c -> c.lun() + " " + c.action()).containsExactly("a RESIZED", "b ADDED");
        assertThat(result.changes().getFirst().keys()).extracting(k -> k.key() + " " + k.rule())
                .containsExactly("size RESIZE");
        assertThat(names()).containsExactly("a", "b");
        assertThat(registry.lun("a").orElseThrow().config().size()).isEqualTo(4 << 20);
        Files.delete(dir.resolve("luns.d/b.yaml"));
        assertThat(registry.reload().removed()).containsExactly("b");
        assertThat(registry.configDir()).contains(dir);
    }

    @Test
    void aDirectoryThatFailsValidationChangesNothingAndLogsEachProblem() throws Exception {
        lun("a", "backend: ram\nsize: 8MiB\n");   // a valid change, held back by the error below
        lun("c", "backend: ram\nsize: banana\nlogical-block-size: 3KiB\n");
        ControlException e = org.junit.jupiter.api.Assertions.assertThrows(ControlException.class, registry::reload);
        assertThat(e.kind()).isEqualTo(ControlException.Kind.INVALID);
        assertThat(e.lun()).isEqualTo("c");
        assertThat(e.getMessage()).contains("nothing changed");
        assertThat(names()).containsExactly("a");
        assertThat(registry.lun("a").orElseThrow().config().size()).isEqualTo(1 << 20);
        String file = dir.resolve("luns.d/c.yaml").toString();
        List<String> problems = logged.stream().filter(m -> m.contains(file)).toList();
        assertThat(problems).hasSize(2);   // one line per problem
        assertThat(problems).anyMatch(m -> m.contains(file + ":2: size:"));
        assertThat(problems).anyMatch(m -> m.contains(file + ":3: logical-block-size:"));
    }

    /**
     * Reload re-reads blocktarget.yaml too: discovery CHAP and the memory budget change at runtime (the iSCSI
     * transport's discovery CHAP is what the next discovery login checks), a key that needs a restart is a warning and
     * changes nothing at runtime.
     */
    @Test
    void reloadAppliesTheServerKeysItCanAndWarnsOfTheOthers() throws Exception {
        Files.writeString(dir.resolve("discovery.secret"), "discovery-secret-1\n");
        Files.writeString(dir.resolve("blocktarget.yaml"), "memory-budget: 32MiB\nevent-loops: 3\n"
                + "discovery-chap: {user: disco, secret-file: discovery.secret}\n");
        ApplyResult result = registry.reload();
        assertThat(result.steps()).containsExactly("memory budget: 64 MiB -> 32 MiB",
                "iSCSI discovery CHAP: none -> user disco (new discovery sessions)");
        assertThat(result.warnings()).singleElement().asString().startsWith("event-loops: 0 -> 3 takes effect when"
                + " the server starts again");
        assertThat(budget.limit()).isEqualTo(32L << 20);
        assertThat(iscsi.serverSettings().discoveryChap()).contains(
                io.blocktarget.transport.iscsi.Chap.oneWay("disco", "discovery-secret-1"));

        Files.writeString(dir.resolve("discovery.secret"), "discovery-secret-2\n");   // the same key, a new secret
        assertThat(registry.reload().steps()).containsExactly(
                "iSCSI discovery CHAP: user disco -> user disco (new discovery sessions)");
        assertThat(iscsi.serverSettings().discoveryChap().orElseThrow().secret()).isEqualTo("discovery-secret-2");

        Files.delete(dir.resolve("blocktarget.yaml"));
        ApplyResult back = registry.reload();
        assertThat(iscsi.serverSettings().discoveryChap()).isEmpty();
        assertThat(budget.limit()).isEqualTo(ConfigLoader.load(dir).server().memoryBudget());
        assertThat(back.warnings()).singleElement().asString().startsWith("event-loops: 3 -> 0");
    }

    @Test
    void theWatcherAppliesEditsAndSighupReloads() throws Exception {
        BlockingQueue<ConfigWatcher.Outcome> outcomes = new LinkedBlockingQueue<>();
        try (ConfigWatcher watcher = ConfigWatcher.start(registry, dir, Duration.ofMillis(200), outcomes::add)) {
            lun("d", "backend: ram\nsize: 1MiB\n");
            ConfigWatcher.Outcome added = outcomes.poll(20, TimeUnit.SECONDS);
            assertThat(added).isInstanceOf(ConfigWatcher.Outcome.Applied.class);
            assertThat(((ConfigWatcher.Outcome.Applied) added).result().added()).containsExactly("d");
            assertThat(names()).containsExactly("a", "d");

            lun("d", "backend: ram\nsize: 1MiB\nlogical-block-size: 5000\n");
            ConfigWatcher.Outcome refused = outcomes.poll(20, TimeUnit.SECONDS);
            assertThat(refused).isInstanceOf(ConfigWatcher.Outcome.Refused.class);
            assertThat(((ConfigWatcher.Outcome.Refused) refused).failure().lun()).isEqualTo("d");
            assertThat(registry.lun("d").orElseThrow().config().logicalBlockSize()).isEqualTo(512);   // as it was

            lun("d", "backend: ram\nsize: 1MiB\n");
            ConfigWatcher.Outcome fixed = outcomes.poll(20, TimeUnit.SECONDS);
            assertThat(((ConfigWatcher.Outcome.Applied) fixed).result().changedNothing()).isTrue();

            watcher.requestReload("SIGHUP");
            ConfigWatcher.Outcome hup = outcomes.poll(20, TimeUnit.SECONDS);
            assertThat(hup.trigger()).isEqualTo("SIGHUP");
            assertThat(((ConfigWatcher.Outcome.Applied) hup).result().changedNothing()).isTrue();
        }
    }
}
