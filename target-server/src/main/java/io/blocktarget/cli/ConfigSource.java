package io.blocktarget.cli;

import io.blocktarget.config.BlocktargetConfig;
import io.blocktarget.config.ConfigException;
import io.blocktarget.config.ConfigLoader;
import io.blocktarget.config.ConfigProblem;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Optional;

/** Loads {@code --config DIR} or the embedded default, and reports problems the same way for every command. */
final class ConfigSource {
    private ConfigSource() {
    }

    /** The config, or empty after printing every problem to {@code err}. */
    static Optional<BlocktargetConfig> load(Path dir, PrintWriter err) {
        if (dir == null) {
            return Optional.of(ConfigLoader.embeddedDefault());
        }
        try {
            return Optional.of(ConfigLoader.load(dir));
        } catch (ConfigException e) {
            for (ConfigProblem p : e.problems()) {
                err.println(p);
            }
            int n = e.problems().size();
            err.println("blocktarget: " + n + (n == 1 ? " problem" : " problems") + " in " + dir);
            err.flush();
            return Optional.empty();
        }
    }

    static String describe(Path dir) {
        return dir == null ? "embedded default" : dir.toString();
    }
}
