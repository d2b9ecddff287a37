package io.blocktarget.protocol.nvme;

/**
 * Completion status reasons, one row per reason: Status Code Type, Status Code, Do Not Retry
 * (NVMe Base 2.x §4.2.3 "Status Field Definition"; NVM Command Set §4.1.1; Fabrics in Base §4.2.3.2 and
 * the Connect response of Base §6.3). The dispatcher encodes the row into the CQE status field; handlers only
 * name the reason. DNR is set where retrying the same command cannot succeed.
 */
public enum NvmeStatus {
    // Generic Command Status (SCT 0h), Base §4.2.3.1 Figure "Generic Command Status Values"
    SUCCESS(StatusCodeType.GENERIC, 0x00, false),
    INVALID_OPCODE(StatusCodeType.GENERIC, 0x01, true),
    INVALID_FIELD(StatusCodeType.GENERIC, 0x02, true),
    COMMAND_ID_CONFLICT(StatusCodeType.GENERIC, 0x03, true),
    DATA_TRANSFER_ERROR(StatusCodeType.GENERIC, 0x04, false),
    INTERNAL_ERROR(StatusCodeType.GENERIC, 0x06, false),
    ABORTED_BY_REQUEST(StatusCodeType.GENERIC, 0x07, false),
    ABORTED_SQ_DELETION(StatusCodeType.GENERIC, 0x08, false),
    /** Base §3.4.2: the first command of a fused operation failed, so its second was not run (retry the pair). */
    ABORTED_FAILED_FUSED(StatusCodeType.GENERIC, 0x09, false),
    /** Base §3.4.2: a fused command without its other half next to it in the submission queue. */
    ABORTED_MISSING_FUSED(StatusCodeType.GENERIC, 0x0A, true),
    INVALID_NAMESPACE_OR_FORMAT(StatusCodeType.GENERIC, 0x0B, true),
    COMMAND_SEQUENCE_ERROR(StatusCodeType.GENERIC, 0x0C, true),
    INVALID_SGL_SEGMENT_DESCRIPTOR(StatusCodeType.GENERIC, 0x0D, true),
    INVALID_NUMBER_OF_SGL_DESCRIPTORS(StatusCodeType.GENERIC, 0x0E, true),
    DATA_SGL_LENGTH_INVALID(StatusCodeType.GENERIC, 0x0F, true),
    METADATA_SGL_LENGTH_INVALID(StatusCodeType.GENERIC, 0x10, true),
    SGL_DESCRIPTOR_TYPE_INVALID(StatusCodeType.GENERIC, 0x11, true),
    SGL_OFFSET_INVALID(StatusCodeType.GENERIC, 0x16, true),
    HOST_IDENTIFIER_INCONSISTENT_FORMAT(StatusCodeType.GENERIC, 0x18, true),
    KEEP_ALIVE_TIMER_EXPIRED(StatusCodeType.GENERIC, 0x19, false),
    KEEP_ALIVE_TIMEOUT_INVALID(StatusCodeType.GENERIC, 0x1A, true),
    SGL_DATA_BLOCK_GRANULARITY_INVALID(StatusCodeType.GENERIC, 0x1E, true),
    NAMESPACE_IS_WRITE_PROTECTED(StatusCodeType.GENERIC, 0x20, true),
    /** Base 2.0 §4.2.3.1: processing was interrupted, the host should retry; the controller shall clear DNR. */
    COMMAND_INTERRUPTED(StatusCodeType.GENERIC, 0x21, false),
    /** Data digest mismatch on a data PDU (NVMe/TCP §3.6.2.11: retryable, not connection-fatal). */
    TRANSIENT_TRANSPORT_ERROR(StatusCodeType.GENERIC, 0x22, false),
    /** Base 2.0 §5.27.1.21: Set Features I/O Command Set Profile with an index that names no combination. */
    /** TP4146: the endurance group has Flexible Data Placement disabled (RUH Status / Update, FDP logs). */
    FDP_DISABLED(StatusCodeType.GENERIC, 0x29, true),
    IO_COMMAND_SET_COMBINATION_REJECTED(StatusCodeType.GENERIC, 0x2B, true),
    // Generic, NVM Command Set specific values (80h..), NVM Command Set §4.1.1.1
    LBA_OUT_OF_RANGE(StatusCodeType.GENERIC, 0x80, true),
    CAPACITY_EXCEEDED(StatusCodeType.GENERIC, 0x81, true),
    NAMESPACE_NOT_READY(StatusCodeType.GENERIC, 0x82, false),
    RESERVATION_CONFLICT(StatusCodeType.GENERIC, 0x83, true),

