package io.blocktarget.config;

import java.nio.file.Path;

/**
 * One thing wrong with a configuration, printed as {@code file:line: key: what is wrong; what is allowed}.
 *
 * @param file    the offending file
 * @param line    1-based line, 0 when the problem concerns the file as a whole
 * @param key     dotted key path, e.g. {@code export.iscsi.lun}; empty when not about one key
 * @param message what is wrong and what is allowed
 */
public record ConfigProblem(Path file, int line, String key, String message) {
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        sb.append(file);
        if (line > 0) {
            sb.append(':').append(line);
        }
        sb.append(": ");
        if (key != null && !key.isEmpty()) {
            sb.append(key).append(": ");
        }
        return sb.append(message).toString();
    }
}
