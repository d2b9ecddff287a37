package io.blocktarget.block;

import java.util.Optional;

/**
 * The six persistent reservation types, with their codes in both command sets: SPC-5 §6.16.2 Table
 * "Persistent reservation type codes" (TYPE of PERSISTENT RESERVE OUT) and NVMe Base §7.x Reservation Acquire
 * RTYPE (1..6, defined to behave as the SCSI types of the same name, NVMe Base §8.1.22.1 Figure "Command
 * Behavior in the Presence of a Reservation").
 *
 * <p>Access (SPC-5 §5.14.1 Table "SPC commands that are allowed in the presence of various reservations",
 * SBC-4 §4.17 Table "SBC-4 commands that are allowed in the presence of various reservations", and the NVMe
 * figure): the holder may read and write; under the <em>Write Exclusive</em> types everybody else may read;
 * under the <em>Registrants Only</em> and <em>All Registrants</em> types every registrant may read and write;
 * under <em>All Registrants</em> every registrant is a holder.
 */
public enum ReservationType {
    WRITE_EXCLUSIVE(0x1, 1),
    EXCLUSIVE_ACCESS(0x3, 2),
    WRITE_EXCLUSIVE_REGISTRANTS_ONLY(0x5, 3),
    EXCLUSIVE_ACCESS_REGISTRANTS_ONLY(0x6, 4),
    WRITE_EXCLUSIVE_ALL_REGISTRANTS(0x7, 5),
    EXCLUSIVE_ACCESS_ALL_REGISTRANTS(0x8, 6);

    private final int scsiCode;
    private final int nvmeCode;

    ReservationType(int scsiCode, int nvmeCode) {
        this.scsiCode = scsiCode;
        this.nvmeCode = nvmeCode;
    }

    public int scsiCode() {
        return scsiCode;
    }

    public int nvmeCode() {
        return nvmeCode;
    }

    /** Whether registrants that do not hold it may read and write (the RO and AR types). */
    public boolean registrantsHaveAccess() {
        return this != WRITE_EXCLUSIVE && this != EXCLUSIVE_ACCESS;
    }

    /** Whether every registrant holds it (SPC-5 §5.14.10, NVMe Base §8.1.22). */
    public boolean allRegistrants() {
        return this == WRITE_EXCLUSIVE_ALL_REGISTRANTS || this == EXCLUSIVE_ACCESS_ALL_REGISTRANTS;
    }

    /** Whether others' reads conflict too (the Exclusive Access types), not only their writes. */
    public boolean exclusiveAccess() {
        return this == EXCLUSIVE_ACCESS || this == EXCLUSIVE_ACCESS_REGISTRANTS_ONLY
                || this == EXCLUSIVE_ACCESS_ALL_REGISTRANTS;
    }

    /** By SCSI TYPE code (0h..Fh) and NVMe RTYPE (0..FFh): tables built once. */
    private static final ReservationType[] BY_SCSI_CODE = new ReservationType[16];
    private static final ReservationType[] BY_NVME_CODE = new ReservationType[256];

    static {
        for (ReservationType t : values()) {
            BY_SCSI_CODE[t.scsiCode] = t;
            BY_NVME_CODE[t.nvmeCode] = t;
        }
    }

    public static Optional<ReservationType> ofScsi(int code) {
        return code >= 0 && code < BY_SCSI_CODE.length ? Optional.ofNullable(BY_SCSI_CODE[code]) : Optional.empty();
    }

    public static Optional<ReservationType> ofNvme(int code) {
        return code >= 0 && code < BY_NVME_CODE.length ? Optional.ofNullable(BY_NVME_CODE[code]) : Optional.empty();
    }
}
