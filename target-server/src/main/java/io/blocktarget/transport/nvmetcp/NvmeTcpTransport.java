package io.blocktarget.transport.nvmetcp;

import io.blocktarget.nvme.NvmeLimits;
import io.blocktarget.nvme.NvmeTarget;
import io.blocktarget.protocol.nvme.ConnectData;
import io.blocktarget.protocol.nvmetcp.NvmeTcpFraming;
import io.blocktarget.transport.tcp.PeerLogLimiter;
import io.blocktarget.transport.tcp.StreamTuning;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.vertx.core.Vertx;
import io.vertx.core.internal.net.NetSocketInternal;
import io.vertx.core.net.NetSocket;

import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The NVMe/TCP transport (NVMe/TCP 1.0/1.1): the server accepts TCP connections with a Vert.x NetServer and hands
 * each to {@link #accept}; this installs a frame decoder and the connection handler in the socket's Netty pipeline,
 * in front of Vert.x's own handler, so PDUs are framed from the header, payloads travel as retained slices and
 * C2HData goes out as slices of backend memory. Vert.x's socket then sees only the close.
 */
public final class NvmeTcpTransport {
    /** The well-known discovery subsystem NQN (Base §7.x / NVMe-oF: nqn.2014-08.org.nvmexpress.discovery). */
    public static final String DISCOVERY_NQN = "nqn.2014-08.org.nvmexpress.discovery";

    private final NvmeTarget target;
    private final NvmeLimits limits;
    private final CidReusePolicy cidReuse;
    private final Set<Channel> channels = ConcurrentHashMap.newKeySet();
    /**
     * Protocol-error and session-event lines per peer address, shared by the connections: a fuzzer must not fill the
     * disk.
     */
    private final PeerLogLimiter errorLog;

    NvmeTcpTransport(NvmeTarget target, NvmeLimits limits) {
        this(target, limits, CidReusePolicy.RETIRE_STALE_ASYNC_EVENT_REQUEST);
    }

    NvmeTcpTransport(NvmeTarget target, NvmeLimits limits, CidReusePolicy cidReuse) {
        this(target, limits, cidReuse, PeerLogLimiter.standard(System.getLogger("blocktarget.nvmetcp")));
    }

    /** For tests: the error-line limiter on a manual clock. */
    NvmeTcpTransport(NvmeTarget target, NvmeLimits limits, CidReusePolicy cidReuse, PeerLogLimiter errorLog) {
        this.target = Objects.requireNonNull(target, "target");
        this.limits = Objects.requireNonNull(limits, "limits");
        this.cidReuse = Objects.requireNonNull(cidReuse, "cidReuse");
        this.errorLog = Objects.requireNonNull(errorLog, "errorLog");
    }

    NvmeTarget target() {
        return target;
    }

    /** {@code vertx} is where the sockets come from; each connection runs on its socket's event loop. */
    public static NvmeTcpTransport create(Vertx vertx, NvmeTarget target, NvmeLimits limits) {
        Objects.requireNonNull(vertx, "vertx");
        return create(vertx, target, limits, CidReusePolicy.RETIRE_STALE_ASYNC_EVENT_REQUEST);
    }

    /** As {@link #create(Vertx, NvmeTarget, NvmeLimits)}, choosing what a reused outstanding CID does. */
    public static NvmeTcpTransport create(Vertx vertx, NvmeTarget target, NvmeLimits limits,
                                          CidReusePolicy cidReuse) {
        Objects.requireNonNull(vertx, "vertx");
        return new NvmeTcpTransport(target, limits, cidReuse);
    }

    /**
     * Takes over a freshly accepted socket (call from the NetServer's connect handler, before any data is read).
     * {@code discoveryOnly}: the discovery port (8009) — a Connect to any other subsystem is refused with
     * Connect Invalid Parameters on SUBNQN; the I/O port (4420) serves every subsystem and discovery, as Linux
     * nvmet does.
     */
    public void accept(NetSocket socket, boolean discoveryOnly) {
        ChannelHandlerContext vertxHandler = ((NetSocketInternal) socket).channelHandlerContext();
        StreamTuning.apply(vertxHandler.channel());
        install(vertxHandler.pipeline(), vertxHandler.name(), discoveryOnly);
    }

    /** Adds the NVMe/TCP handlers before {@code beforeHandler} (or last when null: EmbeddedChannel tests). */
    void install(ChannelPipeline pipeline, String beforeHandler, boolean discoveryOnly) {
        NvmeTcpFrameDecoder decoder = new NvmeTcpFrameDecoder(
                NvmeTcpFraming.controller(ConnectData.SIZE, limits.maxH2CDataBytes()));
        NvmeTcpConnection connection = new NvmeTcpConnection(target, limits, discoveryOnly
                ? NvmeTcpConnection.PortKind.DISCOVERY_ONLY : NvmeTcpConnection.PortKind.ALL_SUBSYSTEMS, decoder,
                cidReuse, errorLog);
        // PduSender decides when NVMe/TCP PDUs are flushed (end of a read burst, or every few completions within
        // one): no FlushConsolidationHandler, whose pass-through was a pipeline hop on every read and every flush
        if (beforeHandler == null) {
            pipeline.addLast("nvmetcp-decoder", decoder).addLast("nvmetcp-connection", connection);
        } else {
            pipeline.addBefore(beforeHandler, "nvmetcp-decoder", decoder)
                    .addBefore(beforeHandler, "nvmetcp-connection", connection);
        }
        if (target.tlsOffered()) {
            // NVMe/TCP §3.6: TLS comes first on the socket; a plain connection's first byte removes the handler again
            pipeline.addBefore("nvmetcp-decoder", "nvmetcp-tls", new TlsHandler(target::tlsPsk, connection::tlsEstablished,
                    errorLog));
        }
        Channel channel = pipeline.channel();
        channels.add(channel);
        channel.closeFuture().addListener(f -> channels.remove(channel));
    }

    /** Closes every connection (server shutdown); their queues are closed as each connection ends. */
    public void close() {
        for (Channel c : channels) {
            c.close();
        }
        errorLog.flush();
    }
}
