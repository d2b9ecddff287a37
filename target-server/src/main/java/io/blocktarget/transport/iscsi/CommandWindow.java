package io.blocktarget.transport.iscsi;

import io.blocktarget.protocol.iscsi.InitiatorPdu;
import io.blocktarget.protocol.iscsi.SerialNumbers;
import io.netty.util.collection.IntObjectHashMap;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;

/**
 * Command numbering of one session (RFC 7143 §4.2.2.1, §3.2.2.1): non-immediate commands are delivered in
 * CmdSN order; a command ahead of ExpCmdSN but inside the window waits for the gap to fill, one outside
 * [ExpCmdSN, MaxCmdSN] is dropped. Immediate commands bypass the ordering and do not advance ExpCmdSN.
 * MaxCmdSN = ExpCmdSN + queueDepth - 1.
 */
final class CommandWindow {
    /** What to do with an arriving PDU. */
    enum Admission {
        /** Deliver it now (and then whatever {@link #drainReady()} returns). */
        DELIVER,
        /** Held until ExpCmdSN reaches it. */
        HELD,
        /** Outside the window: silently discarded (§4.2.2.1). */
        DROPPED
    }

    /** The target's once the first Login Request named it (before any response carried a MaxCmdSN). */
    private int queueDepth;
    private final IntSupplier outstanding;
    /** By CmdSN, without boxing: every command asks it, and it is nearly always empty. */
    private final IntObjectHashMap<InitiatorPdu> held = new IntObjectHashMap<>();
    private int expCmdSN;

    CommandWindow(int initialCmdSN, int queueDepth, IntSupplier outstanding) {
        this.expCmdSN = initialCmdSN;
        this.queueDepth = queueDepth;
        this.outstanding = outstanding;
    }

    /**
     * The session's CmdSN window size, known once the login named its target (issue 11 {@code queue-depth}). Set
     * before the first MaxCmdSN goes out: initiators ignore a MaxCmdSN lower than the one they hold (§4.2.2.1).
     */
    void queueDepth(int depth) {
        if (depth < 1) {
            throw new IllegalArgumentException("queue depth " + depth);
        }
        this.queueDepth = depth;
    }

    int expCmdSN() {
        return expCmdSN;
    }

    int maxCmdSN() {
        // §4.2.2.1: MaxCmdSN = ExpCmdSN - 1 closes the window; it is never lower.
        return expCmdSN + Math.max(0, queueDepth - outstanding.getAsInt()) - 1;
    }

    /** Admits a PDU with the given CmdSN; a HELD PDU is owned by the window until drained or released. */
    Admission admit(InitiatorPdu pdu, boolean immediate, int cmdSN) {
        if (immediate) {
            return Admission.DELIVER;
        }
        if (!SerialNumbers.inWindow(cmdSN, expCmdSN, maxCmdSN()) || held.containsKey(cmdSN)) {
            return Admission.DROPPED;
        }
        if (cmdSN == expCmdSN) {
            expCmdSN = SerialNumbers.add(expCmdSN, 1);
            return Admission.DELIVER;
        }
        held.put(cmdSN, pdu);
        return Admission.HELD;
    }

    /** Held PDUs that are now in order, advancing ExpCmdSN past each. */
    List<InitiatorPdu> drainReady() {
        if (held.isEmpty()) {
            return List.of();   // the usual case, once per command: no list
        }
        List<InitiatorPdu> ready = new ArrayList<>();
        InitiatorPdu next;
        while ((next = held.remove(expCmdSN)) != null) {
            ready.add(next);
            expCmdSN = SerialNumbers.add(expCmdSN, 1);
        }
        return ready;
    }

    /** Releases every held PDU (connection closing). */
    void releaseHeld() {
        held.values().forEach(InitiatorPdu::release);
        held.clear();
    }
}
