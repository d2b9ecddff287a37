package io.blocktarget.config;

import java.nio.file.Path;
import java.util.List;

/** Adds the problems of one file to the list shared by the whole configuration directory. */
final class Problems {
    private final Path file;
    private final List<ConfigProblem> sink;
    private int count;

    Problems(Path file, List<ConfigProblem> sink) {
        this.file = file;
        this.sink = sink;
    }

    Path file() {
        return file;
    }

    void add(int line, String key, String message) {
        sink.add(new ConfigProblem(file, line, key, message));
        count++;
    }

    /** A problem found in another file this one names (e.g. a key file's line): counts as this file's. */
    void add(Path other, int line, String key, String message) {
        sink.add(new ConfigProblem(other, line, key, message));
        count++;
    }

    void add(int line, String key, InvalidValue invalid) {
        add(line, key, invalid.getMessage());
    }

    /** How many problems this file has so far: a LUN is only built from a file without any. */
    int count() {
        return count;
    }
}
