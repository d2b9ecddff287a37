package io.blocktarget.nvme;

import io.blocktarget.block.fault.FaultQuery;
import io.blocktarget.block.placement.Placement;
import io.blocktarget.block.placement.PlacementEvent;
import io.blocktarget.block.placement.PlacementStats;
import io.blocktarget.block.placement.WriterStats;
import io.blocktarget.protocol.nvme.DataPlacementDirective;
import io.blocktarget.protocol.nvme.FdpConfigurationsLog;
import io.blocktarget.protocol.nvme.FdpEventsFeature;
import io.blocktarget.protocol.nvme.FdpEventsLog;
import io.blocktarget.protocol.nvme.FdpIdentify;
import io.blocktarget.protocol.nvme.FdpMode;
import io.blocktarget.protocol.nvme.FdpStatisticsLog;
import io.blocktarget.protocol.nvme.FeatureCommand;
import io.blocktarget.protocol.nvme.FeatureId;
import io.blocktarget.protocol.nvme.GetLogPageCommand;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.RuhStatus;
import io.blocktarget.protocol.nvme.RuhUsageLog;
import io.blocktarget.protocol.nvme.Sqe;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Consumer;

/**
 * Flexible Data Placement (NVMe TP4146, Base 2.1; issue 32) of an NVM subsystem whose namespaces have
 * {@code placement:}: the NVMe face of the LUN's {@link Placement} media model, as Linux reads it
 * ({@code nvme_query_fdp_info}: CTRATT FDPS, Get Features 1Dh with the namespace's ENDGID, FDP Configurations log 20h,
 * I/O Management Receive RUH Status; then DTYPE 2 / DSPEC on each write with a stream).
 *
 * <ul>
 * <li>Endurance groups: a subsystem with at least one placement namespace advertises Endurance Groups and FDPS in
 *     CTRATT, and each of its namespaces (NSID ≤ FFFFh) is an endurance group of its own, ENDGID = NSID — a LUN's
 *     placement (reclaim unit size, handles) is its own, so its FDP configuration is too. FDP is enabled (FDPE,
 *     configuration 0) in the groups of placement namespaces and disabled in the others (Linux then registers no
 *     write streams, silently). A subsystem without placement shows none of it: every field as without FDP.</li>
 * <li>One reclaim group (NRG 1, RGIF 0), so a placement identifier is the placement handle; every handle is a
 *     persistently isolated reclaim unit handle (the model's reclaim copies each handle's data to its own unit).</li>
 * <li>Set Features 1Dh is a Command Sequence Error: the group always has its namespace (TP4146: FDP mode changes only
 *     while an endurance group has no namespace).</li>
 * <li>A write whose placement identifier names no handle is placed by handle 0 (TP4146: the controller uses the
 *     default placement handle).</li>
 * </ul>
 */
final class Fdp {
    /**
     * The event types reported: host events 00h (unit not fully written, the model) and 03h (invalid placement
     * identifier, the write path), controller event 80h (media reallocated, the model).
     */
    static final List<Integer> SUPPORTED_EVENTS = List.of(FdpEventsLog.RECLAIM_UNIT_NOT_FULLY_WRITTEN,
            FdpEventsLog.INVALID_PLACEMENT_IDENTIFIER, FdpEventsLog.MEDIA_REALLOCATED);
    /** I/O Management Receive / Send: MO 01h, Reclaim Unit Handle Status / Update. */
    static final int MO_RUH_STATUS = 1;
    static final int MO_RUH_UPDATE = 1;
    private static final int MAX_ENDGID = 0xFFFF;
    /** Get Features SEL 011b result bit 1: the feature is namespace specific (Base §5.15.2). */
    private static final int CAPABILITY_NAMESPACE_SPECIFIC = 1 << 1;

    private Fdp() {
    }

    /** Whether the subsystem advertises FDP: one of its namespaces has a placement. */
    static boolean enabled(Subsystem subsystem) {
        for (Namespace ns : subsystem.namespaces().values()) {
            if (ns.state().placement() != null) {
                return true;
            }
        }
        return false;
    }

