package io.blocktarget.protocol.nvme;

/**
 * Where Flexible Data Placement shows in the Identify data and statuses (NVMe Base 2.1, TP4146) — the fields Linux
 * looks at before anything else: CTRATT bit 19 FDPS in Identify Controller (without it {@code nvme_query_fdp_info} is
 * never called) and the namespace's ENDGID, which it passes as CDW11 of Get Features 1Dh and as LSI of log 20h.
 */
public final class FdpIdentify {
    /** Identify Controller CTRATT (bytes 99:96) bit 4: Endurance Groups supported. */
    public static final int CTRATT_ENDURANCE_GROUPS = 1 << 4;
    /** Identify Controller CTRATT bit 19: Flexible Data Placement supported (FDPS). */
    public static final int CTRATT_FDPS = 1 << 19;
    /** Identify Controller ENDGIDMAX, bytes 341:340: the highest endurance group identifier. */
    public static final int ID_CTRL_ENDGIDMAX_OFFSET = 340;
    /** Identify Namespace (CNS 00h) ENDGID, bytes 103:102. */
    public static final int ID_NS_ENDGID_OFFSET = 102;
    /** I/O Command Set Independent Identify Namespace (CNS 08h) ENDGID, bytes 13:12. */
    public static final int ID_NS_CS_INDEPENDENT_ENDGID_OFFSET = 12;
    /** Generic status 29h: FDP is disabled (a command that needs it, e.g. RUH Status, on a group without it). */
    public static final int SC_FDP_DISABLED = 0x29;
    /** Generic status 2Ah: Invalid Placement Handle List (Namespace Management with a bad list). */
    public static final int SC_INVALID_PLACEMENT_HANDLE_LIST = 0x2A;

    private FdpIdentify() {
    }
}
