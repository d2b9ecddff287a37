package io.blocktarget.transport.iscsi;

import io.blocktarget.protocol.scsi.SenseData;
import io.blocktarget.protocol.scsi.SenseReason;
import io.blocktarget.protocol.iscsi.Bhs;
import io.blocktarget.protocol.iscsi.DataOut;
import io.blocktarget.protocol.iscsi.R2t;
import io.blocktarget.protocol.iscsi.RejectReason;
import io.blocktarget.protocol.iscsi.ResidualFlag;
import io.blocktarget.protocol.iscsi.ScsiCommand;
import io.blocktarget.protocol.iscsi.ScsiResponse;
import io.blocktarget.protocol.scsi.ScsiLun;
import io.blocktarget.scsi.ItNexus;
import io.blocktarget.scsi.NexusTasks;
import io.blocktarget.scsi.ScsiTargetDevice;
import io.blocktarget.scsi.TaskAttribute;
import io.blocktarget.scsi.TaskScope;
import io.blocktarget.state.StateCounters;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.collection.IntObjectHashMap;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;
import java.util.function.Predicate;

/**
 * The SCSI side of full feature phase on one connection (RFC 7143 §10): SCSI Command, Data-Out gathering
 * with immediate data, unsolicited data up to FirstBurstLength and R2Ts honouring MaxBurstLength and
 * MaxOutstandingR2T; execution on the device server; Data-In segmented to the initiator's
 * MaxRecvDataSegmentLength with phase collapse; SCSI Response with residuals (§11.4.5). Confined to the
 * connection's event loop; device completions hop back to it.
 */
final class TaskEngine {
    /** LUN passed to the device server for an address it cannot name (it answers LOGICAL UNIT NOT SUPPORTED). */
    static final long UNADDRESSABLE_LUN = ScsiLun.MAX_FLAT_LUN + 1L;

    private final ConnectionIo io;
    private final ScsiTargetDevice target;
    private final ItNexus nexus;
    private final OperationalParameters params;
    private final long maxTransferLength;
    private final int maxTasks;
    /** By ITT: an int-keyed map, as a boxed key and a node per command showed in the profile (issue 31). */
    private final IntObjectHashMap<ScsiTask> tasks = new IntObjectHashMap<>();
    /** This connection's tasks by state (issue 27): changed only by {@link ScsiTask.State#MACHINE}. */
    private final StateCounters<ScsiTask.State> taskStates = ScsiTask.State.MACHINE.newLoopCounters();
    private int nextTtt;
    /** This connection's tasks as task management reaches them from any nexus (registered at login). */
    private final NexusTasks nexusTasks = this::abortFor;

    TaskEngine(ConnectionIo io, ScsiTargetDevice target, ItNexus nexus, OperationalParameters params,
               long maxTransferLength, int maxTasks) {
        this.io = io;
        this.target = target;
        this.nexus = nexus;
        this.params = params;
        this.maxTransferLength = maxTransferLength;
        this.maxTasks = maxTasks;
    }

    ScsiTargetDevice target() {
        return target;
    }

    ItNexus nexus() {
        return nexus;
    }

    /** The connection, as fault rules' connection faults reach it. */
    io.blocktarget.block.fault.FaultConnection connection() {
        return io;
    }

    int activeTasks() {
        return tasks.size();
    }

    StateCounters<ScsiTask.State> taskStates() {
        return taskStates;
    }

    NexusTasks nexusTasks() {
        return nexusTasks;
    }

    /**
     * Task management reached this nexus (its own TMF or another nexus's CLEAR TASK SET / reset): on the event loop,
     * the tasks in scope are aborted — a write waiting for data-out is freed and solicits nothing more, a task in the
     * device server will end without a response (§11.5.1; the device server waits for its I/O).
     */
    private void abortFor(TaskScope scope, IntConsumer stopped) {
        Runnable run = () -> stopped.accept(abort(t -> scope.matches(t.lun, Integer.toUnsignedLong(t.itt))));
        if (io.executor().inEventLoop()) {
            run.run();
        } else {
            io.executor().execute(run);
        }
    }

