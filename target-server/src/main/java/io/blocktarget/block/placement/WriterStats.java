package io.blocktarget.block.placement;

/**
 * The counters of one writer of the model — a placement handle, a stream, or the sum over a LUN — since the last
 * reset. Media bytes are the host's own writes as the medium stored them (whole mapping units) plus the bytes of this
 * writer's data that reclaim moved; a reclaim unit that simply filled up ({@code rollovers}) costs nothing extra.
 *
 * @param hostBytes        bytes the host wrote
 * @param mediaBytes       bytes written to the medium for them, moves by reclaim included
 * @param movedBytes       of which moved by reclaim
 * @param rollovers        reclaim units this writer filled (normal, no overhead)
 * @param unitsClosedEarly reclaim units closed before they were full (placement handle update)
 */
public record WriterStats(long hostBytes, long mediaBytes, long movedBytes, long rollovers, long unitsClosedEarly) {
    public static final WriterStats ZERO = new WriterStats(0, 0, 0, 0, 0);

    /** Media bytes per host byte; 0 while nothing was written. */
    public double writeAmplification() {
        return hostBytes == 0 ? 0 : (double) mediaBytes / hostBytes;
    }

    public WriterStats plus(WriterStats o) {
        return new WriterStats(hostBytes + o.hostBytes, mediaBytes + o.mediaBytes, movedBytes + o.movedBytes,
                rollovers + o.rollovers, unitsClosedEarly + o.unitsClosedEarly);
    }
}
