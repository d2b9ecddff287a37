package io.blocktarget.server;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.config.LunConfig;

import java.util.Objects;

/**
 * A configured LUN, the open block device behind it and the device state both command sets share; what the transports
 * export.
 */
public record Lun(LunConfig config, BlockDevice device, LunState state) {
    public Lun {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(device, "device");
        Objects.requireNonNull(state, "state");
        // fault rules that need the data (corrupted reads, torn writes) act on the device both protocols use
        device = io.blocktarget.block.fault.FaultBlockDevice.wrap(device, state.faults());
    }

    public String name() {
        return config.name();
    }

    /**
     * A fresh device state for {@code config}: persistent reservations (APTPL / PTPL) are kept in {@code NAME.pr}
     * beside the LUN's file in {@code luns.d/}; a LUN without a file (embedded default, API without a config dir)
     * keeps them in memory only and refuses APTPL. {@code clock}: the server's.
     */
    public static LunState stateFor(LunConfig config, io.blocktarget.time.Clock clock) {
        return stateFor(config, clock, java.util.List.of());
    }

    /** @param portals the server's portal names, portal 1 first (fault rules may name one) */
    public static LunState stateFor(LunConfig config, io.blocktarget.time.Clock clock, java.util.List<String> portals) {
        LunState state = new LunState(config.name(),
                config.source() == null ? null : config.source().resolveSibling(config.name() + ".pr"),
                atomicWrites(config), clock);
        installFaults(state, config, portals);
        state.placement(placementFor(config, config.blockCount(), clock).orElse(null));
        return state;
    }

    /**
     * The data placement of {@code config} ({@code placement:}) for a LUN of {@code blockCount} blocks, its events
     * stamped with the server's clock in milliseconds; empty without the section. Fails (IllegalArgumentException)
     * only when the section does not fit the LUN, which the config reader's limits rule out.
     */
    static java.util.Optional<io.blocktarget.block.placement.Placement> placementFor(LunConfig config,
                                                                                  long blockCount,
                                                                                  io.blocktarget.time.Clock clock) {
        return config.features().placement().map(p -> io.blocktarget.block.placement.Placement.create(
                new io.blocktarget.block.placement.PlacementSpec(p.reclaimUnitBytes(), p.handles(), p.streams(),
                        p.overProvisioningBasisPoints()),
                config.logicalBlockSize(), blockCount, () -> clock.nanoTime() / 1_000_000));
    }

    /** {@code atomic:} in logical blocks, as both command sets use it (validated in bytes by the config reader). */
    static java.util.Optional<io.blocktarget.block.AtomicWrites> atomicWrites(LunConfig config) {
        long lbs = config.logicalBlockSize();
        return config.features().atomic().map(a -> new io.blocktarget.block.AtomicWrites(a.maxBytes() / lbs,
                a.boundaryBytes() / lbs, a.granularityBytes() / lbs, a.alignmentBytes() / lbs));
    }

    /** Makes the LUN file's {@code faults:} the rules of {@code state} (counters from zero), in one swap. */
    static void installFaults(LunState state, LunConfig config, java.util.List<String> portals) {
        state.faults().replace(FaultRules.of(config.features().faults(), portals), config.features().faults());
    }

    /** The SCSI logical unit this LUN is, when exported over iSCSI: one place builds it, at start and at runtime. */
    public java.util.Optional<io.blocktarget.scsi.LogicalUnitSpec> logicalUnit() {
        return config.iscsi().map(e -> new io.blocktarget.scsi.LogicalUnitSpec(e.target(), e.lun(), name(), device, state,
                config.features()));
    }

    /** The NVMe namespace this LUN is, when exported over NVMe/TCP (with its configured UUID, if any). */
    public java.util.Optional<io.blocktarget.nvme.NamespaceSpec> namespace() {
        return config.nvme().map(e -> new io.blocktarget.nvme.NamespaceSpec(e.subsystem(), e.nsid(), name(), device,
                state, e.uuid(), config.features()));
    }
}
