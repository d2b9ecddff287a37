package io.blocktarget.transport.iscsi;

import io.blocktarget.protocol.iscsi.Bhs;
import io.blocktarget.protocol.iscsi.Digest;
import io.blocktarget.protocol.iscsi.FrameLimits;
import io.blocktarget.protocol.iscsi.InitiatorPdu;
import io.blocktarget.protocol.iscsi.IscsiFraming;
import io.blocktarget.protocol.iscsi.IscsiPdu;
import io.blocktarget.protocol.iscsi.LoginFlags;
import io.blocktarget.protocol.iscsi.LoginRequest;
import io.blocktarget.protocol.iscsi.LoginResponse;
import io.blocktarget.protocol.iscsi.LoginStage;
import io.blocktarget.protocol.iscsi.PduSource;
import io.blocktarget.protocol.iscsi.ScsiCommand;
import io.blocktarget.protocol.iscsi.TargetPdu;
import io.blocktarget.protocol.iscsi.TaskAttribute;
import io.blocktarget.protocol.iscsi.TextParameters;
import io.blocktarget.scsi.ScsiTargetDevice;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.concurrent.EventExecutor;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * One target connection over an {@link EmbeddedChannel}: the real decoder and connection, PDUs in as
 * initiator frames, PDUs out decoded with the wire codecs. Every received PDU must be released by the test.
 */
final class Harness implements AutoCloseable {
    static final String TARGET = "iqn.2026-11.io.blocktarget:test";
    static final String INITIATOR = "iqn.2026-11.org.example:initiator";
    static final long ISID = 0x400001370000L;

    final EmbeddedChannel channel;
    final IscsiTransport transport;
    final IscsiConnection connection;
    Digest headerDigest = Digest.NONE;
    Digest dataDigest = Digest.NONE;
    int cmdSN = 1;
    int itt = 0x10;
    int tsih;
    long isid = ISID;

    Harness(IscsiTransport transport) {
        this(transport, transport.settings().portalGroupTag());
    }