    // Command Specific Status (SCT 1h), Base §4.2.3.2
    COMPLETION_QUEUE_INVALID(StatusCodeType.COMMAND_SPECIFIC, 0x00, true),
    INVALID_QUEUE_IDENTIFIER(StatusCodeType.COMMAND_SPECIFIC, 0x01, true),
    INVALID_QUEUE_SIZE(StatusCodeType.COMMAND_SPECIFIC, 0x02, true),
    ABORT_COMMAND_LIMIT_EXCEEDED(StatusCodeType.COMMAND_SPECIFIC, 0x03, true),
    ASYNC_EVENT_REQUEST_LIMIT_EXCEEDED(StatusCodeType.COMMAND_SPECIFIC, 0x05, true),
    INVALID_LOG_PAGE(StatusCodeType.COMMAND_SPECIFIC, 0x09, true),
    INVALID_FORMAT(StatusCodeType.COMMAND_SPECIFIC, 0x0A, true),
    FEATURE_NOT_SAVEABLE(StatusCodeType.COMMAND_SPECIFIC, 0x0D, true),
    FEATURE_NOT_CHANGEABLE(StatusCodeType.COMMAND_SPECIFIC, 0x0E, true),
    FEATURE_NOT_NAMESPACE_SPECIFIC(StatusCodeType.COMMAND_SPECIFIC, 0x0F, true),
    // NVM Command Set command specific (80h..), NVM Command Set §4.1.1.2
    CONFLICTING_ATTRIBUTES(StatusCodeType.COMMAND_SPECIFIC, 0x80, true),
    INVALID_PROTECTION_INFORMATION(StatusCodeType.COMMAND_SPECIFIC, 0x81, true),
    ATTEMPTED_WRITE_TO_READ_ONLY_RANGE(StatusCodeType.COMMAND_SPECIFIC, 0x82, true),
    /** Copy over MSRC, MSSRL or MCL (NVM Command Set §3.2.2). */
    COMMAND_SIZE_LIMIT_EXCEEDED(StatusCodeType.COMMAND_SPECIFIC, 0x83, true),
    // Zoned Namespace Command Set 1.1 §3.3.1 Figure "Status Code – Command Specific Status Values"
    ZONE_BOUNDARY_ERROR(StatusCodeType.COMMAND_SPECIFIC, 0xB8, true),
    ZONE_IS_FULL(StatusCodeType.COMMAND_SPECIFIC, 0xB9, true),
    ZONE_IS_READ_ONLY(StatusCodeType.COMMAND_SPECIFIC, 0xBA, true),
    ZONE_IS_OFFLINE(StatusCodeType.COMMAND_SPECIFIC, 0xBB, true),
    ZONE_INVALID_WRITE(StatusCodeType.COMMAND_SPECIFIC, 0xBC, true),
    TOO_MANY_ACTIVE_ZONES(StatusCodeType.COMMAND_SPECIFIC, 0xBD, true),
    TOO_MANY_OPEN_ZONES(StatusCodeType.COMMAND_SPECIFIC, 0xBE, true),
    INVALID_ZONE_STATE_TRANSITION(StatusCodeType.COMMAND_SPECIFIC, 0xBF, true),
    // Fabrics Connect / Discovery command specific (Base §4.2.3.2, Connect response §6.3)
    CONNECT_INCOMPATIBLE_FORMAT(StatusCodeType.COMMAND_SPECIFIC, 0x80, true),
    /** The host may retry later (e.g. the controller ID is in use), so DNR stays clear. */
    CONNECT_CONTROLLER_BUSY(StatusCodeType.COMMAND_SPECIFIC, 0x81, false),
    /** DW0 carries IPO/IATTR naming the bad field: see {@link ConnectResponse#invalidParameter}. */
    CONNECT_INVALID_PARAMETERS(StatusCodeType.COMMAND_SPECIFIC, 0x82, true),
    /**
     * Connect Invalid Parameters with DNR clear, for a SUBNQN that names no subsystem now: subsystems come and go at
     * runtime (control API, reload), so the same Connect may succeed later (Base §4.2.3.1: DNR clear = "may succeed
     * if retried"). A Linux host deletes a controller whose reconnect is answered with DNR (nvmf_should_reconnect),
     * so a LUN removed and added again would lose its hosts for good (blktests nvme/061); SPDK's target clears DNR
     * here too, Linux nvmet sets it. {@link #of} names 82h {@link #CONNECT_INVALID_PARAMETERS}.
     */
    CONNECT_INVALID_PARAMETERS_RETRYABLE(StatusCodeType.COMMAND_SPECIFIC, 0x82, false),
    CONNECT_RESTART_DISCOVERY(StatusCodeType.COMMAND_SPECIFIC, 0x83, true),
    CONNECT_INVALID_HOST(StatusCodeType.COMMAND_SPECIFIC, 0x84, true),
    INVALID_QUEUE_TYPE(StatusCodeType.COMMAND_SPECIFIC, 0x85, true),
    DISCOVERY_RESTART(StatusCodeType.COMMAND_SPECIFIC, 0x90, false),
    AUTHENTICATION_REQUIRED(StatusCodeType.COMMAND_SPECIFIC, 0x91, true),

