package io.blocktarget.block.placement;

import java.util.Objects;

/**
 * Something the medium did that a host may want to know (the media side of FDP events, NVMe TP4146 "FDP Events log
 * page"): a reclaim unit closed before it was full, or valid data moved by reclaim. The NVMe face turns these into
 * FDP event records; invalid placement identifiers are the command set's own events.
 *
 * @param kind            what happened
 * @param writer          the model writer (handle or stream) concerned, or -1 for reclaim (data of several writers)
 * @param blocks          logical blocks left unwritten (not fully written) or moved (reallocated)
 * @param lba             first LBA moved (reallocated), -1 otherwise
 * @param timestampMillis the LUN's clock when it happened
 */
public record PlacementEvent(Kind kind, int writer, long blocks, long lba, long timestampMillis) {
    public enum Kind {
        /** A reclaim unit was closed by a placement handle update before it was full (FDP event type 00h). */
        UNIT_NOT_FULLY_WRITTEN,
        /** Reclaim moved valid data to another reclaim unit (FDP event type 80h, Media Reallocated). */
        MEDIA_REALLOCATED
    }

    public PlacementEvent {
        Objects.requireNonNull(kind, "kind");
    }
}
