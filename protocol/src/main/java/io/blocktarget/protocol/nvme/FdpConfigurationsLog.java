package io.blocktarget.protocol.nvme;

import io.netty.buffer.ByteBuf;

import java.util.List;

/**
 * FDP Configurations log page (Log Page Identifier 20h, per endurance group: LSI = ENDGID; NVMe Base 2.1 "FDP
 * Configurations", TP4146), little-endian:
 * <pre>
 * header      1:0 NUMFDPC (0's based), 2 VER, 7:4 SZE (bytes of the whole page), 15:8 reserved
 * descriptor  1:0 DSZE (bytes of this descriptor), 2 FDPA (3:0 RGIF, 4 FDPVWC, 7 valid), 3 VSS,
 *             7:4 NRG, 9:8 NRUH, 11:10 MAXPIDS (0's based), 15:12 NNSS, 23:16 RUNS (bytes), 27:24 ERUTL (s),
 *             63:28 reserved, then NRUH 4-byte RUH descriptors (byte 0 RUHT), then VSS vendor bytes
 * </pre>
 * Linux reads the 16-byte header, then SZE bytes, walks DSZE to descriptor FDPCIDX, refuses NRG &gt; 1 and takes RUNS
 * as {@code write_stream_granularity} ({@code nvme_query_fdp_granularity}).
 */
public record FdpConfigurationsLog(List<Configuration> configurations) {
    public static final int LOG_PAGE_ID = 0x20;
    public static final int HEADER_SIZE = 16;
    public static final int DESCRIPTOR_HEADER_SIZE = 64;
    public static final int RUH_DESCRIPTOR_SIZE = 4;
    /** FDPA bit 7: the configuration is valid. */
    public static final int FDPA_VALID = 0x80;
    /** FDPA bit 4: the FDP configuration has a volatile write cache. */
    public static final int FDPA_FDPVWC = 0x10;

    /** Reclaim unit handle types (RUHT). */
    public enum RuhType {
        /** Data of different handles may be mixed by garbage collection. */
        INITIALLY_ISOLATED(1),
        /** Garbage collection keeps each handle's data apart. */
        PERSISTENTLY_ISOLATED(2);

        private final int code;

        RuhType(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }
    }

    /**
     * One FDP configuration.
     *
     * @param rgif                     Reclaim Group Identifier Format: bits of a placement identifier naming the
     *                                 reclaim group (0 with one reclaim group)
     * @param volatileWriteCache       FDPVWC
     * @param valid                    FDPA bit 7
     * @param reclaimGroups            NRG
     * @param maxPlacementIdentifiers  placement identifiers a namespace may use (MAXPIDS + 1)
     * @param namespacesSupported      NNSS
     * @param reclaimUnitNominalSize   RUNS, bytes
     * @param reclaimUnitTimeLimit     ERUTL, seconds (0 = not reported)
     * @param handles                  one RUH descriptor per reclaim unit handle (NRUH)
     */
    public record Configuration(int rgif, boolean volatileWriteCache, boolean valid, long reclaimGroups,
                                int maxPlacementIdentifiers, long namespacesSupported, long reclaimUnitNominalSize,
                                long reclaimUnitTimeLimit, List<RuhType> handles) {
        public Configuration {
            handles = List.copyOf(handles);
            if (rgif < 0 || rgif > 0xF || reclaimGroups < 1 || reclaimGroups > 0xFFFF_FFFFL
                    || maxPlacementIdentifiers < 1 || maxPlacementIdentifiers > 0x1_0000
                    || namespacesSupported < 0 || namespacesSupported > 0xFFFF_FFFFL || reclaimUnitNominalSize <= 0
                    || reclaimUnitTimeLimit < 0 || reclaimUnitTimeLimit > 0xFFFF_FFFFL
                    || handles.isEmpty() || handles.size() > 0xFFFF) {
                throw new IllegalArgumentException("FDP configuration field out of range");
            }
        }

        /** DSZE: the 64-byte descriptor, its RUH descriptors, no vendor bytes. */
        public int size() {
            return DESCRIPTOR_HEADER_SIZE + RUH_DESCRIPTOR_SIZE * handles.size();
        }

        public void encode(ByteBuf out) {
            int i = out.writerIndex();
            out.writeZero(DESCRIPTOR_HEADER_SIZE);
            out.setShortLE(i, size());
            out.setByte(i + 2, rgif | (volatileWriteCache ? FDPA_FDPVWC : 0) | (valid ? FDPA_VALID : 0));
            out.setIntLE(i + 4, (int) reclaimGroups);
            out.setShortLE(i + 8, handles.size());
            out.setShortLE(i + 10, maxPlacementIdentifiers - 1);
            out.setIntLE(i + 12, (int) namespacesSupported);
            out.setLongLE(i + 16, reclaimUnitNominalSize);
            out.setIntLE(i + 24, (int) reclaimUnitTimeLimit);
            for (RuhType t : handles) {
                out.writeByte(t.code()).writeZero(RUH_DESCRIPTOR_SIZE - 1);
            }
        }
    }

    public FdpConfigurationsLog {
        configurations = List.copyOf(configurations);
        if (configurations.isEmpty() || configurations.size() > 0x1_0000) {
            throw new IllegalArgumentException("1..65536 FDP configurations");
        }
    }

    /** SZE: the whole page. */
    public int size() {
        return HEADER_SIZE + configurations.stream().mapToInt(Configuration::size).sum();
    }

    public void encode(ByteBuf out) {
        out.writeShortLE(configurations.size() - 1).writeByte(0).writeByte(0).writeIntLE(size()).writeZero(8);
        for (Configuration c : configurations) {
            c.encode(out);
        }
    }
}
