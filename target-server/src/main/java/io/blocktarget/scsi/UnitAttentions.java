package io.blocktarget.scsi;

import io.blocktarget.protocol.scsi.SenseReason;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Unit attention conditions of one logical unit, queued per I_T nexus (SAM-5 §5.14, SPC-4 §5.14).
 * A nexus seen for the first time starts with POWER ON, RESET, OR BUS DEVICE RESET OCCURRED, so an
 * initiator learns that state it may have assumed (reservations, mode pages) is gone. Shared by
 * sessions on different event loops, hence synchronized; the queues are tiny.
 */
final class UnitAttentions {
    /** SAM-5 lets a device server drop conditions when it runs out of room; we keep this many. */
    static final int QUEUE_LIMIT = 16;

    private final Map<ItNexus, Deque<SenseReason>> pending = new HashMap<>();

    /** Registers the nexus on its first command (queueing POWER ON / RESET); nothing on later ones. */
    synchronized void firstContact(ItNexus nexus) {
        pending.computeIfAbsent(nexus, n -> new ArrayDeque<>(List.of(SenseReason.POWER_ON_RESET)));
    }

    /** Takes the oldest condition pending for the nexus: it is reported once, then cleared. */
    synchronized Optional<SenseReason> take(ItNexus nexus) {
        Deque<SenseReason> queue = pending.get(nexus);
        return queue == null ? Optional.empty() : Optional.ofNullable(queue.pollFirst());
    }

    synchronized void raise(ItNexus nexus, SenseReason reason) {
        Deque<SenseReason> queue = pending.get(nexus);
        if (queue != null && !queue.contains(reason) && queue.size() < QUEUE_LIMIT) {
            queue.addLast(reason);
        }
    }

    /** Raises the condition for every known nexus except {@code except} (which may be null). */
    synchronized void raiseForOthers(ItNexus except, SenseReason reason) {
        for (ItNexus nexus : pending.keySet()) {
            if (!nexus.equals(except)) {
                raise(nexus, reason);
            }
        }
    }

    /** Clears one kind of condition, e.g. REPORTED LUNS DATA HAS CHANGED after REPORT LUNS (SPC-4 §6.33). */
    synchronized void clear(ItNexus nexus, SenseReason reason) {
        Deque<SenseReason> queue = pending.get(nexus);
        if (queue != null) {
            queue.remove(reason);
        }
    }

    /** The nexus is gone: a new one with the same names starts over with POWER ON / RESET. */
    synchronized void forget(ItNexus nexus) {
        pending.remove(nexus);
    }
}
