package io.blocktarget.fuzz;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The fuzz oracle's ear on the server's logs: a SEVERE record (an exception a handler caught: "opcode ... threw",
 * NVMe/TCP "internal error") or an iSCSI "internal error" close is a finding even though the connection survived
 * it by closing. Installed on the "blocktarget" logger for one input at a time.
 */
public final class Findings extends Handler implements AutoCloseable {
    private final Logger root = Logger.getLogger("blocktarget"); // held: JUL keeps loggers weakly
    private final List<String> found = new ArrayList<>();
    private final boolean parentHandlers;

    /** Also keeps the server's lines off the console while it listens: thousands of inputs, a dozen lines each. */
    public Findings() {
        parentHandlers = root.getUseParentHandlers();
        root.setUseParentHandlers(false);
        root.addHandler(this);
    }

    @Override
    public synchronized void publish(LogRecord r) {
        String text = r.getParameters() == null ? r.getMessage()
                : java.text.MessageFormat.format(r.getMessage(), r.getParameters());
        if (r.getLevel().intValue() >= Level.SEVERE.intValue() || text.contains("internal error")) {
            found.add(r.getLevel() + " " + text + (r.getThrown() == null ? "" : " " + r.getThrown()));
        }
    }

    /** Throws an AssertionError naming what was logged, if anything. */
    public synchronized void assertNone() {
        if (!found.isEmpty()) {
            throw new AssertionError("the server logged an internal error: " + found);
        }
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        root.removeHandler(this);
        root.setUseParentHandlers(parentHandlers);
    }
}
