package io.blocktarget.bench;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The protocol-independent half of one generator connection, a Netty handler on one event loop: setup
 * exchanges driven from the main thread one at a time ({@link #call}), then the run — QD slots, each resubmitted
 * from its completion until the deadline, no thread per I/O, completions matched by slot index. Frames arrive
 * through {@link ByteToMessageDecoder}'s cumulation and are handled inline; writes are flushed once per read
 * batch ({@link #channelReadComplete}).
 */
abstract class Connection extends ByteToMessageDecoder {
    static final long SETUP_TIMEOUT_SECONDS = 10;
    static final int COMPOSE_FROM = 64 * 1024;

    /** Lifecycle of a connection; {@link #transitionTo} is the only writer and checks each step. */
    enum State {
        CONNECTING, SETUP, RUNNING, DRAINING, DONE, FAILED;

        boolean mayFollow(State previous) {
            return switch (this) {
                case CONNECTING -> false;
                case SETUP -> previous == CONNECTING;
                case RUNNING -> previous == SETUP;
                case DRAINING -> previous == RUNNING;
                // SETUP → DONE: a queue that never runs I/O (the NVMe admin queue) closing at the end
                case DONE -> previous == SETUP || previous == DRAINING || previous == DONE;
                case FAILED -> previous != FAILED;
            };
        }
    }

    protected final String identity;
    protected ChannelHandlerContext ctx;
    private volatile State state = State.CONNECTING;
    private volatile CompletableFuture<Object> pending;
    /** Completes when a run's last I/O completed; exceptionally when the connection failed. */
    final CompletableFuture<Void> drained = new CompletableFuture<>();

    protected Slot[] slots;
    private int[] idle;
    private int idleCount;
    protected int inFlight;
    protected IoPattern pattern;
    protected JobStats stats;
    protected int blockSize;
    protected int lbs;
    protected boolean verify;
    /** --verify: the process's record of acknowledged writes, shared with the other connections; else null. */
    private AckedWrites acked;
    private int blocksPerIo;
    private long deadline;

    /**
     * @param ioSize bytes per I/O: from {@link #COMPOSE_FROM} on, socket reads are composed into frames instead of
     *               merged — merging copies every read once more and keeps reallocating a cumulation the size of
     *               several data PDUs, which at 128 KiB cost more client CPU than the kernel's own copy
     */
    Connection(String identity, int ioSize) {
        this.identity = identity;
        if (ioSize >= COMPOSE_FROM) {
            setCumulator(COMPOSITE_CUMULATOR);
        }
    }

    State state() {
        return state;
    }

    protected void transitionTo(State next) {
        if (!next.mayFollow(state)) {
            throw new IllegalStateException(identity + ": " + state + " -> " + next);
        }
        state = next;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext context) {
        this.ctx = context;
    }

    @Override
    public void channelActive(ChannelHandlerContext context) throws Exception {
        transitionTo(State.SETUP);
        super.channelActive(context);
    }

    // ---------------------------------------------------------------- setup: one exchange at a time

    /**
     * Runs {@code send} on the event loop and waits for the answer the subclass hands to {@link #reply}.
     *
     * @throws IOException when the target does not answer within the setup timeout or the connection fails
     */
    protected Object call(Runnable send) throws IOException {
        CompletableFuture<Object> answer = new CompletableFuture<>();
        ctx.executor().execute(() -> {
            pending = answer;
            send.run();
            flushBatch();
        });
        try {
            return answer.get(SETUP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            fail("no answer within " + SETUP_TIMEOUT_SECONDS + " s during setup");
            throw new IOException(identity + ": no answer within " + SETUP_TIMEOUT_SECONDS + " s during setup");
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /** Hands a setup answer to the waiting {@link #call}; an answer nobody waits for fails the connection. */
    protected void reply(Object answer) {
        CompletableFuture<Object> p = pending;
        pending = null;
        if (p == null) {
            fail("unexpected " + answer + " during setup");
        } else {
            p.complete(answer);
        }
    }

    // ---------------------------------------------------------------- run

    /**
     * Starts the timed run on the event loop: QD slots (write payloads pooled, one I/O each), first submissions,
     * and a timer at the deadline so a connection with nothing in flight still finishes.
     *
     * @param ackedWrites with --verify the run's record of acknowledged writes (writes carry the pattern, reads are
     *                    checked); null without
     */
    void start(IoPattern ioPattern, JobStats jobStats, long deadlineNanos, int queueDepth, int ioSize, int blockLength,
               boolean writes, AckedWrites ackedWrites) {
        ctx.executor().execute(() -> {
            pattern = ioPattern;
            stats = jobStats;
            deadline = deadlineNanos;
            blockSize = ioSize;
            lbs = blockLength;
            blocksPerIo = ioSize / blockLength;
            acked = ackedWrites;
            verify = ackedWrites != null;
            slots = new Slot[queueDepth];
            idle = new int[queueDepth];
            for (int i = 0; i < queueDepth; i++) {
                ByteBuf data = null;
                if (writes) {
                    data = ctx.alloc().directBuffer(ioSize, ioSize);
                    IoPattern.fill(data, (long) i * ioSize, ioSize);
                    data.writerIndex(ioSize);
                }
                slots[i] = new Slot(i, data);
                idle[idleCount++] = queueDepth - 1 - i;
            }
            prepareSlots();
            transitionTo(State.RUNNING);
            ctx.executor().schedule(this::pumpAndFlush, Math.max(0, deadline - System.nanoTime()),
                    TimeUnit.NANOSECONDS);
            pumpAndFlush();
        });
    }

    private void pumpAndFlush() {
        pump();
        flushBatch();
    }

    /**
     * Hands whatever the subclass batched since the last flush to the channel and flushes: one {@code writev} for
     * every command issued while one read burst of completions was handled.
     */
    protected void flushBatch() {
        ctx.flush();
    }

    /** Submits into every idle slot while the run lasts and the protocol's window allows. */
    protected final void pump() {
        if (state != State.RUNNING) {
            return;
        }
        long now = System.nanoTime();
        if (now - deadline >= 0) {
            transitionTo(State.DRAINING);
            finishIfDrained();
            return;
        }
        while (idleCount > 0 && canSubmit()) {
            Slot s = slots[idle[--idleCount]];
            s.write = pattern.nextIsWrite();
            s.lba = pattern.nextLba();
            s.received = 0;
            s.dataSN = 0;
            if (verify) {
                if (s.write) {
                    IoPattern.fill(s.data, s.lba * lbs, blockSize);
                } else {
                    // the snapshot: only a write acknowledged before the read goes out must read back
                    s.ackedBefore = acked.isAcknowledged(s.lba / blocksPerIo);
                    s.countedUnwritten = false;
                }
            }
            inFlight++;
            s.submitted = System.nanoTime();
            issue(s);
        }
    }

    private void finishIfDrained() {
        if (inFlight == 0 && state == State.DRAINING) {
            transitionTo(State.DONE);
            drained.complete(null);
        }
    }

    /**
     * Ends the I/O in {@code s}: records its latency (and with --verify a successful write in the shared record,
     * before this slot's next read is sent), frees the slot and refills the queue.
     */
    protected final void complete(Slot s, boolean ok) {
        if (verify && ok && s.write) {
            acked.acknowledged(s.lba / blocksPerIo);
        }
        stats.complete(s.submitted, System.nanoTime(), ok);
        inFlight--;
        idle[idleCount++] = s.index;
        pump();
        finishIfDrained();
    }

    /**
     * Checks read data against the verify pattern (when verifying, {@link AckedWrites#judge}): a mismatch is counted
     * once per PDU, zeros the read may find (no write acknowledged before it was sent) once per read.
     */
    protected final void checkRead(Slot s, ByteBuf data, long offsetInIo) {
        if (!verify) {
            return;
        }
        switch (AckedWrites.judge(data, s.lba * lbs + offsetInIo, data.readableBytes(), lbs, s.ackedBefore)) {
            case MATCH -> { }
            case MISMATCH -> stats.verifyFailed();
            case UNWRITTEN -> {
                if (!s.countedUnwritten) {
                    s.countedUnwritten = true;
                    stats.unwrittenRead();
                }
            }
        }
    }

    /** The slot a tag from the wire names, or null (the caller fails the connection). */
    protected final Slot slot(int tag) {
        return slots != null && tag >= 0 && tag < slots.length ? slots[tag] : null;
    }

    /** Precomputes per-slot wire data once the slots exist (before the first submission). */
    protected void prepareSlots() {
    }

    /** May another command go out now (iSCSI: CmdSN within MaxCmdSN)? */
    protected abstract boolean canSubmit();

    /** Sends the command for {@code s} (direction and LBA set); no flush. */
    protected abstract void issue(Slot s);

    /** Handles one complete frame at the reader index of {@code in} if there is one; false when more bytes are needed. */
    protected abstract boolean decodeFrame(ByteBuf in) throws Exception;

    // ---------------------------------------------------------------- netty

    @Override
    protected final void decode(ChannelHandlerContext context, ByteBuf in, List<Object> out) {
        try {
            while (state != State.FAILED && decodeFrame(in)) {
                // frames are handled inline
            }
        } catch (Exception e) {
            fail("bad PDU from the target: " + e.getMessage());
            in.skipBytes(in.readableBytes());
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext context) throws Exception {
        super.channelReadComplete(context);
        flushBatch();
    }

    @Override
    public void channelInactive(ChannelHandlerContext context) throws Exception {
        if (state != State.DONE) {
            fail("connection closed by the target");
        }
        super.channelInactive(context);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
        fail(cause.toString());
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext context) {
        releaseBatch();
        if (slots != null) {
            for (Slot s : slots) {
                if (s.data != null) {
                    s.data.release();
                }
            }
            slots = null;
        }
    }

    /** Frees a send batch not yet handed to the channel (the connection is going away). */
    protected void releaseBatch() {
    }

    /** Ends this connection: the waiting setup call and the run see {@code reason}; the channel closes. */
    protected final void fail(String reason) {
        if (state == State.FAILED) {
            return;
        }
        transitionTo(State.FAILED);
        IOException e = new IOException(identity + ": " + reason);
        CompletableFuture<Object> p = pending;
        pending = null;
        if (p != null) {
            p.completeExceptionally(e);
        }
        drained.completeExceptionally(e);
        ctx.close();
    }

    /** Closes after a clean end (logout / disconnect done); later closes are not failures. */
    void closeQuietly() {
        if (state != State.FAILED) {
            transitionTo(State.DONE);
        }
        ctx.close();
    }
}
