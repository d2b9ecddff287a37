package io.blocktarget.block;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The reservation state of one device, shared by SCSI and NVMe (DESIGN §10): persistent reservation
 * registrations, the reservation holder and type, PRGENERATION, and the SPC-2 RESERVE(6) holder. It knows
 * neither sense data nor NVMe status: each operation answers an {@link Outcome}, each command set maps it.
 *
 * <h2>One reservation, two protocols</h2>
 * A SCSI I_T nexus ({@link Registrant.InitiatorPort}) and an NVMe host ({@link Registrant.Host}) are
 * registrants of the same reservation. NVMe reservation types 1..6 are defined as the SCSI types WE, EA, WERO,
 * EARO, WEAR, EAAR (NVMe Base §8.1.22 "Reservations", Figure "Command Behavior in the Presence of a
 * Reservation", modelled on SPC-5 §5.14.1's access tables), so one {@link ReservationType} serves both and
 * {@link #conflicts} applies the same table to every registrant:
 * <ul>
 * <li>the holder (every registrant for WEAR / EAAR) reads and writes;</li>
 * <li>WE: others read, writes conflict; EA: others' reads and writes conflict;</li>
 * <li>WERO / WEAR: registrants read and write, non-registrants read only;</li>
 * <li>EARO / EAAR: registrants read and write, non-registrants neither.</li>
 * </ul>
 * "Read" is SCSI READ / VERIFY / MODE SENSE... and NVMe Read / Compare / Verify; "write" is SCSI WRITE /
 * WRITE SAME / UNMAP / COMPARE AND WRITE / SYNCHRONIZE CACHE... and NVMe Write / Write Zeroes / Dataset
 * Management / Flush (NVMe's figure lists Flush with the writes). A SCSI RESERVE(6) (SPC-2 §7.21) held by a
 * nexus makes every other registrant's reads and writes conflict, NVMe hosts' included.
 *
 * <p>Notices (SCSI unit attentions RESERVATIONS RELEASED / PREEMPTED, REGISTRATIONS PREEMPTED; NVMe
 * Reservation Notification log entries) go to every {@link Listener}, outside the monitor; each command set
 * picks the registrants of its own kind.
 *
 * <p>Threads: everything under this object's monitor (sessions on different event loops share it), except the
 * hot path: {@link #conflicts} reads one volatile field and returns at once while nobody is registered and no
 * RESERVE(6) is held.
 */
public final class Reservations {
    /** What a command does, for the conflict table. */
    public enum Access { READ, WRITE }

    /** The answer of an operation; the command set maps it onto sense data or NVMe status. */
    public enum Outcome {
        OK,
        /** RESERVATION CONFLICT / Reservation Conflict. */
        CONFLICT,
        /** A holder released with another type: INVALID RELEASE OF PERSISTENT RESERVATION / Invalid Field. */
        TYPE_MISMATCH,
        /** PREEMPT with SERVICE ACTION RESERVATION KEY 0 where only an all-registrants reservation allows it. */
        INVALID_PREEMPT_KEY,
        /** REGISTER AND MOVE to the nexus itself or to a destination that is not allowed (SPC-5 §5.14.8). */
        INVALID_DESTINATION,
        /** REGISTER AND MOVE while the sender does not hold the reservation, or under an all-registrants type. */
        NOT_HOLDER
    }

    /** What a registrant learns from another's operation (SPC-5 §5.14.11; NVMe Reservation Notification log). */
    public enum Notice { REGISTRATION_PREEMPTED, RESERVATION_RELEASED, RESERVATION_PREEMPTED }

    /** Receives notices; called outside the monitor, on the thread of the command that caused them. */
    public interface Listener {
        void notice(Registrant to, Notice notice);
    }

    /** The reservation: who took it (the one reported for a non-all-registrants type) and its type. */
    public record Holder(Registrant registrant, ReservationType type) {
    }

    /** One registration. */
    public record Registration(Registrant registrant, long key, boolean holder) {
    }

    /** A consistent copy for READ KEYS / READ RESERVATION / READ FULL STATUS and NVMe Reservation Report. */
    public record Snapshot(int generation, List<Registration> registrations, Optional<Holder> holder,
                           boolean persistThroughPowerLoss) {
        public Snapshot {
            registrations = List.copyOf(registrations);
        }

        /** The reservation key to report: the holder's, or 0 for an all-registrants type (SPC-5 §6.15.3). */
        public long holderKey() {
            return holder.filter(h -> !h.type().allRegistrants()).flatMap(h -> registrations.stream()
                    .filter(r -> r.registrant().equals(h.registrant())).findFirst()).map(Registration::key).orElse(0L);
        }
    }

    private enum Activity { QUIET, ACTIVE }

    private final Map<Registrant, Long> registrations = new LinkedHashMap<>();
    private final List<Listener> listeners = new CopyOnWriteArrayList<>();
    private Registrant reserve6Holder;
    private Holder held;
    private int generation;
    private boolean aptpl;
    /** Where APTPL state is kept, or null: no persistence (PTPL_C = 0). */
    private final ReservationStateFile stateFile;
    /** QUIET while there is nothing to check: read without the monitor by every command. */
    private volatile Activity activity = Activity.QUIET;

    /** Reservations that live in memory only (APTPL refused). */
    public Reservations() {
        this.stateFile = null;
    }

    /**
     * Reservations persisted through power loss in {@code stateFile} while APTPL / PTPL is set (SPC-5 §5.14.5,
     * NVMe Base §8.1.22.4). A state file left by an earlier run with APTPL set is restored now.
     *
     * @throws java.io.UncheckedIOException when the file exists but cannot be read or is not a state file:
     *         reservations fence hosts off, so they are never silently dropped
     */
    public Reservations(java.nio.file.Path stateFile) {
        this.stateFile = new ReservationStateFile(stateFile);
        this.stateFile.load().ifPresent(this::restore);
    }

    public void addListener(Listener listener) {
        listeners.add(listener);
    }

    public void removeListener(Listener listener) {
        listeners.remove(listener);
    }

    // ---- the conflict table ----

    /** Whether the state is empty, so that no command can conflict (one volatile read). */
    public boolean quiet() {
        return activity == Activity.QUIET;
    }

    /**
     * Whether {@code access} by {@code who} conflicts with the reservation or with another's RESERVE(6) (see the
     * class comment for the table).
     */
    public boolean conflicts(Registrant who, Access access) {
        if (activity == Activity.QUIET) {
            return false;
        }
        synchronized (this) {
            return reserve6HeldByOther(who) || persistentConflict(who, access);
        }
    }

    /** Whether another registrant holds RESERVE(6): the SCSI layer lets its few exempt commands through. */
    public synchronized boolean reserve6HeldByOther(Registrant who) {
        return reserve6Holder != null && !reserve6Holder.equals(who);
    }

    private boolean persistentConflict(Registrant who, Access access) {
        if (held == null || isHolder(who)) {
            return false;
        }
        if (held.type().registrantsHaveAccess() && registrations.containsKey(who)) {
            return false;
        }
        return access == Access.WRITE || held.type().exclusiveAccess();
    }

    /** SPC-5 §5.14.10: every registrant holds an all-registrants reservation; otherwise the one that took it. */
    private boolean isHolder(Registrant who) {
        return held != null && (held.type().allRegistrants() ? registrations.containsKey(who)
                : held.registrant().equals(who));
    }

    // ---- RESERVE(6) / RELEASE(6), SPC-2 §7.21 / §7.19 with SPC-5 §5.14.3 (CRH = 1) ----

    /**
     * RESERVE(6): a persistent reservation holder, or a registrant under an RO / AR type, gets OK with no
     * effect; otherwise CONFLICT while any registration exists or another holds RESERVE(6); else it holds it.
     */
    public synchronized Outcome reserve6(Registrant who) {
        if (persistentExemption(who)) {
            return Outcome.OK;
        }
        if (!registrations.isEmpty() || reserve6Holder != null && !reserve6Holder.equals(who)) {
            return Outcome.CONFLICT;
        }
        reserve6Holder = who;
        changed();
        return Outcome.OK;
    }

    /** RELEASE(6): the same exemption and conflict; releases the sender's own RESERVE(6), ignores others'. */
    public synchronized Outcome release6(Registrant who) {
        if (persistentExemption(who)) {
            return Outcome.OK;
        }
        if (!registrations.isEmpty()) {
            return Outcome.CONFLICT;
        }
        if (who.equals(reserve6Holder)) {
            reserve6Holder = null;
            changed();
        }
        return Outcome.OK;
    }

    private boolean persistentExemption(Registrant who) {
        return held != null && (isHolder(who) || held.type().registrantsHaveAccess() && registrations.containsKey(who));
    }

    /** Logical unit reset: RESERVE(6) is released; persistent reservations are not (SPC-5 §5.14.1). */
    public synchronized void resetReserve6() {
        reserve6Holder = null;
        changed();
    }

    /** I_T nexus loss: its RESERVE(6) goes; registrations persist. */
    public synchronized void lost(Registrant who) {
        if (who.equals(reserve6Holder)) {
            reserve6Holder = null;
            changed();
        }
    }

    // ---- registration ----

    /** The registrant's key, if registered. */
    public synchronized Optional<Long> key(Registrant who) {
        return Optional.ofNullable(registrations.get(who));
    }

    /**
     * SCSI REGISTER / REGISTER AND IGNORE EXISTING KEY (SPC-5 §5.14.7): {@code key} must be the current one (0
     * when unregistered) unless {@code ignoreKey}; a new key of 0 unregisters. An unregistered registrant
     * "unregistering" changes nothing, not even the generation.
     */
    public Outcome register(Registrant who, long key, long newKey, boolean ignoreKey) {
        List<Runnable> notices = new ArrayList<>();
        Outcome outcome;
        synchronized (this) {
            Long current = registrations.get(who);
            if (!ignoreKey && key != (current == null ? 0 : current)) {
                return Outcome.CONFLICT;
            }
            if (current == null && newKey == 0) {
                return Outcome.OK;
            }
            if (newKey == 0) {
                unregister(who, notices);
            } else {
                registrations.put(who, newKey);
            }
            generation++;
            changed();
            outcome = Outcome.OK;
        }
        notices.forEach(Runnable::run);
        return outcome;
    }

    /**
     * NVMe Reservation Register, RREGA 000b Register: a host not yet registered registers {@code newKey}; a
     * host registered with the same key succeeds with no change; with another key it conflicts (NVMe Base
     * §7.x Reservation Register).
     */
    public synchronized Outcome registerNew(Registrant who, long newKey) {
        Long current = registrations.get(who);
        if (current != null) {
            return current == newKey ? Outcome.OK : Outcome.CONFLICT;
        }
        registrations.put(who, newKey);
        generation++;
        changed();
        return Outcome.OK;
    }

    /** NVMe RREGA 001b Unregister: the current key must match unless {@code ignoreKey}; unregistered: conflict. */
    public Outcome unregister(Registrant who, long currentKey, boolean ignoreKey) {
        List<Runnable> notices = new ArrayList<>();
        synchronized (this) {
            Long current = registrations.get(who);
            if (current == null || !ignoreKey && current != currentKey) {
                return Outcome.CONFLICT;
            }
            unregister(who, notices);
            generation++;
            changed();
        }
        notices.forEach(Runnable::run);
        return Outcome.OK;
    }

    /**
     * NVMe RREGA 010b Replace: a registered host's key becomes {@code newKey} when {@code currentKey} matches or
     * {@code ignoreKey}; an unregistered host with IEKEY registers, without it conflicts.
     */
    public synchronized Outcome replace(Registrant who, long currentKey, long newKey, boolean ignoreKey) {
        Long current = registrations.get(who);
        if (current == null ? !ignoreKey : !ignoreKey && current != currentKey) {
            return Outcome.CONFLICT;
        }
        registrations.put(who, newKey);
        generation++;
        changed();
        return Outcome.OK;
    }

    /** SPC-5 §5.14.11.2.2: unregistering the holder releases the reservation (last registrant for AR types). */
    private void unregister(Registrant who, List<Runnable> notices) {
        registrations.remove(who);
        if (held == null) {
            return;
        }
        boolean released = held.type().allRegistrants() ? registrations.isEmpty() : held.registrant().equals(who);
        if (released) {
            ReservationType type = held.type();
            held = null;
            if (type.registrantsHaveAccess()) {
                noticeOthers(who, Notice.RESERVATION_RELEASED, notices);
            }
        }
    }

    // ---- reservation ----

    /** RESERVE / Acquire: a registrant with its key takes the reservation, or already holds one of that type. */
    public synchronized Outcome reserve(Registrant who, long key, ReservationType type) {
        if (!keyMatches(who, key)) {
            return Outcome.CONFLICT;
        }
        if (held != null) {
            return isHolder(who) && held.type() == type ? Outcome.OK : Outcome.CONFLICT;
        }
        held = new Holder(who, type);
        changed();
        return Outcome.OK;
    }

    /**
     * RELEASE / Release (SPC-5 §5.14.11.2.1): by a holder of the same type, else TYPE_MISMATCH; a non-holder's
     * release does nothing. RO and AR types tell the other registrants (RESERVATION RELEASED).
     */
    public Outcome release(Registrant who, long key, ReservationType type) {
        List<Runnable> notices = new ArrayList<>();
        synchronized (this) {
            if (!keyMatches(who, key)) {
                return Outcome.CONFLICT;
            }
            if (held == null || !isHolder(who)) {
                return Outcome.OK;
            }
            if (held.type() != type) {
                return Outcome.TYPE_MISMATCH;
            }
            held = null;
            if (type.registrantsHaveAccess()) {
                noticeOthers(who, Notice.RESERVATION_RELEASED, notices);
            }
            changed();
        }
        notices.forEach(Runnable::run);
        return Outcome.OK;
    }

    /** CLEAR / Release RRELA 001b: every registration and the reservation go; the others learn PREEMPTED. */
    public Outcome clear(Registrant who, long key) {
        List<Runnable> notices = new ArrayList<>();
        synchronized (this) {
            if (!keyMatches(who, key)) {
                return Outcome.CONFLICT;
            }
            noticeOthers(who, Notice.RESERVATION_PREEMPTED, notices);
            registrations.clear();
            held = null;
            generation++;
            changed();
        }
        notices.forEach(Runnable::run);
        return Outcome.OK;
    }

    /**
     * PREEMPT / PREEMPT AND ABORT (SPC-5 §5.14.11.4) and NVMe Acquire RACQA 001b / 010b: removes the
     * registrations with {@code victimKey} and, when that key is the holder's (or 0 under an all-registrants
     * reservation), takes the reservation with {@code type}. The preempted learn REGISTRATION_PREEMPTED. Aborting
     * their commands is the command sets' business (they own the task sets / queues).
     *
     * @return the outcome and, when OK, the registrants whose registration was removed
     */
    public PreemptResult preempt(Registrant who, long key, long victimKey, ReservationType type) {
        List<Runnable> notices = new ArrayList<>();
        List<Registrant> removed = new ArrayList<>();
        synchronized (this) {
            if (!keyMatches(who, key)) {
                return new PreemptResult(Outcome.CONFLICT, List.of());
            }
            boolean take;
            if (held == null) {
                take = false;
            } else if (held.type().allRegistrants()) {
                take = victimKey == 0;
            } else {
                Long holderKey = registrations.get(held.registrant());
                take = holderKey != null && holderKey == victimKey;
            }
            if (!take && victimKey == 0) {
                return new PreemptResult(Outcome.INVALID_PREEMPT_KEY, List.of());
            }
            registrations.forEach((r, k) -> {
                if (!r.equals(who) && (k == victimKey || take && victimKey == 0)) {
                    removed.add(r);
                }
            });
            if (removed.isEmpty() && !take) {
                return new PreemptResult(Outcome.CONFLICT, List.of());
            }
            removed.forEach(registrations::remove);
            removed.forEach(r -> notices.add(() -> fire(r, Notice.REGISTRATION_PREEMPTED)));
            if (take) {
                if (held.type() != type) {
                    // SPC-5 §5.14.11.4.3: a changed type releases the reservation of those still registered
                    noticeOthers(who, Notice.RESERVATION_RELEASED, notices);
                }
                held = new Holder(who, type);
            }
            generation++;
            changed();
        }
        notices.forEach(Runnable::run);
        return new PreemptResult(Outcome.OK, List.copyOf(removed));
    }

    /** What PREEMPT answered, and whom it removed (for PREEMPT AND ABORT). */
    public record PreemptResult(Outcome outcome, List<Registrant> removed) {
    }

    /**
     * REGISTER AND MOVE (SPC-5 §5.14.8): the reservation holder {@code who}, with its key, registers
     * {@code destination} with {@code newKey}, moves the reservation to it with {@code type} (the TYPE of the
     * CDB, as LIO does), and, with {@code unreg},
     * unregisters itself. CONFLICT for a wrong key or a sender that is not registered; NOT_HOLDER when there is
     * no reservation, the sender does not hold it, or the type is all-registrants; INVALID_DESTINATION when the
     * destination is the sender itself. A destination already registered has its key replaced.
     */
    public Outcome registerAndMove(Registrant who, long key, long newKey, Registrant destination, ReservationType type,
                                   boolean unreg) {
        synchronized (this) {
            if (!keyMatches(who, key)) {
                return Outcome.CONFLICT;
            }
            if (held == null || held.type().allRegistrants() || !held.registrant().equals(who)) {
                return Outcome.NOT_HOLDER;
            }
            if (destination.equals(who)) {
                return Outcome.INVALID_DESTINATION;
            }
            registrations.put(destination, newKey);
            held = new Holder(destination, type);
            if (unreg) {
                registrations.remove(who);
            }
            generation++;
            changed();
        }
        return Outcome.OK;
    }

    private boolean keyMatches(Registrant who, long key) {
        Long current = registrations.get(who);
        return current != null && current == key;
    }

    private void noticeOthers(Registrant who, Notice notice, List<Runnable> notices) {
        for (Registrant r : registrations.keySet()) {
            if (!r.equals(who)) {
                notices.add(() -> fire(r, notice));
            }
        }
    }

    private void fire(Registrant to, Notice notice) {
        for (Listener l : listeners) {
            l.notice(to, notice);
        }
    }

    // ---- APTPL, SPC-5 §5.14.5 ----

    /** Whether APTPL / PTPL can be honoured: a state file was given (PTPL_C, RESCAP bit 0). */
    public boolean persistenceAvailable() {
        return stateFile != null;
    }

    /** The APTPL bit of the last REGISTER that set it (PTPL_A). */
    public synchronized boolean persistThroughPowerLoss() {
        return aptpl;
    }

    public synchronized void persistThroughPowerLoss(boolean on) {
        aptpl = on;
    }

    /**
     * Makes the current state durable when APTPL is set (temp file, fsync, rename, fsync of the directory, on the
     * state file's own writer thread, never the caller's), or removes the file when APTPL is clear. The future
     * completes once the state as of the write (this change or later ones) is on disk; the command that changed
     * the state completes after it. Immediately done without a state file.
     */
    public java.util.concurrent.CompletableFuture<Void> persist() {
        if (stateFile == null) {
            return java.util.concurrent.CompletableFuture.completedFuture(null);
        }
        return stateFile.write(this::snapshot);
    }

    // ---- reports ----

    public synchronized Snapshot snapshot() {
        List<Registration> list = new ArrayList<>(registrations.size());
        registrations.forEach((r, k) -> list.add(new Registration(r, k, isHolder(r))));
        return new Snapshot(generation, list, Optional.ofNullable(held), aptpl);
    }

    /** Replaces the whole state (loading the APTPL file); notifies nobody. */
    public synchronized void restore(Snapshot snapshot) {
        registrations.clear();
        snapshot.registrations().forEach(r -> registrations.put(r.registrant(), r.key()));
        held = snapshot.holder().orElse(null);
        generation = snapshot.generation();
        aptpl = snapshot.persistThroughPowerLoss();
        changed();
    }

    private void changed() {
        activity = registrations.isEmpty() && held == null && reserve6Holder == null ? Activity.QUIET : Activity.ACTIVE;
    }
}
