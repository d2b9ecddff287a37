package io.blocktarget.nvme;

import io.blocktarget.protocol.nvme.ConnectData;
import io.blocktarget.protocol.nvme.Cqe;
import io.netty.buffer.ByteBuf;

/**
 * What the NVMe layer asks of the transport behind one {@link NvmeQueuePair} (Linux nvmet's {@code nvmet_fabrics_ops}):
 * send a response, run on the connection's thread, learn that the Connect bound a queue. NVMe/TCP implements it on
 * a Netty channel; {@code InProcessNvmeTransport} (tests) on the calling thread. Host-to-controller data is gathered
 * by the transport before the request is submitted (as nvmet/tcp does its R2Ts before execution), so no data-out
 * call is needed here; the connection's close is {@link NvmeHostConnection#terminate}.
 */
public interface NvmeTransportOps {

    /**
     * The response of {@code r}: its controller-to-host data ({@code dataIn}, null when none, owned by the callee),
     * then {@code cqe} (SQHD, SQID, CID and status filled in by the queue pair). Called on the queue's thread,
     * exactly once per request — also after the connection closed (then nothing goes out, the command just ends).
     */
    void queueResponse(NvmeRequest r, Cqe cqe, ByteBuf dataIn);

    /** Whether the caller runs on the thread that owns the queue pair (the connection's event loop). */
    boolean inLoop();

    /** Runs {@code task} on that thread later; false when the thread is gone (the task never runs). */
    boolean execute(Runnable task);

    /**
     * The Connect (sent right before through {@link #queueResponse}) bound {@code queue} to this connection: the
     * transport sizes its command table to {@code queue.entries()} and its in-capsule data to the queue's limits.
     */
    void connected(NvmeQueue queue, ConnectData data);
}
