package io.blocktarget.config;

/**
 * A value that breaks a rule: {@code what} is wrong with it and what is {@code allowed}. Thrown by the
 * value parsers of this package and turned into a {@link ConfigProblem} (with file, line and key) by
 * {@link YamlMap}; it never leaves the package.
 */
final class InvalidValue extends Exception {
    private final String what;
    private final String allowed;

    InvalidValue(String what, String allowed) {
        super(what + "; allowed: " + allowed, null, false, false);
        this.what = what;
        this.allowed = allowed;
    }

    String what() {
        return what;
    }

    String allowed() {
        return allowed;
    }
}
