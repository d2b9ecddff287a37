package io.blocktarget.transport.tcp;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The formatted lines a java.util.logging logger (the System.Logger backend) receives while open; for asserting
 * how many lines a flood of bad PDUs writes.
 */
public final class CapturedLog extends Handler implements AutoCloseable {
    private final Logger logger;
    public final List<String> lines = new CopyOnWriteArrayList<>();

    public CapturedLog(String name) {
        logger = Logger.getLogger(name); // held: JUL keeps loggers weakly
        logger.addHandler(this);
    }

    @Override
    public void publish(LogRecord r) {
        lines.add(r.getLevel() + " " + new java.util.logging.SimpleFormatter().formatMessage(r));
    }

    public long count(String part) {
        return lines.stream().filter(l -> l.contains(part)).count();
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        logger.removeHandler(this);
    }
}
