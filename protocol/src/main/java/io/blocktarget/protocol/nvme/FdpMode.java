package io.blocktarget.protocol.nvme;

/**
 * The Flexible Data Placement feature (Feature Identifier 1Dh; NVMe Base 2.1 "Flexible Data Placement", TP4146). Get
 * Features and Set Features name the endurance group in CDW11 bits 15:0 (ENDGID); the value — Get Features completion
 * DW0, Set Features CDW12 — is bit 0 FDPE (FDP enabled) and bits 15:8 FDPCIDX (the FDP configuration in use, an index
 * into the FDP Configurations log page). Linux reads it with CDW11 = the namespace's ENDGID and registers write
 * streams only when FDPE is set ({@code nvme_query_fdp_info}). Setting it while the endurance group has namespaces is
 * a Command Sequence Error.
 *
 * @param enabled            FDPE
 * @param configurationIndex FDPCIDX, 0..255
 */
public record FdpMode(boolean enabled, int configurationIndex) {
    public static final int FEATURE_ID = 0x1D;
    public static final int FDPE = 1;

    public FdpMode {
        if (configurationIndex < 0 || configurationIndex > 0xFF) {
            throw new IllegalArgumentException("FDPCIDX " + configurationIndex);
        }
    }

    /** Get Features completion DW0 (and the Set Features CDW12 a host sends). */
    public int toDword() {
        return (enabled ? FDPE : 0) | configurationIndex << 8;
    }

    /** Set Features CDW12 (reserved bits ignored). */
    public static FdpMode fromDword(int dword) {
        return new FdpMode((dword & FDPE) != 0, dword >>> 8 & 0xFF);
    }

    /** ENDGID of Get / Set Features CDW11. */
    public static int enduranceGroup(int cdw11) {
        return cdw11 & 0xFFFF;
    }
}
