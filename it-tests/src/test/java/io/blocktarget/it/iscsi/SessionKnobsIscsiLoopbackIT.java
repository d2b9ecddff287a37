package io.blocktarget.it.iscsi;

import io.blocktarget.config.ConfigLoader;
import io.blocktarget.server.TargetServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 11 {@code session:} knobs of an iSCSI target end to end: a server started from a config directory, the Java
 * initiator offering open-iscsi's defaults. The knob target negotiates its MaxRecvDataSegmentLength (declared, §13.12),
 * MaxBurstLength / FirstBurstLength (§13.13, §13.14) and opens a CmdSN window of its queue depth (§4.2.2.1); a
 * target without knobs keeps the server's values; a write larger than a burst still arrives intact.
 */
@Tag("loopback")
class SessionKnobsIscsiLoopbackIT {
    private static final String KNOB = "iqn.2026-11.io.blocktarget:knob";
    private static final String PLAIN = "iqn.2026-11.io.blocktarget:plain";
    private static final String[] OPEN_ISCSI = {"MaxBurstLength", "16776192", "FirstBurstLength", "262144",
            "ImmediateData", "Yes", "InitialR2T", "No"};

    @TempDir
    Path tmp;

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Test
    void theKnobTargetNegotiatesItsValuesAndThePlainOneTheServers() throws Exception {
        int port = freePort();
        Files.createDirectories(tmp.resolve("luns.d"));
        Files.writeString(tmp.resolve("blocktarget.yaml"), "bind: 127.0.0.1\niscsi-port: " + port
                + "\nnvme-port: 0\ndiscovery-port: 0\n");
        Files.writeString(tmp.resolve("luns.d/knob.yaml"), "backend: ram\nsize: 64MiB\nlogical-block-size: 4KiB\n"
                + "export: {nvme: false}\nsession: {max-recv-data-segment-length: 16KiB, first-burst-length: 16KiB,"
                + " max-burst-length: 32KiB, queue-depth: 8}\n");
        Files.writeString(tmp.resolve("luns.d/plain.yaml"), "backend: ram\nsize: 64MiB\nlogical-block-size: 4KiB\n"
                + "export: {nvme: false}\n");
        TargetServer server = new TargetServer(ConfigLoader.load(tmp), Optional.of(tmp));
        server.start();
        InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        try (IscsiTestInitiator knob = IscsiTestInitiator.connect(address, 0x400201L);
             IscsiTestInitiator plain = IscsiTestInitiator.connect(address, 0x400202L)) {
            knob.login(KNOB, null, OPEN_ISCSI);
            assertThat(knob.negotiated()).containsEntry("MaxRecvDataSegmentLength", "16384")
                    .containsEntry("MaxBurstLength", "32768").containsEntry("FirstBurstLength", "16384");
            assertThat(knob.maxCmdSN() - knob.cmdSN() + 1).as("CmdSN window").isEqualTo(8);

            knob.clearUnitAttention();   // POWER ON OCCURRED, as on any new I_T nexus
            // 256 KiB: 16 KiB immediate + unsolicited, then R2Ts of 32 KiB, Data-Out segments ≤ 16 KiB
            byte[] data = new byte[256 * 1024];
            new Random(11).nextBytes(data);
            IscsiTestInitiator.Result w = knob.command(0, write16(0, 64), 0, data);
            assertThat(w.status()).isZero();
            IscsiTestInitiator.Result r = knob.command(0, read16(0, 64), data.length, null);
            assertThat(r.status()).isZero();
            assertThat(Arrays.equals(r.data(), data)).isTrue();
            assertThat(knob.maxCmdSN() - knob.cmdSN() + 1).isEqualTo(8);

            plain.login(PLAIN, null, OPEN_ISCSI);
            assertThat(plain.negotiated()).containsEntry("MaxRecvDataSegmentLength", "262144")
                    .containsEntry("MaxBurstLength", "1048576").containsEntry("FirstBurstLength", "262144");
            assertThat(plain.maxCmdSN() - plain.cmdSN() + 1).isEqualTo(128);
            // a runtime change (the file edited, then reloaded): applied in place, the logged-in session keeps its
            // window, a new login gets the new values
            Files.writeString(tmp.resolve("luns.d/knob.yaml"), "backend: ram\nsize: 64MiB\nlogical-block-size: 4KiB\n"
                    + "export: {nvme: false}\nsession: {max-recv-data-segment-length: 16KiB, first-burst-length: 16KiB,"
                    + " max-burst-length: 64KiB, queue-depth: 16}\n");
            assertThat(server.controlPlane().reload().retuned()).containsExactly("knob");
            knob.clearUnitAttention();   // INQUIRY DATA HAS CHANGED: the knobs changed
            assertThat(knob.command(0, read16(0, 1), 4096, null).status()).isZero();
            assertThat(knob.maxCmdSN() - knob.cmdSN() + 1).as("kept").isEqualTo(8);
            try (IscsiTestInitiator fresh = IscsiTestInitiator.connect(address, 0x400203L)) {
                fresh.login(KNOB, null, OPEN_ISCSI);
                assertThat(fresh.negotiated()).containsEntry("MaxBurstLength", "65536");
                assertThat(fresh.maxCmdSN() - fresh.cmdSN() + 1).isEqualTo(16);
                fresh.logout();
            }
            knob.logout();
            plain.logout();
        } finally {
            server.stop();
        }
    }

    private static byte[] write16(long lba, int blocks) {
        byte[] cdb = read16(lba, blocks);
        cdb[0] = (byte) 0x8A;
        return cdb;
    }

    private static byte[] read16(long lba, int blocks) {
        return java.nio.ByteBuffer.allocate(16).put((byte) 0x88).put((byte) 0).putLong(lba).putInt(blocks)
                .put((byte) 0).put((byte) 0).array();
    }
}
