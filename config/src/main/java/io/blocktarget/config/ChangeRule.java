package io.blocktarget.config;

/**
 * How a change of one configuration key reaches a running server — the "may it change now" rule that Linux nvmet's
 * configfs keeps beside each attribute. Declared once per key (the key table); the server's plan diff takes the
 * strongest rule among a LUN's changed keys. Ordered from the gentlest to the most disruptive.
 */
public enum ChangeRule {
    /** Applied to the open device in place: data and sessions kept; initiators told (unit attention / AEN). */
    IN_PLACE("in place"),
    /** The device grows or shrinks in place (a shrink loses the blocks beyond the new end: needs --force). */
    RESIZE("resize"),
    /** The device and its data stay; its iSCSI target / LUN or NVMe subsystem / NSID change (sessions see it move). */
    REEXPORT("re-export"),
    /** The backend is closed and opened again: data on a file kept; sessions see the LUN go and come back. */
    REOPEN("reopen"),
    /** A new device replaces the old: a RAM / null LUN's data is lost (needs --force); sessions see a new disk. */
    REPLACE("replace"),
    /** A server-wide key that takes effect at the next start only. */
    RESTART("restart");

    private final String label;

    ChangeRule(String label) {
        this.label = label;
    }

    /** As the docs, the CLI and the API say it. */
    public String label() {
        return label;
    }

    /** The stronger of the two rules. */
    public ChangeRule max(ChangeRule other) {
        return other.ordinal() > ordinal() ? other : this;
    }
}
