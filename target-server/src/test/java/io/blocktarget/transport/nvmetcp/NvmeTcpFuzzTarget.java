package io.blocktarget.transport.nvmetcp;

import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.fuzz.Findings;
import io.blocktarget.fuzz.PduMutator;
import io.blocktarget.nvme.NamespaceSpec;
import io.blocktarget.nvme.NvmeLimits;
import io.blocktarget.nvme.NvmeTarget;
import io.blocktarget.nvme.NvmeTargets;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.protocol.nvmetcp.CapsuleCmd;
import io.blocktarget.protocol.nvmetcp.H2CData;
import io.blocktarget.protocol.nvmetcp.ICResp;
import io.blocktarget.protocol.nvmetcp.NvmeTcpFraming;
import io.blocktarget.protocol.nvmetcp.NvmeTcpPdu;
import io.blocktarget.protocol.nvmetcp.NvmeTcpProtocolException;
import io.blocktarget.protocol.nvmetcp.PduOptions;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The NVMe/TCP fuzz targets: the real transport (frame decoder, connection handler) over the real NVMe layer
 * (controller, admin and NVM command sets, a 1 MiB RAM namespace of 4 KiB blocks) on EmbeddedChannels, fed a host
 * byte stream. The oracle is {@link io.blocktarget.transport.iscsi.IscsiFuzzTarget}'s: no exception leaves the
 * pipeline, nothing SEVERE is logged, every controller PDU decodes with the host's framing, every inbound buffer
 * is released once the connections are closed. The namespace's subsystem is the one the Linux captures in
 * protocol/src/test/resources/nvme connected to, so those PDUs are the seeds.
 */
final class NvmeTcpFuzzTarget {
    static final String SUBNQN = FakeTarget.SUBNQN;
    /** Header fields worth boundary values (NVMe/TCP §3.6.1, CapsuleCmd SQE §3.6.2.5, H2CData §3.6.2.8): type,
     *  flags, HLEN, PDO, PLEN; SQE opcode, CID, NSID, SGL address / length / type, CDW10..12; H2C CCCID, TTAG,
     *  DATAO, DATAL. */
    static final List<PduMutator.Field> FIELDS = List.of(new PduMutator.Field(0, 1), new PduMutator.Field(1, 1),
            new PduMutator.Field(2, 1), new PduMutator.Field(3, 1), new PduMutator.Field(4, 4),
            new PduMutator.Field(8, 1), new PduMutator.Field(10, 2), new PduMutator.Field(12, 4),
            new PduMutator.Field(32, 4), new PduMutator.Field(36, 4), new PduMutator.Field(40, 4),
            new PduMutator.Field(44, 4), new PduMutator.Field(48, 4), new PduMutator.Field(52, 4),
            new PduMutator.Field(56, 4), new PduMutator.Field(60, 4), new PduMutator.Field(16, 4),
            new PduMutator.Field(20, 4));
    /** Keep-alive timers never fire: nobody advances this clock. */
    private static final ManualClock NEVER = new ManualClock();

    private NvmeTcpFuzzTarget() {
    }

    /** The host end of one connection: what the controller wrote, decoded as the host would. */
    private static final class Host {
        final EmbeddedChannel channel = new EmbeddedChannel();
        final ByteBuf received = Unpooled.buffer();
        NvmeTcpFraming framing = NvmeTcpFraming.host(1 << 22);

        Host(NvmeTarget target) {
            new NvmeTcpTransport(target, NvmeLimits.DEFAULT).install(channel.pipeline(), null, false);
        }

        void drain() {
            channel.runPendingTasks();
            for (Object o; (o = channel.readOutbound()) != null; ) {
                ByteBuf b = (ByteBuf) o;
                received.writeBytes(b);
                b.release();
            }
            try {
                while (true) {
                    int n = framing.frameLength(received);
                    if (n < 0 || received.readableBytes() < n) {
                        break;
                    }
                    ByteBuf frame = received.readBytes(n);
                    NvmeTcpPdu pdu;
                    try {
                        pdu = NvmeTcpPdu.decode(frame);
                    } finally {
                        frame.release();
                    }
                    if (pdu instanceof ICResp resp) {
                        framing = framing.established(new PduOptions(resp.hdgstEnable(), resp.ddgstEnable(), 0));
                    }
                    pdu.release();
                }
                received.discardReadBytes();
            } catch (NvmeTcpProtocolException e) {
                throw new AssertionError("the controller wrote a PDU the host cannot decode", e);
            }
        }

        void close() {
            channel.finishAndReleaseAll();
            channel.runPendingTasks();
            received.release();
        }
    }

    /** The input is the whole byte stream of an admin queue's connection; its last byte picks the split. */
    static void adminQueue(byte[] input) {
        run(input, false);
    }

    /**
     * An enabled controller exists (its admin queue connected from the captures); the input is the byte stream of
     * a second connection, which the seeds use for an I/O queue of that controller (CNTLID 1).
     */
    static void ioQueue(byte[] input) {
        run(input, true);
    }

