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

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reservation state of one logical unit: the RESERVE(6) holder (SPC-2 §7.21) and the persistent
 * reservation registrations and reservation (SPC-4 §5.13), with the conflict rules of SPC-4
 * §5.13.1 Table 60 / SBC-4 §4.17 Table 13. Registrations and the reservation are kept per I_T
 * nexus, survive nexus loss and logical unit reset, and are lost on restart (PTPL_C = 0).
 * All access is under this object's monitor: sessions on different event loops share it.
 */
final class Reservations {
    /** What a command does, for the conflict tables. */
    private enum Access { ALWAYS, READ, WRITE }

    /** The persistent reservation: who took it (the key holder for READ RESERVATION) and its type. */
    private record Held(ItNexus holder, PrType type) {
    }

    private final UnitAttentions unitAttentions;
    private final Map<ItNexus, Long> registrations = new LinkedHashMap<>();
    private ItNexus reserve6Holder;
    private Held held;
    private int generation;

    Reservations(UnitAttentions unitAttentions) {
        this.unitAttentions = unitAttentions;
    }

    /**
     * Whether {@code cdb} from {@code nexus} meets RESERVATION CONFLICT. Under another nexus's
     * RESERVE(6) only INQUIRY, REPORT LUNS, REQUEST SENSE, REPORT SUPPORTED OPERATION CODES and
     * RELEASE(6) pass (SPC-2 §5.5.1). Under a persistent reservation held by someone else, reads
     * conflict for the Exclusive Access types and writes for all types, unless the type grants access
     * to registrants and the nexus is registered (SPC-4 Table 60).
     */
    synchronized boolean conflicts(ItNexus nexus, Cdb cdb) {
        if (reserve6Holder != null && !reserve6Holder.equals(nexus)) {
            return !(cdb instanceof InquiryCdb || cdb instanceof ReportLunsCdb || cdb instanceof RequestSenseCdb
                    || cdb instanceof ReportSupportedOperationCodesCdb || cdb instanceof Release6Cdb);
        }
        if (held == null || isHolder(nexus)) {
            return false;
        }
        Access access = access(cdb);
        if (access == Access.ALWAYS || registrantsHaveAccess(held.type()) && registrations.containsKey(nexus)) {
            return false;
        }
        return access == Access.WRITE || exclusiveAccess(held.type());
    }

    private static Access access(Cdb cdb) {
        return switch (cdb) {
            // RSOC reads like MODE SENSE: allowed under Write Exclusive, a conflict under Exclusive Access
            case ReadCdb _, VerifyCdb _, ModeSenseCdb _, GetLbaStatusCdb _, ReportSupportedOperationCodesCdb _,
                 PreFetchCdb _, ReadDefectDataCdb _ -> Access.READ; // SBC-4 Table 13: as READ
            // REPORT TARGET PORT GROUPS is allowed under every reservation (SPC-4 Table 60): default
            case WriteCdb _, WriteAndVerifyCdb _, WriteSameCdb _, UnmapCdb _, CompareAndWriteCdb _, SanitizeCdb _,
                 SynchronizeCacheCdb _, ModeSelectCdb _, StartStopUnitCdb _ -> Access.WRITE;
            // INQUIRY, REPORT LUNS, REQUEST SENSE, TEST UNIT READY, READ CAPACITY, PR IN/OUT;
            // RESERVE(6)/RELEASE(6) decide for themselves below
            default -> Access.ALWAYS;
        };
    }

    private static boolean registrantsHaveAccess(PrType type) {
        return type != PrType.WRITE_EXCLUSIVE && type != PrType.EXCLUSIVE_ACCESS;
    }

    private static boolean allRegistrants(PrType type) {
        return type == PrType.WRITE_EXCLUSIVE_ALL_REGISTRANTS || type == PrType.EXCLUSIVE_ACCESS_ALL_REGISTRANTS;
    }

    private static boolean exclusiveAccess(PrType type) {
        return type == PrType.EXCLUSIVE_ACCESS || type == PrType.EXCLUSIVE_ACCESS_REGISTRANTS_ONLY
                || type == PrType.EXCLUSIVE_ACCESS_ALL_REGISTRANTS;
    }

    /** SPC-4 §5.13.10: every registrant holds an all-registrants reservation; otherwise the one that took it. */
    private boolean isHolder(ItNexus nexus) {
        return held != null && (allRegistrants(held.type()) ? registrations.containsKey(nexus) : held.holder().equals(nexus));
    }