    /** A connection that arrived on the portal of target portal group {@code portalGroupTag}. */
    Harness(IscsiTransport transport, int portalGroupTag) {
        this.transport = transport;
        this.channel = new EmbeddedChannel();
        IscsiFrameDecoder decoder = new IscsiFrameDecoder();
        this.connection = transport.connect(new EmbeddedPort(channel), decoder, portalGroupTag);
        channel.pipeline().addLast(new IscsiTransport.ReadBurst(connection), decoder,
                new IscsiTransport.Dispatch(connection), new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelInactive(ChannelHandlerContext ctx) {
                        connection.closed();
                    }
                });
    }

    /**
     * Puts the production pipeline's flush consolidation behind the read-burst handler, as {@code accept} does, and
     * records from then on the bytes each flush hands to the socket ({@link #flushedBytes}).
     */
    Harness withFlushConsolidation() {
        String burst = channel.pipeline().context(IscsiTransport.ReadBurst.class).name();
        channel.pipeline().addAfter(burst, IscsiTransport.FLUSH_NAME,
                io.blocktarget.transport.tcp.StreamTuning.flushConsolidation());
        channel.pipeline().addFirst(new io.netty.channel.ChannelOutboundHandlerAdapter() {
            private long written;

            @Override
            public void write(ChannelHandlerContext ctx, Object msg, io.netty.channel.ChannelPromise promise) {
                written += ((ByteBuf) msg).readableBytes();
                ctx.write(msg, promise);
            }

            @Override
            public void flush(ChannelHandlerContext ctx) {
                if (written > 0) {
                    flushedBytes.add(written);
                    written = 0;
                }
                ctx.flush();
            }
        });
        return this;
    }

    /** With {@link #withFlushConsolidation}: the bytes of each flush that wrote any, in order. */
    final List<Long> flushedBytes = new ArrayList<>();

    /** A transport whose connection timers never fire: its clock is virtual and nobody advances it. */
    static IscsiTransport transport(IscsiSettings settings, ScsiTargetDevice... targets) {
        return transport(settings, new ManualClock(), targets);
    }

    /** A transport whose connection timers run on {@code clock}'s virtual time. */
    static IscsiTransport transport(IscsiSettings settings, ManualClock clock, ScsiTargetDevice... targets) {
        Map<String, ScsiTargetDevice> map = new java.util.LinkedHashMap<>();
        for (ScsiTargetDevice t : targets) {
            map.put(t.targetName(), t);
        }
        return IscsiTransport.forTargets(map, settings, clock);
    }

    /** Sends one PDU as the initiator would (with the negotiated digests) and releases it. */
    void send(InitiatorPdu pdu) {
        channel.writeInbound(frame(pdu, headerDigest, dataDigest));
    }

    /** The wire frame of {@code pdu} (released) with the given digests. */
    static ByteBuf frame(InitiatorPdu pdu, Digest header, Digest data) {
        ByteBuf wire = Unpooled.buffer();
        try {
            IscsiFraming.encode(pdu, wire, header, data);
        } finally {
            pdu.release();
        }
        return wire;
    }

    /** Sends {@code pdus} in one socket read, as an initiator's burst of commands arrives; releases them. */
    void sendTogether(InitiatorPdu... pdus) {
        ByteBuf burst = Unpooled.buffer();
        for (InitiatorPdu pdu : pdus) {
            ByteBuf wire = frame(pdu, headerDigest, dataDigest);
            burst.writeBytes(wire);
            wire.release();
        }
        channel.writeInbound(burst);
    }

    void sendRaw(byte[] bytes) {
        channel.writeInbound(Unpooled.wrappedBuffer(bytes));
    }

    /** What the target wrote and {@link #receive} has not decoded yet: frames come whole or in parts. */
    private final ByteBuf sent = Unpooled.buffer();

    /** The next PDU the target sent, or null. */
    TargetPdu receive() {
        channel.runPendingTasks();
        FrameLimits limits = new FrameLimits(PduSource.TARGET, Bhs.MAX_DATA_SEGMENT_LENGTH, Bhs.MAX_AHS_LENGTH,
                headerDigest, dataDigest);
        for (;;) {
            if (sent.readableBytes() >= Bhs.LENGTH) {
                int length = IscsiFraming.layout(sent, limits).totalLength();
                if (sent.readableBytes() >= length) {
                    ByteBuf copy = Unpooled.buffer(length);
                    sent.readBytes(copy, length);
                    sent.discardReadBytes();
                    try {
                        return (TargetPdu) IscsiFraming.decode(copy, limits);
                    } finally {
                        copy.release();
                    }
                }
            }
            ByteBuf part = channel.readOutbound();
            if (part == null) {
                org.assertj.core.api.Assertions.assertThat(sent.readableBytes()).as("bytes of a frame sent only in part").isZero();
                return null;
            }
            sent.writeBytes(part);
            part.release();
        }
    }

    @SuppressWarnings("unchecked")
    <T extends IscsiPdu> T expect(Class<T> type) {
        TargetPdu pdu = receive();
        if (!type.isInstance(pdu)) {
            if (pdu != null) {
                pdu.release();
            }
            throw new AssertionError("expected " + type.getSimpleName() + ", got " + pdu);
        }
        return (T) pdu;
    }

    List<TargetPdu> receiveAll() {
        List<TargetPdu> out = new ArrayList<>();
        TargetPdu p;
        while ((p = receive()) != null) {
            out.add(p);
        }
        return out;
    }

    boolean open() {
        channel.runPendingTasks();
        return channel.isActive();
    }

    LoginRequest loginRequest(boolean transit, LoginStage csg, LoginStage nsg, TextParameters keys) {
        return new LoginRequest(new LoginFlags(transit, false, csg, nsg), 0, 0, isid, 0, 0x1, 0, cmdSN, 0,
                text(keys));
    }

    static ByteBuf text(TextParameters keys) {
        ByteBuf b = Unpooled.buffer();
        keys.encode(b);
        return b;
    }

    static TextParameters keys(IscsiPdu pdu) {
        return TextParameters.decode(pdu.data());
    }

    /** A one-PDU login: operational stage straight to full feature phase with {@code operational} keys. */
    LoginResponse login(String... operational) {
        TextParameters keys = TextParameters.of("InitiatorName", INITIATOR, "TargetName", TARGET,
                "SessionType", "Normal");
        for (int i = 0; i < operational.length; i += 2) {
            keys = keys.with(operational[i], operational[i + 1]);
        }
        send(loginRequest(true, LoginStage.LOGIN_OPERATIONAL_NEGOTIATION, LoginStage.FULL_FEATURE_PHASE, keys));
        LoginResponse response = expect(LoginResponse.class);
        tsih = response.tsih();
        TextParameters answers = keys(response);
        headerDigest = answers.get("HeaderDigest").filter("CRC32C"::equals).map(v -> Digest.CRC32C).orElse(Digest.NONE);
        dataDigest = answers.get("DataDigest").filter("CRC32C"::equals).map(v -> Digest.CRC32C).orElse(Digest.NONE);
        return response;
    }

    /** A non-immediate SCSI Command with the next CmdSN and ITT. */
    ScsiCommand command(byte[] cdb, boolean read, boolean write, long edtl, ByteBuf immediate, boolean finalBit) {
        return new ScsiCommand(false, finalBit, read, write, TaskAttribute.SIMPLE, 0, itt++, edtl, cmdSN++, 0, cdb,
                OptionalLong.empty(), immediate);
    }

    static byte[] read10(long lba, int blocks) {
        return new byte[] {0x28, 0, (byte) (lba >> 24), (byte) (lba >> 16), (byte) (lba >> 8), (byte) lba, 0,
                (byte) (blocks >> 8), (byte) blocks, 0};
    }

    static byte[] write10(long lba, int blocks) {
        byte[] cdb = read10(lba, blocks);
        cdb[0] = 0x2a;
        return cdb;
    }

    static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (i * 31 + seed + (i >> 9));
        }
        return b;
    }

    /** Asserts CHECK CONDITION with fixed-format sense carrying {@code senseKey} and {@code asc}, and releases. */
    static void assertCheckCondition(io.blocktarget.protocol.iscsi.ScsiResponse r, int senseKey, int asc) {
        try {
            org.assertj.core.api.Assertions.assertThat(r.status()).isEqualTo(0x02);
            org.assertj.core.api.Assertions.assertThat(r.senseData().getByte(2) & 0x0f).isEqualTo(senseKey);
            org.assertj.core.api.Assertions.assertThat(r.senseData().getByte(12) & 0xff).isEqualTo(asc);
        } finally {
            r.release();
        }
    }

    static String ascii(ByteBuf b) {
        return b.toString(StandardCharsets.UTF_8);
    }

    /**
     * Closes the connection, and checks (issue 27) that every task it had ended in a final state: a task lost on some
     * path fails every test that uses the harness.
     */
    @Override
    public void close() {
        channel.finishAndReleaseAll();
        sent.release();
        channel.runPendingTasks();
        io.blocktarget.state.StateCounters<ScsiTask.State> tasks = connection.taskStates();
        if (tasks != null) {
            org.assertj.core.api.Assertions.assertThat(tasks.stragglers()).as("tasks not ended at teardown").isEmpty();
        }
    }

    /**
     * The connection's port over the embedded channel; writes flush at once. A void promise, as the server's port
     * ({@code IscsiTransport.VertxPort}) has: no promise per part (IscsiPathBench measures this path); one that does
     * not fire a write's failure into the pipeline, so that a write after a close stays as quiet as a promise nobody
     * looks at.
     */
    private record EmbeddedPort(EmbeddedChannel channel, io.netty.channel.VoidChannelPromise quiet)
            implements ConnectionPort {
        EmbeddedPort(EmbeddedChannel channel) {
            this(channel, new io.netty.channel.VoidChannelPromise(channel, false));
        }

        @Override
        public void write(Object frame) {
            channel.writeAndFlush(frame, quiet);
        }

        @Override
        public void writePart(ByteBuf part) {
            channel.write(part, quiet);
        }

        /** Past the flush consolidation when the test put one in ({@link #withFlushConsolidation}). */
        @Override
        public void flushHeld() {
            ChannelHandlerContext consolidation = channel.pipeline().context(IscsiTransport.FLUSH_NAME);
            if (consolidation != null) {
                consolidation.flush();
            } else {
                channel.flush();
            }
        }

        @Override
        public void close() {
            channel.close();
        }

        @Override
        public void closeAfterWrites() {
            channel.close();
        }

        @Override
        public EventExecutor executor() {
            return channel.eventLoop();
        }

        @Override
        public ByteBufAllocator alloc() {
            return channel.alloc();
        }

        @Override
        public InetSocketAddress localAddress() {
            return new InetSocketAddress("127.0.0.1", 3260);
        }

        @Override
        public InetSocketAddress remoteAddress() {
            return new InetSocketAddress("127.0.0.1", 40000);
        }
    }
}
