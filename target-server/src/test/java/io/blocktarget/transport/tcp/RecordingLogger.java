package io.blocktarget.transport.tcp;

import java.lang.System.Logger;
import java.text.MessageFormat;
import java.util.List;
import java.util.ResourceBundle;
import java.util.concurrent.CopyOnWriteArrayList;

/** A System.Logger that keeps every formatted line (level and text) for assertions. */
public final class RecordingLogger implements Logger {
    public final List<String> lines = new CopyOnWriteArrayList<>();

    @Override
    public String getName() {
        return "recording";
    }

    @Override
    public boolean isLoggable(Level level) {
        return true;
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
        lines.add(level + " " + msg);
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
        lines.add(level + " " + (params == null || params.length == 0 ? format : MessageFormat.format(format, params)));
    }
}