    /** ENDGID of {@code ns}: its NSID when the subsystem advertises FDP and the NSID fits 16 bits, else 0. */
    static int endgid(Subsystem subsystem, Namespace ns) {
        return ns.nsid() <= MAX_ENDGID && enabled(subsystem) ? (int) ns.nsid() : 0;
    }

    /** ENDGIDMAX of Identify Controller: the highest ENDGID of the subsystem's namespaces. */
    static int endgidMax(Subsystem subsystem) {
        if (!enabled(subsystem)) {
            return 0;
        }
        Long highest = subsystem.namespaces().headMap((long) MAX_ENDGID, true).isEmpty() ? null
                : subsystem.namespaces().headMap((long) MAX_ENDGID, true).lastKey();
        return highest == null ? 0 : (int) (long) highest;
    }

    /** CTRATT with Endurance Groups and FDPS when the subsystem advertises FDP. */
    static int ctratt(Subsystem subsystem, int ctratt) {
        return enabled(subsystem) ? ctratt | FdpIdentify.CTRATT_ENDURANCE_GROUPS | FdpIdentify.CTRATT_FDPS : ctratt;
    }

    /** The namespace whose endurance group is {@code endgid}, or null when there is none. */
    private static Namespace group(Subsystem subsystem, int endgid) {
        if (endgid == 0 || !enabled(subsystem)) {
            return null;
        }
        return subsystem.namespace(endgid);
    }

    // ---- fault rules (issue 32 item 6) ----------------------------------------------------------------------

    /**
     * The data placement query an SQE is on queue {@code qid}, or null: Get Features 1Dh and Get Log Page 20h on the
     * admin queue, I/O Management Receive with MO 01h (RUH Status) on an I/O queue.
     */
    static FaultQuery query(int qid, Sqe sqe) {
        int low = sqe.cdw10() & 0xFF;   // FID of Get Features, LID of Get Log Page, MO of I/O Management Receive
        if (qid == 0) {
            if (sqe.opcode() == io.blocktarget.protocol.nvme.AdminOpcode.GET_FEATURES.code()
                    && low == FeatureId.FDP.code()) {
                return FaultQuery.FDP_FEATURE;
            }
            return sqe.opcode() == io.blocktarget.protocol.nvme.AdminOpcode.GET_LOG_PAGE.code()
                    && low == FdpConfigurationsLog.LOG_PAGE_ID
                    ? FaultQuery.FDP_CONFIGURATIONS : null;
        }
        return sqe.opcode() == io.blocktarget.protocol.nvme.NvmOpcode.IO_MANAGEMENT_RECEIVE.code()
                && low == MO_RUH_STATUS ? FaultQuery.RUH_STATUS : null;
    }

    /**
     * The namespace whose LUN's fault rules see an admin command: that of the endurance group a Get Features 1Dh
     * (CDW11 ENDGID) or a Get Log Page 20h (LSI, CDW11 31:16) names, in a subsystem with FDP; else null (the command
     * is no placement query, or names no group, and goes on as always).
     */
    static Namespace faultTarget(Controller controller, Sqe sqe) {
        FaultQuery query = query(0, sqe);
        if (query == null) {
            return null;
        }
        int endgid = query == FaultQuery.FDP_FEATURE ? sqe.cdw11() & 0xFFFF
                : sqe.cdw11() >>> 16;
        return group(controller.subsystem(), endgid);
    }

    // ---- features -------------------------------------------------------------------------------------------

    /** Whether {@code fid} is one of FDP's features (1Dh, 1Eh), which {@link #feature} serves. */
    static boolean isFdpFeature(FeatureId fid) {
        return fid == FeatureId.FDP || fid == FeatureId.FDP_EVENTS;
    }