    /** Takes ownership of {@code cmd} (its immediate data). */
    void command(ScsiCommand cmd) {
        int immediateLength = cmd.data().readableBytes();
        long edtl = cmd.expectedDataTransferLength();
        if (cmd.immediate() && tasks.size() >= maxTasks) {
            // §11.17.1 reason 0x06: immediate commands bypass the CmdSN window, so they are capped here.
            io.reject(RejectReason.IMMEDIATE_COMMAND_REJECT, cmd);
            cmd.release();
            return;
        }
        if (tasks.containsKey(cmd.itt())) {
            io.reject(RejectReason.TASK_IN_PROGRESS, cmd);
            cmd.release();
            return;
        }
        if (immediateLength > 0 && (!cmd.write() || !params.immediateData()
                || immediateLength > Math.min(edtl, params.firstBurstLength()))) {
            // §13.11/§13.14: immediate data needs ImmediateData=Yes and stays within FirstBurstLength and EDTL.
            io.reject(RejectReason.PROTOCOL_ERROR, cmd);
            cmd.release();
            return;
        }
        if (!cmd.finalBit() && (!cmd.write() || params.initialR2T())) {
            io.reject(RejectReason.PROTOCOL_ERROR, cmd);
            cmd.release();
            return;
        }
        if (edtl > maxTransferLength || (cmd.read() && cmd.write())) {
            cmd.release();
            respondCheckCondition(cmd.itt(), SenseReason.INVALID_FIELD_IN_CDB);
            return;
        }
        ByteBuf dataOut = null;
        if (cmd.write() && edtl > 0 && immediateLength > 0) {
            dataOut = cmd.data();   // the task owns the PDU's data from here
        } else {
            cmd.release();
        }
        long unsolicitedLimit = Math.min(edtl, params.firstBurstLength());
        ScsiTask task = new ScsiTask(cmd.itt(), cmd.lun(), cmd.cdbBuffer(), samAttribute(cmd.attribute()), edtl,
                cmd.read(), cmd.write() && edtl > 0, dataOut, immediateLength, unsolicitedLimit,
                cmd.finalBit() ? ScsiTask.UnsolicitedPhase.ENDED : ScsiTask.UnsolicitedPhase.OPEN, taskStates);
        tasks.put(task.itt, task);
        advance(task);
    }

    /**
     * The SAM task attribute of an ATTR code (RFC 7143 §11.3.1 maps 0..4 to SAM-5's attributes): an exhaustive
     * switch, so a new wire constant fails to compile here instead of failing a name lookup at run time.
     */
    static TaskAttribute samAttribute(io.blocktarget.protocol.iscsi.TaskAttribute attribute) {
        return switch (attribute) {
            case UNTAGGED -> TaskAttribute.UNTAGGED;
            case SIMPLE -> TaskAttribute.SIMPLE;
            case ORDERED -> TaskAttribute.ORDERED;
            case HEAD_OF_QUEUE -> TaskAttribute.HEAD_OF_QUEUE;
            case ACA -> TaskAttribute.ACA;
        };
    }

    /** Solicits more data or executes, whichever the task is ready for. */
    private void advance(ScsiTask task) {
        if (task.allDataReceived()) {
            execute(task);
        } else if (task.unsolicitedEnded()) {
            solicit(task);
        }
    }

    /** Issues R2Ts up to MaxOutstandingR2T, each for at most MaxBurstLength bytes (§11.8, §13.13, §13.17). */
    private void solicit(ScsiTask task) {
        ScsiTask.Solicitation s;
        while ((s = task.nextSolicitation(params.maxOutstandingR2T(), params.maxBurstLength(), this::nextTtt))
                != null) {
            io.send(new R2t(task.lunField, task.itt, s.ttt, io.statSN(), io.expCmdSN(), io.maxCmdSN(), s.r2tSN,
                    s.offset, s.length));
        }
    }

    private int nextTtt() {
        int ttt = nextTtt++;
        if (ttt == Bhs.RESERVED_TAG) {
            ttt = nextTtt++;
        }
        return ttt;
    }

