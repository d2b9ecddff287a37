package io.blocktarget.protocol.scsi;

/**
 * SANITIZE (SBC-4 §5.30): the service action, IMMED, AUSE and PARAMETER LIST LENGTH. ZNR (zoned
 * devices only, and they do not support SANITIZE) is refused as a reserved bit. The length is checked at execution,
 * where the logical block size that bounds an OVERWRITE parameter list is known.
 */
public record SanitizeCdb(ServiceAction serviceAction, boolean immed, boolean ause, int parameterListLength)
        implements Cdb {
    public static final FieldPointer PARAMETER_LIST_LENGTH_FIELD = FieldPointer.cdb(7, 7);

    /** SERVICE ACTION codes (SBC-4 Table "SANITIZE service action codes"). */
    public enum ServiceAction {
        OVERWRITE(0x01), BLOCK_ERASE(0x02), CRYPTOGRAPHIC_ERASE(0x03), EXIT_FAILURE_MODE(0x1F);

        private final int code;

        ServiceAction(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }

        public static java.util.Optional<ServiceAction> fromCode(int code) {
            for (ServiceAction sa : values()) {
                if (sa.code == code) {
                    return java.util.Optional.of(sa);
                }
            }
            return java.util.Optional.empty();
        }
    }
}