    // Media and Data Integrity Errors (SCT 2h), NVM Command Set §4.1.1.3
    WRITE_FAULT(StatusCodeType.MEDIA_ERROR, 0x80, false),
    UNRECOVERED_READ_ERROR(StatusCodeType.MEDIA_ERROR, 0x81, false),
    COMPARE_FAILURE(StatusCodeType.MEDIA_ERROR, 0x85, true),
    ACCESS_DENIED(StatusCodeType.MEDIA_ERROR, 0x86, true),

    // Path Related Status (SCT 3h), Base §4.2.3.4
    INTERNAL_PATH_ERROR(StatusCodeType.PATH_RELATED, 0x00, false),
    // Asymmetric access (Base 2.x §8.1.1.3): not DNR, so a multipath host retries on another path
    ASYMMETRIC_ACCESS_PERSISTENT_LOSS(StatusCodeType.PATH_RELATED, 0x01, false),
    ASYMMETRIC_ACCESS_INACCESSIBLE(StatusCodeType.PATH_RELATED, 0x02, false),
    ASYMMETRIC_ACCESS_TRANSITION(StatusCodeType.PATH_RELATED, 0x03, false),
    HOST_PATHING_ERROR(StatusCodeType.PATH_RELATED, 0x70, false);

    private final StatusCodeType sct;
    private final int sc;
    private final boolean dnr;
    /** Built once: every completion encodes it. */
    private final CqeStatus cqeStatus;

    NvmeStatus(StatusCodeType sct, int sc, boolean dnr) {
        this.sct = sct;
        this.sc = sc;
        this.dnr = dnr;
        this.cqeStatus = new CqeStatus(sc, sct.code(), 0, false, dnr);
    }

    public StatusCodeType sct() {
        return sct;
    }

    /** Status Code, 8 bits. */
    public int sc() {
        return sc;
    }

    /** Do Not Retry. */
    public boolean dnr() {
        return dnr;
    }

    public boolean isSuccess() {
        return this == SUCCESS;
    }

    /** This reason as the 15-bit status of a CQE (no CRD, no M): see {@link CqeStatus}. */
    public CqeStatus toCqeStatus() {
        return cqeStatus;
    }

    /**
     * The reason for a (SCT, SC) pair, or {@code null} when it is not one we name. Command specific codes are
     * shared between command sets (80h means Conflicting Attributes for DSM but Incompatible Format for
     * Connect); this returns the first row, which is enough for logging and tests.
     */
    public static NvmeStatus of(int sct, int sc) {
        for (NvmeStatus s : values()) {
            if (s.sct.code() == sct && s.sc == sc) {
                return s;
            }
        }
        return null;
    }

    /** Status Code Type (CQE status bits 11:9). */
    public enum StatusCodeType {
        GENERIC(0x0), COMMAND_SPECIFIC(0x1), MEDIA_ERROR(0x2), PATH_RELATED(0x3), VENDOR_SPECIFIC(0x7);

        private final int code;

        StatusCodeType(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }
    }
}
