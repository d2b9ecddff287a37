package io.blocktarget.it.iscsi;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.file.FileBlockDevice;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.scsi.LogicalUnitSpec;
import io.blocktarget.scsi.ScsiTargetDevice;
import io.blocktarget.scsi.ScsiTargetDevices;
import io.blocktarget.time.SystemClock;
import io.blocktarget.transport.iscsi.IscsiSettings;
import io.blocktarget.transport.iscsi.IscsiTransport;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The iSCSI transport in this JVM on 127.0.0.1, an ephemeral port, with thin RAM LUNs (one target per
 * logical block size 512 B .. 64 KiB, 64 MiB each) and one file LUN behind the real SCSI device server.
 */
final class LoopbackTarget implements AutoCloseable {
    static final int[] BLOCK_SIZES = {512, 1024, 2048, 4096, 8192, 16384, 32768, 65536};
    static final long LUN_BYTES = 64L * 1024 * 1024;

    private final Vertx vertx;
    private final SystemClock clock = new SystemClock("loopback-iscsi-timer");
    private final NetServer server;
    private final IscsiTransport transport;
    /** A file LUN: its I/O completes on worker threads, so completions hop back to the event loop. */
    static final String FILE_TARGET = "iqn.2026-11.io.blocktarget:file-4096";
    /** A 4 KiB RAM LUN of 16 MiB (4096 blocks): smaller than libiscsi's async tests assume. */
    static final String SMALL_TARGET = "iqn.2026-11.io.blocktarget:ram-4096-small";
    static final long SMALL_LUN_BYTES = 16L * 1024 * 1024;

    private final List<BlockDevice> devices = new ArrayList<>();
    private final ExecutorService fileIo = Executors.newFixedThreadPool(2);
    private final Path file;

    LoopbackTarget(IscsiSettings settings) throws Exception {
        this(settings, List.of());
    }

    /** With {@code extra} logical units beside the default ones (their devices are closed with the server). */
    LoopbackTarget(IscsiSettings settings, List<LogicalUnitSpec> extra) throws Exception {
        MemoryBudget budget = new MemoryBudget(1L << 30);
        List<LogicalUnitSpec> units = new ArrayList<>(extra);
        extra.forEach(spec -> devices.add(spec.device()));
        for (int lbs : BLOCK_SIZES) {
            String name = "ram-" + lbs;
            RamBlockDevice device = new RamBlockDevice(name, new BlockGeometry(lbs, Math.max(lbs, 4096),
                    LUN_BYTES / lbs), false, budget);
            devices.add(device);
            units.add(new LogicalUnitSpec(targetName(lbs), 0, name, device));
        }
        RamBlockDevice small = new RamBlockDevice("ram-4096-small", new BlockGeometry(4096, 4096,
                SMALL_LUN_BYTES / 4096), false, budget);
        devices.add(small);
        units.add(new LogicalUnitSpec(SMALL_TARGET, 0, "ram-4096-small", small));
        file = Files.createTempDirectory("iscsi-it-").resolve("file-4096.img");
        FileBlockDevice fileDevice = FileBlockDevice.open("file-4096", file, new BlockGeometry(4096, 4096,
                LUN_BYTES / 4096), new FileBlockDevice.Options(true, false, false), fileIo);
        devices.add(fileDevice);
        units.add(new LogicalUnitSpec(FILE_TARGET, 0, "file-4096", fileDevice));
        Map<String, ScsiTargetDevice> targets = ScsiTargetDevices.create(units);
        vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(2));
        transport = IscsiTransport.create(vertx, targets.values(), settings, clock);
        server = vertx.createNetServer(new NetServerOptions().setHost("127.0.0.1").setPort(0).setTcpNoDelay(true))
                .connectHandler(transport::accept);
        server.listen().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    static String targetName(int lbs) {
        return "iqn.2026-11.io.blocktarget:ram-" + lbs;
    }

    InetSocketAddress address() {
        return new InetSocketAddress("127.0.0.1", server.actualPort());
    }

    @Override
    public void close() throws Exception {
        transport.close();
        server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        clock.close();
        for (BlockDevice d : devices) {
            d.close();
        }
        fileIo.shutdownNow();
        Files.deleteIfExists(file);
        Files.deleteIfExists(file.getParent());
    }
}
