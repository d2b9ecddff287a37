package io.blocktarget.transport.nvmetcp;

import io.blocktarget.nvme.NvmeRequest;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.state.StateCounters;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;

/**
 * One outstanding command of a connection: the NVMe layer's {@link NvmeRequest} (SQE, data, completion) with the
 * transport's part, as nvmet-tcp's {@code nvmet_tcp_cmd} embeds {@code nvmet_req} — one object per command. The
 * transport's part: its slot (which is also the TTAG of its R2Ts: unique among the connection's outstanding commands,
 * so no TTAG map is needed), its state, the R2T window and the fused partner. Mutated only on the connection's event
 * loop.
 */
final class Command extends NvmeRequest {
    /** Largest number of H2CData slices gathered into one composite before Netty would consolidate (copy). */
    static final int MAX_COMPONENTS = 4096;
    private static final int ASYNC_EVENT_REQUEST = 0x0C;

    private final int slot;
    private final TransferDirection direction;
    /** The connection's command counters: every state change goes through {@link CommandState#MACHINE}. */
    private final StateCounters<CommandState> counters;
    private CommandState state;
    /** Bytes of the command's data the host must send by R2T (the SGL length). */
    private long transferLength;
    /** Offset the next H2CData must start at (§3.6.2.9: in order, no gaps). */
    private long received;
    /** The current R2T: [r2to, r2to + r2tl). */
    private long r2to;
    private long r2tl;
    /** TRANSIENT_TRANSPORT_ERROR once a data digest failed; the data is still drained up to LAST_PDU. */
    private NvmeStatus transportStatus = NvmeStatus.SUCCESS;
    /** The other command of this one's fused operation (Base §3.4.2), once the capsules showed it; else null. */
    private Command fusedPartner;

    Command(int slot, Sqe sqe, StateCounters<CommandState> counters) {
        super(sqe);
        this.slot = slot;
        this.counters = counters;
        this.state = CommandState.MACHINE.start(counters);
        this.direction = TransferDirection.of(sqe);
    }

    int slot() {
        return slot;
    }

    int ttag() {
        return slot;
    }

    TransferDirection direction() {
        return direction;
    }

    CommandState state() {
        return state;
    }

    void transitionTo(CommandState next) {
        state = CommandState.MACHINE.transition(state, next, counters);
    }

    /** Starts gathering {@code length} bytes by R2T. */
    void expectH2C(long length, CompositeByteBuf gather) {
        transferLength = length;
        dataOut(gather);
    }

    long transferLength() {
        return transferLength;
    }

    long received() {
        return received;
    }

    long r2to() {
        return r2to;
    }

    long r2tl() {
        return r2tl;
    }

    /** Opens the next R2T of at most {@code maxLength} bytes; returns its length. */
    long nextR2T(long maxLength) {
        r2to = received;
        r2tl = Math.min(maxLength, transferLength - received);
        return r2tl;
    }

    boolean r2tComplete() {
        return received == r2to + r2tl;
    }

    boolean allDataReceived() {
        return received == transferLength;
    }

    /** Appends one H2CData's data (ownership passes to the command). */
    void append(ByteBuf data) {
        received += data.readableBytes();
        ((CompositeByteBuf) dataOut()).addComponent(true, data);
    }

    /** Skips one H2CData whose digest failed. */
    void skip(int datal) {
        received += datal;
        transportStatus = NvmeStatus.TRANSIENT_TRANSPORT_ERROR;
    }

    /** Counts one H2CData of an aborted command whose data is dropped (DRAINING). */
    void discard(int datal) {
        received += datal;
    }

    /** An Asynchronous Event Request (admin opcode 0Ch), the one command a host may leave outstanding for ever. */
    boolean isAsyncEventRequest() {
        return !sqe().isFabrics() && sqe().opcode() == ASYNC_EVENT_REQUEST;
    }

    NvmeStatus transportStatus() {
        return transportStatus;
    }

    /** FUSE of the SQE (Base §4.1): {@link Sqe#FUSE_NONE}, {@link Sqe#FUSE_FIRST} or {@link Sqe#FUSE_SECOND}. */
    int fuse() {
        return sqe().fuse();
    }

    Command fusedPartner() {
        return fusedPartner;
    }

    /** Pairs this first command of a fused operation with the {@code second} that came right after it. */
    void fuseWith(Command second) {
        fusedPartner = second;
        second.fusedPartner = this;
    }

    /** Unpairs this command (and its partner); returns the partner, or null. */
    Command unfuse() {
        Command partner = fusedPartner;
        if (partner != null) {
            partner.fusedPartner = null;
            fusedPartner = null;
        }
        return partner;
    }
}
