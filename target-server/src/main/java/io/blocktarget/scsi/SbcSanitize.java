package io.blocktarget.scsi;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.BlockIoException;
import io.blocktarget.block.BlockRange;
import io.blocktarget.block.IoCallback;
import io.blocktarget.protocol.scsi.Cdb;
import io.blocktarget.protocol.scsi.CompareAndWriteCdb;
import io.blocktarget.protocol.scsi.FieldPointer;
import io.blocktarget.protocol.scsi.GetLbaStatusCdb;
import io.blocktarget.protocol.scsi.InquiryCdb;
import io.blocktarget.protocol.scsi.OverwriteParameters;
import io.blocktarget.protocol.scsi.Parsed;
import io.blocktarget.protocol.scsi.PreFetchCdb;
import io.blocktarget.protocol.scsi.ReadCdb;
import io.blocktarget.protocol.scsi.ReportLunsCdb;
import io.blocktarget.protocol.scsi.RequestSenseCdb;
import io.blocktarget.protocol.scsi.SanitizeCdb;
import io.blocktarget.protocol.scsi.SenseData;
import io.blocktarget.protocol.scsi.SenseReason;
import io.blocktarget.protocol.scsi.SynchronizeCacheCdb;
import io.blocktarget.protocol.scsi.UnmapCdb;
import io.blocktarget.protocol.scsi.VerifyCdb;
import io.blocktarget.protocol.scsi.WriteAndVerifyCdb;
import io.blocktarget.protocol.scsi.WriteCdb;
import io.blocktarget.protocol.scsi.WriteSameCdb;
import io.blocktarget.time.Clock;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * SANITIZE (SBC-4 §4.11, §5.30) on one logical unit: real erasure through the block SPI, a sanitize
 * state the dispatcher consults for every command, and progress for REQUEST SENSE.
 *
 * <ul>
 * <li>OVERWRITE: every block is written OVERWRITE COUNT times with the pattern (inverted on odd
 *     passes with INVERT). A pass of zeros is a write-zeroes (RAM frees its chunks, a file punches or
 *     zeros), any other pattern is written block by block.
 * <li>BLOCK ERASE: the whole medium is unmapped (RAM: the chunks are freed; file: holes punched);
 *     it reads zeros afterwards (LBPRZ = 1).
 * <li>CRYPTOGRAPHIC ERASE: the backends encrypt nothing, so there is no key to change; the medium is
 *     erased as by BLOCK ERASE, which leaves it in the state a key change would (unreadable old data).
 * <li>EXIT FAILURE MODE: leaves the failed state when the failed sanitize had AUSE = 1.
 * </ul>
 *
 * <p>While an operation runs (IMMED = 1 lets the command complete first) every command but INQUIRY,
 * REPORT LUNS and REQUEST SENSE is NOT READY, LOGICAL UNIT NOT READY, SANITIZE IN PROGRESS with the
 * PROGRESS INDICATION, and REQUEST SENSE returns that sense as its data (SBC-4 §4.11.1). If the
 * operation fails, medium access commands are MEDIUM ERROR, SANITIZE COMMAND FAILED until a sanitize
 * succeeds (or EXIT FAILURE MODE, if allowed). Writes already in flight finish first: the sweep holds
 * an exclusive range lease over the whole medium until the operation ends.
 *
 * <p>{@code sanitize-duration:} makes an operation last at least that long (the erase itself is quick on RAM), so
 * initiators and tests can watch it: the progress is the smaller of the share swept and the share of the duration
 * gone, and the operation ends when both are whole.
 *
 * <p>The operation belongs to the logical unit, not to the command (SBC-4 §4.11: it goes on through a logical unit
 * reset and an I_T nexus loss, and the unit stays not ready until it ends). A task management function that aborts
 * the SANITIZE command with IMMED = 0 — ABORT TASK, ABORT TASK SET, CLEAR TASK SET, a reset — or the loss of its
 * nexus ends that command at once ({@link #releaseTasks}: the transport sends nothing for an aborted task), so the
 * function completes without waiting for the medium; the operation continues.
 */
final class SbcSanitize {
    /** Blocks per step of an erase or write-zeroes sweep: progress moves in steps of 1 GiB. */
    static final long ERASE_STEP_BYTES = 1L << 30;
    /** Bytes per write of a patterned pass. */
    static final int PATTERN_PIECE_BYTES = 1 << 20;

    /** Where the logical unit stands with respect to sanitize (SBC-4 §4.11). */
    enum State { IDLE, IN_PROGRESS, FAILED, FAILED_EXIT_ALLOWED }

    /** The SANITIZE command with IMMED = 0 whose status waits for the operation, and its data-out length. */
    private record Waiting(Task task, long transferred) {
    }

    private final BlockDevice device;
    private final RangeLock rangeLock;
    private final AtomicReference<State> state = new AtomicReference<>(State.IDLE);
    private final AtomicReference<Waiting> waiting = new AtomicReference<>();
    /** The LUN's (the server's) clock: a paced operation's progress and end. */
    private final Clock clock;
    /** Blocks swept so far and in all, over every pass: read by other commands for the progress. */
    private volatile long sweptBlocks;
    private volatile long totalBlocks = 1;
    /** When the running operation started, and the least time it takes (0: as long as the sweep). */
    private volatile long startNanos;
    private volatile long durationNanos;

    SbcSanitize(BlockDevice device, RangeLock rangeLock, Clock clock) {
        this.device = device;
        this.rangeLock = rangeLock;
        this.clock = clock;
    }

    /** Read per use: a resize shows at once (the registry changes the device's geometry, nothing caches it). */
    private BlockGeometry geometry() {
        return device.geometry();
    }

    State state() {
        return state.get();
    }

    /** The sense data {@code cdb} meets because of sanitize, or empty when it may run. */
    Optional<SenseData> refusal(Cdb cdb) {
        return switch (state.get()) {
            case IN_PROGRESS -> cdb instanceof InquiryCdb || cdb instanceof ReportLunsCdb || cdb instanceof RequestSenseCdb
                    ? Optional.empty() : Optional.of(progressSense());
            case FAILED, FAILED_EXIT_ALLOWED -> accessesMedium(cdb)
                    ? Optional.of(SenseData.of(SenseReason.SANITIZE_COMMAND_FAILED)) : Optional.empty();
            case IDLE -> Optional.empty();
        };
    }

    /** What REQUEST SENSE returns while a sanitize runs, else empty. */
    Optional<SenseData> pendingSense() {
        return state.get() == State.IN_PROGRESS ? Optional.of(progressSense()) : Optional.empty();
    }

    /**
     * PROGRESS INDICATION = done × 65536, below 65536 until the operation ends (SPC-4 §4.5.2.4.4); done is the share
     * swept, and with a duration the smaller of that and the share of the duration gone.
     */
    private SenseData progressSense() {
        double done = (double) sweptBlocks / Math.max(1, totalBlocks);
        long duration = durationNanos;
        if (duration > 0) {
            done = Math.min(done, (double) (clock.nanoTime() - startNanos) / duration);
        }
        int progress = (int) Math.max(0, Math.min(0xFFFF, (long) (65536.0 * done)));
        return SenseData.withProgress(SenseReason.LOGICAL_UNIT_NOT_READY_SANITIZE_IN_PROGRESS, progress);
    }

    /**
     * Ends the waiting SANITIZE command now if {@code which} selects it (it is being aborted, or its nexus is gone):
     * the operation goes on, the command leaves the task set. Its status — NOT READY, SANITIZE IN PROGRESS — reaches
     * no one, as the transport sends nothing for an aborted task.
     */
    void releaseTasks(java.util.function.Predicate<Task> which) {
        Waiting w = waiting.get();
        if (w != null && which.test(w.task()) && waiting.compareAndSet(w, null)) {
            w.task().fail(progressSense());
        }
    }

    /** The medium access commands a failed sanitize keeps refusing (SBC-4 §4.11.3). */
    private static boolean accessesMedium(Cdb cdb) {
        return cdb instanceof ReadCdb || cdb instanceof WriteCdb || cdb instanceof VerifyCdb
                || cdb instanceof WriteAndVerifyCdb || cdb instanceof WriteSameCdb || cdb instanceof UnmapCdb
                || cdb instanceof CompareAndWriteCdb || cdb instanceof PreFetchCdb
                || cdb instanceof SynchronizeCacheCdb || cdb instanceof GetLbaStatusCdb
                || cdb instanceof io.blocktarget.protocol.scsi.WriteAtomicCdb
                || cdb instanceof io.blocktarget.protocol.scsi.OrWriteCdb;
    }

    /** SANITIZE lasting at least {@code minimumNanos} ({@code sanitize-duration:}; 0 = as long as the sweep). */
    void execute(Task task, SanitizeCdb cdb, long minimumNanos) {
        int lbs = geometry().logicalBlockSize();
        int length = cdb.parameterListLength();
        if (cdb.serviceAction() == SanitizeCdb.ServiceAction.OVERWRITE) {
            // SBC-4 §5.30.3: the list is a 4-byte header and a pattern of 1..LBS bytes
            if (length <= OverwriteParameters.HEADER_LENGTH || length > lbs + OverwriteParameters.HEADER_LENGTH) {
                task.fail(SenseReason.INVALID_FIELD_IN_CDB, SanitizeCdb.PARAMETER_LIST_LENGTH_FIELD);
                return;
            }
        } else if (length != 0) {
            task.fail(SenseReason.INVALID_FIELD_IN_CDB, SanitizeCdb.PARAMETER_LIST_LENGTH_FIELD);
            return;
        }
        if (cdb.serviceAction() == SanitizeCdb.ServiceAction.EXIT_FAILURE_MODE) {
            exitFailureMode(task);
            return;
        }
        List<Pass> passes;
        if (cdb.serviceAction() == SanitizeCdb.ServiceAction.OVERWRITE) {
            ByteBuf list = task.parameterList(length, SanitizeCdb.PARAMETER_LIST_LENGTH_FIELD);
            if (list == null) {
                return;
            }
            Parsed<OverwriteParameters> parsed = OverwriteParameters.parse(list, lbs);
            if (parsed instanceof Parsed.Invalid<OverwriteParameters> invalid) {
                task.fail(invalid);
                return;
            }
            OverwriteParameters p = ((Parsed.Ok<OverwriteParameters>) parsed).value();
            passes = java.util.stream.IntStream.range(0, p.overwriteCount())
                    .mapToObj(i -> Pass.of(p.block(lbs, i))).toList();
        } else {
            passes = List.of(Pass.ERASE);
        }
        State before = state.get();
        if (before == State.IN_PROGRESS || !state.compareAndSet(before, State.IN_PROGRESS)) {
            task.fail(progressSense()); // a concurrent SANITIZE won the race
            return;
        }
        sweptBlocks = 0;
        totalBlocks = geometry().blockCount() * passes.size();
        durationNanos = Math.max(0, minimumNanos);
        startNanos = clock.nanoTime();
        long transferred = length;
        if (cdb.immed()) {
            task.good(transferred); // SBC-4 §5.30.1: status once the CDB and parameter list are validated
        } else {
            waiting.set(new Waiting(task, transferred));
        }
        rangeLock.acquireExclusive(0, geometry().blockCount(), lease -> new Sweep(passes, (ok, failure) -> {
            long left = failure != null ? 0 : durationNanos - (clock.nanoTime() - startNanos);
            if (left > 0) {
                clock.schedule(left, () -> finish(lease, cdb, null));
            } else {
                finish(lease, cdb, failure);
            }
        }).start());
    }

    /** The operation ended: the unit is usable again (or failed), and a waiting SANITIZE command gets its status. */
    private void finish(RangeLock.Lease lease, SanitizeCdb cdb, BlockIoException failure) {
        lease.release();
        state.set(failure == null ? State.IDLE : cdb.ause() ? State.FAILED_EXIT_ALLOWED : State.FAILED);
        Waiting w = waiting.getAndSet(null);
        if (w != null) {
            if (failure != null) {
                w.task().fail(SenseReason.SANITIZE_COMMAND_FAILED);
            } else {
                w.task().good(w.transferred());
            }
        }
    }

    /**
     * EXIT FAILURE MODE (SBC-4 §5.30.2): completes the failed sanitize "successfully" when it had AUSE
     * = 1; with AUSE = 0 only a successful sanitize may leave the failed state (INVALID FIELD IN CDB at
     * the SERVICE ACTION). Outside the failed state there is nothing to exit: GOOD.
     */
    private void exitFailureMode(Task task) {
        State s = state.get();
        if (s == State.FAILED) {
            task.fail(SenseReason.INVALID_FIELD_IN_CDB, FieldPointer.cdb(1, 4));
            return;
        }
        if (s == State.IN_PROGRESS) {
            task.fail(progressSense());
            return;
        }
        state.compareAndSet(State.FAILED_EXIT_ALLOWED, State.IDLE);
        task.good();
    }

    /** One pass over the medium: erase (unmap), zeros, or a block pattern. */
    private record Pass(Kind kind, byte[] block) {
        enum Kind { ERASE, ZEROES, PATTERN }

        static final Pass ERASE = new Pass(Kind.ERASE, null);

        static Pass of(byte[] block) {
            for (byte b : block) {
                if (b != 0) {
                    return new Pass(Kind.PATTERN, block);
                }
            }
            return new Pass(Kind.ZEROES, null);
        }
    }

    /**
     * Issues one step after the other over every pass. RAM completes inline, so — as {@link PieceWriter}
     * does — the loop goes on when a step completed inline and returns when it did not, the completion
     * resuming it on its own thread.
     */
    private final class Sweep implements IoCallback<Void> {
        private enum Phase { ISSUING, WAITING, COMPLETED_INLINE }

        private final List<Pass> passes;
        private final IoCallback<Void> finished;
        private final AtomicReference<Phase> phase = new AtomicReference<>(Phase.WAITING);
        private int pass;
        private long next;
        private long stepBlocks;
        private ByteBuf piece;

        Sweep(List<Pass> passes, IoCallback<Void> finished) {
            this.passes = passes;
            this.finished = finished;
        }

        void start() {
            pump();
        }

        private void pump() {
            long end = geometry().blockCount();
            while (pass < passes.size()) {
                if (next >= end) {
                    releasePiece();
                    pass++;
                    next = 0;
                    continue;
                }
                Pass p = passes.get(pass);
                int shift = geometry().logicalBlockShift();
                long n;
                phase.set(Phase.ISSUING);
                long lba = next;
                switch (p.kind()) {
                    case PATTERN -> {
                        if (piece == null) {
                            piece = pieceOf(p.block());
                        }
                        n = Math.min(piece.readableBytes() >>> shift, end - lba);
                        advance(lba, n);
                        device.write(lba, piece.slice(piece.readerIndex(), (int) n << shift), false, this);
                    }
                    case ZEROES -> {
                        n = Math.min(Math.max(1, ERASE_STEP_BYTES >>> shift), end - lba);
                        advance(lba, n);
                        device.writeZeroes(lba, n, this);
                    }
                    default -> {
                        n = Math.min(Math.max(1, ERASE_STEP_BYTES >>> shift), end - lba);
                        advance(lba, n);
                        device.unmap(List.of(new BlockRange(lba, n)), this);
                    }
                }
                if (phase.compareAndSet(Phase.ISSUING, Phase.WAITING)) {
                    return; // completes later, on another thread, and resumes the loop there
                }
                if (phase.get() != Phase.COMPLETED_INLINE) {
                    return; // it failed inline: finished already ran
                }
                sweptBlocks += stepBlocks;
            }
            finished.complete(null, null);
        }

        private void advance(long lba, long n) {
            stepBlocks = n;
            next = lba + n;
        }

        private ByteBuf pieceOf(byte[] block) {
            int blocks = (int) Math.max(1, Math.min(PATTERN_PIECE_BYTES / block.length, geometry().blockCount()));
            ByteBuf buf = Unpooled.directBuffer(blocks * block.length);
            for (int i = 0; i < blocks; i++) {
                buf.writeBytes(block);
            }
            return buf;
        }

        private void releasePiece() {
            if (piece != null) {
                piece.release();
                piece = null;
            }
        }

        @Override
        public void complete(Void result, BlockIoException failure) {
            if (failure != null) {
                phase.set(Phase.WAITING);
                releasePiece();
                finished.complete(null, failure);
                return;
            }
            if (phase.compareAndSet(Phase.ISSUING, Phase.COMPLETED_INLINE)) {
                return; // the issuing loop goes on
            }
            sweptBlocks += stepBlocks;
            pump();
        }
    }
}
