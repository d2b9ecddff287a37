package io.blocktarget.server;

import io.blocktarget.config.ConfigLoader;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The config directory as the source of truth (issue 9 item 6): edits under {@code luns.d/} and SIGHUP reload the
 * directory through {@link ControlPlane#reload} — the one validation and the one apply the API uses too.
 *
 * <p>Two daemon threads, neither an event loop: one waits on a {@link WatchService} and debounces (an editor's save
 * is several events — temp file, rename, modify — so a reload starts once {@code luns.d/} has been quiet for the
 * debounce interval), the other runs the reloads one after another, for file events and {@link #requestReload}
 * (SIGHUP) alike. A reload that fails validation has changed nothing and is logged by the registry, one line per
 * problem.
 */
public final class ConfigWatcher implements AutoCloseable {
    private static final Logger LOG = System.getLogger("blocktarget.server");
    public static final Duration DEFAULT_DEBOUNCE = Duration.ofMillis(200);

    /** What one reload did; for tests and logs. */
    public sealed interface Outcome {
        String trigger();

        record Applied(String trigger, ControlPlane.ApplyResult result) implements Outcome {
        }

        record Refused(String trigger, ControlPlane.ControlException failure) implements Outcome {
        }
    }

    private final ControlPlane control;
    private final Path lunsDir;
    private final Duration debounce;
    private final Consumer<Outcome> listener;
    private final WatchService watch;
    private final ExecutorService reloader;
    private final Thread watcher;

    private ConfigWatcher(ControlPlane control, Path configDir, Duration debounce, Consumer<Outcome> listener)
            throws IOException {
        this.control = Objects.requireNonNull(control, "control");
        this.lunsDir = configDir.resolve(ConfigLoader.LUNS_DIR);
        this.debounce = debounce;
        this.listener = listener;
        this.reloader = Executors.newSingleThreadExecutor(r -> daemon(r, "blocktarget-config-reload"));
        this.watch = lunsDir.getFileSystem().newWatchService();
        // luns.d may not exist yet: then watch the directory itself, and a created luns.d counts as an edit.
        Path watched = Files.isDirectory(lunsDir) ? lunsDir : configDir;
        watched.register(watch, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE,
                StandardWatchEventKinds.ENTRY_MODIFY);
        this.watcher = daemon(this::watchLoop, "blocktarget-config-watch");
    }

    /**
     * Starts watching {@code configDir/luns.d}; every reload's outcome goes to {@code listener} (on the reload
     * thread) after the registry has logged it.
     */
    public static ConfigWatcher start(ControlPlane control, Path configDir, Duration debounce,
                                      Consumer<Outcome> listener) throws IOException {
        ConfigWatcher w = new ConfigWatcher(control, configDir, debounce, listener);
        w.watcher.start();
        LOG.log(Level.INFO, "watching " + w.lunsDir + " for changes (SIGHUP reloads too)");
        return w;
    }

    public static ConfigWatcher start(ControlPlane control, Path configDir) throws IOException {
        return start(control, configDir, DEFAULT_DEBOUNCE, outcome -> { });
    }

    /** Queues a reload (SIGHUP, tests); returns at once. */
    public void requestReload(String trigger) {
        reloader.execute(() -> reload(trigger));
    }

    private void watchLoop() {
        try {
            for (;;) {
                boolean lunFiles = drain(watch.take());
                // debounce: wait until the directory has been quiet for the interval
                for (WatchKey more; (more = watch.poll(debounce.toMillis(), TimeUnit.MILLISECONDS)) != null; ) {
                    lunFiles |= drain(more);
                }
                if (lunFiles) {
                    requestReload(lunsDir + " changed");
                }
            }
        } catch (InterruptedException | ClosedWatchServiceException e) {
            // closing
        }
    }

    /**
     * Consumes the key's events; true when one may concern a LUN file ({@code *.yaml}, or an overflow). The server
     * writes files of its own beside them — persistent reservations ({@code NAME.pr}, temp files), API write-backs'
     * temp files — which must not trigger a reload.
     */
    private static boolean drain(WatchKey key) {
        boolean lunFiles = false;
        for (java.nio.file.WatchEvent<?> event : key.pollEvents()) {
            lunFiles |= !(event.context() instanceof Path p) || p.getFileName().toString().endsWith(".yaml");
        }
        key.reset();
        return lunFiles;
    }

    private void reload(String trigger) {
        Outcome outcome;
        try {
            outcome = new Outcome.Applied(trigger, control.reload());
        } catch (ControlPlane.ControlException e) {
            LOG.log(Level.WARNING, "reload after " + trigger + " refused: nothing changed");
            outcome = new Outcome.Refused(trigger, e);
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "reload after " + trigger + " failed", e);
            return;
        }
        listener.accept(outcome);
    }

    @Override
    public void close() {
        try {
            watch.close();
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "closing the watch service: " + e);
        }
        watcher.interrupt();
        reloader.shutdownNow();
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }
}
