package io.blocktarget.transport.iscsi;

import io.blocktarget.state.StateCounters;
import io.blocktarget.state.StateMachine;
import io.netty.buffer.CompositeByteBuf;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One SCSI command on a connection, from its SCSI Command PDU to its response: write data gathered
 * (immediate, unsolicited, then per R2T), the R2Ts in flight and the Data-In numbering (RFC 7143 §10.7-10.8).
 * Confined to the connection's event loop.
 */
final class ScsiTask {
    /** Lifecycle of a task. */
    enum State {
        /** Waiting for write data (immediate / unsolicited / solicited). */
        RECEIVING_DATA,
        /**
         * A Data-Out of the task was lost (data digest error, or a DataSN out of sequence, which implies one): the
         * rest of its data is discarded until every data sequence still open has ended with its F bit, then the task
         * ends with CHECK CONDITION, protocol service CRC error (RFC 7143 §7.8 option b, §7.9). Never executed.
         */
        DRAINING,
        /** Handed to the device server. */
        EXECUTING,
        /** Response sent. */
        DONE,
        /** Aborted by task management or by the connection closing: no response is sent. */
        ABORTED;

        /** Every task ends DONE or ABORTED (the teardown check counts on it). */
        static final StateMachine<State> MACHINE = StateMachine.of("iSCSI task", State.class, RECEIVING_DATA)
                .allow(RECEIVING_DATA, EXECUTING, DRAINING, ABORTED)
                .allow(DRAINING, DONE, ABORTED)
                .allow(EXECUTING, DONE, ABORTED)
                .terminal(DONE)
                .terminal(ABORTED)
                .build();
    }

    /** Whether unsolicited Data-Out may still arrive (§11.3.1.2: the command's F bit). */
    enum UnsolicitedPhase {
        OPEN,
        ENDED
    }

    /** One outstanding R2T (§11.8): the Data-Out sequence it solicits. */
    static final class Solicitation {
        final int ttt;
        final long offset;
        final long length;
        long received;
        int nextDataSN;

        Solicitation(int ttt, long offset, long length) {
            this.ttt = ttt;
            this.offset = offset;
            this.length = length;
        }
    }

    final int itt;
    final long lunField;
    /** The LUN as the device server numbers it ({@link TaskEngine#UNADDRESSABLE_LUN} when it cannot be named). */
    final long lun;
    final long edtl;
    final boolean read;
    final boolean write;
    final CompositeByteBuf dataOut;
    final long unsolicitedLimit;
    final Map<Integer, Solicitation> r2ts = new LinkedHashMap<>();
    /** The connection's task counters: {@link #state} changes only through {@link State#MACHINE}. */
    private final StateCounters<State> counters;
    private State state;
    UnsolicitedPhase unsolicited;
    long received;
    long nextR2TOffset;
    int nextUnsolicitedDataSN;
    int r2tSN;

    ScsiTask(int itt, long lunField, long edtl, boolean read, boolean write, CompositeByteBuf dataOut,
             long unsolicitedLimit, UnsolicitedPhase unsolicited, StateCounters<State> counters) {
        this.itt = itt;
        this.counters = counters;
        this.state = State.MACHINE.start(counters);
        this.lunField = lunField;
        java.util.OptionalInt decoded = io.blocktarget.protocol.scsi.ScsiLun.decode(lunField);
        this.lun = decoded.isPresent() ? decoded.getAsInt() : TaskEngine.UNADDRESSABLE_LUN;
        this.edtl = edtl;
        this.read = read;
        this.write = write;
        this.dataOut = dataOut;
        this.unsolicitedLimit = unsolicitedLimit;
        this.unsolicited = unsolicited;
    }

    boolean allDataReceived() {
        return !write || received == edtl;
    }

    State state() {
        return state;
    }

    void transitionTo(State next) {
        state = State.MACHINE.transition(state, next, counters);
    }

    /** The data gathered so far will never be used: freed at once (a draining task discards what comes). */
    void drain() {
        transitionTo(State.DRAINING);
        if (dataOut != null) {
            dataOut.release();
        }
    }

    /** Whether every data sequence of a draining task has ended: the unsolicited one and each outstanding R2T's. */
    boolean sequencesEnded() {
        return unsolicited == UnsolicitedPhase.ENDED && r2ts.isEmpty();
    }

    /** Aborts and frees the data gathered so far if the device server does not hold it yet. */
    void abort() {
        State before = state;
        transitionTo(State.ABORTED);
        r2ts.clear();
        if (before == State.RECEIVING_DATA && dataOut != null) {
            dataOut.release();
        }
    }
}
