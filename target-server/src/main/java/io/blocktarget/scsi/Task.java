package io.blocktarget.scsi;

import io.blocktarget.block.lun.CommandStats;
import io.blocktarget.block.lun.LunRequest;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.block.BlockIoException;
import io.blocktarget.protocol.scsi.CdbError;
import io.blocktarget.protocol.scsi.FieldPointer;
import io.blocktarget.protocol.scsi.Parsed;
import io.blocktarget.protocol.scsi.ScsiStatus;
import io.blocktarget.protocol.scsi.SenseData;
import io.blocktarget.protocol.scsi.SenseReason;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Optional;

/**
 * One SCSI command in execution, the SCSI request object (issue 27): what it came with (nexus, CDB, data-out), its
 * logical unit's {@link LunState} step ({@link LunRequest}: in-flight count, statistics), its trace record, a fault
 * rule's decision, and the one way to finish it — {@link #complete}, the completion function: the fault's change of
 * the response, the LUN step, the trace record, the transport's completion, then the task set. Every path ends in
 * exactly one of the completing methods; a second call is ignored (and releases its data) so that a handler bug
 * cannot complete a command twice. Status and sense are made only here, sense only from {@link SenseData}.
 *
 * <p>Sense data is encoded in the format the Control mode page asked for when the command arrived
 * (D_SENSE, SPC-4 §7.5.8).
 */
final class Task extends LunRequest {
    private static final VarHandle DONE;

