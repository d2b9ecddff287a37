package io.blocktarget.nvme;

import io.blocktarget.block.Registrant;
import io.blocktarget.block.ReservationType;
import io.blocktarget.block.Reservations;
import io.blocktarget.protocol.nvme.FeatureCommand;
import io.blocktarget.protocol.nvme.FeatureId;
import io.blocktarget.protocol.nvme.GetLogPageCommand;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.Parsed;
import io.blocktarget.protocol.nvme.ReservationCommand;
import io.blocktarget.protocol.nvme.ReservationNotification;
import io.blocktarget.protocol.nvme.ReservationStatus;
import io.blocktarget.protocol.nvme.Sqe;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * NVMe reservations of one controller (NVMe Base 2.x §8.1.22 "Reservations"; commands §7 Reservation Register /
 * Report / Acquire / Release, NVM opcodes 0Dh 0Eh 11h 15h): the commands over the namespace's shared
 * {@link Reservations} (the same state SCSI persistent reservations use — see that class for how the types
 * map), the Host Identifier (81h), Reservation Notification Mask (82h) and Reservation Persistence (83h)
 * features, and the Reservation Notification log page (80h) with its asynchronous event.
 *
 * <p>The registrant is the host: the HOSTID of Connect (fabrics; Base §5.27.1.25 — Set Features Host Identifier
 * is therefore a Command Sequence Error), so every controller of one host shares its registration. IEKEY of
 * Register is honoured; on Acquire and Release it is obsolete since NVMe 1.3 (RESCAP bit 7) and refused with
 * Invalid Field. PREEMPT AND ABORT removes the registrations like PREEMPT and does not abort the preempted
 * hosts' commands (they complete, as the specification permits a controller that cannot abort).
 */
final class ReservationCommands {
    /** RESCAP (Identify Namespace byte 31): bit 0 PTPL, bits 1..6 the six types, bit 7 IEKEY as in NVMe 1.3+. */
    static final int RESCAP_TYPES = 0x7E;
    static final int RESCAP_PTPL = 0x01;
    static final int RESCAP_IEKEY_13 = 0x80;
    /** Reservation Notification log entries kept per controller; older ones are dropped (the count shows the gap). */
    static final int MAX_NOTIFICATIONS = 255;
    /** AET 6h I/O Command specific status, AEI 00h Reservation Log Page Available (Base Figure "AEI"). */
    static final int AET_IO_COMMAND_SPECIFIC = 6;
    static final int AEI_RESERVATION_LOG_PAGE_AVAILABLE = 0;
    private static final long NSID_ALL = 0xFFFF_FFFFL;

    private enum AlertState { ARMED, REPORTED }

    private final Controller controller;
    private final Map<Long, Integer> masks = new HashMap<>();
    private final ArrayDeque<ReservationNotification> log = new ArrayDeque<>();
    private final List<Map.Entry<Reservations, Reservations.Listener>> listening = new ArrayList<>();
    private long logPageCount;
    private AlertState alert = AlertState.ARMED;

    ReservationCommands(Controller controller) {
        this.controller = controller;
        if (controller.isDiscovery()) {
            return;
        }
        for (Namespace ns : controller.subsystem().namespaces().values()) {
            long nsid = ns.nsid();
            Reservations.Listener l = (to, notice) -> {
                if (to.equals(controller.registrant())) {
                    notice(nsid, notice);
                }
            };
            ns.state().reservations().addListener(l);
            listening.add(Map.entry(ns.state().reservations(), l));
        }
    }

    /** The controller is gone: stop listening. */
    void detach() {
        listening.forEach(e -> e.getKey().removeListener(e.getValue()));
        listening.clear();
    }

    static int rescap(Namespace ns) {
        return RESCAP_TYPES | RESCAP_IEKEY_13
                | (ns.state().reservations().persistenceAvailable() ? RESCAP_PTPL : 0);
    }

    // ---- I/O commands ----

