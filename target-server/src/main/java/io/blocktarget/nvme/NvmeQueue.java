package io.blocktarget.nvme;

import io.blocktarget.protocol.nvme.Sqe;
import io.netty.buffer.ByteBuf;

/** One submission/completion queue pair of a controller, served by one transport connection. */
public interface NvmeQueue {

    /** Queue ID: 0 = admin. */
    int qid();

    /** The controller's ID. */
    int cntlid();

    /** Number of entries (Connect SQSIZE + 1); the transport caps outstanding commands at this. */
    int entries();

    /**
     * MDTS, in-capsule data, queue count and size of this queue's controller (its subsystem's {@code session:} knobs
     * when it was created); the transport checks what it buffers against them. Empty: the transport's own.
     */
    default java.util.Optional<NvmeLimits> limits() {
        return java.util.Optional.empty();
    }

    /** Connect CATTR bit 2: the host disabled SQ flow control (SQHD need not advance; C2HData SUCCESS allowed). */
    boolean sqFlowControlDisabled();

    /**
     * Executes one command. {@code dataOut} holds the command's host-to-controller data ({@code null}
     * when it has none); the caller keeps it alive until {@code done} has run and releases it after.
     * {@code done} runs exactly once, on any thread — for an Async Event Request possibly much later.
     */
    void submit(Sqe sqe, ByteBuf dataOut, NvmeCompletion done);

    /**
     * Executes a fused operation (Base §3.4.2): {@code first} (FUSE = 01b) and {@code second} (FUSE = 10b), which the
     * host put next to each other in this queue, as one; each completes through its own completion, as {@link
     * #submit} says. Only the transport sees the submission queue's order, so it pairs them and calls this once both
     * commands' data is here; a fused command it found without its other half goes to {@link #submit}, which ends it
     * with Command Aborted due to Missing Fused Command.
     */
    void submitFused(Sqe first, ByteBuf firstData, NvmeCompletion firstDone, Sqe second, ByteBuf secondData,
                     NvmeCompletion secondDone);

    /**
     * Executes the request {@code r} (issue 27: one request object per command); it completes exactly once, through
     * its own completion function ({@link NvmeRequest#complete}). The default hands its parts to {@link #submit(Sqe,
     * ByteBuf, NvmeCompletion)} with the request as the completion (queues of tests that implement only that).
     */
    default void submit(NvmeRequest r) {
        submit(r.sqe(), r.dataOut(), r);
    }

    /** A fused operation of two requests, as {@link #submitFused(Sqe, ByteBuf, NvmeCompletion, Sqe, ByteBuf,
     * NvmeCompletion)} says. */
    default void submitFused(NvmeRequest first, NvmeRequest second) {
        submitFused(first.sqe(), first.dataOut(), first, second.sqe(), second.dataOut(), second);
    }

    /**
     * The host reused the CID of its outstanding Asynchronous Event Request (SPDK's host cancels its AER locally at
     * detach): the NVMe layer forgets that request, which then never completes — not with this CID, not at all —
     * and the next event waits for a new request. True when such a request was outstanding. Any thread.
     */
    boolean retireAsyncEventRequest(int cid);

    /**
     * The transport connection is gone (closed by the host, fatal error, or after terminate).
     * Outstanding completions may still arrive and are ignored by the transport. Closing the admin
     * queue destroys the controller and its I/O queues (as Linux nvmet does).
     */
    void close();
}
