package io.blocktarget.bench;

import com.sun.management.OperatingSystemMXBean;
import io.blocktarget.config.TlsPsk;
import io.blocktarget.protocol.nvme.ConnectCommand;
import io.blocktarget.protocol.nvme.ConnectData;
import io.blocktarget.protocol.nvme.ControllerRegister;
import io.blocktarget.protocol.nvme.IdentifyController;
import io.blocktarget.protocol.nvme.IdentifyNamespace;
import io.blocktarget.transport.nvmetcp.TlsHandler;
import io.blocktarget.transport.nvmetcp.TlsPskClient;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.bouncycastle.tls.AlertDescription;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The load generator: sets up {@code --jobs} connections (iSCSI sessions, or NVMe/TCP I/O queues of one
 * controller), runs them for {@code --ramp} + {@code --time} on Netty event loops (epoll when available; one loop
 * per job up to the number of cores, or {@code --threads}; pinned with {@code --cpus}) and prints one
 * {@link Summary#line()}. Exit status 0 after a completed run
 * (I/O errors are counted, not fatal), 1 when a connection failed, 2 for a usage error.
 */
public final class LoadGen {
    static final long DRAIN_TIMEOUT_SECONDS = 30;
    private static final long SETUP_SECONDS = 10;

    private final LoadGenOptions options;
    private final EventLoopGroup group;
    private final Class<? extends Channel> channelClass;
    private final List<Connection> connections = new ArrayList<>();
    /** {@code --tls-psk-file}, read once before any connection. */
    private final Optional<TlsPsk> tlsPsk;

    LoadGen(LoadGenOptions options) {
        this(options, Optional.empty());
    }

    private LoadGen(LoadGenOptions options, Optional<TlsPsk> tlsPsk) {
        this.tlsPsk = tlsPsk;
        this.options = options;
        int threads = options.eventLoops(Runtime.getRuntime().availableProcessors());
        boolean epoll = Epoll.isAvailable();
        IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        this.group = new MultiThreadIoEventLoopGroup(threads, io);
        this.channelClass = epoll ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the CLI; returns the exit status. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        LoadGenOptions options;
        try {
            options = LoadGenOptions.parse(args);
        } catch (LoadGenOptions.UsageException e) {
            err.println("loadgen: " + e.getMessage());
            err.println(LoadGenOptions.USAGE);
            return 2;
        }
        try {
            Summary summary = execute(options);
            out.println(summary.line());
            if (options.json().isPresent()) {
                Files.writeString(options.json().get(), summary.json(), StandardCharsets.UTF_8);
            }
            return 0;
        } catch (LoadGenOptions.UsageException e) {
            err.println("loadgen: " + e.getMessage());
            return 2;
        } catch (IOException e) {
            err.println("loadgen: " + e.getMessage());
            return 1;
        }
    }

    /** One complete run against the target: setup, ramp, measure, drain, teardown. */
    public static Summary execute(LoadGenOptions options) throws IOException {
        LoadGen generator = new LoadGen(options, readPsk(options));
        try {
            generator.pin();
            return generator.runAll();
        } finally {
            generator.group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /**
     * The configured PSK of {@code --tls-psk-file} in the interchange format (one trailing newline allowed, as
     * {@code nvme gen-tls-key > FILE} writes it); what is wrong with it is a usage error that does not quote the key.
     */
    static Optional<TlsPsk> readPsk(LoadGenOptions options) throws IOException {
        if (options.tls().isEmpty()) {
            return Optional.empty();
        }
        java.nio.file.Path file = options.tls().get().pskFile();
        String text;
        try {
            text = Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new LoadGenOptions.UsageException("--tls-psk-file " + file + ": cannot read: " + e.getMessage());
        }
        if (text.endsWith("\n")) {
            text = text.substring(0, text.length() - 1);
        }
        try {
            return Optional.of(TlsPsk.parse(text));
        } catch (IllegalArgumentException e) {
            throw new LoadGenOptions.UsageException("--tls-psk-file " + file + " " + e.getMessage() + "; expected "
                    + TlsPsk.ALLOWED);
        }
    }

    /**
     * {@code --cpus}: event loop i goes to CPU {@code cpus[i % n]} with the external {@code taskset -p} on the loop
     * thread's Linux thread id (read on the thread from /proc/thread-self), before any connection exists.
     */
    private void pin() throws IOException {
        List<Integer> cpus = options.cpus();
        if (cpus.isEmpty()) {
            return;
        }
        int i = 0;
        for (var loop : group) {
            String tid;
            try {
                tid = loop.submit(() -> Files.readSymbolicLink(java.nio.file.Path.of("/proc/thread-self"))
                        .getFileName().toString()).get(SETUP_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            } catch (ExecutionException | TimeoutException e) {
                throw new IOException("--cpus: cannot find the event loop's thread id (/proc/thread-self): " + e);
            }
            int cpu = cpus.get(i++ % cpus.size());
            Process p = new ProcessBuilder("taskset", "-p", "-c", Integer.toString(cpu), tid)
                    .redirectErrorStream(true).start();
            try {
                String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
                if (p.waitFor() != 0) {
                    throw new IOException("--cpus: taskset -p -c " + cpu + " " + tid + " failed: " + output);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
        }
    }

    /**
     * Connects {@code connection}; with {@code --tls-psk-file} (NVMe) a {@link TlsHandler} in client mode sits
     * below it and the TLS 1.3 handshake (NVMe/TCP §3.6.1: before ICReq) completes before this returns.
     */
    private <C extends Connection> C open(C connection) throws IOException {
        TlsPskClient tlsClient = tlsPsk.map(psk -> new TlsPskClient(options.tls().orElseThrow().identityVersion(),
                psk, options.hostNqn(), options.name())).orElse(null);
        CompletableFuture<Void> handshake = new CompletableFuture<>();
        ChannelHandler handler = tlsClient == null ? connection : new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast("tls", TlsHandler.client(tlsClient, handshake)).addLast("loadgen", connection);
            }
        };
        var future = new Bootstrap().group(group).channel(channelClass)
                .option(ChannelOption.TCP_NODELAY, true)
                // the classic pooled allocator: per-loop caches, and retained slices of its buffers (every decoded
                // PDU's data, every Data-Out of a write) are recycled objects rather than new ones
                .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5000)
                .handler(handler)
                .connect(options.host(), options.port()).awaitUninterruptibly();
        if (!future.isSuccess()) {
            throw new IOException("cannot connect to " + options.host() + ":" + options.port() + ": "
                    + future.cause().getMessage());
        }
        connections.add(connection);
        if (tlsClient != null) {
            awaitHandshake(connection, future.channel(), handshake, tlsClient);
        }
        return connection;
    }

    /** Waits for the TLS handshake; a failure names the alert and what it usually means for a PSK. */
    private void awaitHandshake(Connection connection, Channel channel, CompletableFuture<Void> handshake,
                                TlsPskClient tlsClient) throws IOException {
        try {
            handshake.get(SETUP_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            channel.close();
            throw new IOException(connection.identity + ": TLS handshake not complete within " + SETUP_SECONDS + " s");
        } catch (ExecutionException e) {
            String hint = switch (tlsClient.alertReceived()) {
                // RFC 8446 §4.2.11: the binder did not verify — the target's PSK for this identity differs
                case AlertDescription.decrypt_error -> " (the target's PSK for this host and subsystem differs from"
                        + " --tls-psk-file)";
                // no PSK of the target fits the identity: wrong key (version 1 carries its digest), host or subsystem
                case AlertDescription.handshake_failure -> " (the target has no PSK for this identity: another key,"
                        + " host NQN or subsystem, or the subsystem has no access.tls)";
                default -> "";
            };
            throw new IOException(connection.identity + ": " + e.getCause().getMessage() + hint);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    private String identity(int job) {
        return options.protocol().cliName + " job " + job + " (" + options.host() + ":" + options.port() + ")";
    }

    private Summary runAll() throws IOException {
        long[] geometry = options.protocol() == LoadGenOptions.Protocol.ISCSI ? setUpIscsi() : setUpNvme();
        long deviceBlocks = geometry[0];
        int lbs = (int) geometry[1];
        int blocksPerIo = options.blocksPerIo(lbs);
        long deviceBytes = deviceBlocks * lbs;
        long range = options.sizeBytes() == 0 ? deviceBytes : options.sizeBytes();
        if (range > deviceBytes) {
            throw new LoadGenOptions.UsageException("--size " + range + " exceeds the device (" + deviceBytes
                    + " bytes)");
        }
        long positions = range / options.blockSize();
        if (options.verify()) {
            LoadGenOptions.checkVerifiable(positions, options.sizeBytes() == 0
                    ? "the device (" + deviceBytes + " bytes)" : "--size " + range);
        }
        // one record for all jobs: a read must find what any connection's acknowledged write put there
        AckedWrites acked = options.verify() ? new AckedWrites(positions) : null;
        boolean writes = options.workload() != Workload.RANDREAD && options.workload() != Workload.READ;
        long start = System.nanoTime();
        long windowStart = start + options.ramp().toNanos();
        long deadline = windowStart + options.time().toNanos();
        List<JobStats> stats = new ArrayList<>();
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        int job = 0;
        for (Connection c : ioConnections()) {
            JobStats s = new JobStats(windowStart, deadline);
            stats.add(s);
            c.start(new IoPattern(options.workload(), options.readMix(), positions, blocksPerIo, job, options.jobs()),
                    s, deadline, options.queueDepth(), options.blockSize(), lbs, writes, acked);
            runs.add(c.drained);
            job++;
        }
        long cpuAtWindowStart = cpuNanosAt(windowStart);
        awaitRuns(runs, deadline);
        long cpu = cpuAtWindowStart < 0 ? -1 : processCpuNanos() - cpuAtWindowStart;
        tearDown();
        return Summary.of(options, stats, cpu);
    }

    /** This process's CPU time (all threads), or -1 where the JVM does not say. */
    private static long processCpuNanos() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os
                ? os.getProcessCpuTime() : -1;
    }

    /** Sleeps until {@code nanoTime} (the end of the ramp) and reads the process CPU time then. */
    private static long cpuNanosAt(long nanoTime) {
        long wait = nanoTime - System.nanoTime();
        if (wait > 0) {
            try {
                TimeUnit.NANOSECONDS.sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return -1;
            }
        }
        return processCpuNanos();
    }

    /** Waits for every job to drain; the first connection failure ends the wait. */
    private void awaitRuns(List<CompletableFuture<Void>> runs, long deadline) throws IOException {
        CompletableFuture<Void> all = CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new));
        runs.forEach(r -> r.exceptionally(e -> {
            all.completeExceptionally(e);
            return null;
        }));
        long waitNanos = deadline - System.nanoTime() + TimeUnit.SECONDS.toNanos(DRAIN_TIMEOUT_SECONDS);
        try {
            all.get(Math.max(0, waitNanos), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new IOException("I/Os still outstanding " + DRAIN_TIMEOUT_SECONDS + " s after the end of the run");
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    private List<Connection> ioConnections() {
        return options.protocol() == LoadGenOptions.Protocol.ISCSI ? connections
                : connections.subList(1, connections.size());
    }

    /** Logs in every session; returns {blocks, block length} from READ CAPACITY(16). */
    private long[] setUpIscsi() throws IOException {
        long[] geometry = null;
        for (int job = 0; job < options.jobs(); job++) {
            IscsiConnection c = open(new IscsiConnection(identity(job), options.blockSize(), options.name(),
                    options.lun(), job, options.digests()));
            c.login();
            // one line per session (bench/run records every connection's keys in its report): what the target
            // answered to our offers, i.e. the negotiated values (RFC 7143 §6.2)
            System.err.println("loadgen: negotiated " + identity(job) + ": " + c.negotiatedKeys());
            c.clearUnitAttention();
            geometry = c.readCapacity();
        }
        return geometry;
    }

    /**
     * Admin queue (Connect, CC.EN, CSTS.RDY, Identify, Number of Queues), then one I/O queue per job with
     * SQSIZE = QD (0's based: QD + 1 entries); returns {NSZE, LBA data size}.
     */
    private long[] setUpNvme() throws IOException {
        NvmeConnection admin = open(new NvmeConnection(options.protocol().cliName + " admin queue", 0,
                options.digests(), options.hostNqn()));
        admin.initialize();
        int cattr = options.disableSqFlow() ? ConnectCommand.CATTR_DISABLE_SQ_FLOW_CONTROL : 0;
        admin.connect(options.name(), 0, 31, ConnectData.CNTLID_DYNAMIC, cattr);
        long cap = admin.propertyGet(ControllerRegister.CAP);
        int mqes = (int) (cap & 0xFFFF);
        if (mqes < options.queueDepth()) {
            throw new LoadGenOptions.UsageException("--qd " + options.queueDepth() + " exceeds the controller's "
                    + "queue size (CAP.MQES " + mqes + ", 0's based)");
        }
        admin.enable();
        IdentifyController controller = admin.identifyController();
        IdentifyNamespace namespace = admin.identifyNamespace(options.nsid());
        if (namespace.nsze() == 0) {
            throw new IOException("namespace " + options.nsid() + " of " + options.name() + " is not active");
        }
        int granted = admin.requestQueues(options.jobs());
        if (granted < options.jobs()) {
            throw new LoadGenOptions.UsageException("--jobs " + options.jobs() + ": the controller grants only "
                    + granted + " I/O queues");
        }
        for (int job = 0; job < options.jobs(); job++) {
            NvmeConnection q = open(new NvmeConnection(identity(job), options.blockSize(), options.digests(),
                    options.hostNqn()));
            q.initialize();
            q.connect(options.name(), job + 1, options.queueDepth(), controller.cntlid(), cattr);
            q.ioQueue(options.nsid(), controller.ioccsz());
        }
        return new long[] {namespace.nsze(), namespace.lbs()};
    }

    /** iSCSI: Logout per session; NVMe/TCP: I/O queues, then the admin queue, simply closed (as on host reset). */
    private void tearDown() throws IOException {
        for (Connection c : connections) {
            if (c instanceof IscsiConnection iscsi) {
                iscsi.logout();
            } else {
                c.closeQuietly();
            }
        }
    }
}
