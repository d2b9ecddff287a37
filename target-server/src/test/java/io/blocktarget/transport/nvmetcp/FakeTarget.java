package io.blocktarget.transport.nvmetcp;

import io.blocktarget.nvme.ConnectResult;
import io.blocktarget.nvme.NvmeCompletion;
import io.blocktarget.nvme.NvmeHostConnection;
import io.blocktarget.nvme.NvmeQueue;
import io.blocktarget.nvme.NvmeTarget;
import io.blocktarget.protocol.nvme.ConnectCommand;
import io.blocktarget.protocol.nvme.ConnectData;
import io.blocktarget.protocol.nvme.ConnectResponse;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.Sqe;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.util.ArrayList;
import java.util.List;

/**
 * A small stand-in for the NVMe layer, enough to drive the transport: Connect creates a queue (a subsystem named
 * {@link #REFUSED} is refused), NVM Write (01h) stores its data at SLBA × 512 in a 4 MiB heap buffer, NVM Read
 * (02h) returns a slice of it, Property Get returns fixed DW0/DW1, an Asynchronous Event Request (0Ch) waits in
 * {@link FakeQueue#aers} until the test posts an event, everything else succeeds. With {@link #holdCompletions}
 * the completions are kept for the test to run.
 */
final class FakeTarget implements NvmeTarget {
    static final String SUBNQN = "nqn.2026-11.io.blocktarget:capture";
    static final String REFUSED = "nqn.2026-11.io.blocktarget:refused";
    static final int CNTLID = 0x0017;
    static final int PROPERTY_DW0 = 0x1234_5678;
    static final int PROPERTY_DW1 = 0x0BAD_F00D;
    /** CDW15 of an NVM Read that completes with half its data and Data Transfer Error. */
    static final int PARTIAL_READ = 0x5057;
    /** CDW15 of an NVM Read that completes with the exact Status Field in CDW14 (a fault rule's raw status). */
    static final int RAW_STATUS = 0x5253;

    final ByteBuf storage = Unpooled.buffer(4 << 20, 4 << 20).writeZero(4 << 20);
    final List<Submitted> submitted = new ArrayList<>();
    final List<Runnable> held = new ArrayList<>();
    final List<FakeQueue> queues = new ArrayList<>();
    NvmeHostConnection connection;
    boolean holdCompletions;
    /** The configured TLS PSK of {@link #SUBNQN}; null: no TLS offered. */
    io.blocktarget.config.TlsPsk tlsPsk;

    @Override
    public boolean tlsOffered() {
        return tlsPsk != null;
    }

    @Override
    public java.util.Optional<io.blocktarget.config.TlsPsk> tlsPsk(String subsystemNqn) {
        return subsystemNqn.equals(SUBNQN) ? java.util.Optional.ofNullable(tlsPsk) : java.util.Optional.empty();
    }

    /** Fused pairs the transport submitted together: the first's and the second's CID, in order. */
    final List<int[]> fused = new ArrayList<>();

    record Submitted(Sqe sqe, byte[] data) {
    }

    @Override
    public void connect(ConnectCommand command, ConnectData data, NvmeHostConnection connection,
                        ConnectCompletion done) {
        this.connection = connection;
        if (data.subnqn().equals(REFUSED)) {
            done.complete(ConnectResult.refused(NvmeStatus.CONNECT_INVALID_HOST, 0));
            return;
        }
        FakeQueue q = new FakeQueue(command.qid(), command.queueEntries(), command.sqFlowControlDisabled());
        queues.add(q);
        done.complete(ConnectResult.accepted(q, ConnectResponse.success(CNTLID)));
    }

    void release() {
        storage.release();
    }

    final class FakeQueue implements NvmeQueue {
        private final int qid;
        private final int entries;
        private final boolean flowControlDisabled;
        int closed;
        /** Outstanding Asynchronous Event Requests by CID, and the CIDs the transport retired. */
        final java.util.Map<Integer, NvmeCompletion> aers = new java.util.LinkedHashMap<>();
        final List<Integer> retired = new ArrayList<>();

