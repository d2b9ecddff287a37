package io.blocktarget.nvme;

import io.blocktarget.block.lun.AccessState;
import io.blocktarget.protocol.nvme.AnaLogPage;
import io.blocktarget.protocol.nvme.NvmeStatus;

import java.util.ArrayList;
import java.util.List;

/**
 * Asymmetric Namespace Access (NVMe Base 2.x §8.1.1) over the LUNs' path states: the one place that maps an {@link
 * AccessState} to its ANA state and I/O status, and builds the ANA log page a controller reads.
 *
 * <p>A LUN's state may differ on every portal, so each namespace is an ANA group of its own: the subsystem gives it
 * the lowest free ANAGRPID (1..{@value #MAX_GROUPS}) when it is attached, and it keeps it while attached (ANACAP bit
 * 6). A controller's view of a group is the namespace's state on the controller's port (PORTID = portal id). The
 * limits are fixed so a host can size its log buffer once (Linux: header + NANAGRPID descriptors + MNAN NSIDs, which
 * must fit in MDTS): a namespace attached when all groups are taken has ANAGRPID 0 and is not in the log.
 */
final class Ana {
    /**
     * ANAGRPMAX, NANAGRPID and MNAN. Linux sizes its ANA log buffer as header + NANAGRPID descriptors + MNAN NSIDs and
     * fails the controller when that exceeds MDTS, which may be as small as 4 KiB here ({@code limits.max-transfer}):
     * 16 + 64 x 32 + 64 x 4 = 2,320 bytes fits.
     */
    static final int MAX_GROUPS = 64;
    /**
     * ANACAP (Identify Controller byte 343): reports optimized (bit 0), non-optimized (1), inaccessible (2),
     * persistent loss (3) and change (4) states; ANAGRPID does not change while the namespace is attached (6).
     */
    static final int ANACAP = 0x1F | 1 << 6;
    /**
     * ANATT (byte 342), seconds: the longest a group stays in change. Transitions last what {@code path set
     * --transition} says; Linux resets a controller after 2 x ANATT in change, so this is the largest value.
     */
    static final int ANATT = 255;

    private Ana() {
    }

    /** The ANA State of a path state: SCSI's standby and unavailable are inaccessible on NVMe. */
    static int state(AccessState state) {
        return switch (state) {
            case OPTIMIZED -> AnaLogPage.OPTIMIZED;
            case NON_OPTIMIZED -> AnaLogPage.NON_OPTIMIZED;
            case INACCESSIBLE, STANDBY, UNAVAILABLE -> AnaLogPage.INACCESSIBLE;
            case PERSISTENT_LOSS -> AnaLogPage.PERSISTENT_LOSS;
            case TRANSITIONING -> AnaLogPage.CHANGE;
        };
    }

    /**
     * The status of an I/O command on a namespace in {@code state} (Base 2.x §8.1.1.3-5), null when it may run. Path
     * related (SCT 3h) without DNR: a multipath host retries it on another path.
     */
    static NvmeStatus refusal(AccessState state) {
        return switch (state) {
            case OPTIMIZED, NON_OPTIMIZED -> null;
            case INACCESSIBLE, STANDBY, UNAVAILABLE -> NvmeStatus.ASYMMETRIC_ACCESS_INACCESSIBLE;
            case PERSISTENT_LOSS -> NvmeStatus.ASYMMETRIC_ACCESS_PERSISTENT_LOSS;
            case TRANSITIONING -> NvmeStatus.ASYMMETRIC_ACCESS_TRANSITION;
        };
    }

    /** The state of namespace {@code ns} as controller {@code controller} sees it: on the controller's port. */
    static AccessState stateOn(Namespace ns, Controller controller) {
        return ns.state().paths().state(controller.portId());
    }

    /**
     * The ANA log page of {@code controller} (Base 2.x §5.16.1.12): a descriptor per namespace that has a group, in
     * ANAGRPID order, each with that namespace's NSID; the group's change count is the count of changes of the LUN's
     * path states, the page's the subsystem's count of ANA changes.
     */
    static AnaLogPage logPage(Controller controller) {
        Subsystem subsystem = controller.subsystem();
        List<AnaLogPage.Group> groups = new ArrayList<>();
        for (Namespace ns : subsystem.namespaces().values()) {
            int group = subsystem.anaGroup(ns.nsid());
            if (group != 0) {
                groups.add(new AnaLogPage.Group(group, ns.state().paths().version(), state(stateOn(ns, controller)),
                        List.of((int) ns.nsid())));
            }
        }
        groups.sort(java.util.Comparator.comparingInt(AnaLogPage.Group::anagrpid));
        return new AnaLogPage(subsystem.anaChangeCount(), groups);
    }
}
