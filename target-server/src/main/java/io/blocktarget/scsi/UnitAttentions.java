package io.blocktarget.scsi;

import io.blocktarget.protocol.scsi.SenseReason;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Unit attention conditions of one logical unit, queued per I_T nexus (SAM-5 §5.14, SPC-5 §5.14 / Annex). Each
 * condition is reported once to each nexus it was established for, by the first command other than INQUIRY, REPORT
 * LUNS and REQUEST SENSE (or returned by REQUEST SENSE), oldest first.
 *
 * <ul>
 * <li>A nexus seen for the first time starts with POWER ON, RESET, OR BUS DEVICE RESET OCCURRED (29h/00h), so an
 *     initiator learns that state it may have assumed (reservations, mode pages) is gone.</li>
 * <li>An I_T nexus loss (SAM-5 §6.3.4) leaves I_T NEXUS LOSS OCCURRED (29h/07h) for the nexus when it comes back
 *     (iSCSI: a session with the same initiator name and ISID), ahead of what it had not been told yet; conditions
 *     established while it was away queue behind. The last {@value #LOST_NEXUS_LIMIT} lost nexuses are remembered;
 *     an older one comes back as a new nexus (29h/00h).</li>
 * <li>A reset condition (29h) replaces any other 29h condition still queued: the newest reset says it all, and the
 *     nexus sees one, not two.</li>
 * </ul>
 * Shared by sessions on different event loops, hence synchronized; the queues are tiny.
 */
final class UnitAttentions {
    /** SAM-5 lets a device server drop conditions when it runs out of room; we keep this many. */
    static final int QUEUE_LIMIT = 16;
    /** Lost nexuses whose conditions are kept for their return. */
    static final int LOST_NEXUS_LIMIT = 1024;
    private static final int RESET_ASC = 0x29;

    private final Map<ItNexus, Deque<SenseReason>> pending = new HashMap<>();
    /** Lost nexuses, oldest first; each has its queue in {@link #pending}. */
    private final LinkedHashSet<ItNexus> lost = new LinkedHashSet<>();

    /**
     * A command arrived from the nexus: registers it on its first command (queueing POWER ON / RESET) and, when
     * {@code report} (every command but INQUIRY, REPORT LUNS and REQUEST SENSE), takes its oldest condition as
     * {@link #take} does — one lock and one lookup, as every command asks. Returns the condition to report, or null.
     */
    synchronized SenseReason admit(ItNexus nexus, boolean report) {
        Deque<SenseReason> queue = pending.get(nexus);
        if (queue == null) {
            queue = new ArrayDeque<>(List.of(SenseReason.POWER_ON_RESET));
            pending.put(nexus, queue);
        }
        if (!lost.isEmpty()) {
            lost.remove(nexus); // it is back
        }
        return report ? queue.pollFirst() : null;
    }

    /** Takes the oldest condition pending for the nexus: it is reported once, then cleared. */
    synchronized Optional<SenseReason> take(ItNexus nexus) {
        Deque<SenseReason> queue = pending.get(nexus);
        return queue == null ? Optional.empty() : Optional.ofNullable(queue.pollFirst());
    }

    /** Whether nothing is pending for the nexus. */
    synchronized boolean isEmpty(ItNexus nexus) {
        Deque<SenseReason> queue = pending.get(nexus);
        return queue == null || queue.isEmpty();
    }

    /** Establishes the condition for a nexus this logical unit knows (an unknown one meets POWER ON first anyway). */
    synchronized void raise(ItNexus nexus, SenseReason reason) {
        Deque<SenseReason> queue = pending.get(nexus);
        if (queue == null || queue.contains(reason)) {
            return;
        }
        if (reason.asc() == RESET_ASC) {
            queue.removeIf(r -> r.asc() == RESET_ASC);
        }
        if (queue.size() < QUEUE_LIMIT) {
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

    /** Raises the condition for every known nexus. */
    synchronized void raiseForAll(SenseReason reason) {
        raiseForOthers(null, reason);
    }

    /** Clears one kind of condition, e.g. REPORTED LUNS DATA HAS CHANGED after REPORT LUNS (SPC-4 §6.33). */
    synchronized void clear(ItNexus nexus, SenseReason reason) {
        Deque<SenseReason> queue = pending.get(nexus);
        if (queue != null) {
            queue.remove(reason);
        }
    }

    /**
     * The nexus is gone (SAM-5 §6.3.4): when it returns it meets I_T NEXUS LOSS OCCURRED, then what was still queued
     * for it (a reservation preempted meanwhile, say). A nexus that never sent a command here has nothing to keep.
     */
    synchronized void nexusLost(ItNexus nexus) {
        Deque<SenseReason> queue = pending.get(nexus);
        if (queue == null) {
            return;
        }
        raise(nexus, SenseReason.I_T_NEXUS_LOSS_OCCURRED);
        queue.remove(SenseReason.I_T_NEXUS_LOSS_OCCURRED);
        queue.addFirst(SenseReason.I_T_NEXUS_LOSS_OCCURRED);
        lost.remove(nexus);
        lost.add(nexus);
        if (lost.size() > LOST_NEXUS_LIMIT) {
            Iterator<ItNexus> oldest = lost.iterator();
            pending.remove(oldest.next());
            oldest.remove();
        }
    }

    /** Nexuses this unit keeps conditions for (tests: the lost ones are bounded). */
    synchronized int known() {
        return pending.size();
    }
}
