package io.blocktarget.it.iscsi;

import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.ZoneLayout;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.block.zoned.ZonedBlockDevice;
import io.blocktarget.scsi.LogicalUnitSpec;
import io.blocktarget.scsi.ScsiTargetDevices;
import io.blocktarget.time.SystemClock;
import io.blocktarget.transport.iscsi.IscsiSettings;
import io.blocktarget.transport.iscsi.IscsiTransport;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A host-managed zoned RAM LUN over the iSCSI transport on loopback, driven by the Java test initiator: REPORT
 * ZONES, a write at the write pointer, an unaligned write refused with its ZBC sense, RESET WRITE POINTER.
 */
@Tag("loopback")
class ZonedIscsiLoopbackIT {
    private static final String TARGET = "iqn.2026-11.io.blocktarget:zoned-4096";
    private static final int LBS = 4096;
    private static final long ZONE = 1024;           // 4 MiB zones, 16 of them, zone 0 conventional
    private static Vertx vertx;
    private static final SystemClock clock = new SystemClock("zoned-iscsi-timer");
    private static NetServer server;
    private static IscsiTransport transport;
    private static ZonedBlockDevice device;

    @BeforeAll
    static void start() throws Exception {
        device = new ZonedBlockDevice(new RamBlockDevice("zoned-4096", new BlockGeometry(LBS, LBS, 16 * ZONE), false,
                new MemoryBudget(1L << 30)), new ZoneLayout(ZONE, ZONE, 1, 4, 0, 0, 1, true));
        vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(2));
        transport = IscsiTransport.create(vertx, ScsiTargetDevices.create(
                List.of(new LogicalUnitSpec(TARGET, 0, "zoned-4096", device))).values(), IscsiSettings.defaults(), clock);
        server = vertx.createNetServer(new NetServerOptions().setHost("127.0.0.1").setPort(0))
                .connectHandler(transport::accept);
        server.listen().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @AfterAll
    static void stop() throws Exception {
        transport.close();
        server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        clock.close();
        device.close();
    }

    private static byte[] reportZones(long lba, int allocation, boolean partial) {
        ByteBuffer b = ByteBuffer.allocate(16);
        b.put((byte) 0x95).put((byte) 0).putLong(lba).putInt(allocation).put((byte) (partial ? 0x80 : 0)).put((byte) 0);
        return b.array();
    }

    private static byte[] resetWritePointer(long zoneId, boolean all) {
        ByteBuffer b = ByteBuffer.allocate(16);
        b.put((byte) 0x94).put((byte) 0x04).putLong(zoneId).putShort((short) 0).putShort((short) 0)
                .put((byte) (all ? 1 : 0)).put((byte) 0);
        return b.array();
    }

    private static byte[] rw16(boolean write, long lba, int blocks) {
        ByteBuffer b = ByteBuffer.allocate(16);
        b.put((byte) (write ? 0x8a : 0x88)).put((byte) 0).putLong(lba).putInt(blocks).put((byte) 0).put((byte) 0);
        return b.array();
    }

    private static long u64(byte[] b, int i) {
        return ByteBuffer.wrap(b, i, 8).getLong();
    }

    @Test
    void reportWriteAtTheWritePointerRefuseUnalignedAndReset() throws Exception {
        IscsiTestInitiator i = IscsiTestInitiator.connect(new InetSocketAddress("127.0.0.1", server.actualPort()),
                0x400000000777L);
        try {
            i.login(TARGET, null);
            i.clearUnitAttention();
            byte[] inquiry = i.command(0, new byte[] {0x12, 0, 0, 0, 96, 0}, 96, null).data();
            assertThat(inquiry[0]).isEqualTo((byte) 0x14);

            IscsiTestInitiator.Result all = i.command(0, reportZones(0, 64 + 16 * 64, false), 64 + 16 * 64, null);
            assertThat(all.status()).isZero();
            byte[] d = all.data();
            assertThat(ByteBuffer.wrap(d, 0, 4).getInt()).isEqualTo(16 * 64);
            assertThat(u64(d, 8)).isEqualTo(16 * ZONE - 1);
            assertThat(d[64] & 0xF).isEqualTo(1);                       // zone 0 conventional
            assertThat(d[128] & 0xF).isEqualTo(2);                      // zone 1 sequential write required
            assertThat(d[129] >> 4 & 0xF).isEqualTo(1);                 // EMPTY
            assertThat(u64(d, 128 + 24)).isEqualTo(ZONE);               // write pointer at its start

            byte[] data = new byte[8 * LBS];
            new java.util.Random(13).nextBytes(data);
            assertThat(i.command(0, rw16(true, ZONE, 8), 0, data).status()).isZero();
            IscsiTestInitiator.Result one = i.command(0, reportZones(ZONE, 128, true), 128, null);
            assertThat(u64(one.data(), 64 + 24)).isEqualTo(ZONE + 8);
            assertThat(one.data()[65] >> 4 & 0xF).isEqualTo(2);         // IMPLICIT OPEN

            IscsiTestInitiator.Result unaligned = i.command(0, rw16(true, ZONE, 8), 0, data);
            assertThat(unaligned.status()).isEqualTo(2);               // CHECK CONDITION
            assertThat(senseKeyAscAscq(unaligned.sense())).containsExactly(0x5, 0x21, 0x04);
            assertThat(i.command(0, rw16(false, ZONE, 8), 8 * LBS, null).data()).isEqualTo(data);

            assertThat(i.command(0, resetWritePointer(ZONE, false), 0, null).status()).isZero();
            IscsiTestInitiator.Result after = i.command(0, reportZones(ZONE, 128, true), 128, null);
            assertThat(u64(after.data(), 64 + 24)).isEqualTo(ZONE);
            assertThat(i.command(0, rw16(false, ZONE, 8), 8 * LBS, null).data()).isEqualTo(new byte[8 * LBS]);
            assertThat(i.command(0, rw16(true, ZONE, 8), 0, data).status()).isZero();
            assertThat(i.command(0, resetWritePointer(0, true), 0, null).status()).isZero();
            assertThat(device.zones().orElseThrow().zone(1).writePointer()).isEqualTo(ZONE);
            assertThat(device.allocatedBytes()).isZero();                // the reset gave the memory back
            i.logout();
        } finally {
            i.close();
        }
    }

    /** Sense key, ASC, ASCQ of fixed or descriptor sense data (the iSCSI sense carries a 2-byte length first). */
    private static int[] senseKeyAscAscq(byte[] sense) {
        int off = sense.length > 2 && (sense[2] & 0x7F) >= 0x70 ? 2 : 0;
        int code = sense[off] & 0x7F;
        if (code == 0x72 || code == 0x73) {
            return new int[] {sense[off + 1] & 0xF, sense[off + 2] & 0xFF, sense[off + 3] & 0xFF};
        }
        return new int[] {sense[off + 2] & 0xF, sense[off + 12] & 0xFF, sense[off + 13] & 0xFF};
    }
}
