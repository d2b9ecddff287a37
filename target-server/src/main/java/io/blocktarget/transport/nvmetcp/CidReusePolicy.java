package io.blocktarget.transport.nvmetcp;

/**
 * What the transport does when a capsule names a CID that is still outstanding on its queue (Base §4.2: a CID is
 * unique among a queue's outstanding commands; NVMe/TCP makes a violation a fatal header-field error).
 *
 * <p>SPDK's host (spdk_nvme_perf, issue 10 item 8b) cancels its own Asynchronous Event Request locally at detach
 * and reuses that CID for its next admin command; a strict target kills the admin queue and the host spins on its
 * shutdown. The other targets tolerate it, and a test target must not hang its client, so the default retires the
 * stale request; people hunting host bugs choose {@link #STRICT}.
 */
public enum CidReusePolicy {
    /**
     * A reused CID of an outstanding Asynchronous Event Request retires that request (it never completes, with
     * that CID or otherwise) and the new command runs; one line is logged naming the host's mistake. Reuse of any
     * other outstanding command's CID stays connection-fatal.
     */
    RETIRE_STALE_ASYNC_EVENT_REQUEST,
    /** Every reuse of an outstanding CID is connection-fatal (C2HTermReq, Invalid PDU Header Field at byte 10). */
    STRICT
}