    /**
     * Takes ownership of {@code out}. A DataSN out of sequence means an earlier Data-Out was lost to a digest error
     * (§7.9), handled as §7.8 says for a lost data PDU: at ErrorRecoveryLevel 0 there is no recovery R2T
     * (within-command recovery is ERL 1, §7.1.5), so the task is terminated with CHECK CONDITION, protocol service
     * CRC error, after the rest of its data has arrived — the session goes on. Other violations (offset, length,
     * F bit, unknown TTT) are protocol errors: the connection closes (session recovery, the only one at ERL 0).
     */
    void dataOut(DataOut out) {
        ScsiTask task = tasks.get(out.itt());
        if (task != null && task.state() == ScsiTask.State.DRAINING) {
            boolean finalBit = out.finalBit();
            int ttt = out.ttt();
            out.release();
            sequenceEnded(task, ttt, finalBit);
            return;
        }
        if (task == null || task.state() != ScsiTask.State.RECEIVING_DATA) {
            out.release(); // data for a task that was aborted or already failed: discard (§4.2.3.4 / §7.1.1)
            return;
        }
        if (task.outOfSequence(out.ttt(), out.dataSN())) {
            boolean finalBit = out.finalBit();
            int ttt = out.ttt();
            out.release();
            dataLost(task, ttt, finalBit);
            return;
        }
        long length = out.data().readableBytes();
        String error = out.ttt() == Bhs.RESERVED_TAG
                ? task.acceptUnsolicited(out.bufferOffset(), out.dataSN(), out.finalBit(), length)
                : task.acceptSolicited(out.ttt(), out.bufferOffset(), out.dataSN(), out.finalBit(), length);
        if (error != null) {
            out.release();
            io.fatal("Data-Out for ITT 0x" + Integer.toHexString(task.itt) + ": " + error);
            return;
        }
        task.append(out.data(), io.alloc());
        advance(task);
    }

    /** A Data-Out of the task is missing (§7.8 / §7.9): discard the rest, answer once its sequences ended. */
    private void dataLost(ScsiTask task, int ttt, boolean finalBit) {
        task.drain();
        sequenceEnded(task, ttt, finalBit);
    }

    /** A PDU of a draining task arrived (or was lost with its header intact); F ends its sequence. */
    private void sequenceEnded(ScsiTask task, int ttt, boolean finalBit) {
        if (finalBit) {
            task.sequenceEnded(ttt);
        }
        if (task.sequencesEnded()) {
            task.transitionTo(ScsiTask.State.DONE);
            removeTask(task);
            respondCheckCondition(task.itt, SenseReason.PROTOCOL_SERVICE_CRC_ERROR);
        }
    }

    private void execute(ScsiTask task) {
        task.transitionTo(ScsiTask.State.EXECUTING);
        task.executedBy(this);
        try {
            target.execute(task, task);   // the task is the command and its completion
        } catch (RuntimeException e) {
            io.fatal("device server threw for ITT 0x" + Integer.toHexString(task.itt) + ": " + e);
        }
    }

    /** {@code task}'s response from the device server, on whichever thread completed it: on to the event loop. */
    void completion(ScsiTask task, io.blocktarget.scsi.ScsiResponse response) {
        if (io.executor().inEventLoop()) {
            completed(task, response);
        } else {
            io.executor().execute(() -> completed(task, response));
        }
    }

