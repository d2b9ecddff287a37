package io.blocktarget.block.fault;

/**
 * The commands with which an initiator discovers a LUN's data placement (issue 32), for fault rules that fail or delay
 * them so the kernel's fallbacks (0 write streams, a warning, the device still usable) can be tested on demand. The
 * command sets classify their commands; a rule's {@code queries:} names these by {@link #configName}.
 */
public enum FaultQuery {
    /** NVMe Get Features 1Dh (FDP) — an admin command, matched only by rules that name it. */
    FDP_FEATURE(true),
    /** NVMe Get Log Page 20h (FDP Configurations) — an admin command, matched only by rules that name it. */
    FDP_CONFIGURATIONS(true),
    /** NVMe I/O Management Receive, MO 01h (Reclaim Unit Handle Status). */
    RUH_STATUS(false),
    /** SCSI INQUIRY of the Block Limits Extension VPD page (B7h). */
    BLOCK_LIMITS_EXTENSION(false),
    /** SCSI MODE SENSE of the IO Advice Hints Grouping mode page (0Ah / 05h). */
    IO_ADVICE_HINTS(false),
    /** SCSI GET STREAM STATUS (SERVICE ACTION IN(16) 9Eh / 16h). */
    STREAM_STATUS(false);

    private final boolean admin;

    FaultQuery(boolean admin) {
        this.admin = admin;
    }

    /**
     * Whether the query is an NVMe admin command: admin commands reach a LUN's rules only for these queries, and only
     * rules that name them match (a rule for every command of a LUN keeps meaning its namespace's I/O).
     */
    public boolean admin() {
        return admin;
    }

    /** The {@code queries:} value: {@code fdp-feature}, {@code ruh-status}, ... */
    public String configName() {
        return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    /** The query of a {@code queries:} value. */
    public static FaultQuery of(String configName) {
        for (FaultQuery q : values()) {
            if (q.configName().equals(configName)) {
                return q;
            }
        }
        throw new IllegalArgumentException("unknown query " + configName);
    }
}