    /**
     * RESERVE(6) with CRH = 1 (SPC-4 §5.13.3): from a persistent reservation holder, or from a
     * registrant under a registrants-only / all-registrants reservation, GOOD and nothing changes;
     * otherwise RESERVATION CONFLICT while any registration exists or another nexus holds RESERVE(6);
     * otherwise the nexus holds it.
     */
    void reserve6(Task task) {
        synchronized (this) {
            if (!persistentExemption(task.nexus())) {
                if (!registrations.isEmpty() || reserve6Holder != null && !reserve6Holder.equals(task.nexus())) {
                    task.fail(SenseReason.RESERVATION_CONFLICT);
                    return;
                }
                reserve6Holder = task.nexus();
            }
        }
        task.good();
    }

    /**
     * RELEASE(6): the same CRH exemption, the same conflict with registrations; otherwise releases
     * the nexus's own reservation and does nothing (GOOD) for anyone else's (SPC-2 §7.19).
     */
    void release6(Task task) {
        synchronized (this) {
            if (!persistentExemption(task.nexus())) {
                if (!registrations.isEmpty()) {
                    task.fail(SenseReason.RESERVATION_CONFLICT);
                    return;
                }
                if (task.nexus().equals(reserve6Holder)) {
                    reserve6Holder = null;
                }
            }
        }
        task.good();
    }

    /** SPC-4 §5.13.3 a) and b): the nexuses whose RESERVE(6)/RELEASE(6) succeed without effect. */
    private boolean persistentExemption(ItNexus nexus) {
        return held != null && (isHolder(nexus)
                || registrantsHaveAccess(held.type()) && registrations.containsKey(nexus));
    }

    /** Logical unit reset: RESERVE(6) is released; persistent reservations are not (SPC-4 §5.13.1). */
    synchronized void reset() {
        reserve6Holder = null;
    }

    synchronized void nexusLost(ItNexus nexus) {
        if (nexus.equals(reserve6Holder)) {
            reserve6Holder = null;
        }
    }

    // ---- PERSISTENT RESERVE OUT service actions (SPC-4 §5.13.5-5.13.11); null = GOOD ----

    /** REGISTER / REGISTER AND IGNORE EXISTING KEY (SPC-4 §5.13.7). */
    synchronized Parsed.Invalid<Void> register(ItNexus nexus, long key, long serviceActionKey, boolean ignoreKey) {
        Long current = registrations.get(nexus);
        if (!ignoreKey && key != (current == null ? 0 : current)) {
            return conflict();
        }
        if (current == null && serviceActionKey == 0) {
            return null; // unregistered nexus "unregistering": nothing happens, generation unchanged
        }
        if (serviceActionKey == 0) {
            unregister(nexus);
        } else {
            registrations.put(nexus, serviceActionKey);
        }
        generation++;
        return null;
    }

    /** SPC-4 §5.13.11.2.2: unregistering the holder releases the reservation (last registrant for all-registrants). */
    private void unregister(ItNexus nexus) {
        registrations.remove(nexus);
        if (held == null) {
            return;
        }
        boolean released = allRegistrants(held.type()) ? registrations.isEmpty() : held.holder().equals(nexus);
        if (released) {
            PrType type = held.type();
            held = null;
            if (registrantsHaveAccess(type)) {
                registrations.keySet().forEach(n -> unitAttentions.raise(n, SenseReason.RESERVATIONS_RELEASED));
            }
        }
    }

    /** RESERVE (SPC-4 §5.13.9): a registered nexus takes the reservation, or already holds one of that type. */
    synchronized Parsed.Invalid<Void> reserve(ItNexus nexus, long key, PrType type) {
        if (!keyMatches(nexus, key)) {
            return conflict();
        }
        if (held != null) {
            return isHolder(nexus) && held.type() == type ? null : conflict();
        }
        held = new Held(nexus, type);
        return null;
    }

