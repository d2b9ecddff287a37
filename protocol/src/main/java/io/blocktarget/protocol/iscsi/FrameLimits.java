package io.blocktarget.protocol.iscsi;

import java.util.Objects;

/**
 * What a receiver accepts, fixed per connection phase: who sends, the negotiated digests and the caps
 * checked before any byte of a frame is buffered.
 *
 * @param sender                the peer whose PDUs are being framed
 * @param maxDataSegmentLength  our declared MaxRecvDataSegmentLength (§13.12; 8192 until negotiated)
 * @param maxAhsLength          largest TotalAHSLength in bytes we accept (at most 1020)
 */
public record FrameLimits(PduSource sender, int maxDataSegmentLength, int maxAhsLength, Digest headerDigest,
                          Digest dataDigest) {
    /** MaxRecvDataSegmentLength before negotiation (§13.12) — login PDUs are capped by it. */
    public static final int DEFAULT_MAX_RECV_DATA_SEGMENT_LENGTH = 8192;

    public FrameLimits {
        Objects.requireNonNull(sender, "sender");
        Objects.requireNonNull(headerDigest, "headerDigest");
        Objects.requireNonNull(dataDigest, "dataDigest");
        if (maxDataSegmentLength < 0 || maxDataSegmentLength > Bhs.MAX_DATA_SEGMENT_LENGTH) {
            throw new IllegalArgumentException("maxDataSegmentLength " + maxDataSegmentLength);
        }
        if (maxAhsLength < 0 || maxAhsLength > Bhs.MAX_AHS_LENGTH) {
            throw new IllegalArgumentException("maxAhsLength " + maxAhsLength);
        }
    }

    /** Login phase as seen by a target: no digests (§13.1: they start after login), 8 KiB segments. */
    public static FrameLimits loginFrom(PduSource sender) {
        return new FrameLimits(sender, DEFAULT_MAX_RECV_DATA_SEGMENT_LENGTH, Bhs.MAX_AHS_LENGTH, Digest.NONE,
                Digest.NONE);
    }

    public FrameLimits withDigests(Digest header, Digest data) {
        return new FrameLimits(sender, maxDataSegmentLength, maxAhsLength, header, data);
    }

    public FrameLimits withMaxDataSegmentLength(int max) {
        return new FrameLimits(sender, max, maxAhsLength, headerDigest, dataDigest);
    }
}
