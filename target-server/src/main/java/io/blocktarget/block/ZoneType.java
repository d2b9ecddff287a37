package io.blocktarget.block;

/** Zone types (ZBC-2 §4.4.2 ZONE TYPE field values, which these carry; ZNS knows only sequential-write-required, 2h). */
public enum ZoneType {
    /** Written anywhere, no write pointer (ZBC-2 1h). ZNS has no such zone: an NVMe export must not offer them. */
    CONVENTIONAL(0x1),
    /** Written only at the write pointer (ZBC-2 2h, ZNS Zone Type 2h). */
    SEQUENTIAL_WRITE_REQUIRED(0x2),
    /**
     * The part of a zone past its capacity, in the SCSI view only (ZBC-2 5h): a zone of {@link Zone#size()} blocks
     * with a smaller {@link Zone#capacity()} is reported over SCSI as a sequential zone of {@code capacity} blocks
     * followed by a gap zone of {@code size - capacity}. {@link Zones} never has a zone of this type; NVMe reports
     * size and capacity in one descriptor (ZSZE, ZCAP).
     */
    GAP(0x5);

    private final int code;

    ZoneType(int code) {
        this.code = code;
    }

    /** The ZBC-2 ZONE TYPE / ZNS Zone Type code. */
    public int code() {
        return code;
    }
}
