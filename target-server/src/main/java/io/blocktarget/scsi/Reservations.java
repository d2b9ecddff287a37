package io.blocktarget.scsi;

import io.blocktarget.protocol.scsi.Cdb;
import io.blocktarget.protocol.scsi.CompareAndWriteCdb;
import io.blocktarget.protocol.scsi.FieldPointer;
import io.blocktarget.protocol.scsi.GetLbaStatusCdb;
import io.blocktarget.protocol.scsi.InquiryCdb;
import io.blocktarget.protocol.scsi.ModeSelectCdb;
import io.blocktarget.protocol.scsi.ModeSenseCdb;
import io.blocktarget.protocol.scsi.Parsed;
import io.blocktarget.protocol.scsi.PersistentReserveInData;
import io.blocktarget.protocol.scsi.PrType;
import io.blocktarget.protocol.scsi.PreFetchCdb;
import io.blocktarget.protocol.scsi.ReadCdb;
import io.blocktarget.protocol.scsi.ReadDefectDataCdb;
import io.blocktarget.protocol.scsi.Release6Cdb;
import io.blocktarget.protocol.scsi.ReportLunsCdb;
import io.blocktarget.protocol.scsi.ReportSupportedOperationCodesCdb;
import io.blocktarget.protocol.scsi.RequestSenseCdb;
import io.blocktarget.protocol.scsi.SanitizeCdb;
import io.blocktarget.protocol.scsi.SenseReason;
import io.blocktarget.protocol.scsi.StartStopUnitCdb;
import io.blocktarget.protocol.scsi.SynchronizeCacheCdb;
import io.blocktarget.protocol.scsi.UnmapCdb;
import io.blocktarget.protocol.scsi.VerifyCdb;
import io.blocktarget.protocol.scsi.WriteAndVerifyCdb;
import io.blocktarget.protocol.scsi.WriteCdb;
import io.blocktarget.protocol.scsi.WriteSameCdb;