    void execute(Sqe sqe, ByteBuf dataOut, NvmeCompletion done) {
        Parsed<ReservationCommand> parsed = ReservationCommand.parse(sqe);
        if (!(parsed instanceof Parsed.Ok<ReservationCommand>(ReservationCommand command))) {
            Replies.invalid(done, parsed);
            return;
        }
        Namespace ns = controller.subsystem().namespace(Integer.toUnsignedLong(command.nsid()));
        if (ns == null) {
            Replies.status(done, NvmeStatus.INVALID_NAMESPACE_OR_FORMAT);
            return;
        }
        NvmeStatus sgl = command.dptr().validate(command.dataLength(),
                controller.limits().ioInCapsuleDataBytes());
        if (!sgl.isSuccess()) {
            Replies.status(done, sgl);
            return;
        }
        if (command instanceof ReservationCommand.Report report) {
            report(ns, report, done);
            return;
        }
        if (dataOut == null || dataOut.readableBytes() < command.dataLength()) {
            Replies.status(done, NvmeStatus.DATA_TRANSFER_ERROR);
            return;
        }
        Reservations state = ns.state().reservations();
        Registrant host = controller.registrant();
        long crkey = ReservationCommand.currentKey(dataOut);
        NvmeStatus status = switch (command) {
            case ReservationCommand.Register r -> register(state, host, r, crkey, ReservationCommand.secondKey(dataOut));
            case ReservationCommand.Acquire a -> {
                if (a.iekey()) {
                    yield NvmeStatus.INVALID_FIELD;
                }
                ReservationType type = ReservationType.ofNvme(a.rtype()).orElseThrow();
                yield status(switch (a.action()) {
                    case ACQUIRE -> state.reserve(host, crkey, type);
                    case PREEMPT, PREEMPT_AND_ABORT ->
                            state.preempt(host, crkey, ReservationCommand.secondKey(dataOut), type).outcome();
                });
            }
            case ReservationCommand.Release r -> {
                if (r.iekey()) {
                    yield NvmeStatus.INVALID_FIELD;
                }
                yield status(switch (r.action()) {
                    case RELEASE -> state.release(host, crkey, ReservationType.ofNvme(r.rtype()).orElseThrow());
                    case CLEAR -> state.clear(host, crkey);
                });
            }
            case ReservationCommand.Report _ -> throw new IllegalStateException("handled above");
        };
        completeWhenPersisted(state, status, done);
    }

    /** The status once a successful change is on disk (PTPL set), else at once; a failed write is Internal Error. */
    private static void completeWhenPersisted(Reservations state, NvmeStatus status, NvmeCompletion done) {
        if (!status.isSuccess()) {
            Replies.status(done, status);
            return;
        }
        state.persist().whenComplete((ok, failure) ->
                Replies.status(done, failure == null ? status : NvmeStatus.INTERNAL_ERROR));
    }

    /** Register: the action, then CPTPL (which needs persistence for SET: RESCAP bit 0). */
    private static NvmeStatus register(Reservations state, Registrant host, ReservationCommand.Register r, long crkey,
                                       long nrkey) {
        if (r.cptpl() == ReservationCommand.Register.Cptpl.SET && !state.persistenceAvailable()) {
            return NvmeStatus.INVALID_FIELD;
        }
        NvmeStatus status = status(switch (r.action()) {
            case REGISTER -> state.registerNew(host, nrkey);
            case UNREGISTER -> state.unregister(host, crkey, r.iekey());
            case REPLACE -> state.replace(host, crkey, nrkey, r.iekey());
        });
        if (status.isSuccess() && r.cptpl() != ReservationCommand.Register.Cptpl.NO_CHANGE) {
            state.persistThroughPowerLoss(r.cptpl() == ReservationCommand.Register.Cptpl.SET);
        }
        return status;
    }

    /** Base §8.1.22: a type released by a holder of another type, and PRKEY 0 outside AR types, are Invalid Field. */
    private static NvmeStatus status(Reservations.Outcome outcome) {
        return switch (outcome) {
            case OK -> NvmeStatus.SUCCESS;
            case CONFLICT, NOT_HOLDER, INVALID_DESTINATION -> NvmeStatus.RESERVATION_CONFLICT;
            case TYPE_MISMATCH, INVALID_PREEMPT_KEY -> NvmeStatus.INVALID_FIELD;
        };
    }

