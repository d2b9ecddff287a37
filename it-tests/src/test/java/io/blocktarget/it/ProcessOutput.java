package io.blocktarget.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A child process's output (stdout and stderr merged: start it with {@code redirectErrorStream(true)}), copied line
 * by line into a log file as it comes, so a test waits for the line it needs — a server's "portals: " once it
 * listens — instead of polling a port or a file.
 */
public final class ProcessOutput {
    private final Process process;
    private final List<String> lines = new ArrayList<>();
    private boolean ended;

    private ProcessOutput(Process process) {
        this.process = process;
    }

    /** Starts copying {@code process}'s output into {@code log} (created or truncated). */
    public static ProcessOutput follow(Process process, Path log) throws IOException {
        ProcessOutput output = new ProcessOutput(process);
        Writer file = Files.newBufferedWriter(log, StandardCharsets.UTF_8);
        Thread pump = new Thread(() -> output.pump(file), "it-output-" + process.pid());
        pump.setDaemon(true);
        pump.start();
        return output;
    }

    private void pump(Writer file) {
        try (file; BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                file.write(line);
                file.write('\n');
                file.flush();
                synchronized (this) {
                    lines.add(line);
                    notifyAll();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            synchronized (this) {
                ended = true;
                notifyAll();
            }
        }
    }

    /**
     * The first line that matches, waiting for the process to print it; fails with everything it printed when its
     * output ends first or {@code timeout} passes.
     */
    public String await(Predicate<String> match, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (this) {
            int seen = 0;
            while (true) {
                for (; seen < lines.size(); seen++) {
                    if (match.test(lines.get(seen))) {
                        return lines.get(seen);
                    }
                }
                long left = deadline - System.nanoTime();
                if (ended || left <= 0) {
                    throw new AssertionError((ended ? "the process's output ended (alive=" + process.isAlive() + ")"
                            : "nothing matched within " + timeout) + "; it printed:\n" + String.join("\n", lines));
                }
                wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            }
        }
    }

    /** Everything the process printed, once its output ended (it exited); fails after {@code timeout}. */
    public synchronized String awaitEnd(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!ended) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("the process's output did not end within " + timeout + ":\n" + text());
            }
            wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        }
        return text();
    }

    /** Everything printed so far. */
    public synchronized String text() {
        return String.join("\n", lines);
    }
}
