package io.blocktarget.config;

/** The {@code backend:} of a LUN file. */
public enum BackendKind {
    /** Sparse off-heap RAM disk, counted against the server's memory budget. */
    RAM("ram"),
    /** Regular file or block device (the "loop device"). */
    FILE("file"),
    /** Reads zeros, discards writes: measures protocol overhead. */
    NULL("null");

    private final String configName;

    BackendKind(String configName) {
        this.configName = configName;
    }

    /** The spelling used in YAML. */
    public String configName() {
        return configName;
    }
}
