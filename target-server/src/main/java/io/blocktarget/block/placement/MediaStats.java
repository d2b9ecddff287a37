package io.blocktarget.block.placement;

import java.util.List;

/**
 * A snapshot of a {@link MediaModel}: per-writer counters since the last reset and the medium's state.
 *
 * @param writers          counters per host writer, by writer index
 * @param unitsReclaimed   reclaim units erased by reclaim since the last reset
 * @param mediaBytesErased their bytes (FDP statistics MBE)
 * @param freeUnits        reclaim units free now
 * @param physicalUnits    reclaim units of the medium
 */
public record MediaStats(List<WriterStats> writers, long unitsReclaimed, long mediaBytesErased, int freeUnits,
                         int physicalUnits) {
    public MediaStats {
        writers = List.copyOf(writers);
    }

    /** The sum over all writers: the LUN's host bytes, media bytes and write amplification. */
    public WriterStats total() {
        return writers.stream().reduce(WriterStats.ZERO, WriterStats::plus);
    }
}
