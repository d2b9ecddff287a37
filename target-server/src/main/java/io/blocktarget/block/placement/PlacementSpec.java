package io.blocktarget.block.placement;

import java.util.Optional;

/**
 * What the server hands the block layer from a LUN's {@code placement:} section (issue 32): {@code reclaim-unit-size},
 * {@code handles}, {@code streams}, {@code over-provisioning} (the config module reads and checks the section with
 * file and line; this record holds the same limits as a defence and for the command sets to advertise):
 *
 * <ul>
 * <li>handles 1..126: Linux reads at most 126 placement identifiers from RUH Status (drivers/nvme/host
 *     {@code NVME_MAX_PLIDS = S8_MAX - 1}) and shows them as {@code max_write_streams}.</li>
 * <li>streams 1..63: the GROUP NUMBER of WRITE(10/16/32) is six bits (SBC-4 §4.22), 0 meaning "no stream".</li>
 * <li>reclaim unit: a positive multiple of the logical block size (checked against the LUN by
 *     {@link #checkBlockSize}); NVMe reports it as RUNS in bytes (FDP Configuration Descriptor).</li>
 * <li>over-provisioning: spare media beyond the LUN's capacity, 0..100 % in basis points (1/100 %).</li>
 * </ul>
 *
 * @param reclaimUnitBytes            reclaim unit size in bytes
 * @param handles                     NVMe placement handles (FDP reclaim unit handles of the namespace)
 * @param streams                     SCSI permanent streams, GROUP NUMBER 1..streams
 * @param overProvisioningBasisPoints spare capacity, 700 = 7 %
 */
public record PlacementSpec(long reclaimUnitBytes, int handles, int streams, int overProvisioningBasisPoints) {
    public static final int MIN_HANDLES = 1;
    public static final int MAX_HANDLES = 126;
    public static final int MIN_STREAMS = 1;
    public static final int MAX_STREAMS = 63;
    public static final int MAX_OVER_PROVISIONING_BASIS_POINTS = 10_000;
    public static final long DEFAULT_RECLAIM_UNIT_BYTES = 64L << 20;
    public static final int DEFAULT_HANDLES = 8;
    /** Six: sd maps the five lifetime hints NONE..EXTREME to GROUP NUMBER 1..5 when six or more are permanent. */
    public static final int DEFAULT_STREAMS = 6;
    public static final int DEFAULT_OVER_PROVISIONING_BASIS_POINTS = 700;
    /** The defaults of every key: what {@code placement: {}} means. */
    public static final PlacementSpec DEFAULTS = new PlacementSpec(DEFAULT_RECLAIM_UNIT_BYTES, DEFAULT_HANDLES,
            DEFAULT_STREAMS, DEFAULT_OVER_PROVISIONING_BASIS_POINTS);

    public PlacementSpec {
        if (reclaimUnitBytes <= 0) {
            throw new IllegalArgumentException("placement.reclaim-unit-size: " + reclaimUnitBytes
                    + "; allowed: a positive multiple of the logical block size");
        }
        if (handles < MIN_HANDLES || handles > MAX_HANDLES) {
            throw new IllegalArgumentException("placement.handles: " + handles + "; allowed " + MIN_HANDLES + ".."
                    + MAX_HANDLES);
        }
        if (streams < MIN_STREAMS || streams > MAX_STREAMS) {
            throw new IllegalArgumentException("placement.streams: " + streams + "; allowed " + MIN_STREAMS + ".."
                    + MAX_STREAMS);
        }
        if (overProvisioningBasisPoints < 0 || overProvisioningBasisPoints > MAX_OVER_PROVISIONING_BASIS_POINTS) {
            throw new IllegalArgumentException("placement.over-provisioning: " + overProvisioningBasisPoints / 100.0
                    + "%; allowed 0%..100%");
        }
    }

    /** What is wrong with this section on a LUN of {@code logicalBlockSize}-byte blocks; empty when nothing. */
    public Optional<String> checkBlockSize(int logicalBlockSize) {
        if (logicalBlockSize <= 0) {
            throw new IllegalArgumentException("logical block size " + logicalBlockSize);
        }
        if (reclaimUnitBytes % logicalBlockSize != 0) {
            return Optional.of("placement.reclaim-unit-size: " + reclaimUnitBytes
                    + " bytes is not a multiple of the logical block size " + logicalBlockSize
                    + "; allowed: a positive multiple of " + logicalBlockSize);
        }
        return Optional.empty();
    }

    /**
     * Writers of the model: one per NVMe placement handle and one per SCSI stream. SCSI GROUP NUMBER 0 (no stream)
     * shares handle 0's writer: both are the LUN's default placement.
     */
    public int writers() {
        return handles + streams;
    }
}
