package io.blocktarget.fuzz;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The fuzz oracle's ear on the server's logs: a SEVERE record (an exception a handler caught: "opcode ... threw",
 * NVMe/TCP "internal error") or an iSCSI close for an "internal error: EXCEPTION" is a finding even though the connection survived
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
        // judged on the format and the reason's fixed prefix, never on the formatted text: that holds
        // initiator-controlled names, and Jazzer learns the oracle's strings (it once sent a TargetName
        // containing "internal error")
        Object[] p = r.getParameters();
        boolean internal = r.getLevel().intValue() >= Level.SEVERE.intValue()
                || r.getMessage() != null && r.getMessage().endsWith("closing connection: {1}") && p != null
                && p.length > 1 && String.valueOf(p[1]).startsWith("internal error: ");
        if (internal) {
            String text = p == null ? r.getMessage() : java.text.MessageFormat.format(r.getMessage(), p);
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