    /**
     * Get / Set Features 1Dh (FDP, per endurance group: CDW11 ENDGID) and 1Eh (FDP Events, per namespace and
     * placement handle). Without FDP in the subsystem both are Invalid Field, as any unsupported feature.
     */
    static void feature(Controller controller, FeatureCommand command, int cdw12, ByteBuf dataOut,
                        NvmeCompletion done) {
        Subsystem subsystem = controller.subsystem();
        if (!enabled(subsystem)) {
            Replies.status(done, NvmeStatus.INVALID_FIELD);
            return;
        }
        boolean set = command.opcode() == io.blocktarget.protocol.nvme.AdminOpcode.SET_FEATURES;
        if (command.fid() == FeatureId.FDP) {
            Namespace ns = group(subsystem, FdpMode.enduranceGroup(command.cdw11()));
            if (ns == null) {
                Replies.status(done, NvmeStatus.INVALID_FIELD);
            } else if (set) {
                // TP4146: FDP mode changes only while the endurance group has no namespace; this one always has one
                Replies.status(done, NvmeStatus.COMMAND_SEQUENCE_ERROR);
            } else if (command.sel() == FeatureCommand.SEL_SUPPORTED_CAPABILITIES) {
                done.complete(NvmeStatus.SUCCESS, 0, 0, null); // neither saveable nor changeable here
            } else {
                done.complete(NvmeStatus.SUCCESS, mode(ns).toDword(), 0, null);
            }
            return;
        }
        // FDP Events: the namespace's placement handle PHNDL
        Namespace ns = subsystem.namespace(Integer.toUnsignedLong(command.nsid()));
        Placement placement = ns == null ? null : ns.state().placement();
        FdpEventsFeature events = FdpEventsFeature.fromCdw11(command.cdw11());
        if (ns == null) {
            Replies.status(done, NvmeStatus.INVALID_NAMESPACE_OR_FORMAT);
        } else if (placement == null) {
            Replies.status(done, NvmeStatus.FDP_DISABLED);
        } else if (!placement.isHandle(events.placementHandle())) {
            Replies.status(done, NvmeStatus.INVALID_FIELD);
        } else if (set) {
            setEvents(ns, events, cdw12, dataOut, done);
        } else if (command.sel() == FeatureCommand.SEL_SUPPORTED_CAPABILITIES) {
            done.complete(NvmeStatus.SUCCESS, CAPABILITY_NAMESPACE_SPECIFIC, 0, null);
        } else {
            int count = Math.min(events.numberOfEventTypes(), SUPPORTED_EVENTS.size());
            List<FdpEventsFeature.SupportedEvent> list = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                list.add(new FdpEventsFeature.SupportedEvent(SUPPORTED_EVENTS.get(i),
                        ns.eventSettings().enabled(events.placementHandle(), SUPPORTED_EVENTS.get(i))));
            }
            ByteBuf out = ByteBufAllocator.DEFAULT.buffer(count * FdpEventsFeature.DESCRIPTOR_SIZE);
            FdpEventsFeature.encodeSupported(out, list);
            done.complete(NvmeStatus.SUCCESS, count, 0, out);
        }
    }

    /**
     * Set Features 1Eh: NOET event types (one byte each, the data) enabled (CDW12 bit 0 FDPEE = 1) or disabled for the
     * handle PHNDL. All or nothing: a type the controller does not support, or data shorter than NOET bytes, is
     * Invalid Field and changes nothing. Nothing is saveable (SV is refused before this, as for every feature).
     */
    private static void setEvents(Namespace ns, FdpEventsFeature events, int cdw12, ByteBuf dataOut,
                                  NvmeCompletion done) {
        if (dataOut == null && events.numberOfEventTypes() > 0) {
            Replies.status(done, NvmeStatus.INVALID_FIELD);
            return;
        }
        List<Integer> types = events.numberOfEventTypes() == 0 ? List.of()
                : switch (events.eventTypes(dataOut)) {
                    case io.blocktarget.protocol.nvme.Parsed.Ok<List<Integer>>(List<Integer> t) -> t;
                    default -> null;
                };
        if (types == null || !SUPPORTED_EVENTS.containsAll(types)) {
            Replies.status(done, NvmeStatus.INVALID_FIELD);
            return;
        }
        ns.eventSettings().set(events.placementHandle(), types, (cdw12 & FdpEventsFeature.FDPEE) != 0);
        Replies.status(done, NvmeStatus.SUCCESS);
    }

    /**
     * Which FDP event types are enabled per placement handle of a namespace (Set Features 1Eh); every supported type
     * is enabled until the host disables it. Log 23h reports an event only while its type is enabled for its handle
     * (events without a handle — an invalid placement identifier, reclaim moving data of several handles — follow
     * handle 0, the default placement). The settings live as long as the namespace; nothing is saved.
     */
    static final class EventSettings {
        /** Bit i set: {@code SUPPORTED_EVENTS.get(i)} is disabled for the handle. */
        private final java.util.concurrent.atomic.AtomicIntegerArray disabled =
                new java.util.concurrent.atomic.AtomicIntegerArray(io.blocktarget.block.placement.PlacementSpec.MAX_HANDLES);

        boolean enabled(int handle, int type) {
            int bit = SUPPORTED_EVENTS.indexOf(type);
            return bit >= 0 && (disabled.get(Math.max(handle, 0)) & 1 << bit) == 0;
        }

        void set(int handle, List<Integer> types, boolean enable) {
            int mask = 0;
            for (int type : types) {
                mask |= 1 << SUPPORTED_EVENTS.indexOf(type);
            }
            int m = mask;
            disabled.updateAndGet(handle, d -> enable ? d & ~m : d | m);
        }
    }

    /** The FDP mode of a namespace's endurance group: enabled with configuration 0 when it has a placement. */
    static FdpMode mode(Namespace ns) {
        return new FdpMode(ns.state().placement() != null, 0);
    }

    // ---- log pages ------------------------------------------------------------------------------------------

    /** The log pages 20h..23h, by LID. */
    static boolean isFdpLog(int lid) {
        return lid >= FdpConfigurationsLog.LOG_PAGE_ID && lid <= FdpEventsLog.LOG_PAGE_ID;
    }

    /** A page that the command's window is then cut from. */
    interface PageReply {
        void reply(int pageSize, Consumer<ByteBuf> encoder);
    }

    /**
     * Get Log Page 20h..23h of the endurance group LSI. Without FDP in the subsystem: Invalid Log Page, as any unknown
     * page; an LSI that names no group: Invalid Field; a group with FDP disabled: FDP Disabled.
     */
    static void logPage(Controller controller, GetLogPageCommand command, NvmeCompletion done, PageReply reply) {
        Subsystem subsystem = controller.subsystem();
        if (!enabled(subsystem)) {
            Replies.status(done, NvmeStatus.INVALID_LOG_PAGE);
            return;
        }
        Namespace ns = group(subsystem, command.lsi());
        if (ns == null) {
            Replies.status(done, NvmeStatus.INVALID_FIELD);
            return;
        }
        Placement placement = ns.state().placement();
        if (placement == null) {
            Replies.status(done, NvmeStatus.FDP_DISABLED);
            return;
        }
        switch (command.lid()) {
            case FdpConfigurationsLog.LOG_PAGE_ID -> {
                FdpConfigurationsLog page = configurations(ns, placement);
                reply.reply(page.size(), page::encode);
            }
            case RuhUsageLog.LOG_PAGE_ID -> {
                RuhUsageLog page = new RuhUsageLog(Collections.nCopies(placement.handles(),
                        RuhUsageLog.Attribute.HOST_SPECIFIED));
                reply.reply(page.size(), page::encode);
            }
            case FdpStatisticsLog.LOG_PAGE_ID -> {
                FdpStatisticsLog page = statistics(placement.stats());
                reply.reply(FdpStatisticsLog.SIZE, page::encode);
            }
            default -> {
                FdpEventsLog page = events(ns, placement, (command.lsp() & FdpEventsLog.LSP_HOST_EVENTS) != 0);
                reply.reply(page.size(), page::encode);
            }
        }
    }

    /** Log 20h: the one configuration of the group — NRG 1, one namespace, RUNS the reclaim unit, its handles. */
    static FdpConfigurationsLog configurations(Namespace ns, Placement placement) {
        return new FdpConfigurationsLog(List.of(new FdpConfigurationsLog.Configuration(0,
                ns.device().volatileWriteCache(), true, 1, placement.handles(), 1,
                placement.geometry().reclaimUnitBytes(), 0,
                Collections.nCopies(placement.handles(), FdpConfigurationsLog.RuhType.PERSISTENTLY_ISOLATED))));
    }

    /** Log 22h: the medium's host and media bytes written (both protocols write it) and bytes erased. */
    static FdpStatisticsLog statistics(PlacementStats stats) {
        WriterStats total = stats.total();
        return new FdpStatisticsLog(total.hostBytes(), total.mediaBytes(), stats.mediaBytesErased());
    }

    /**
     * Log 23h: the events of one kind — host events (reclaim unit not fully written after a RUH Update, from the
     * model; invalid placement identifiers, from the write path) or controller events (media reallocated by reclaim)
     * — oldest first, the newest 63. The timestamp is the server's
     * monotonic clock in milliseconds, with the attributes saying it was not set by the host (Timestamp feature).
     */
    static FdpEventsLog events(Namespace ns, Placement placement, boolean host) {
        List<FdpEventsLog.Event> out = new ArrayList<>();
        if (host && ns.eventSettings().enabled(0, FdpEventsLog.INVALID_PLACEMENT_IDENTIFIER)) {
            for (long[] e : ns.invalidIdentifiers().list()) {
                out.add(new FdpEventsLog.Event(FdpEventsLog.INVALID_PLACEMENT_IDENTIFIER, (int) e[0],
                        e[1] & (1L << 48) - 1, 0, ns.nsid(), -1, -1, new byte[16]));
            }
        }
        for (PlacementEvent e : placement.events()) {
            boolean hostEvent = e.kind() == PlacementEvent.Kind.UNIT_NOT_FULLY_WRITTEN;
            if (hostEvent != host) {
                continue;
            }
            int handle = placement.handleOf(e.writer());
            int type = hostEvent ? FdpEventsLog.RECLAIM_UNIT_NOT_FULLY_WRITTEN : FdpEventsLog.MEDIA_REALLOCATED;
            if (!ns.eventSettings().enabled(handle, type)) {
                continue;
            }
            byte[] specific = hostEvent ? new byte[16]
                    : FdpEventsLog.Event.mediaReallocated((int) Math.min(e.blocks(), 0xFFFF), e.lba());
            out.add(new FdpEventsLog.Event(type, handle, e.timestampMillis() & (1L << 48) - 1, 0, ns.nsid(),
                    handle >= 0 ? 0 : -1, handle, specific));
        }
        // oldest first across both sources (each is in order already); the newest 63 are kept
        out.sort(java.util.Comparator.comparingLong(FdpEventsLog.Event::timestampMillis));
        return new FdpEventsLog(out.size() > FdpEventsLog.MAX_EVENTS
                ? out.subList(out.size() - FdpEventsLog.MAX_EVENTS, out.size()) : out);
    }

    // ---- I/O commands ---------------------------------------------------------------------------------------

    /** The placement handle of a Write / Write Zeroes: DSPEC with DTYPE 2 when it names a handle, else handle 0. */
    static int handle(Placement placement, int cdw12, int cdw13) {
        DataPlacementDirective d = DataPlacementDirective.of(cdw12, cdw13);
        return d.isDataPlacement() && placement.isHandle(d.dspec()) ? d.dspec() : 0;
    }

    /**
     * Records a completed write of {@code blocks} at {@code slba} into the namespace's model (if it has one); a
     * placement identifier that names no handle is written by handle 0 and logged as host event 03h (TP4146).
     */
    static void written(Namespace ns, Sqe sqe, long slba, long blocks) {
        Placement placement = ns.state().placement();
        if (placement == null || !placement.covers(slba, blocks)) {
            return;
        }
        DataPlacementDirective d = DataPlacementDirective.of(sqe.cdw12(), sqe.cdw13());
        if (d.isDataPlacement() && !placement.isHandle(d.dspec())) {
            ns.invalidIdentifiers().add(d.dspec(), ns.state().clock().nanoTime() / 1_000_000);
        }
        placement.writeHandle(handle(placement, sqe.cdw12(), sqe.cdw13()), slba, blocks);
    }

    /**
     * The last {@link FdpEventsLog#MAX_EVENTS} Invalid Placement Identifier events of one namespace: the identifier
     * and when (the server's clock, milliseconds). A bounded ring: a host that keeps sending bad identifiers costs
     * nothing more.
     */
    static final class InvalidIdentifiers {
        private final int[] identifiers = new int[FdpEventsLog.MAX_EVENTS];
        private final long[] millis = new long[FdpEventsLog.MAX_EVENTS];
        private int next;
        private int count;

        synchronized void add(int identifier, long timestampMillis) {
            identifiers[next] = identifier;
            millis[next] = timestampMillis;
            next = (next + 1) % identifiers.length;
            count = Math.min(count + 1, identifiers.length);
        }

        /** {identifier, timestamp} pairs, oldest first. */
        synchronized List<long[]> list() {
            List<long[]> out = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                int at = Math.floorMod(next - count + i, identifiers.length);
                out.add(new long[] {identifiers[at], millis[at]});
            }
            return out;
        }
    }

    /** Records a completed deallocation into the namespace's model (if it has one). */
    static void deallocated(Namespace ns, long slba, long blocks) {
        Placement placement = ns.state().placement();
        if (placement != null && placement.covers(slba, blocks)) {
            placement.deallocate(slba, blocks);
        }
    }

    /**
     * I/O Management Receive (opcode 12h): MO 01h returns the Reclaim Unit Handle Status of the namespace — one
     * descriptor per placement handle, PID = RUHID = the handle, RUAMW the blocks its reclaim unit still takes —
     * cut to NUMD + 1 dwords (CDW11). Other MO values: Invalid Field; a namespace without placement: FDP Disabled.
     */
    static void receive(Namespace ns, Sqe sqe, long maxTransferBytes, NvmeCompletion done) {
        Placement placement = ns.state().placement();
        if (placement == null) {
            Replies.status(done, NvmeStatus.FDP_DISABLED);
            return;
        }
        long bytes = (Integer.toUnsignedLong(sqe.cdw11()) + 1) * 4;
        if ((sqe.cdw10() & 0xFF) != MO_RUH_STATUS || bytes > maxTransferBytes) {
            Replies.status(done, NvmeStatus.INVALID_FIELD);
            return;
        }
        List<RuhStatus.Descriptor> descriptors = new ArrayList<>(placement.handles());
        for (int h = 0; h < placement.handles(); h++) {
            descriptors.add(new RuhStatus.Descriptor(h, h, 0, placement.availableBlocks(h)));
        }
        RuhStatus status = new RuhStatus(descriptors);
        ByteBuf page = ByteBufAllocator.DEFAULT.buffer(status.size());
        try {
            status.encode(page);
            ByteBuf out = ByteBufAllocator.DEFAULT.buffer((int) bytes, (int) bytes);
            out.writeBytes(page, page.readerIndex(), (int) Math.min(bytes, page.readableBytes()));
            out.writeZero((int) bytes - out.readableBytes());
            done.complete(NvmeStatus.SUCCESS, 0, 0, out);
        } finally {
            page.release();
        }
    }

    /**
     * I/O Management Send (opcode 1Dh): MO 01h, Reclaim Unit Handle Update — MOS (CDW10 31:16) is the 0's based
     * count of 2-byte placement identifiers in the data; each handle gets a fresh reclaim unit. An identifier that
     * names no handle fails the whole command with Invalid Field before any handle is updated.
     */
    static void send(Namespace ns, Sqe sqe, ByteBuf dataOut, NvmeCompletion done) {
        Placement placement = ns.state().placement();
        if (placement == null) {
            Replies.status(done, NvmeStatus.FDP_DISABLED);
            return;
        }
        if ((sqe.cdw10() & 0xFF) != MO_RUH_UPDATE) {
            Replies.status(done, NvmeStatus.INVALID_FIELD);
            return;
        }
        int count = (sqe.cdw10() >>> 16) + 1;
        if (dataOut == null || dataOut.readableBytes() < count * 2) {
            Replies.status(done, NvmeStatus.DATA_TRANSFER_ERROR);
            return;
        }
        int[] handles = new int[count];
        for (int i = 0; i < count; i++) {
            handles[i] = dataOut.getUnsignedShortLE(dataOut.readerIndex() + 2 * i);
            if (!placement.isHandle(handles[i])) {
                Replies.status(done, NvmeStatus.INVALID_FIELD);
                return;
            }
        }
        for (int h : handles) {
            placement.updateHandle(h);
        }
        Replies.status(done, NvmeStatus.SUCCESS);
    }
}
