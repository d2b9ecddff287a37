package io.blocktarget.config;

import java.util.List;
import java.util.stream.Collectors;

/** A configuration directory with at least one problem; carries all of them. */
public final class ConfigException extends Exception {
    private final List<ConfigProblem> problems;

    public ConfigException(List<ConfigProblem> problems) {
        super(problems.stream().map(ConfigProblem::toString).collect(Collectors.joining("\n")), null, false, false);
        if (problems.isEmpty()) {
            throw new IllegalArgumentException("a ConfigException needs at least one problem");
        }
        this.problems = List.copyOf(problems);
    }

    public List<ConfigProblem> problems() {
        return problems;
    }
}
