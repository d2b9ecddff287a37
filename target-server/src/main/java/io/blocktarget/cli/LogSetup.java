package io.blocktarget.cli;

import java.io.PrintStream;
import java.time.Instant;
import java.util.logging.ConsoleHandler;
import java.util.logging.Formatter;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Operator logs: one line per event on stderr, {@code 2026-11-30T10:41:08.123Z INFO  blocktarget.server: ...}.
 * java.util.logging is the backend of System.Logger, Vert.x and Netty alike, so one formatter covers all.
 * {@code BLOCKTARGET_LOG=FINE} (any JUL level) changes the level of blocktarget's own loggers.
 */
final class LogSetup {
    private LogSetup() {
    }

    static void install() {
        LogManager.getLogManager().reset();
        Logger root = Logger.getLogger("");
        ConsoleHandler handler = new ConsoleHandler();
        handler.setFormatter(new OneLineFormatter());
        handler.setLevel(Level.ALL);
        root.addHandler(handler);
        root.setLevel(Level.INFO);
        Level ours = parse(System.getenv("BLOCKTARGET_LOG"), Level.INFO);
        Logger.getLogger("blocktarget").setLevel(ours);
        // Libraries speak only when something is wrong.
        Logger.getLogger("io.netty").setLevel(Level.WARNING);
        Logger.getLogger("io.vertx").setLevel(Level.WARNING);
    }

    static Level parse(String name, Level fallback) {
        if (name == null || name.isBlank()) {
            return fallback;
        }
        try {
            return Level.parse(name.trim().toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            return fallback;
        }
    }

    static final class OneLineFormatter extends Formatter {
        @Override
        public String format(LogRecord r) {
            StringBuilder sb = new StringBuilder(128)
                    .append(Instant.ofEpochMilli(r.getMillis()))
                    .append(' ')
                    .append(label(r.getLevel()))
                    .append(' ')
                    .append(r.getLoggerName())
                    .append(": ")
                    .append(formatMessage(r));
            if (r.getThrown() != null) {
                sb.append(" (").append(r.getThrown()).append(')');
            }
            return sb.append(System.lineSeparator()).toString();
        }

        private static String label(Level level) {
            if (level.intValue() >= Level.SEVERE.intValue()) {
                return "ERROR";
            }
            if (level.intValue() >= Level.WARNING.intValue()) {
                return "WARN ";
            }
            if (level.intValue() >= Level.INFO.intValue()) {
                return "INFO ";
            }
            return "DEBUG";
        }
    }

    /** For tests: print through the formatter without touching global state. */
    static void printTo(PrintStream out, LogRecord r) {
        out.print(new OneLineFormatter().format(r));
    }
}
