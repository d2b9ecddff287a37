package io.blocktarget.config;

/**
 * How a change of one configuration key reaches a running server — the "may it change now" rule that Linux nvmet's
 * configfs keeps beside each attribute. Declared once per key (the key table); the server's plan diff takes the
 * strongest rule among a LUN's changed keys. Ordered from the gentlest to the most disruptive.
 */
public enum ChangeRule {
    /** Applied to the open device in place: data and sessions kept; initiators told (unit attention / AEN). */
    IN_PLACE("in place", "applied to the open device: data and sessions kept; initiators are told (unit attention,"
            + " namespace change notice)"),
    /** The device grows or shrinks in place (a shrink loses the blocks beyond the new end: needs --force). */
    RESIZE("resize", "the device grows or shrinks in place (a shrink loses the blocks beyond the new end)"),
    /** The device and its data stay; its iSCSI target / LUN or NVMe subsystem / NSID change (sessions see it move). */
    REEXPORT("re-export", "the device and its data stay; its iSCSI target / LUN or NVMe subsystem / NSID change"),
    /** The backend is closed and opened again: data on a file kept; sessions see the LUN go and come back. */
    REOPEN("reopen", "the backend is closed and opened again: a file's data kept; sessions see the LUN go and come"
            + " back"),
    /** A new device replaces the old: a RAM / null LUN's data is lost (needs --force); sessions see a new disk. */
    REPLACE("replace", "a new device replaces the old: a RAM or null LUN's data is lost; sessions see a new disk"),
    /** A server-wide key that takes effect at the next start only. */
    RESTART("restart", "takes effect at the next start of the server");

    private final String label;
    private final String doc;

    ChangeRule(String label, String doc) {
        this.label = label;
        this.doc = doc;
    }

    /** One line: what happens, as the key reference says it. */
    public String doc() {
        return doc;
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