    private static void run(byte[] input, boolean withAdmin) {
        RamBlockDevice disk = new RamBlockDevice("fuzz", new BlockGeometry(4096, 4096, 256), false,
                new MemoryBudget(16L << 20));
        List<ByteBuf> inbound = new ArrayList<>();
        List<Host> hosts = new ArrayList<>();
        try (Findings findings = new Findings()) {
            NvmeTarget target = NvmeTargets.create(List.of(new NamespaceSpec(SUBNQN, 1, "fuzz", disk)), List.of(),
                    NvmeLimits.DEFAULT, NEVER);
            if (withAdmin) {
                Host admin = new Host(target);
                hosts.add(admin);
                for (String name : List.of("icreq", "connect-admin", "property-set-cc-enable")) {
                    ByteBuf b = Unpooled.wrappedBuffer(captured("linux-7.3/" + name));
                    inbound.add(b);
                    admin.channel.writeInbound(b);
                }
                admin.drain();
            }
            Host host = new Host(target);
            hosts.add(host);
            int split = input.length == 0 ? 0 : input[input.length - 1] & 0xFF;
            int step = split < 64 ? input.length : 1 + split % 97;
            for (int at = 0; at < input.length && host.channel.isOpen(); at += step) {
                ByteBuf chunk = Unpooled.copiedBuffer(input, at, Math.min(step, input.length - at));
                inbound.add(chunk);
                host.channel.writeInbound(chunk);
                host.channel.checkException();
                host.drain();
            }
            for (Host h : hosts) {
                h.drain();
                h.channel.checkException();
            }
            for (Host h : hosts) {
                h.close();
            }
            hosts.clear();
            for (ByteBuf b : inbound) {
                if (b.refCnt() != 0) {
                    throw new AssertionError("an inbound buffer is still referenced after close (refCnt "
                            + b.refCnt() + ")");
                }
            }
            findings.assertNone();
        } finally {
            hosts.forEach(Host::close);
            disk.close();
        }
    }

    // ---- seeds ----------------------------------------------------------------------------------------

    private static Map<String, byte[]> captures;

    static synchronized byte[] captured(String name) {
        if (captures == null) {
            try {
                captures = HostEnd.captured();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return captures.get(name).clone();
    }

    private static byte[] pdu(NvmeTcpPdu pdu) {
        ByteBuf b = Unpooled.buffer();
        pdu.encode(b, PduOptions.NONE);
        pdu.release();
        byte[] out = new byte[b.readableBytes()];
        b.readBytes(out);
        b.release();
        return out;
    }

    private static byte[] capsule(Sqe sqe, byte[] inCapsule) {
        return pdu(inCapsule.length == 0 ? new CapsuleCmd(sqe) : new CapsuleCmd(sqe, Unpooled.wrappedBuffer(inCapsule)));
    }

    static List<List<byte[]>> adminSeeds() {
        List<List<byte[]>> seeds = new ArrayList<>();
        for (String kernel : List.of("linux-7.3", "linux-6.1")) {
            List<byte[]> s = new ArrayList<>();
            for (String name : List.of("icreq", "connect-admin", "property-get-cap", "property-set-cc-enable",
                    "identify-cns-1", "identify-cns-6", "identify-cns-2", "identify-cns-3", "identify-cns-0",
                    "get-log-page-effects", "get-log-page-smart", "set-features-number-of-queues", "keep-alive",
                    "property-set-cc-shutdown")) {
                s.add(captured(kernel + "/" + name));
            }
            seeds.add(s);
        }
        seeds.add(List.of(captured("linux-6.1-digests/icreq"), captured("linux-6.1-digests/connect-admin")));
        return seeds;
    }

    static List<List<byte[]>> ioSeeds() {
        byte[] block = new byte[4096];
        new java.util.Random(7).nextBytes(block);
        byte[] icreq = captured("linux-7.3/icreq");
        byte[] connect = captured("linux-7.3/connect-io");
        List<List<byte[]>> seeds = new ArrayList<>();
        seeds.add(List.of(icreq, connect, captured("linux-7.3/read")));
        // in-capsule write, read back, flush, write zeroes, DSM deallocate, compare
        seeds.add(List.of(icreq, connect,
                capsule(Sqe.of(0x01, 1, 1, SglDescriptor.inCapsule(0, 4096), 3, 0, 0), block),
                capsule(Sqe.of(0x02, 2, 1, SglDescriptor.transportDataBlock(8192), 2, 0, 1), new byte[0]),
                capsule(Sqe.of(0x00, 3, 1, SglDescriptor.transportDataBlock(0)), new byte[0]),
                capsule(Sqe.of(0x08, 4, 1, SglDescriptor.transportDataBlock(0), 8, 0, 3), new byte[0]),
                capsule(Sqe.of(0x09, 5, 1, SglDescriptor.inCapsule(0, 16), 0, 1 << 2), new byte[] {0, 0, 0, 0, 4,
                        0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0}),
                capsule(Sqe.of(0x05, 6, 1, SglDescriptor.inCapsule(0, 4096), 3, 0, 0), block)));
        // a write whose data comes by R2T / H2CData (TTAG 0: the first transfer tag)
        seeds.add(List.of(icreq, connect,
                capsule(Sqe.of(0x01, 9, 1, SglDescriptor.transportDataBlock(8192), 10, 0, 1), new byte[0]),
                pdu(new H2CData(9, 0, 0, false, Unpooled.wrappedBuffer(java.util.Arrays.copyOf(block, 4096)))),
                pdu(new H2CData(9, 0, 4096, true, Unpooled.wrappedBuffer(block)))));
        return seeds;
    }

    static PduMutator adminMutator() {
        return new PduMutator(adminSeeds(), 72, FIELDS, ByteOrder.LITTLE_ENDIAN);
    }

    static PduMutator ioMutator() {
        return new PduMutator(ioSeeds(), 72, FIELDS, ByteOrder.LITTLE_ENDIAN);
    }
}