    private void completed(ScsiTask task, io.blocktarget.scsi.ScsiResponse response) {
        task.releaseData();
        if (task.state() != ScsiTask.State.EXECUTING) {
            release(response);
            return;
        }
        task.transitionTo(ScsiTask.State.DONE);
        removeTask(task);
        ByteBuf dataIn = response.dataIn() != null ? response.dataIn() : Unpooled.EMPTY_BUFFER;
        ByteBuf sense = response.senseData();
        boolean segmented = false;
        try {
            long sendLength = task.read ? Math.min(dataIn.readableBytes(), task.edtl) : 0;
            ResidualFlag flag = ResidualFlag.NONE;
            long residual = 0;
            long transfer = response.transferLength();
            if (task.read || task.write) {
                if (transfer > task.edtl) {
                    flag = ResidualFlag.OVERFLOW;
                    residual = transfer - task.edtl;
                } else if (transfer < task.edtl) {
                    flag = ResidualFlag.UNDERFLOW;
                    residual = task.edtl - transfer;
                }
            } else if (transfer > 0) {
                flag = ResidualFlag.OVERFLOW;
                residual = transfer;
            }
            int status = response.status().code();
            boolean collapse = sense == null && sendLength > 0;
            segmented = true;   // the segmenter owns dataIn from here, whatever happens in it
            int pdus = DataInSegmenter.send(task, dataIn, sendLength, params, collapse ? status : -1, flag,
                    residual, io, io::send);
            if (!collapse) {
                ByteBuf senseSegment = sense != null ? ScsiResponse.senseSegment(sense) : Unpooled.EMPTY_BUFFER;
                int expDataSN = task.read ? pdus : task.r2tSN();
                io.send(new ScsiResponse(ScsiResponse.RESPONSE_COMMAND_COMPLETED, status, ResidualFlag.NONE, flag,
                        task.itt, 0, io.nextStatSN(), io.expCmdSN(), io.maxCmdSN(), expDataSN, 0, residual,
                        senseSegment));
            }
        } finally {
            if (!segmented) {
                dataIn.release();
            }
            if (sense != null) {
                sense.release();
            }
        }
    }

    private static void release(io.blocktarget.scsi.ScsiResponse response) {
        if (response.dataIn() != null) {
            response.dataIn().release();
        }
        if (response.senseData() != null) {
            response.senseData().release();
        }
    }

    /**
     * A task the transport ends itself (it never reaches the device server): CHECK CONDITION with {@code reason}'s
     * fixed-format sense data (SPC-5 §4.4.3), built by {@link SenseData} like every other sense of the target.
     */
    private void respondCheckCondition(int itt, SenseReason reason) {
        ByteBuf sense = Unpooled.buffer(SenseData.FIXED_LENGTH);
        SenseData.of(reason).encodeFixed(sense);
        io.send(new ScsiResponse(ScsiResponse.RESPONSE_COMMAND_COMPLETED, reason.status().code(), ResidualFlag.NONE,
                ResidualFlag.NONE, itt, 0, io.nextStatSN(), io.expCmdSN(), io.maxCmdSN(), 0, 0, 0,
                ScsiResponse.senseSegment(sense)));
    }

    /** Forgets {@code task} (still the one its ITT names: a command reusing a live ITT is rejected). */
    private void removeTask(ScsiTask task) {
        if (tasks.get(task.itt) == task) {
            tasks.remove(task.itt);
        }
    }

    /** Aborts the tasks that match (§11.5: no response is sent for them); returns how many. */
    int abort(Predicate<ScsiTask> which) {
        List<ScsiTask> victims = new ArrayList<>();
        for (ScsiTask t : tasks.values()) {
            if (which.test(t)) {
                victims.add(t);
            }
        }
        for (ScsiTask t : victims) {
            tasks.remove(t.itt);
            t.abort();
        }
        return victims.size();
    }

    /**
     * A Data-Out of this task was lost to a data digest error (§7.8 option b at ErrorRecoveryLevel 0): the task ends
     * with CHECK CONDITION, ABORTED COMMAND, PROTOCOL SERVICE CRC ERROR (47h/05h) once all its data has arrived
     * ("it MUST wait to receive all the data ... before sending the SCSI Response"); the data is discarded. The
     * lost PDU's header was intact: its TTT and F bit still count.
     */
    void dataOutLost(int itt, int ttt, boolean finalBit) {
        ScsiTask task = tasks.get(itt);
        if (task == null) {
            return;
        }
        switch (task.state()) {
            case RECEIVING_DATA -> dataLost(task, ttt, finalBit);
            case DRAINING -> sequenceEnded(task, ttt, finalBit);
            default -> {
            }
        }
    }

    ScsiTask task(int itt) {
        return tasks.get(itt);
    }

    /**
     * The connection is closing: every task is aborted, buffers freed as their completions arrive. Returns the tasks
     * not in a final state after that, by state (SPDK's teardown check): empty unless a task was lost on some path.
     */
    String close() {
        abort(t -> true);
        return taskStates.stragglers();
    }
}