    /**
     * Reservation Report: the extended data structure only — a fabrics controller has 128-bit Host Identifiers,
     * so EDS = 0 is Host Identifier Inconsistent Format (Base §7 Reservation Report). NUMD + 1 dwords are
     * returned, cut or zero filled.
     */
    private void report(Namespace ns, ReservationCommand.Report report, NvmeCompletion done) {
        if (!report.eds()) {
            Replies.status(done, NvmeStatus.HOST_IDENTIFIER_INCONSISTENT_FORMAT);
            return;
        }
        if (report.dataLength() > controller.limits().maxDataTransferBytes()) {
            Replies.status(done, NvmeStatus.INVALID_FIELD);
            return;
        }
        Reservations.Snapshot s = ns.state().reservations().snapshot();
        List<ReservationStatus.Entry> entries = new ArrayList<>();
        for (Reservations.Registration r : s.registrations()) {
            entries.add(new ReservationStatus.Entry(ReservationStatus.CNTLID_DYNAMIC, r.holder(),
                    hostId(r.registrant()), r.key()));
        }
        ReservationStatus status = new ReservationStatus(s.generation(),
                s.holder().map(h -> h.type().nvmeCode()).orElse(0), s.persistThroughPowerLoss(), entries);
        int length = (int) report.dataLength();
        ByteBuf whole = ByteBufAllocator.DEFAULT.buffer(status.size(true));
        ByteBuf out = ByteBufAllocator.DEFAULT.buffer(length, length);
        try {
            status.encodeExtended(whole);
            out.writeBytes(whole, Math.min(length, whole.readableBytes()));
            out.writeZero(length - out.readableBytes());
        } finally {
            whole.release();
        }
        done.complete(NvmeStatus.SUCCESS, 0, 0, out);
    }

    /** An NVMe host's own identifier; a SCSI initiator port a stable name-based one (RFC 9562 version 3). */
    static byte[] hostId(Registrant r) {
        return switch (r) {
            case Registrant.Host h -> h.bytes();
            case Registrant.InitiatorPort p -> new Registrant.Host(UUID.nameUUIDFromBytes(
                    p.initiatorPortName().getBytes(StandardCharsets.UTF_8))).bytes();
        };
    }

    // ---- features 81h, 82h, 83h ----

    static boolean isReservationFeature(FeatureId fid) {
        return fid == FeatureId.HOST_IDENTIFIER || fid == FeatureId.RESERVATION_NOTIFICATION_MASK
                || fid == FeatureId.RESERVATION_PERSISTENCE;
    }

    void feature(FeatureCommand command, NvmeCompletion done) {
        boolean set = command.opcode() == io.blocktarget.protocol.nvme.AdminOpcode.SET_FEATURES;
        switch (command.fid()) {
            case HOST_IDENTIFIER -> {
                if (set) {
                    // fabrics: the host identifier is the HOSTID of Connect and cannot be changed
                    Replies.status(done, NvmeStatus.COMMAND_SEQUENCE_ERROR);
                } else if ((command.cdw11() & 1) == 0) {
                    // EXHID = 0 asks for a 64-bit identifier; a fabrics host identifier is 128 bits
                    Replies.status(done, NvmeStatus.INVALID_FIELD);
                } else {
                    byte[] id = controller.registrant().bytes();
                    Replies.data(done, id.length, out -> out.writeBytes(id));
                }
            }
            case RESERVATION_NOTIFICATION_MASK -> mask(command, set, done);
            case RESERVATION_PERSISTENCE -> persistence(command, set, done);
            default -> Replies.status(done, NvmeStatus.INVALID_FIELD);
        }
    }

    /** 82h (namespace specific): bits 3:1 REGPRE / RESREL / RESPRE; Set with NSID FFFFFFFFh sets every namespace. */
    private void mask(FeatureCommand command, boolean set, NvmeCompletion done) {
        long nsid = Integer.toUnsignedLong(command.nsid());
        if (set && nsid == NSID_ALL) {
            synchronized (this) {
                controller.subsystem().namespaces().keySet()
                        .forEach(n -> masks.put(n, command.cdw11() & ReservationNotification.MASK_ALL));
            }
            Replies.status(done, NvmeStatus.SUCCESS);
            return;
        }
        if (controller.subsystem().namespace(nsid) == null) {
            Replies.status(done, NvmeStatus.INVALID_NAMESPACE_OR_FORMAT);
            return;
        }
        int value;
        synchronized (this) {
            if (set) {
                masks.put(nsid, command.cdw11() & ReservationNotification.MASK_ALL);
            }
            value = command.sel() == FeatureCommand.SEL_CURRENT ? masks.getOrDefault(nsid, 0) : 0;
        }
        if (!set && command.sel() == FeatureCommand.SEL_SUPPORTED_CAPABILITIES) {
            value = CHANGEABLE | NAMESPACE_SPECIFIC;
        }
        done.complete(NvmeStatus.SUCCESS, set ? 0 : value, 0, null);
    }