    static {
        try {
            DONE = MethodHandles.lookup().findVarHandle(Task.class, "done", ScsiCompletion.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final ScsiCommand command;
    private final boolean descriptorSense;
    /** Taken exactly once (getAndSet through {@link #DONE}); no AtomicReference per command. */
    private volatile ScsiCompletion done;

    /** The logical unit's task set this task is in while it executes; null for the answers of a missing LUN. */
    private final TaskSet taskSet;
    /** The trace record; null unless the LUN is traced. */
    private ScsiTrace trace;
    /** A fault rule's decision on the response (a partial transfer); null nearly always. */
    private java.util.function.UnaryOperator<ScsiResponse> responseChange;

    /** A task outside any task set (commands to a LUN that does not exist complete at once). */
    Task(ScsiCommand command, ScsiCompletion done, boolean descriptorSense) {
        this(command, done, descriptorSense, null);
    }

    /** A task that is in {@code taskSet} until it completes; the caller has entered it. */
    Task(ScsiCommand command, ScsiCompletion done, boolean descriptorSense, TaskSet taskSet) {
        this.command = command;
        this.descriptorSense = descriptorSense;
        this.done = done;
        this.taskSet = taskSet;
    }

    ScsiCommand command() {
        return command;
    }

    /**
     * The task's key in its {@link TaskSet} (equality stays identity): its tag, which the initiator keeps unique within
     * its session. The identity hash it replaces was made per task by a call into the VM (JVM_IHashCode, about 1 % of
     * the event loop at 4 KiB QD32); tags equal across sessions only share a bin.
     */
    @Override
    public int hashCode() {
        return Long.hashCode(command.taskTag());
    }

    @Override
    public boolean equals(Object o) {
        return this == o;
    }

    /**
     * The LUN step's start ({@link LunRequest#enterLun}) and the trace record; false (nothing counted) when the LUN's
     * device is draining — the command is answered as for a LUN that is gone.
     */
    boolean enterLun(LunState state) {
        if (!enterLun(state, ScsiTarget.opClass(command.cdb()))) {
            return false;
        }
        trace = ScsiTrace.begin(state, lunInFlight(), command);
        return true;
    }

    ItNexus nexus() {
        return command.nexus();
    }

    boolean descriptorSense() {
        return descriptorSense;
    }

    /**
     * Changes the response this task will end with (a fault rule's partial transfer turning GOOD into CHECK
     * CONDITION). Only before the task executes, on the thread that submits it.
     */
    void interceptResponse(java.util.function.UnaryOperator<ScsiResponse> change) {
        responseChange = change;
    }

    /** GOOD without data-in; {@code transferLength} is the data-out the CDB asked for (0 for none). */
    void good(long transferLength) {
        complete(new ScsiResponse(ScsiStatus.GOOD, null, null, transferLength));
    }

    void good() {
        good(0);
    }

    /** GOOD with data-in; the buffer passes to the receiver. */
    void dataIn(ByteBuf data, long transferLength) {
        complete(new ScsiResponse(ScsiStatus.GOOD, data, null, transferLength));
    }

    /**
     * GOOD with parameter data cut to the ALLOCATION LENGTH (SPC-4 §4.2.5.6: the transfer ends at the
     * allocation length or at the end of the data, whichever comes first). The transfer length is
     * what is returned, so the transport reports an underflow residual for short data.
     */
    void parameterData(ByteBuf data, long allocationLength) {
        int n = (int) Math.min(data.readableBytes(), allocationLength);
        data.writerIndex(data.readerIndex() + n);
        dataIn(data, n);
    }

    void fail(SenseReason reason) {
        fail(reason, Optional.empty());
    }

    void fail(SenseReason reason, FieldPointer pointer) {
        fail(reason, Optional.of(pointer));
    }

    void fail(SenseReason reason, Optional<FieldPointer> pointer) {
        if (reason.status() != ScsiStatus.CHECK_CONDITION) {
            complete(new ScsiResponse(reason.status(), null, null, 0)); // RESERVATION CONFLICT etc.: no sense
            return;
        }
        fail(SenseData.of(reason, pointer));
    }

    void fail(SenseData sense) {
        complete(new ScsiResponse(ScsiStatus.CHECK_CONDITION, null, encode(sense, descriptorSense), 0));
    }

    void fail(CdbError error) {
        fail(error.senseData());
    }

    void fail(Parsed.Invalid<?> invalid) {
        fail(invalid.reason(), invalid.fieldPointer());
    }

    void fail(BlockIoException failure) {
        fail(BlockErrors.reason(failure.error()));
    }

    /**
     * The first {@code length} bytes of data-out for a command that needs all of them
     * (VERIFY with BYTCHK, COMPARE AND WRITE, WRITE SAME; WRITE uses {@link #writeData}), or null after failing the task
     * when fewer arrived: CHECK CONDITION, ILLEGAL REQUEST, INVALID FIELD IN COMMAND INFORMATION UNIT,
     * as LIO does for a data CDB whose EDTL is shorter than the CDB's transfer (target_cmd_size_check).
     * More data than needed is not an error here (VERIFY): the transport reports the residual; WRITE SAME and COMPARE
     * AND WRITE use {@link #exactData}.
     */
    ByteBuf blockData(long length) {
        return dataOut(length, SenseReason.INVALID_FIELD_IN_COMMAND_INFORMATION_UNIT, Optional.empty());
    }

    /**
     * The data-out of a command whose whole Data-Out Buffer is one operand of fixed size — WRITE SAME's one logical
     * block, COMPARE AND WRITE's verify + write blocks (SBC-4 §5.3, §5.47): exactly {@code length} bytes, or null after
     * failing the task with INVALID FIELD IN COMMAND INFORMATION UNIT when the initiator's Expected Data Transfer
     * Length says more or less. Unlike a WRITE, there is no "part of the transfer" to complete: a WRITE SAME with two
     * blocks of data-out does not say which block to replicate, so the mismatch is refused, as LIO and tgt do.
     */
    ByteBuf exactData(long length) {
        if (command.expectedDataTransferLength() != length) {
            fail(SenseReason.INVALID_FIELD_IN_COMMAND_INFORMATION_UNIT);
            return null;
        }
        return blockData(length);
    }

    /**
     * Data-out of a WRITE or WRITE AND VERIFY whose CDB transfers {@code length} bytes: the whole logical blocks of it
     * that arrived, possibly none (never null; a slice, owned by the command).
     *
     * <p>Why not a CHECK CONDITION when the iSCSI Expected Data Transfer Length differs from the CDB's transfer
     * length: SAM-5 §5.4.3 makes the Data-Out Buffer Size the limit of what the device server may fetch, and RFC 7143
     * §11.4.5.1 defines the outcome — the command completes (GOOD) and the SCSI Response carries the residual: the
     * U bit with EDTL − CDB length when the initiator offered more (the extra bytes are ignored), the O bit with
     * CDB length − EDTL when it offered less ("not transferred because the initiator's Expected Data Transfer Length
     * was not sufficient"). So "what both allow" is the CDB's range cut at EDTL. LIO's target_cmd_size_check rejects
     * both cases for data CDBs (INVALID FIELD IN COMMAND INFORMATION UNIT) — a choice of that target, not a rule of
     * SAM-5 or RFC 7143; tgt writes what arrived. We write what arrived, but only whole logical blocks: the logical
     * block is the unit the medium is written in (SBC-4 §4.5), so a trailing partial block of data-out is not
     * written, and the blocks past EDTL keep their old contents.
     *
     * <p>The buffer is the data-out itself when all of it is used: the backend reads it by index and does not release
     * it (the transport does).
     */
    ByteBuf writeData(long length, int logicalBlockSize) {
        ByteBuf out = command.dataOut();
        long available = out == null ? 0 : Math.min(out.readableBytes(), length);
        int whole = (int) (available - available % logicalBlockSize);
        if (whole == 0) {
            return Unpooled.EMPTY_BUFFER;
        }
        // all of it, nearly always: the data-out itself, not a slice object per write
        return whole == out.readableBytes() ? out : out.slice(out.readerIndex(), whole);
    }

    /**
     * The PARAMETER LIST LENGTH bytes of data-out (MODE SELECT, UNMAP, PERSISTENT RESERVE OUT), or
     * null after failing the task when fewer arrived: INVALID FIELD IN CDB pointing at the PARAMETER
     * LIST LENGTH field, as LIO rejects a control CDB whose EDTL is shorter than its parameter list.
     */
    ByteBuf parameterList(long length, FieldPointer lengthField) {
        return dataOut(length, SenseReason.INVALID_FIELD_IN_CDB, Optional.of(lengthField));
    }

    private ByteBuf dataOut(long length, SenseReason shortfall, Optional<FieldPointer> pointer) {
        ByteBuf out = command.dataOut();
        int available = out == null ? 0 : out.readableBytes();
        if (available < length) {
            fail(shortfall, pointer);
            return null;
        }
        return out == null ? Unpooled.EMPTY_BUFFER : out.slice(out.readerIndex(), (int) length);
    }

    static ByteBuf encode(SenseData sense, boolean descriptorFormat) {
        ByteBuf buf = ByteBufAllocator.DEFAULT.heapBuffer(SenseData.FIXED_LENGTH + 12);
        sense.encode(buf, descriptorFormat);
        return buf;
    }

    /** A buffer for parameter data the handler encodes; owned by whoever it is handed to. */
    static ByteBuf allocate(int initialCapacity) {
        return ByteBufAllocator.DEFAULT.heapBuffer(initialCapacity);
    }

    /** The completion function: once per task. */
    private void complete(ScsiResponse response) {
        ScsiCompletion completion = (ScsiCompletion) DONE.getAndSet(this, (ScsiCompletion) null);
        if (completion == null) {
            release(response);
            return;
        }
        if (responseChange != null) {
            response = responseChange.apply(response);
        }
        if (inLun()) {
            ScsiStatus status = response.status();
            exitLun(CommandStats.Protocol.ISCSI,
                    Math.min(response.transferLength(), command.expectedDataTransferLength()),
                    status == ScsiStatus.GOOD || status == ScsiStatus.CONDITION_MET);
            if (trace != null) {
                trace.record(response);
            }
        }
        try {
            completion.complete(response);
        } finally {
            // after the transport has its response (and so frees the data-out): task management may answer now
            if (taskSet != null) {
                taskSet.exit(this);
            }
        }
    }

    private static void release(ScsiResponse response) {
        if (response.dataIn() != null) {
            response.dataIn().release();
        }
        if (response.senseData() != null) {
            response.senseData().release();
        }
    }
}
