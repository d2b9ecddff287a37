package io.blocktarget.it.nvme;

import io.blocktarget.it.iscsi.IscsiTestInitiator;
import io.blocktarget.protocol.nvme.ConnectData;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Many initiators at once against one server, each on its own virtual thread: {@code sessions} iSCSI sessions
 * (distinct ISIDs) and {@code controllers} NVMe/TCP controllers with {@link #QUEUES} I/O queues each. Every one
 * first connects (a barrier waits until all are connected, so they are concurrent), then writes a pattern to its
 * own LBA range, reads it back and compares, {@code passes} times, then ends its session the way {@link Ending}
 * says. Used by LoadIT (one round) and SoakIT (rounds until a deadline).
 */
final class LoadDriver {
    static final int QUEUES = 4;
    static final int LBS = 4096;
    /** Per iSCSI session and per NVMe I/O queue: 64 KiB (16 blocks) written and read per pass. */
    static final int BLOCKS = 16;

    /**
     * How a session ends: Logout / I/O queues before the admin queue (orderly), or every socket closed at once with
     * no Logout, in whatever order the threads get to it (the initiator dropped, as when a host dies).
     */
    enum Ending { ORDERLY, DROPPED }

    record Totals(long verifiedBytes, long mismatches) {
    }

    private final int iscsiPort;
    private final int nvmePort;
    private final String iqn;
    private final String nqn;

    LoadDriver(int iscsiPort, int nvmePort, String iqn, String nqn) {
        this.iscsiPort = iscsiPort;
        this.nvmePort = nvmePort;
        this.iqn = iqn;
        this.nqn = nqn;
    }

    static byte[] pattern(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static byte[] cdb16(int opcode, long lba, int blocks) {
        return ByteBuffer.allocate(16).put((byte) opcode).put((byte) 0).putLong(lba).putInt(blocks)
                .put((byte) 0).put((byte) 0).array();
    }

    /** One round; throws on any failure (a refused login, an error status, a timeout). */
    Totals round(int sessions, int controllers, int passes, long round, Random endings) throws Exception {
        int parties = sessions + controllers;
        CyclicBarrier connected = new CyclicBarrier(parties);
        AtomicLong verified = new AtomicLong();
        AtomicLong mismatches = new AtomicLong();
        List<Ending> ends = new ArrayList<>();
        for (int i = 0; i < parties; i++) {
            ends.add(endings == null ? Ending.ORDERLY : endings.nextInt(3) == 0 ? Ending.DROPPED : Ending.ORDERLY);
        }
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> all = new ArrayList<>();
            for (int s = 0; s < sessions; s++) {
                int session = s;
                Ending end = ends.get(s);
                all.add(pool.submit(() -> {
                    iscsiSession(session, passes, round, end, connected, verified, mismatches);
                    return null;
                }));
            }
            for (int c = 0; c < controllers; c++) {
                int controller = c;
                Ending end = ends.get(sessions + c);
                all.add(pool.submit(() -> {
                    nvmeController(controller, passes, round, end, connected, verified, mismatches);
                    return null;
                }));
            }
            for (Future<?> f : all) {
                f.get(300, TimeUnit.SECONDS);
            }
        }
        return new Totals(verified.get(), mismatches.get());
    }

    private void iscsiSession(int session, int passes, long round, Ending end, CyclicBarrier connected,
                              AtomicLong verified, AtomicLong mismatches) throws Exception {
        try (IscsiTestInitiator iscsi = IscsiTestInitiator.connect(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), iscsiPort), 0x400000000000L + session)) {
            iscsi.login(iqn, null);
            iscsi.clearUnitAttention();
            connected.await(120, TimeUnit.SECONDS);
            long lba = (long) session * BLOCKS;
            for (int pass = 0; pass < passes; pass++) {
                byte[] data = pattern(BLOCKS * LBS, round << 32 ^ (long) session << 8 ^ pass);
                IscsiTestInitiator.Result w = iscsi.command(0, cdb16(0x8A, lba, BLOCKS), 0, data);
                if (w.status() != 0) {
                    throw new IOException("iSCSI session " + session + ": WRITE(16) status " + w.status());
                }
                IscsiTestInitiator.Result r = iscsi.command(0, cdb16(0x88, lba, BLOCKS), data.length, null);
                if (r.status() != 0) {
                    throw new IOException("iSCSI session " + session + ": READ(16) status " + r.status());
                }
                if (Arrays.equals(r.data(), data)) {
                    verified.addAndGet(data.length);
                } else {
                    mismatches.incrementAndGet();
                }
            }
            if (end == Ending.ORDERLY) {
                iscsi.logout();
            }
        }
    }

    private void nvmeController(int controller, int passes, long round, Ending end, CyclicBarrier connected,
                                AtomicLong verified, AtomicLong mismatches) throws Exception {
        List<NvmeTcpTestHost> queues = new ArrayList<>();
        try (NvmeTcpTestHost admin = NvmeTcpTestHost.open(nvmePort, false, false)) {
            NvmeTcpTestHost.Reply c = admin.connect(nqn, 0, 31, ConnectData.CNTLID_DYNAMIC, 0, 0);
            NvmeTcpTestHost.require(c, "admin Connect of controller " + controller);
            admin.enable();
            NvmeTcpTestHost.require(admin.setFeature(0x07, (QUEUES - 1) | (QUEUES - 1) << 16), "Number of Queues");
            int cntlid = c.cqe().dw0() & 0xFFFF;
            try {
                for (int qid = 1; qid <= QUEUES; qid++) {
                    NvmeTcpTestHost q = NvmeTcpTestHost.open(nvmePort, false, false);
                    queues.add(q);
                    NvmeTcpTestHost.require(q.connect(nqn, qid, 127, cntlid, 0, 0), "I/O Connect QID " + qid);
                }
                connected.await(120, TimeUnit.SECONDS);
                for (int pass = 0; pass < passes; pass++) {
                    for (int qid = 1; qid <= QUEUES; qid++) {
                        NvmeTcpTestHost q = queues.get(qid - 1);
                        long slba = ((long) controller * QUEUES + qid - 1) * BLOCKS;
                        byte[] data = pattern(BLOCKS * LBS, round << 32 ^ (long) controller << 12 ^ qid << 4 ^ pass);
                        NvmeTcpTestHost.require(q.write(1, slba, BLOCKS, data), "NVMe Write");
                        NvmeTcpTestHost.Reply r = q.read(1, slba, BLOCKS, data.length);
                        NvmeTcpTestHost.require(r, "NVMe Read");
                        if (Arrays.equals(r.data(), data)) {
                            verified.addAndGet(data.length);
                        } else {
                            mismatches.incrementAndGet();
                        }
                    }
                }
                if (end == Ending.ORDERLY) {
                    // disconnect as Linux does: I/O queues first, then CC.SHN via the admin queue's close
                    for (NvmeTcpTestHost q : queues) {
                        q.close();
                    }
                }
            } finally {
                for (NvmeTcpTestHost q : queues) {
                    q.close();
                }
            }
        }
    }
}
