package io.blocktarget.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The stop and reload signals this process inherited as ignored. A shell without job control starts a background
 * command ({@code cmd &}, {@code nohup}) with SIGINT and SIGQUIT ignored (POSIX 2.11; nohup adds SIGHUP), and the JVM
 * leaves a signal ignored at start-up ignored: {@code Signal.handle} then installs nothing, so Ctrl-C or
 * {@code kill -INT} would do nothing without a word. Read from {@code SigIgn} of {@code /proc/self/status}.
 */
final class IgnoredSignals {
    /** The signals serve acts on, by number (signal(7), x86-64 and arm64 alike). */
    private static final Map<Integer, String> WATCHED = Map.of(1, "SIGHUP", 2, "SIGINT", 15, "SIGTERM");

    private IgnoredSignals() {
    }

    /** The watched signals ignored now, in number order; empty where /proc cannot be read. */
    static List<String> ofThisProcess() {
        try {
            return parse(Files.readString(Path.of("/proc/self/status")));
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }

    /** The watched signals set in the {@code SigIgn:} mask (hexadecimal, bit N-1 = signal N) of a status text. */
    static List<String> parse(String status) {
        Optional<String> line = status.lines().filter(l -> l.startsWith("SigIgn:")).findFirst();
        if (line.isEmpty()) {
            return List.of();
        }
        long mask = Long.parseUnsignedLong(line.get().substring("SigIgn:".length()).strip(), 16);
        List<String> ignored = new ArrayList<>();
        for (int signal : new int[] {1, 2, 15}) {
            if ((mask & (1L << (signal - 1))) != 0) {
                ignored.add(WATCHED.get(signal));
            }
        }
        return ignored;
    }
}
