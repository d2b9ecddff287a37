package io.blocktarget.nvme;

import io.blocktarget.block.lun.CommandStats;
import io.blocktarget.block.lun.LunRequest;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.protocol.nvme.CqeStatus;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.Sqe;
import io.netty.buffer.ByteBuf;

/**
 * One NVMe command from its arrival to its response (issue 27; Linux nvmet's {@code struct nvmet_req}): the SQE, the
 * host-to-controller data, the queue it came on, once it addresses an active namespace that namespace with its
 * {@link LunState} (the LUN step shared with SCSI, {@link LunRequest}: in-flight count, statistics, arrival time; and
 * the trace record), and a fault rule's decision. The
 * transport creates one per command — its own per-command state extends this class, so a command is one object —
 * and the NVMe layer completes it exactly once, through {@link #complete} / {@link #completeRaw}: the request is the
 * {@link NvmeCompletion} every command handler is given.
 *
 * <p>Both end in {@link #finish}, the one completion function (nvmet's {@code __nvmet_req_complete}): the LUN step
 * (statistics, in-flight release, trace record), the Error Information log entry, then the response — through the
 * queue pair that owns SQHD ({@link NvmeQueuePair}) to the transport's {@link NvmeTransportOps#queueResponse}, or,
 * for a request made by {@link #of} (in-process submitters and tests), to its callback. Nothing in it is allocated
 * per command beyond the request itself (and the trace record while the namespace is traced).
 */
public class NvmeRequest extends LunRequest implements NvmeCompletion {
    private final Sqe sqe;
    /** Host-to-controller data (in-capsule or gathered); owned by the transport, which releases it. */
    private ByteBuf dataOut;
    /** The transport's queue pair (SQHD, response); null for a request made by {@link #of}. */
    private NvmeQueuePair pair;
    /** The controller's queue the request was submitted on (Error log SQID); null until then. */
    private ControllerQueue queue;

    /** Bytes a Read / Write moves (the LUN step's statistics), set by {@link #enterLun}. */
    private long bytes;
    /** The trace record, null unless the namespace is traced. */
    private NvmeTrace trace;

    /** A fault rule's decision: the LBA its Error log entry names (first LBA in the rule's range), -1 when none. */
    private long faultLba = -1;
    private boolean completed;

    protected NvmeRequest(Sqe sqe) {
        this.sqe = sqe;
    }

    /**
     * A request completed through {@code done} instead of a queue pair: what an in-process submitter (a test, the
     * in-process transport) hands to {@link NvmeQueue#submit(NvmeRequest)}. The pipeline's steps run all the same.
     */
    public static NvmeRequest of(Sqe sqe, ByteBuf dataOut, NvmeCompletion done) {
        return new Callback(sqe, dataOut, done);
    }

    public final Sqe sqe() {
        return sqe;
    }

    public final int cid() {
        return sqe.cid();
    }

    /** The command's host-to-controller data, null when none (yet). */
    public final ByteBuf dataOut() {
        return dataOut;
    }

    /** Sets the command's host-to-controller data (ownership stays with the transport). */
    public final void dataOut(ByteBuf data) {
        dataOut = data;
    }

    /** Releases the host-to-controller data (idempotent). */
    public final void releaseData() {
        if (dataOut != null) {
            dataOut.release();
            dataOut = null;
        }
    }

    /** Whether the request has completed (its response is on its way or dropped). */
    public final boolean completed() {
        return completed;
    }

    final void pair(NvmeQueuePair pair) {
        this.pair = pair;
    }

    final void queue(ControllerQueue queue) {
        this.queue = queue;
    }

    /** The QID it came on, -1 before it reached a controller's queue. */
    final int qid() {
        return queue == null ? -1 : queue.qid();
    }

    /**
     * The LUN step's start: counts the command in {@code ns}'s device for as long as it executes (so a removal can
     * drain it), notes its arrival, class and size for the LUN's {@link CommandStats}, and starts its trace record
     * when the namespace is traced. False (nothing counted) when the namespace is draining: as good as gone.
     */
    final boolean enterLun(Namespace ns, Controller controller) {
        LunState state = ns.state();
        CommandStats.OpClass opClass = NvmIo.opClass(sqe.opcode());
        if (!enterLun(state, opClass)) {
            return false;
        }
        // Read / Write: NLB (CDW12 bits 15:0, 0's based) × the LBA data size (NVM Command Set §3.2.4, §3.2.6)
        bytes = opClass == CommandStats.OpClass.READ || opClass == CommandStats.OpClass.WRITE
                ? ((sqe.cdw12() & 0xFFFF) + 1L) * ns.geometry().logicalBlockSize() : 0;
        trace = NvmeTrace.begin(state, lunInFlight(), controller, qid(), sqe, dataOut);
        return true;
    }

    /** A fault rule decided the command's Error log LBA ({@code -1}: none after all). */
    final void faultLba(long lba) {
        faultLba = lba;
    }

    final long faultLba() {
        return faultLba;
    }

    @Override
    public final void complete(NvmeStatus status, int dw0, int dw1, ByteBuf dataIn) {
        finish(null, status, dw0, dw1, dataIn);
    }

    /** A fault rule's exact Status Field: recorded and sent as it is. */
    @Override
    public final void completeRaw(CqeStatus status, NvmeStatus reason, int dw0, int dw1, ByteBuf dataIn) {
        finish(status, reason, dw0, dw1, dataIn);
    }

    /**
     * The one completion function, on whatever thread the command ended: the LUN step (statistics, in-flight
     * release, trace), the Error Information log (Base §5.16.1.2), then the response. A second completion of the
     * same request is a bug elsewhere: it is dropped (its data released), never sent twice.
     *
     * @param raw    a fault rule's exact Status Field, else null ({@code status} says it all)
     * @param status the status, or for {@code raw} its nearest row
     */
    private void finish(CqeStatus raw, NvmeStatus status, int dw0, int dw1, ByteBuf dataIn) {
        if (completed) {
            if (dataIn != null) {
                dataIn.release();
            }
            return;
        }
        completed = true;
        if (inLun()) {
            exitLun(CommandStats.Protocol.NVME, bytes, raw == null && status.isSuccess());
            if (trace != null) {
                trace.record(raw, status, dw0, dw1);
            }
        }
        if (queue != null) {
            queue.recordError(this, raw, status);
        }
        respond(raw, status, dw0, dw1, dataIn);
    }

    /** The response: through the queue pair (SQHD, the transport); overridden by {@link Callback}. */
    void respond(CqeStatus raw, NvmeStatus status, int dw0, int dw1, ByteBuf dataIn) {
        if (pair == null) {
            if (dataIn != null) {
                dataIn.release();
            }
            return;
        }
        pair.respond(this, raw != null ? raw : status.toCqeStatus(), dw0, dw1, dataIn);
    }

    /** A request whose response is a callback (in-process submitters). */
    private static final class Callback extends NvmeRequest {
        private final NvmeCompletion done;

        Callback(Sqe sqe, ByteBuf dataOut, NvmeCompletion done) {
            super(sqe);
            dataOut(dataOut);
            this.done = done;
        }

        @Override
        void respond(CqeStatus raw, NvmeStatus status, int dw0, int dw1, ByteBuf dataIn) {
            if (raw == null) {
                done.complete(status, dw0, dw1, dataIn);
            } else {
                done.completeRaw(raw, status, dw0, dw1, dataIn);
            }
        }
    }
}