import io.blocktarget.block.Registrant;
import io.blocktarget.block.ReservationType;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The SCSI face of the device's {@link io.blocktarget.block.Reservations} (which lives in the block layer, shared
 * with NVMe): maps CDBs onto read / write access (SPC-5 §5.14.1 Table "SPC commands that are allowed in the
 * presence of various reservations", SBC-4 §4.17 Table "SBC-4 commands ..."), an I_T nexus onto a
 * {@link Registrant.InitiatorPort}, outcomes onto sense, and reservation notices onto unit attentions.
 * Registrations are per I_T nexus (initiator port name with its ISID, and target port), survive nexus loss
 * and logical unit reset; see {@link PersistentReserveCommands} for persistence.
 */
final class Reservations {
    /** What a command does, for the conflict tables. */
    private enum Access { ALWAYS, READ, WRITE }

    private final io.blocktarget.block.Reservations state;
    private final UnitAttentions unitAttentions;
    private final io.blocktarget.block.Reservations.Listener listener;

    Reservations(io.blocktarget.block.Reservations state, UnitAttentions unitAttentions) {
        this.state = state;
        this.unitAttentions = unitAttentions;
        this.listener = (to, notice) -> {
            if (to instanceof Registrant.InitiatorPort port) {
                unitAttentions.raise(nexus(port), switch (notice) {
                    case REGISTRATION_PREEMPTED -> SenseReason.REGISTRATIONS_PREEMPTED;
                    case RESERVATION_RELEASED -> SenseReason.RESERVATIONS_RELEASED;
                    case RESERVATION_PREEMPTED -> SenseReason.RESERVATIONS_PREEMPTED;
                });
            }
        };
        state.addListener(listener);
    }

    /** A state of its own (tests). */
    Reservations(UnitAttentions unitAttentions) {
        this(new io.blocktarget.block.Reservations(), unitAttentions);
    }

    io.blocktarget.block.Reservations state() {
        return state;
    }

    static Registrant.InitiatorPort registrant(ItNexus nexus) {
        return new Registrant.InitiatorPort(nexus.initiatorPortName(), nexus.targetPortName(),
                nexus.relativeTargetPort());
    }

    static ItNexus nexus(Registrant.InitiatorPort port) {
        return new ItNexus(port.initiatorPortName(), port.targetPortName(), port.relativeTargetPort());
    }

    static ReservationType type(PrType type) {
        return ReservationType.ofScsi(type.code()).orElseThrow();
    }

    static PrType prType(ReservationType type) {
        return PrType.fromCode(type.scsiCode()).orElseThrow();
    }

    /**
     * Whether {@code cdb} from {@code nexus} meets RESERVATION CONFLICT. Under another's RESERVE(6) only
     * INQUIRY, REPORT LUNS, REQUEST SENSE, REPORT SUPPORTED OPERATION CODES and RELEASE(6) pass (SPC-2 §5.5.1);
     * under a persistent reservation the shared table decides (see {@link io.blocktarget.block.Reservations}).
     * Free (one volatile read) while nothing is registered or reserved.
     */
    boolean conflicts(ItNexus nexus, Cdb cdb) {
        if (state.quiet()) {
            return false;
        }
        Registrant who = registrant(nexus);
        if (state.reserve6HeldByOther(who)) {
            return !(cdb instanceof InquiryCdb || cdb instanceof ReportLunsCdb || cdb instanceof RequestSenseCdb
                    || cdb instanceof ReportSupportedOperationCodesCdb || cdb instanceof Release6Cdb);
        }
        return switch (access(cdb)) {
            case ALWAYS -> false;
            case READ -> state.conflicts(who, io.blocktarget.block.Reservations.Access.READ);
            case WRITE -> state.conflicts(who, io.blocktarget.block.Reservations.Access.WRITE);
        };
    }

    private static Access access(Cdb cdb) {
        return switch (cdb) {
            // RSOC reads like MODE SENSE: allowed under Write Exclusive, a conflict under Exclusive Access
            case ReadCdb _, VerifyCdb _, ModeSenseCdb _, GetLbaStatusCdb _, ReportSupportedOperationCodesCdb _,
                 PreFetchCdb _, ReadDefectDataCdb _, io.blocktarget.protocol.scsi.ReportZonesCdb _ ->
                    Access.READ; // SBC-4 Table 13: as READ; ZBC-2 Table 4: REPORT ZONES as READ
            // REPORT TARGET PORT GROUPS is allowed under every reservation (SPC-4 Table 60): default
            case WriteCdb _, WriteAndVerifyCdb _, WriteSameCdb _, UnmapCdb _, CompareAndWriteCdb _, SanitizeCdb _,
                 SynchronizeCacheCdb _, ModeSelectCdb _, StartStopUnitCdb _,
                 io.blocktarget.protocol.scsi.WriteAtomicCdb _, io.blocktarget.protocol.scsi.OrWriteCdb _,
                 io.blocktarget.protocol.scsi.ZbcOutCdb _ -> Access.WRITE; // ZBC-2 Table 4: ZBC OUT as WRITE
            // SBC-4 Table 13: PREVENT ALLOW MEDIUM REMOVAL with PREVENT = 01b as a write; allowing always passes
            case io.blocktarget.protocol.scsi.PreventAllowMediumRemovalCdb c -> c.prevent() ? Access.WRITE
                    : Access.ALWAYS;
            // INQUIRY, REPORT LUNS, REQUEST SENSE, TEST UNIT READY, READ CAPACITY, PR IN/OUT;
            // RESERVE(6)/RELEASE(6) decide for themselves below
            default -> Access.ALWAYS;
        };
    }

    /** RESERVE(6) with CRH = 1 (SPC-5 §5.14.3). */
    void reserve6(Task task) {
        finish(task, state.reserve6(registrant(task.nexus())));
    }

    /** RELEASE(6): the same CRH exemption and conflict with registrations (SPC-2 §7.19). */
    void release6(Task task) {
        finish(task, state.release6(registrant(task.nexus())));
    }

    private static void finish(Task task, io.blocktarget.block.Reservations.Outcome outcome) {
        Parsed.Invalid<Void> invalid = invalid(outcome);
        if (invalid == null) {
            task.good();
        } else {
            task.fail(invalid);
        }
    }

    /** Logical unit reset: RESERVE(6) is released; persistent reservations are not (SPC-5 §5.14.1). */
    void reset() {
        state.resetReserve6();
    }

    void nexusLost(ItNexus nexus) {
        state.lost(registrant(nexus));
    }

    // ---- PERSISTENT RESERVE OUT service actions (SPC-5 §5.14.5-5.14.11); null = GOOD ----

    Parsed.Invalid<Void> register(ItNexus nexus, long key, long serviceActionKey, boolean ignoreKey) {
        return invalid(state.register(registrant(nexus), key, serviceActionKey, ignoreKey));
    }

    Parsed.Invalid<Void> reserve(ItNexus nexus, long key, PrType type) {
        return invalid(state.reserve(registrant(nexus), key, type(type)));
    }

    Parsed.Invalid<Void> release(ItNexus nexus, long key, PrType type) {
        return invalid(state.release(registrant(nexus), key, type(type)));
    }

    Parsed.Invalid<Void> clear(ItNexus nexus, long key) {
        return invalid(state.clear(registrant(nexus), key));
    }

    Parsed.Invalid<Void> preempt(ItNexus nexus, long key, long serviceActionKey, PrType type) {
        return invalid(state.preempt(registrant(nexus), key, serviceActionKey, type(type)).outcome());
    }

    /** What PREEMPT AND ABORT did: null outcome = GOOD, and the I_T nexuses whose registrations it removed. */
    record Preempted(Parsed.Invalid<Void> outcome, java.util.Set<ItNexus> nexuses) {
    }

    /** PREEMPT (AND ABORT): as {@link #preempt}, with the SCSI I_T nexuses it preempted (NVMe hosts left out). */
    Preempted preemptNexuses(ItNexus nexus, long key, long serviceActionKey, PrType type) {
        io.blocktarget.block.Reservations.PreemptResult result = state.preempt(registrant(nexus), key,
                serviceActionKey, type(type));
        java.util.Set<ItNexus> nexuses = new java.util.HashSet<>();
        for (Registrant r : result.removed()) {
            if (r instanceof Registrant.InitiatorPort port) {
                nexuses.add(nexus(port));
            }
        }
        return new Preempted(invalid(result.outcome()), nexuses);
    }

    /** What REGISTER AND MOVE answered: its handler maps it, since only it knows the parameter fields. */
    enum Move { OK, CONFLICT, SAME_NEXUS }

    Move registerAndMove(ItNexus nexus, long key, long serviceActionKey, ItNexus destination, PrType type,
                         boolean unreg) {
        return switch (state.registerAndMove(registrant(nexus), key, serviceActionKey, registrant(destination),
                type(type), unreg)) {
            case OK -> Move.OK;
            case INVALID_DESTINATION -> Move.SAME_NEXUS;
            default -> Move.CONFLICT;
        };
    }

    /** The sense of an outcome; null for OK. */
    static Parsed.Invalid<Void> invalid(io.blocktarget.block.Reservations.Outcome outcome) {
        return switch (outcome) {
            case OK -> null;
            case CONFLICT -> new Parsed.Invalid<>(SenseReason.RESERVATION_CONFLICT, Optional.empty());
            case TYPE_MISMATCH ->
                    new Parsed.Invalid<>(SenseReason.INVALID_RELEASE_OF_PERSISTENT_RESERVATION, Optional.empty());
            // SPC-5 §5.14.11.4.1: SERVICE ACTION RESERVATION KEY (parameter bytes 8..15) of zero
            case INVALID_PREEMPT_KEY -> new Parsed.Invalid<>(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST,
                    Optional.of(FieldPointer.parameter(8, 7)));
            // REGISTER AND MOVE (SPC-5 §6.17.4): mapped by its handler, which knows the fields
            case INVALID_DESTINATION, NOT_HOLDER -> new Parsed.Invalid<>(SenseReason.RESERVATION_CONFLICT,
                    Optional.empty());
        };
    }

    // ---- PERSISTENT RESERVE IN snapshots (SPC-5 §6.16) ----

    PersistentReserveInData.ReadKeys readKeys() {
        io.blocktarget.block.Reservations.Snapshot s = state.snapshot();
        return new PersistentReserveInData.ReadKeys(s.generation(),
                s.registrations().stream().map(io.blocktarget.block.Reservations.Registration::key).toList());
    }

    /** The all-registrants types report key 0 (SPC-5 §6.16.3). */
    PersistentReserveInData.ReadReservation readReservation() {
        io.blocktarget.block.Reservations.Snapshot s = state.snapshot();
        return new PersistentReserveInData.ReadReservation(s.generation(), s.holder().map(h ->
                new PersistentReserveInData.Reservation(s.holderKey(), prType(h.type()))));
    }

    /** NVMe hosts are listed too, with an iSCSI device TransportID naming their UUID host NQN (see TransportIds). */
    PersistentReserveInData.ReadFullStatus readFullStatus() {
        io.blocktarget.block.Reservations.Snapshot s = state.snapshot();
        List<PersistentReserveInData.FullStatusDescriptor> descriptors = new ArrayList<>();
        for (io.blocktarget.block.Reservations.Registration r : s.registrations()) {
            Optional<PrType> type = r.holder() ? s.holder().map(h -> prType(h.type())) : Optional.empty();
            int port = r.registrant() instanceof Registrant.InitiatorPort p ? p.relativeTargetPort() : 0;
            descriptors.add(new PersistentReserveInData.FullStatusDescriptor(r.key(), false, type, port,
                    TransportIds.of(r.registrant())));
        }
        return new PersistentReserveInData.ReadFullStatus(s.generation(), descriptors);
    }
}
