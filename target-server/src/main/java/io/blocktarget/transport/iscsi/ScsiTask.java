package io.blocktarget.transport.iscsi;

import io.blocktarget.state.StateCounters;
import io.blocktarget.state.StateMachine;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.collection.IntObjectHashMap;

/**
 * One SCSI command on a connection, from its SCSI Command PDU to its response: its CDB and attribute, the write data
 * gathered (immediate, unsolicited, then per R2T), the R2Ts in flight and the Data-In numbering (RFC 7143
 * §10.7-10.8). Its data-out bookkeeping changes only through its own methods, which check each Data-Out against it.
 * Confined to the connection's event loop.
 *
 * <p>It is also what the device server executes ({@link io.blocktarget.scsi.ScsiCommand}) and how its response comes
 * back ({@link io.blocktarget.scsi.ScsiCompletion}): one transport object per command, not three (issue 31: the
 * command record the engine made per task was 7 % of an iSCSI write's allocation).
 */
final class ScsiTask implements io.blocktarget.scsi.ScsiCommand, io.blocktarget.scsi.ScsiCompletion {
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
        /** R2TSN of the R2T that asked for it. */
        final int r2tSN;
        private long received;
        private int nextDataSN;

        Solicitation(int ttt, long offset, long length, int r2tSN) {
            this.ttt = ttt;
            this.offset = offset;
            this.length = length;
            this.r2tSN = r2tSN;
        }
    }

    final int itt;
    final long lunField;
    /** The LUN as the device server numbers it ({@link TaskEngine#UNADDRESSABLE_LUN} when it cannot be named). */
    final long lun;
    final long edtl;
    final boolean read;
    final boolean write;
    /**
     * The CDB (over the PDU's own array: no copy) and SAM task attribute, kept until the task executes (the data-out
     * may take a while).
     */
    private final ByteBuf cdb;
    private final io.blocktarget.scsi.TaskAttribute attribute;
    /**
     * The data-out gathered: null until the first piece, then that piece itself — a write whose data all came
     * immediate (ImmediateData=Yes, within FirstBurstLength: most 4 KiB writes) reaches the block layer as the PDU's own
     * slice — and a composite of the pieces from the second on.
     */
    private ByteBuf dataOut;
    /** {@link #dataOut} once a second piece came: the composite this task made. */
    private CompositeByteBuf gathered;
    private final long unsolicitedLimit;
    /** The R2Ts out, by TTT; made at the first R2T (a read, or a write within FirstBurstLength, never needs one). */
    private IntObjectHashMap<Solicitation> r2ts;
    /** The connection's task counters: {@link #state} changes only through {@link State#MACHINE}. */
    private final StateCounters<State> counters;
    private State state;
    /** The engine that executes this task: the device server's completion comes back through the task itself. */
    private TaskEngine engine;
    private UnsolicitedPhase unsolicited;
    private long received;
    private long nextR2TOffset;
    private int nextUnsolicitedDataSN;
    private int r2tSN;

    /** A task whose CDB does not matter (tests of the data-in numbering and the teardown check). */
    ScsiTask(int itt, long lunField, long edtl, boolean read, boolean write, ByteBuf dataOut,
             long unsolicitedLimit, UnsolicitedPhase unsolicited, StateCounters<State> counters) {
        this(itt, lunField, Unpooled.wrappedBuffer(new byte[16]), io.blocktarget.scsi.TaskAttribute.SIMPLE, edtl, read,
                write, dataOut, 0, unsolicitedLimit, unsolicited, counters);
    }

    /**
     * A task from its SCSI Command PDU: {@code immediate} bytes of data-out came with it ({@code dataOut}, owned by
     * the task from here; null without any); unsolicited Data-Out may follow up to {@code unsolicitedLimit} while {@code unsolicited} is
     * OPEN (the command's F bit clear).
     */
    ScsiTask(int itt, long lunField, ByteBuf cdb, io.blocktarget.scsi.TaskAttribute attribute, long edtl, boolean read,
             boolean write, ByteBuf dataOut, long immediate, long unsolicitedLimit,
             UnsolicitedPhase unsolicited, StateCounters<State> counters) {
        this.itt = itt;
        this.counters = counters;
        this.state = State.MACHINE.start(counters);
        this.lunField = lunField;
        java.util.OptionalInt decoded = io.blocktarget.protocol.scsi.ScsiLun.decode(lunField);
        this.lun = decoded.isPresent() ? decoded.getAsInt() : TaskEngine.UNADDRESSABLE_LUN;
        this.cdb = cdb;
        this.attribute = attribute;
        this.edtl = edtl;
        this.read = read;
        this.write = write;
        this.dataOut = dataOut;
        this.unsolicitedLimit = unsolicitedLimit;
        this.unsolicited = unsolicited;
        this.received = immediate;
        this.nextR2TOffset = immediate;
    }

    @Override
    public ByteBuf cdb() {
        return cdb;
    }

    /** Before the device server sees the task: the engine its completion goes back to, and its nexus and connection. */
    void executedBy(TaskEngine by) {
        engine = by;
    }

    @Override
    public io.blocktarget.scsi.ItNexus nexus() {
        return engine.nexus();
    }

    @Override
    public long lun() {
        return lun;
    }

    @Override
    public long taskTag() {
        return Integer.toUnsignedLong(itt);
    }

    @Override
    public long expectedDataTransferLength() {
        return edtl;
    }

    @Override
    public io.blocktarget.block.fault.FaultConnection connection() {
        return engine.connection();
    }

    /** The device server's completion (any thread): the task is its own callback, no lambda per command. */
    @Override
    public void complete(io.blocktarget.scsi.ScsiResponse response) {
        engine.completion(this, response);
    }

    @Override
    public io.blocktarget.scsi.TaskAttribute attribute() {
        return attribute;
    }

    /** The data-out gathered (null for a task without any); handed to the device server when the task executes. */
    @Override
    public ByteBuf dataOut() {
        return dataOut;
    }

    /** R2TSN of the next R2T: what ExpDataSN of a write's SCSI Response carries (RFC 7143 §11.4.8). */
    int r2tSN() {
        return r2tSN;
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

    /** Whether the unsolicited Data-Out burst has ended (its F bit, or the command's). */
    boolean unsolicitedEnded() {
        return unsolicited == UnsolicitedPhase.ENDED;
    }

    /**
     * The next R2T to send (§11.8), or null when {@code maxOutstanding} are out or every byte is solicited: at most
     * {@code maxBurst} bytes (MaxBurstLength), numbered by R2TSN, tagged {@code ttt}.
     */
    Solicitation nextSolicitation(int maxOutstanding, long maxBurst, java.util.function.IntSupplier ttt) {
        if (r2ts != null && r2ts.size() >= maxOutstanding || nextR2TOffset >= edtl) {
            return null;
        }
        if (r2ts == null) {
            r2ts = new IntObjectHashMap<>(4);
        }
        long length = Math.min(maxBurst, edtl - nextR2TOffset);
        Solicitation s = new Solicitation(ttt.getAsInt(), nextR2TOffset, length, r2tSN++);
        r2ts.put(s.ttt, s);
        nextR2TOffset += length;
        return s;
    }

    /** §11.7.5: DataSN counts the Data-Out PDUs of one sequence: the unsolicited one, or one R2T's. */
    boolean outOfSequence(int ttt, int dataSN) {
        if (ttt == io.blocktarget.protocol.iscsi.Bhs.RESERVED_TAG) {
            return unsolicited == UnsolicitedPhase.OPEN && dataSN != nextUnsolicitedDataSN;
        }
        Solicitation s = solicitation(ttt);
        return s != null && dataSN != s.nextDataSN;
    }

    /**
     * Checks an unsolicited Data-Out of {@code length} bytes at {@code offset} and counts it in its sequence; the
     * protocol error it commits (the connection closes), or null.
     */
    String acceptUnsolicited(long offset, int dataSN, boolean finalBit, long length) {
        if (unsolicited != UnsolicitedPhase.OPEN) {
            return "unsolicited data after the unsolicited burst ended";
        }
        if (offset != received || dataSN != nextUnsolicitedDataSN) {
            return "offset " + offset + " / DataSN " + dataSN + ", expected " + received + " / "
                    + nextUnsolicitedDataSN;
        }
        if (received + length > unsolicitedLimit) {
            return "unsolicited data beyond FirstBurstLength / EDTL " + unsolicitedLimit;
        }
        nextUnsolicitedDataSN++;
        if (finalBit) {
            unsolicited = UnsolicitedPhase.ENDED;
            nextR2TOffset = received + length;
        }
        return null;
    }

    /** The same for a Data-Out answering the R2T {@code ttt} (§11.7.4: in order, within the R2T, F on its last). */
    String acceptSolicited(int ttt, long offset, int dataSN, boolean finalBit, long length) {
        Solicitation s = solicitation(ttt);
        if (s == null) {
            return "unknown TTT 0x" + Integer.toHexString(ttt);
        }
        if (offset != s.offset + s.received || offset != received || dataSN != s.nextDataSN) {
            return "offset " + offset + " / DataSN " + dataSN + ", expected " + (s.offset + s.received) + " / "
                    + s.nextDataSN;
        }
        if (s.received + length > s.length) {
            return "more data than the R2T asked for";
        }
        s.received += length;
        s.nextDataSN++;
        if (finalBit != (s.received == s.length)) {
            return "F bit " + finalBit + " with " + s.received + " of " + s.length + " bytes";
        }
        if (s.received == s.length) {
            r2ts.remove(ttt);   // s came from it: not null
        }
        return null;
    }

    /**
     * Takes an accepted Data-Out's data (ownership passes to the task; an empty one is released); a second piece makes
     * the data-out a composite from {@code alloc}.
     */
    void append(ByteBuf data, ByteBufAllocator alloc) {
        int length = data.readableBytes();
        if (length == 0) {
            data.release();
        } else if (dataOut == null) {
            dataOut = data;
        } else {
            if (gathered == null) {
                gathered = alloc.compositeBuffer(Integer.MAX_VALUE);   // the first piece may be a composite itself
                gathered.addComponent(true, dataOut);
                dataOut = gathered;
            }
            gathered.addComponent(true, data);
        }
        received += length;
    }

    /** A Data-Out sequence of a draining task ended with its F bit: the unsolicited one or the R2T {@code ttt}'s. */
    void sequenceEnded(int ttt) {
        if (ttt == io.blocktarget.protocol.iscsi.Bhs.RESERVED_TAG) {
            unsolicited = UnsolicitedPhase.ENDED;
        } else if (r2ts != null) {
            r2ts.remove(ttt);
        }
    }

    private Solicitation solicitation(int ttt) {
        return r2ts == null ? null : r2ts.get(ttt);
    }

    /** The device server is done with the data-out (or never got it): freed. */
    void releaseData() {
        if (dataOut != null) {
            dataOut.release();
        }
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
        return unsolicited == UnsolicitedPhase.ENDED && (r2ts == null || r2ts.isEmpty());
    }

    /** Aborts and frees the data gathered so far if the device server does not hold it yet. */
    void abort() {
        State before = state;
        transitionTo(State.ABORTED);
        if (r2ts != null) {
            r2ts.clear();
        }
        if (before == State.RECEIVING_DATA && dataOut != null) {
            dataOut.release();
        }
    }
}
