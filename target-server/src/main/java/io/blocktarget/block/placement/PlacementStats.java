package io.blocktarget.block.placement;

import java.util.List;

/**
 * What {@code lun show}, {@code /metrics} and the FDP Statistics / SCSI per-group statistics report for one LUN: the
 * counters per placement handle and per stream since the last reset, their sum, and the reclaim counters.
 *
 * @param handles          per NVMe placement handle 0..handles-1; handle 0 is the default placement, so it also
 *                         counts SCSI writes without a stream (GROUP NUMBER 0 or not a stream)
 * @param streams          per SCSI stream 1..streams (element 0 is stream 1)
 * @param unitsReclaimed   reclaim units erased by reclaim
 * @param mediaBytesErased their bytes (FDP MBE)
 * @param freeUnits        reclaim units free now
 * @param physicalUnits    reclaim units of the medium
 */
public record PlacementStats(List<WriterStats> handles, List<WriterStats> streams, long unitsReclaimed,
                             long mediaBytesErased, int freeUnits, int physicalUnits) {
    public PlacementStats {
        handles = List.copyOf(handles);
        streams = List.copyOf(streams);
    }

    /** The LUN's totals: host bytes written (FDP HBMW), media bytes written (MBMW), write amplification. */
    public WriterStats total() {
        WriterStats sum = WriterStats.ZERO;
        for (WriterStats s : handles) {
            sum = sum.plus(s);
        }
        for (WriterStats s : streams) {
            sum = sum.plus(s);
        }
        return sum;
    }

    /** Stream {@code stream} (1-based, as GROUP NUMBER). */
    public WriterStats stream(int stream) {
        return streams.get(stream - 1);
    }
}
