package io.blocktarget.it.nvme;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.ZoneLayout;
import io.blocktarget.block.file.FileBlockDevice;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.block.zoned.ZonedBlockDevice;
import io.blocktarget.nvme.NamespaceSpec;
import io.blocktarget.nvme.NvmeLimits;
import io.blocktarget.nvme.NvmePort;
import io.blocktarget.nvme.NvmeTarget;
import io.blocktarget.nvme.NvmeTargets;
import io.blocktarget.time.SystemClock;
import io.blocktarget.transport.nvmetcp.NvmeTcpTransport;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The NVMe/TCP side of the server, in-process: Vert.x NetServers on 127.0.0.1 (an I/O port serving every
 * subsystem and a discovery-only port), {@link NvmeTcpTransport} over {@link NvmeTargets#create}, one 16 MiB RAM
 * namespace per logical block size, subsystem {@code nqn.2026-11.io.blocktarget:ram-<lbs>}, NSID 1, and zoned ones
 * ({@code zns-<lbs>}, {@link #ZONED_BLOCK_SIZES}).
 */
final class LoopbackNvmeServer implements AutoCloseable {
    static final int[] BLOCK_SIZES = {512, 1024, 2048, 4096, 8192, 16384, 32768, 65536};
    static final long NAMESPACE_BYTES = 16L << 20;

    /** A file-backed namespace: its completions arrive on file I/O threads, not on the connection's loop. */
    static final String FILE_NQN = "nqn.2026-11.io.blocktarget:file-4096";

    final Vertx vertx = Vertx.vertx();
    /** The server's clock (keep-alive timers), closed with it. */
    private final SystemClock clock = new SystemClock("loopback-nvme-timer");
    final List<BlockDevice> devices = new ArrayList<>();
    private final ExecutorService fileIo = Executors.newFixedThreadPool(2);
    private final Path file;
    final NvmeTcpTransport transport;
    final int ioPort;
    final int discoveryPort;
    private final List<NetServer> servers = new ArrayList<>();

    static String nqn(int lbs) {
        return "nqn.2026-11.io.blocktarget:ram-" + lbs;
    }

    /** Zoned namespaces (ZNS): 16 zones of 1 MiB, capacity 768 KiB, 4 open / 6 active, Zone Append up to 64 KiB. */
    static final int[] ZONED_BLOCK_SIZES = {4096, 16384};
    static final long ZONE_BYTES = 1L << 20;
    static final long ZONE_CAPACITY_BYTES = 768L << 10;
    static final int ZONED_MAX_OPEN = 4;
    static final int ZONED_MAX_ACTIVE = 6;
    static final int ZONE_APPEND_MAX_BYTES = 64 << 10;

    static String zonedNqn(int lbs) {
        return "nqn.2026-11.io.blocktarget:zns-" + lbs;
    }

    LoopbackNvmeServer() throws Exception {
        AtomicReference<NvmeTcpTransport> ref = new AtomicReference<>();
        ioPort = listen(ref, false);
        discoveryPort = listen(ref, true);
        MemoryBudget budget = new MemoryBudget(1L << 30);
        List<NamespaceSpec> namespaces = new ArrayList<>();
        for (int lbs : BLOCK_SIZES) {
            RamBlockDevice d = new RamBlockDevice("ram-" + lbs,
                    new BlockGeometry(lbs, Math.max(lbs, 4096), NAMESPACE_BYTES / lbs), false, budget);
            devices.add(d);
            namespaces.add(new NamespaceSpec(nqn(lbs), 1, "ram-" + lbs, d));
        }
        for (int lbs : ZONED_BLOCK_SIZES) {
            RamBlockDevice media = new RamBlockDevice("zns-" + lbs, new BlockGeometry(lbs, lbs, NAMESPACE_BYTES / lbs),
                    false, budget);
            ZonedBlockDevice d = new ZonedBlockDevice(media, new ZoneLayout(ZONE_BYTES / lbs, ZONE_CAPACITY_BYTES / lbs,
                    0, ZONED_MAX_OPEN, ZONED_MAX_ACTIVE, ZONE_APPEND_MAX_BYTES / lbs, 1, true));
            devices.add(d);
            namespaces.add(new NamespaceSpec(zonedNqn(lbs), 1, "zns-" + lbs, d));
        }
        file = Files.createTempFile("nvmetcp-it", ".img");
        Files.delete(file);
        FileBlockDevice f = FileBlockDevice.open("file-4096", file, new BlockGeometry(4096, 4096, NAMESPACE_BYTES / 4096),
                new FileBlockDevice.Options(true, false, false), fileIo);
        devices.add(f);
        namespaces.add(new NamespaceSpec(FILE_NQN, 1, "file-4096", f));
        NvmeTarget target = NvmeTargets.create(namespaces,
                List.of(new NvmePort(1, "127.0.0.1", ioPort), new NvmePort(2, "127.0.0.1", discoveryPort)),
                NvmeLimits.DEFAULT, clock);
        transport = NvmeTcpTransport.create(vertx, target, NvmeLimits.DEFAULT);
        ref.set(transport);
    }

    private int listen(AtomicReference<NvmeTcpTransport> transport, boolean discoveryOnly) throws Exception {
        NetServer server = vertx.createNetServer(new NetServerOptions().setHost("127.0.0.1").setPort(0))
                .connectHandler(socket -> transport.get().accept(socket, discoveryOnly));
        servers.add(server);
        return server.listen().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS).actualPort();
    }

    @Override
    public void close() throws Exception {
        transport.close();
        for (NetServer s : servers) {
            s.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        clock.close();
        devices.forEach(BlockDevice::close);
        fileIo.shutdownNow();
        Files.deleteIfExists(file);
    }
}
