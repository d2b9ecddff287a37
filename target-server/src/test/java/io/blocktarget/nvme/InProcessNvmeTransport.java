package io.blocktarget.nvme;

import io.blocktarget.nvme.TestSupport.TestConnection;
import io.blocktarget.protocol.nvme.ConnectCommand;
import io.blocktarget.protocol.nvme.ConnectData;
import io.blocktarget.protocol.nvme.Cqe;
import io.blocktarget.protocol.nvme.CqeStatus;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An NVMe transport without sockets (issue 27): one {@link NvmeQueuePair} whose {@link NvmeTransportOps} hand each
 * response to the test as the CQE a host would read (SQHD, SQID, CID, status) plus its data. Commands go through
 * the same Connect, SQHD and completion function as NVMe/TCP's, on the calling thread (the "event loop" is whichever
 * thread completes: responses from a file backend arrive on its thread).
 */
final class InProcessNvmeTransport implements NvmeTransportOps {
    /** What the host gets for one command: the CQE and the controller-to-host data (null when none). */
    record Response(Cqe cqe, ByteBuf data) {
        /** The Status Field (compare with {@code NvmeStatus.X.toCqeStatus()}: a code alone can be ambiguous). */
        CqeStatus status() {
            return cqe.status();
        }

        byte[] bytes() {
            try {
                return data == null ? new byte[0] : ByteBufUtil.getBytes(data);
            } finally {
                release();
            }
        }

        void release() {
            if (data != null && data.refCnt() > 0) {
                data.release();
            }
        }
    }

    /** One command of this transport: the request and the response it waits for. */
    static final class Request extends NvmeRequest {
        final CompletableFuture<Response> response = new CompletableFuture<>();
        final AtomicInteger responses = new AtomicInteger();

        Request(Sqe sqe, ByteBuf dataOut) {
            super(sqe);
            dataOut(dataOut);
        }
    }

    final TestConnection connection;
    final NvmeQueuePair pair;
    /** Responses sent, all requests together (each request exactly one). */
    final AtomicInteger responses = new AtomicInteger();
    volatile NvmeQueue queue;

    InProcessNvmeTransport(NvmeTarget target) {
        this(target, new TestConnection(), false);
    }

    InProcessNvmeTransport(NvmeTarget target, TestConnection connection, boolean discoveryOnly) {
        this.connection = connection;
        this.pair = new NvmeQueuePair(target, connection, this, discoveryOnly);
    }

    /** Fabrics Connect (Base §6.3) with CATTR {@code cattr} and CNTLID {@code cntlid} (FFFFh: a new controller). */
    Response connect(int qid, int sqsize, int cattr, int cntlid, String subnqn) {
        ByteBuf data = Unpooled.buffer(ConnectData.SIZE);
        new ConnectData(TestSupport.HOST_ID, cntlid, subnqn, TestSupport.HOST_NQN).encode(data);
        return submit(new ConnectCommand(9, 0, qid, sqsize, cattr, 0, SglDescriptor.inCapsule(0, ConnectData.SIZE))
                .toSqe(), data);
    }

    /** A capsule: it takes an SQ entry (SQHD moves), then runs; waits for its response and releases its data. */
    Response submit(Sqe sqe, ByteBuf dataOut) {
        Request r = new Request(sqe, dataOut);
        pair.admit();
        pair.submit(r);
        return await(r);
    }

    static Response await(Request r) {
        try {
            return r.response.get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("no response", e);
        } finally {
            r.releaseData();
        }
    }

    @Override
    public void queueResponse(NvmeRequest r, Cqe cqe, ByteBuf dataIn) {
        Request request = (Request) r;
        responses.incrementAndGet();
        if (request.responses.incrementAndGet() != 1) {
            if (dataIn != null) {
                dataIn.release();
            }
            throw new AssertionError("a second response for CID " + r.cid());
        }
        request.response.complete(new Response(cqe, dataIn));
    }

    @Override
    public boolean inLoop() {
        return true;
    }

    @Override
    public boolean execute(Runnable task) {
        task.run();
        return true;
    }

    @Override
    public void connected(NvmeQueue queue, ConnectData data) {
        this.queue = queue;
    }

    void close() {
        pair.close();
    }
}