    /** Get Features SEL 011b: bit 1 namespace specific, bit 2 changeable (Base §5.15.2). */
    private static final int NAMESPACE_SPECIFIC = 1 << 1;
    private static final int CHANGEABLE = 1 << 2;

    /** 83h (namespace specific): bit 0 PTPL, the APTPL of the shared state; setting it needs persistence. */
    private void persistence(FeatureCommand command, boolean set, NvmeCompletion done) {
        Namespace ns = controller.subsystem().namespace(Integer.toUnsignedLong(command.nsid()));
        if (ns == null) {
            Replies.status(done, NvmeStatus.INVALID_NAMESPACE_OR_FORMAT);
            return;
        }
        Reservations state = ns.state().reservations();
        if (set) {
            boolean ptpl = (command.cdw11() & 1) != 0;
            if (ptpl && !state.persistenceAvailable()) {
                Replies.status(done, NvmeStatus.INVALID_FIELD);
                return;
            }
            state.persistThroughPowerLoss(ptpl);
            completeWhenPersisted(state, NvmeStatus.SUCCESS, done);
            return;
        }
        int value = switch (command.sel()) {
            case FeatureCommand.SEL_CURRENT -> state.persistThroughPowerLoss() ? 1 : 0;
            case FeatureCommand.SEL_SUPPORTED_CAPABILITIES ->
                    NAMESPACE_SPECIFIC | (state.persistenceAvailable() ? CHANGEABLE : 0);
            default -> 0;
        };
        done.complete(NvmeStatus.SUCCESS, value, 0, null);
    }

    // ---- notifications: log page 80h and its event ----

    private void notice(long nsid, Reservations.Notice notice) {
        int bit;
        ReservationNotification.Type type;
        switch (notice) {
            case REGISTRATION_PREEMPTED -> {
                bit = ReservationNotification.MASK_REGISTRATION_PREEMPTED;
                type = ReservationNotification.Type.REGISTRATION_PREEMPTED;
            }
            case RESERVATION_RELEASED -> {
                bit = ReservationNotification.MASK_RESERVATION_RELEASED;
                type = ReservationNotification.Type.RESERVATION_RELEASED;
            }
            default -> {
                bit = ReservationNotification.MASK_RESERVATION_PREEMPTED;
                type = ReservationNotification.Type.RESERVATION_PREEMPTED;
            }
        }
        boolean alertNow;
        synchronized (this) {
            if ((masks.getOrDefault(nsid, 0) & bit) != 0) {
                return;
            }
            // Log Page Count: 64-bit, 0 means "no page", so it wraps from FFFF...h to 1
            logPageCount = logPageCount == -1L ? 1 : logPageCount + 1;
            if (log.size() == MAX_NOTIFICATIONS) {
                log.removeFirst();
            }
            log.addLast(new ReservationNotification(logPageCount, type, 0, (int) nsid));
            alertNow = alert == AlertState.ARMED;
            alert = AlertState.REPORTED;
        }
        if (alertNow) {
            controller.events().raise(AsyncEvents.dw0(AET_IO_COMMAND_SPECIFIC, AEI_RESERVATION_LOG_PAGE_AVAILABLE,
                    ReservationNotification.LID));
        }
    }

    /**
     * Get Log Page 80h: the oldest unread notification (removed from the queue) with the number still
     * available; an empty page (type 0) when none. Without RAE the event is re-armed.
     */
    void logPage(GetLogPageCommand command, java.util.function.Consumer<java.util.function.Consumer<ByteBuf>> reply) {
        ReservationNotification page;
        boolean again = false;
        synchronized (this) {
            ReservationNotification next = log.pollFirst();
            page = next == null ? ReservationNotification.empty(0)
                    : new ReservationNotification(next.logPageCount(), next.type(), log.size(), next.nsid());
            if (!command.rae()) {
                alert = log.isEmpty() ? AlertState.ARMED : AlertState.REPORTED;
                again = !log.isEmpty();
            }
        }
        reply.accept(page::encode);
        if (again) { // more notifications wait: tell the host again
            controller.events().raise(AsyncEvents.dw0(AET_IO_COMMAND_SPECIFIC, AEI_RESERVATION_LOG_PAGE_AVAILABLE,
                    ReservationNotification.LID));
        }
    }
}
