package io.blocktarget.protocol.scsi;

/**
 * ZBC IN / REPORT ZONES (ZBC-2 §5.4, service action 00h of operation code 95h).
 *
 * @param zoneStartLba      ZONE START LBA: the report starts with the zone holding it
 * @param allocationLength  ALLOCATION LENGTH, bytes 10-13
 * @param partial           PARTIAL: the ZONE LIST LENGTH counts only the descriptors that fit
 * @param reportingOptions  REPORTING OPTIONS (6 bits), see {@link ReportZonesData#matches}
 */
public record ReportZonesCdb(long zoneStartLba, long allocationLength, boolean partial, int reportingOptions)
        implements Cdb {
    /** REPORTING OPTIONS values of ZBC-2 Table 41. */
    public static final int ALL = 0x00;
    public static final int EMPTY = 0x01;
    public static final int IMPLICITLY_OPENED = 0x02;
    public static final int EXPLICITLY_OPENED = 0x03;
    public static final int CLOSED = 0x04;
    public static final int FULL = 0x05;
    public static final int READ_ONLY = 0x06;
    public static final int OFFLINE = 0x07;
    public static final int INACTIVE = 0x08;
    public static final int RWP_RECOMMENDED = 0x10;
    public static final int NON_SEQUENTIAL_WRITE_RESOURCES_ACTIVE = 0x11;
    public static final int ALL_EXCEPT_GAP = 0x3E;
    public static final int NOT_WRITE_POINTER = 0x3F;

    /** Whether {@code options} is a REPORTING OPTIONS value ZBC-2 defines. */
    public static boolean defined(int options) {
        return options <= INACTIVE || options == RWP_RECOMMENDED || options == NON_SEQUENTIAL_WRITE_RESOURCES_ACTIVE
                || options == ALL_EXCEPT_GAP || options == NOT_WRITE_POINTER;
    }
}
