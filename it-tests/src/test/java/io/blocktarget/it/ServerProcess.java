package io.blocktarget.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A blocktarget process started from the built jar (system property {@code blocktarget.jar}), with
 * its stdout and stderr collected line by line. Always closed by the test (try-with-resources), so
 * no server outlives a test.
 */
final class ServerProcess implements AutoCloseable {
    static final Path JAR = Path.of(System.getProperty("blocktarget.jar", "../target-server/target/blocktarget.jar"));
    static final Path REPO = Path.of(System.getProperty("blocktarget.repo", "..")).toAbsolutePath().normalize();

    private final Process process;
    private final List<String> out = new ArrayList<>();
    private final List<String> err = new ArrayList<>();
    private final Thread outPump;
    private final Thread errPump;

    private ServerProcess(Process process) {
        this.process = process;
        outPump = pump(process.getInputStream(), out, "stdout");
        errPump = pump(process.getErrorStream(), err, "stderr");
    }

    /**
     * The tests stop servers with SIGINT / SIGTERM and reload them with SIGHUP, so these start at their defaults
     * whatever the build was started from: a background job of a shell without job control inherits SIGINT (and
     * with nohup SIGHUP) ignored, and a JVM keeps an inherited ignored signal ignored.
     */
    private static final List<String> DEFAULT_SIGNALS = List.of("env", "--default-signal=HUP,INT,TERM");

    /** Runs {@code java -jar blocktarget.jar ARGS} in the repository root. */
    static ServerProcess start(String... args) throws IOException {
        List<String> cmd = new ArrayList<>(DEFAULT_SIGNALS);
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("--sun-misc-unsafe-memory-access=allow");
        cmd.add("-Xmx256m");
        cmd.add("-jar");
        cmd.add(JAR.toAbsolutePath().toString());
        cmd.addAll(List.of(args));
        return new ServerProcess(new ProcessBuilder(cmd).directory(REPO.toFile()).start());
    }

    /** Runs an arbitrary command (e.g. the ./blocktarget launcher) in the repository root. */
    static ServerProcess exec(List<String> command, java.util.Map<String, String> env) throws IOException {
        List<String> cmd = new ArrayList<>(DEFAULT_SIGNALS);
        cmd.addAll(command);
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(REPO.toFile());
        pb.environment().putAll(env);
        return new ServerProcess(pb.start());
    }

    private static Thread pump(InputStream in, List<String> sink, String name) {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    synchronized (sink) {
                        sink.add(line);
                        sink.notifyAll();
                    }
                }
            } catch (IOException e) {
                // process gone
            }
        }, "it-" + name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    long pid() {
        return process.pid();
    }

    List<String> stdout() {
        synchronized (out) {
            return List.copyOf(out);
        }
    }

    List<String> stderr() {
        synchronized (err) {
            return List.copyOf(err);
        }
    }

    /**
     * Whether a line of stdout ({@code fromStdout}) or stderr matches before {@code timeout} and before the process's
     * streams end; false (no exception) otherwise.
     */
    boolean sawLine(boolean fromStdout, Predicate<String> match, Duration timeout) throws InterruptedException {
        try {
            awaitLine(fromStdout, match, timeout);
            return true;
        } catch (AssertionError none) {
            return false;
        }
    }

    /** Waits until a line of stdout ({@code fromStdout}) or stderr matches; fails with both streams on timeout. */
    String awaitLine(boolean fromStdout, Predicate<String> match, Duration timeout) throws InterruptedException {
        List<String> sink = fromStdout ? out : err;
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (sink) {
            while (true) {
                for (String line : sink) {
                    if (match.test(line)) {
                        return line;
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0 || (!outPump.isAlive() && !errPump.isAlive())) {
                    throw new AssertionError("no matching line on " + (fromStdout ? "stdout" : "stderr")
                            + " within " + timeout + "; alive=" + process.isAlive()
                            + "\nstdout:\n" + String.join("\n", stdout()) + "\nstderr:\n" + String.join("\n", stderr()));
                }
                sink.wait(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), 200)));
            }
        }
    }

    /**
     * SIGTERM. Through the ProcessHandle: Process.destroy() would also close our ends of the
     * process's stdout/stderr, losing the lines it writes while shutting down.
     */
    void terminate() {
        process.toHandle().destroy();
    }

    /** Sends a named signal with kill(1), e.g. "INT". */
    void signal(String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IOException("kill -" + name + " failed");
        }
    }

    /** Waits for exit and returns the code; fails (and kills) on timeout. */
    int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            threadDump();
            process.destroyForcibly();
            throw new AssertionError("process did not exit within " + timeout
                    + "\nstdout:\n" + String.join("\n", stdout()) + "\nstderr:\n" + String.join("\n", stderr()));
        }
        // the pumps end at EOF: after joining them every line the process wrote is here
        outPump.join(TimeUnit.SECONDS.toMillis(30));
        errPump.join(TimeUnit.SECONDS.toMillis(30));
        return process.exitValue();
    }

    /**
     * SIGQUIT: a JVM that did not exit prints its threads on stdout, so the failure says where it hangs. Waits until
     * the dump's last section (the JNI summary) arrived, or 5 s.
     */
    private void threadDump() throws InterruptedException {
        try {
            signal("QUIT");
            awaitLine(true, l -> l.startsWith("JNI global refs"), Duration.ofSeconds(5));
        } catch (IOException | AssertionError e) {
            // not a JVM, or it is gone: the streams say what there is
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.descendants().forEach(ProcessHandle::destroyForcibly); // a guest's qemu under run.sh
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
