package io.blocktarget.protocol.nvmetcp;

import java.util.OptionalInt;

/**
 * Why a connection must end, mapped to the Fatal Error Status (FES) a C2HTermReq/H2CTermReq carries
 * (NVMe/TCP §3.6.2.4, Figure "C2HTermReq PDU - Fatal Error Status Values"). The Fatal Error Information (FEI)
 * is the byte offset of the offending field for INVALID_PDU_HEADER_FIELD and UNSUPPORTED_PARAMETER, reserved
 * otherwise.
 */
public enum NvmeTcpFatalError {
    INVALID_PDU_HEADER_FIELD(0x01),
    PDU_SEQUENCE_ERROR(0x02),
    HEADER_DIGEST_ERROR(0x03),
    DATA_TRANSFER_OUT_OF_RANGE(0x04),
    /** Also the R2T limit: FES 05h covers both (Linux names it twice). */
    DATA_TRANSFER_LIMIT_EXCEEDED(0x05),
    UNSUPPORTED_PARAMETER(0x06),
    /**
     * Data digest mismatch: not a TermReq reason — the spec completes the command with Transient Transport
     * Error (NVMe/TCP §3.3.3 / Base "Transient Transport Error" 22h); Linux nvmet drops the connection instead.
     */
    DATA_DIGEST_ERROR(-1);

    private final int fes;

    NvmeTcpFatalError(int fes) {
        this.fes = fes;
    }

    /** The FES code, empty for DATA_DIGEST_ERROR. */
    public OptionalInt fes() {
        return fes < 0 ? OptionalInt.empty() : OptionalInt.of(fes);
    }

    /** Whether FEI carries a field offset for this reason. */
    public boolean feiIsOffset() {
        return this == INVALID_PDU_HEADER_FIELD || this == UNSUPPORTED_PARAMETER;
    }

    public static NvmeTcpFatalError ofFes(int fes) {
        for (NvmeTcpFatalError e : values()) {
            if (e.fes == fes) {
                return e;
            }
        }
        return null;
    }
}
