package io.blocktarget.block.placement;

import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * One LUN's data placement: the face both command sets use, over one {@link MediaModel}. Created once per LUN when
 * its configuration has {@code placement:} and kept for the LUN's life (placement is fixed for a namespace's life);
 * a LUN without it has no {@code Placement} and its command sets skip every call with one null check.
 *
 * <ul>
 * <li>NVMe: placement handle {@code h} (0..handles-1) is writer {@code h}; a write without the Data Placement
 *     directive, or with an invalid placement identifier, uses handle 0 (TP4146: the controller falls back to
 *     placement handle 0 and logs an Invalid Placement Identifier event — the command set's part).</li>
 * <li>SCSI: stream {@code s} (GROUP NUMBER 1..streams) is writer {@code handles + s - 1}; GROUP NUMBER 0 (no
 *     stream) and group numbers that name no stream go to the default placement, shared with NVMe handle 0.</li>
 * </ul>
 *
 * <p>Calls come after the backend completed the write (the model counts what the medium holds); deallocation is
 * recorded for NVMe Dataset Management / Write Zeroes with DEAC and SCSI UNMAP / WRITE SAME with UNMAP.
 */
public final class Placement {
    private final PlacementSpec config;
    private final MediaModel model;

    private Placement(PlacementSpec config, MediaModel model) {
        this.config = config;
        this.model = model;
    }

    /**
     * The placement of a LUN of {@code blockCount} blocks of {@code logicalBlockSize} bytes; {@code clock} stamps
     * events (the server's clock, in milliseconds). Fails with the configuration problem when the section does not
     * fit the LUN ({@link PlacementGeometry#of}).
     */
    public static Placement create(PlacementSpec config, int logicalBlockSize, long blockCount, LongSupplier clock) {
        Objects.requireNonNull(config, "config");
        return new Placement(config, new MediaModel(PlacementGeometry.of(config, logicalBlockSize, blockCount), clock));
    }

    public PlacementSpec config() {
        return config;
    }

    public PlacementGeometry geometry() {
        return model.geometry();
    }

    /** The model itself (tests, benchmarks). */
    MediaModel model() {
        return model;
    }

    public int handles() {
        return config.handles();
    }

    public int streams() {
        return config.streams();
    }

    /** True when {@code handle} names one of this LUN's placement handles. */
    public boolean isHandle(int handle) {
        return handle >= 0 && handle < config.handles();
    }

    /** True when GROUP NUMBER {@code groupNumber} names one of this LUN's streams. */
    public boolean isStream(int groupNumber) {
        return groupNumber >= 1 && groupNumber <= config.streams();
    }

    /**
     * True when the model covers blocks {@code lba .. lba + blocks - 1}. The command sets check it before recording:
     * while a resize runs the device and its (replaced) model may briefly disagree about the LUN's end, and such a
     * write is then left out of the counts rather than failing on an event loop.
     */
    public boolean covers(long lba, long blocks) {
        return lba >= 0 && blocks >= 0 && lba <= model.geometry().blockCount() - blocks;
    }

    /** An NVMe write (Write, Write Zeroes without DEAC, Copy destination) placed by {@code handle}. */
    public void writeHandle(int handle, long lba, long blocks) {
        if (!isHandle(handle)) {
            throw new IllegalArgumentException("placement handle " + handle + " of " + config.handles());
        }
        model.write(handle, lba, blocks);
    }

    /**
     * A SCSI write with GROUP NUMBER {@code groupNumber} (0..63). Returns false when the group names no stream and the
     * default placement was used.
     */
    public boolean writeGroup(int groupNumber, long lba, long blocks) {
        if (groupNumber < 0 || groupNumber > 63) {
            throw new IllegalArgumentException("GROUP NUMBER " + groupNumber);
        }
        boolean stream = isStream(groupNumber);
        model.write(stream ? streamWriter(groupNumber) : 0, lba, blocks);
        return stream || groupNumber == 0;
    }

    /** Blocks deallocated by either protocol. */
    public void deallocate(long lba, long blocks) {
        model.deallocate(lba, blocks);
    }

    /** Reclaim Unit Handle Update for {@code handle}; true when it had a reclaim unit with data in it. */
    public boolean updateHandle(int handle) {
        if (!isHandle(handle)) {
            throw new IllegalArgumentException("placement handle " + handle + " of " + config.handles());
        }
        return model.closeUnit(handle);
    }

    /** RUAMW of {@code handle}: logical blocks left in its reclaim unit. */
    public long availableBlocks(int handle) {
        if (!isHandle(handle)) {
            throw new IllegalArgumentException("placement handle " + handle + " of " + config.handles());
        }
        return model.availableBlocks(handle);
    }

    public PlacementStats stats() {
        MediaStats media = model.stats();
        List<WriterStats> all = media.writers();
        return new PlacementStats(all.subList(0, config.handles()), all.subList(config.handles(), all.size()),
                media.unitsReclaimed(), media.mediaBytesErased(), media.freeUnits(), media.physicalUnits());
    }

    /** {@code blocktarget lun reset-stats}: the counters start again from zero. */
    public void resetStatistics() {
        model.resetStatistics();
    }

    /**
     * Media events (unit not fully written, media reallocated), oldest first; {@link #handleOf} and {@link #streamOf}
     * turn their writer into a handle or stream.
     */
    public List<PlacementEvent> events() {
        return model.events();
    }

    /** The handle a model writer stands for, or -1 when it is a stream or reclaim. */
    public int handleOf(int writer) {
        return writer >= 0 && writer < config.handles() ? writer : -1;
    }

    /** The stream (GROUP NUMBER) a model writer stands for, or 0 when it is a handle or reclaim. */
    public int streamOf(int writer) {
        return writer >= config.handles() && writer < config.writers() ? writer - config.handles() + 1 : 0;
    }

    private int streamWriter(int groupNumber) {
        return config.handles() + groupNumber - 1;
    }
}
