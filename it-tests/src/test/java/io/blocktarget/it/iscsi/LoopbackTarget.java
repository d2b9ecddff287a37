package io.blocktarget.it.iscsi;

import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.scsi.LogicalUnitSpec;
import io.blocktarget.scsi.ScsiTargetDevice;
import io.blocktarget.scsi.ScsiTargetDevices;
import io.blocktarget.transport.iscsi.IscsiSettings;
import io.blocktarget.transport.iscsi.IscsiTransport;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The iSCSI transport in this JVM on 127.0.0.1, an ephemeral port, with thin RAM LUNs (one target per
 * logical block size 512 B .. 64 KiB, 64 MiB each) behind the real SCSI device server.
 */
final class LoopbackTarget implements AutoCloseable {
    static final int[] BLOCK_SIZES = {512, 1024, 2048, 4096, 8192, 16384, 32768, 65536};
    static final long LUN_BYTES = 64L * 1024 * 1024;

    private final Vertx vertx;
    private final NetServer server;
    private final IscsiTransport transport;
    private final List<RamBlockDevice> devices = new ArrayList<>();

    LoopbackTarget(IscsiSettings settings) throws Exception {
        MemoryBudget budget = new MemoryBudget(1L << 30);
        List<LogicalUnitSpec> units = new ArrayList<>();
        for (int lbs : BLOCK_SIZES) {
            String name = "ram-" + lbs;
            RamBlockDevice device = new RamBlockDevice(name, new BlockGeometry(lbs, Math.max(lbs, 4096),
                    LUN_BYTES / lbs), false, budget);
            devices.add(device);
            units.add(new LogicalUnitSpec(targetName(lbs), 0, name, device));
        }
        Map<String, ScsiTargetDevice> targets = ScsiTargetDevices.create(units);
        vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(2));
        transport = IscsiTransport.create(vertx, targets.values(), settings);
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
        for (RamBlockDevice d : devices) {
            d.close();
        }
    }
}
