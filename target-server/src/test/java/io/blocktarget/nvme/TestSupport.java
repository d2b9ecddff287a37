package io.blocktarget.nvme;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.protocol.nvme.ConnectCommand;
import io.blocktarget.protocol.nvme.ConnectData;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** Test doubles for the transport side of the contract: a connection, a manual clock, synchronous submit. */
final class TestSupport {
    static final String HOST_NQN = "nqn.2014-08.org.nvmexpress:uuid:3a9c6a5e-1111-4222-8333-444455556666";
    static final byte[] HOST_ID = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

    private TestSupport() {
    }

    /**
     * A connection that records terminate() calls and answers abort() like the transport: true for a CID in
     * {@link #abortable} (a command waiting for data), false otherwise; with {@link #holdAborts} the answers wait
     * in {@link #heldAborts}.
     */
    static final class TestConnection implements NvmeHostConnection {
        final List<String> terminations = new CopyOnWriteArrayList<>();
        final java.util.Set<Integer> abortable = java.util.concurrent.ConcurrentHashMap.newKeySet();
        final List<Integer> abortRequests = new CopyOnWriteArrayList<>();
        final List<Runnable> heldAborts = new CopyOnWriteArrayList<>();
        volatile boolean holdAborts;
        private final String local;
        private final int port;

        TestConnection() {
            this("127.0.0.1", 4420);
        }

        TestConnection(String local, int port) {
            this.local = local;
            this.port = port;
        }

        @Override
        public String peerAddress() {
            return "127.0.0.1:50000";
        }

        @Override
        public String localAddress() {
            return local;
        }

        @Override
        public int localPort() {
            return port;
        }

        @Override
        public void terminate(String reason) {
            terminations.add(reason);
        }

        /** What the transport would report; plain unless a test says TLS. */
        volatile ChannelSecurity security = ChannelSecurity.NONE;

        @Override
        public ChannelSecurity security() {
            return security;
        }

        /** The TLS session's host and subsystem; set with {@link #security} TLS13 to model a TLS connection. */
        volatile TlsSession tls;

        @Override
        public java.util.Optional<TlsSession> tlsSession() {
            return java.util.Optional.ofNullable(tls);
        }

        @Override
        public void abort(int cid, java.util.function.Consumer<Boolean> done) {
            abortRequests.add(cid);
            Runnable answer = () -> done.accept(abortable.remove(cid));
            if (holdAborts) {
                heldAborts.add(answer);
            } else {
                answer.run();
            }
        }
    }

    /** One completion as the transport would receive it; {@link #release()} frees its data. */
    record Reply(NvmeStatus status, int dw0, int dw1, ByteBuf data) {
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

    /** Submits and waits for the completion (file backends complete on other threads). */
    static Reply submit(NvmeQueue queue, io.blocktarget.protocol.nvme.Sqe sqe, ByteBuf dataOut) {
        CompletableFuture<Reply> result = new CompletableFuture<>();
        AtomicInteger calls = new AtomicInteger();
        queue.submit(sqe, dataOut, (status, dw0, dw1, data) -> {
            if (calls.incrementAndGet() != 1) {
                throw new AssertionError("completed twice");
            }
            result.complete(new Reply(status, dw0, dw1, data));
        });
        try {
            return result.get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("no completion", e);
        } finally {
            if (dataOut != null) {
                dataOut.release();
            }
        }
    }

    static ConnectResult connect(NvmeTarget target, int qid, int sqsize, long kato, int cntlid, String subnqn,
                                 String hostnqn, NvmeHostConnection connection) {
        ConnectCommand command = new ConnectCommand(7, 0, qid, sqsize, 0, kato,
                SglDescriptor.inCapsule(0, ConnectData.SIZE));
        ConnectData data = new ConnectData(HOST_ID, cntlid, subnqn, hostnqn);
        CompletableFuture<ConnectResult> result = new CompletableFuture<>();
        target.connect(command, data, connection, result::complete);
        return result.getNow(null);
    }

    static BlockDevice ram(String name, int lbs, int pbs, long blocks) {
        return new RamBlockDevice(name, new BlockGeometry(lbs, pbs, blocks), false,
                new MemoryBudget(256L * 1024 * 1024));
    }

    static List<Integer> lbsMatrix() {
        List<Integer> list = new ArrayList<>();
        for (int lbs = 512; lbs <= 65536; lbs *= 2) {
            list.add(lbs);
        }
        return list;
    }
}
