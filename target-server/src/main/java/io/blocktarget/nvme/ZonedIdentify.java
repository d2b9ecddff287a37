package io.blocktarget.nvme;

import io.blocktarget.block.ZoneLayout;
import io.blocktarget.block.Zones;
import io.blocktarget.protocol.nvme.IdentifyCommand;
import io.blocktarget.protocol.nvme.IoCommandSets;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.ZnsIdentifyController;
import io.blocktarget.protocol.nvme.ZnsIdentifyNamespace;

import java.util.List;

/**
 * The Identify structures of the Zoned Namespace Command Set (ZNS §4.1.5) and of the command set selection (Base 2.0
 * §5.17.2.21): CNS 06h / 05h with CSI 02h, CNS 1Ch. What they advertise is what {@link ZonedCommands} enforces: ZASL
 * from {@link #zoneAppendLimitBytes}, MOR / MAR from the zone layout, RAZB from its unrestricted reads.
 */
final class ZonedIdentify {
    /** The one I/O Command Set Combination: NVM and Zoned Namespace, index 0 of CNS 1Ch (Feature 19h selects it). */
    static final int COMBINATION_INDEX = 0;
    static final long COMBINATION = IoCommandSets.vector(IdentifyCommand.CSI_NVM, IdentifyCommand.CSI_ZNS);
    /** ZASL is 2^n × CAP.MPSMIN with n ≥ 1 (n = 0 would mean "MDTS"): 8 KiB is the smallest limit it can state. */
    static final int MIN_ZONE_APPEND_BYTES = 2 * ControllerConstants.MPSMIN_BYTES;

    private ZonedIdentify() {
    }

    /** CNS 1Ch: combination 0 = NVM + ZNS. */
    static void commandSets(NvmeCompletion done) {
        IdentifyCommands.reply(done, out -> IoCommandSets.encode(out, List.of(COMBINATION)));
    }

    /** CNS 06h, CSI 02h: ZASL. */
    static void controller(Controller controller, NvmeCompletion done) {
        long limit = zoneAppendLimitBytes(controller);
        int zasl = Long.numberOfTrailingZeros(limit / ControllerConstants.MPSMIN_BYTES);
        IdentifyCommands.reply(done, out -> new ZnsIdentifyController(zasl).encode(out));
    }

    /**
     * CNS 05h, CSI 02h: the zoned namespace's structure; Invalid Field for a namespace of another command set (as
     * QEMU answers), zeros for an inactive NSID, Invalid Namespace for NSIDs that cannot exist.
     */
    static void namespace(Subsystem subsystem, long nsid, NvmeCompletion done) {
        Namespace ns = subsystem.namespace(nsid);
        if (ns != null && ns.zones() == null) {
            Replies.status(done, NvmeStatus.INVALID_FIELD);
            return;
        }
        IdentifyCommands.namespace(subsystem, nsid, done, (active, out) -> identify(active.zones()).encode(out));
    }

    static ZnsIdentifyNamespace identify(Zones zones) {
        ZoneLayout layout = zones.layout();
        // ZOC 0: Linux refuses variable zone capacity and active excursions; MOR / MAR 0's based (0 = no limit)
        return new ZnsIdentifyNamespace(0, layout.unrestrictedReads() ? ZnsIdentifyNamespace.OZCS_READ_ACROSS_ZONE_BOUNDARIES
                : 0, ZnsIdentifyNamespace.resources(layout.maxActive()), ZnsIdentifyNamespace.resources(layout.maxOpen()),
                0, 0, List.of(new ZnsIdentifyNamespace.LbaFormatExtension(layout.zoneSize(), 0)));
    }

    /**
     * The Zone Append Size Limit of this controller, in bytes, a power of two: ZASL is one value for the controller
     * (ZNS §4.1.5.1), so it is the smallest {@code zone-append-max-bytes} of the subsystem's zoned namespaces (0 there:
     * up to MDTS), rounded down to a power of two, at least 8 KiB (the smallest ZASL can state) and the largest logical
     * block (one block must fit), at most MDTS.
     */
    static long zoneAppendLimitBytes(Controller controller) {
        long mdts = controller.limits().maxDataTransferBytes();
        long limit = mdts;
        long largestBlock = 0;
        for (Namespace ns : controller.subsystem().namespaces().values()) {
            Zones zones = ns.zones();
            if (zones == null) {
                continue;
            }
            int lbs = ns.geometry().logicalBlockSize();
            largestBlock = Math.max(largestBlock, lbs);
            long blocks = zones.layout().zoneAppendMaxBlocks();
            if (blocks > 0) {
                limit = Math.min(limit, blocks * lbs);
            }
        }
        limit = Long.highestOneBit(limit);
        return Math.min(mdts, Math.max(limit, Math.max(MIN_ZONE_APPEND_BYTES, largestBlock)));
    }
}
