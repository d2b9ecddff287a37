/**
 * Data placement (issue 32): a per-LUN media model — a simulated flash translation layer over reclaim units — that
 * NVMe Flexible Data Placement (placement handles) and SCSI streams (GROUP NUMBER) are two command-set faces of.
 *
 * <ul>
 * <li>{@link io.blocktarget.block.placement.PlacementSpec}: the {@code placement:} section's values and limits.</li>
 * <li>{@link io.blocktarget.block.placement.PlacementGeometry}: what the model is built with — mapping unit, reclaim
 *     units, the memory it takes.</li>
 * <li>{@link io.blocktarget.block.placement.MediaModel}: the simulated medium (writers, greedy reclaim, counters).</li>
 * <li>{@link io.blocktarget.block.placement.Placement}: the LUN's face for both command sets (handles and streams
 *     mapped onto the model's writers).</li>
 * </ul>
 *
 * <p>The package knows no protocol and does no I/O: the command sets tell it what they wrote after the backend
 * completed, so a LUN without {@code placement:} (no {@code Placement} object at all) pays one null check.
 */
package io.blocktarget.block.placement;