    /**
     * RELEASE (SPC-4 §5.13.11.2.1): by a holder of the same type, else INVALID RELEASE OF PERSISTENT
     * RESERVATION; a non-holder's release does nothing. Registrants-only and all-registrants types tell
     * the other registrants with RESERVATIONS RELEASED.
     */
    synchronized Parsed.Invalid<Void> release(ItNexus nexus, long key, PrType type) {
        if (!keyMatches(nexus, key)) {
            return conflict();
        }
        if (held == null || !isHolder(nexus)) {
            return null;
        }
        if (held.type() != type) {
            return new Parsed.Invalid<>(SenseReason.INVALID_RELEASE_OF_PERSISTENT_RESERVATION, Optional.empty());
        }
        held = null;
        if (registrantsHaveAccess(type)) {
            raiseForOtherRegistrants(nexus, SenseReason.RESERVATIONS_RELEASED);
        }
        return null;
    }

    /** CLEAR (SPC-4 §5.13.11.2.6): every registration and the reservation go; the others learn RESERVATIONS PREEMPTED. */
    synchronized Parsed.Invalid<Void> clear(ItNexus nexus, long key) {
        if (!keyMatches(nexus, key)) {
            return conflict();
        }
        raiseForOtherRegistrants(nexus, SenseReason.RESERVATIONS_PREEMPTED);
        registrations.clear();
        held = null;
        generation++;
        return null;
    }

    /**
     * PREEMPT / PREEMPT AND ABORT (SPC-4 §5.13.11.4): removes the registrations with the SERVICE
     * ACTION RESERVATION KEY and, when that key is the holder's (or 0 under an all-registrants
     * reservation), takes the reservation with the new type. The preempted nexuses get REGISTRATIONS
     * PREEMPTED. Aborting their tasks is the transport's (it owns the task sets).
     */
    synchronized Parsed.Invalid<Void> preempt(ItNexus nexus, long key, long serviceActionKey, PrType type) {
        if (!keyMatches(nexus, key)) {
            return conflict();
        }
        boolean takeReservation;
        if (held == null) {
            takeReservation = false;
        } else if (allRegistrants(held.type())) {
            takeReservation = serviceActionKey == 0;
        } else {
            takeReservation = registrations.get(held.holder()) == serviceActionKey;
        }
        if (!takeReservation && serviceActionKey == 0) {
            return new Parsed.Invalid<>(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST,
                    Optional.of(FieldPointer.parameter(8, 7)));
        }
        List<ItNexus> removed = new ArrayList<>();
        registrations.forEach((n, k) -> {
            if (!n.equals(nexus) && (k == serviceActionKey || takeReservation && serviceActionKey == 0)) {
                removed.add(n);
            }
        });
        if (removed.isEmpty() && !takeReservation) {
            return conflict();
        }
        removed.forEach(registrations::remove);
        removed.forEach(n -> unitAttentions.raise(n, SenseReason.REGISTRATIONS_PREEMPTED));
        if (takeReservation) {
            held = new Held(nexus, type);
        }
        generation++;
        return null;
    }

    private boolean keyMatches(ItNexus nexus, long key) {
        Long current = registrations.get(nexus);
        return current != null && current == key;
    }

    private void raiseForOtherRegistrants(ItNexus nexus, SenseReason reason) {
        registrations.keySet().stream().filter(n -> !n.equals(nexus)).forEach(n -> unitAttentions.raise(n, reason));
    }

    private static Parsed.Invalid<Void> conflict() {
        return new Parsed.Invalid<>(SenseReason.RESERVATION_CONFLICT, Optional.empty());
    }

    // ---- PERSISTENT RESERVE IN snapshots (SPC-4 §6.15) ----

    synchronized PersistentReserveInData.ReadKeys readKeys() {
        return new PersistentReserveInData.ReadKeys(generation, List.copyOf(registrations.values()));
    }

    /** The all-registrants types report key 0 (SPC-4 §6.15.3). */
    synchronized PersistentReserveInData.ReadReservation readReservation() {
        return new PersistentReserveInData.ReadReservation(generation, Optional.ofNullable(held).map(h ->
                new PersistentReserveInData.Reservation(allRegistrants(h.type()) ? 0 : registrations.get(h.holder()),
                        h.type())));
    }

    synchronized PersistentReserveInData.ReadFullStatus readFullStatus() {
        List<PersistentReserveInData.FullStatusDescriptor> descriptors = new ArrayList<>();
        registrations.forEach((n, k) -> descriptors.add(new PersistentReserveInData.FullStatusDescriptor(k, false,
                isHolder(n) ? Optional.of(held.type()) : Optional.empty(), n.relativeTargetPort(),
                TransportIds.of(n))));
        return new PersistentReserveInData.ReadFullStatus(generation, descriptors);
    }
}