        FakeQueue(int qid, int entries, boolean flowControlDisabled) {
            this.qid = qid;
            this.entries = entries;
            this.flowControlDisabled = flowControlDisabled;
        }

        @Override
        public int qid() {
            return qid;
        }

        @Override
        public int cntlid() {
            return CNTLID;
        }

        @Override
        public int entries() {
            return entries;
        }

        @Override
        public boolean sqFlowControlDisabled() {
            return flowControlDisabled;
        }

        @Override
        public void submit(Sqe sqe, ByteBuf dataOut, NvmeCompletion done) {
            byte[] copy = null;
            if (dataOut != null) {
                copy = new byte[dataOut.readableBytes()];
                dataOut.getBytes(dataOut.readerIndex(), copy);
            }
            submitted.add(new Submitted(sqe, copy));
            Runnable run = () -> execute(sqe, dataOut, done);
            if (holdCompletions) {
                held.add(run);
            } else {
                run.run();
            }
        }

        /** A fused pair: recorded (also in {@link #submitted}, first then second), then each executed as usual. */
        @Override
        public void submitFused(Sqe first, ByteBuf firstData, NvmeCompletion firstDone, Sqe second,
                                ByteBuf secondData, NvmeCompletion secondDone) {
            fused.add(new int[] {first.cid(), second.cid()});
            submit(first, firstData, firstDone);
            submit(second, secondData, secondDone);
        }

        /** Completes the outstanding AER {@code cid} with event {@code dw0}. */
        void postEvent(int cid, int dw0) {
            aers.remove(cid).complete(NvmeStatus.SUCCESS, dw0, 0, null);
        }

        @Override
        public boolean retireAsyncEventRequest(int cid) {
            retired.add(cid);
            return aers.remove(cid) != null;
        }

        private void execute(Sqe sqe, ByteBuf dataOut, NvmeCompletion done) {
            int offset = sqe.cdw10() * 512;
            if (!sqe.isFabrics() && sqe.opcode() == 0x01 && qid > 0) {
                storage.setBytes(offset, dataOut, dataOut.readerIndex(), dataOut.readableBytes());
                done.complete(NvmeStatus.SUCCESS, 0, 0, null);
            } else if (!sqe.isFabrics() && sqe.opcode() == 0x02 && qid > 0 && sqe.cdw15() == RAW_STATUS) {
                done.completeRaw(io.blocktarget.protocol.nvme.CqeStatus.decode(sqe.cdw14() & 0xFFFE),
                        NvmeStatus.UNRECOVERED_READ_ERROR, 0, 0, null);
            } else if (!sqe.isFabrics() && sqe.opcode() == 0x02 && qid > 0 && sqe.cdw15() == PARTIAL_READ) {
                // a fault rule's partial transfer: the first half of the data, then an error
                done.complete(NvmeStatus.DATA_TRANSFER_ERROR, 0, 0,
                        storage.retainedSlice(offset, sqe.dptr().length() / 2));
            } else if (!sqe.isFabrics() && sqe.opcode() == 0x02 && qid > 0) {
                done.complete(NvmeStatus.SUCCESS, 0, 0, storage.retainedSlice(offset, sqe.dptr().length()));
            } else if (!sqe.isFabrics() && sqe.opcode() == 0x0C && qid == 0) {
                aers.put(sqe.cid(), done);
            } else if (sqe.isFabrics() && sqe.fctype() == 0x04) {
                done.complete(NvmeStatus.SUCCESS, PROPERTY_DW0, PROPERTY_DW1, null);
            } else if (!sqe.isFabrics() && sqe.opcode() == 0x06 && qid == 0) {
                // Identify: 4096 bytes, byte i = i
                ByteBuf id = Unpooled.buffer(4096);
                for (int i = 0; i < 4096; i++) {
                    id.writeByte(i);
                }
                done.complete(NvmeStatus.SUCCESS, 0, 0, id);
            } else {
                done.complete(NvmeStatus.SUCCESS, 0, 0, null);
            }
        }

        @Override
        public void close() {
            closed++;
        }
    }
}
