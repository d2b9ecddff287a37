package io.blocktarget.it.nvme;

import io.blocktarget.config.ConfigLoader;
import io.blocktarget.config.DhchapSecret;
import io.blocktarget.nvme.DhchapCrypto;
import io.blocktarget.nvme.DhchapKeys;
import io.blocktarget.protocol.nvme.ConnectData;
import io.blocktarget.protocol.nvme.ControllerRegister;
import io.blocktarget.protocol.nvme.Dhchap;
import io.blocktarget.protocol.nvme.FabricsCommandType;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.PropertyCommand;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.server.TargetServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 14: DH-HMAC-CHAP keys per host NQN, end to end from a config directory (key files in the per-host format
 * of access.dhchap) over NVMe/TCP on loopback with the Java host. Two hosts with different keys (and different
 * controller keys, bidirectional) both authenticate; a host proving the other host's key is refused with
 * AUTH_Failure1 (reason code explanation 01h) and Authentication Required, while the first host's I/O goes on; a
 * host the files have no key for is refused the same way; a reload with a changed key file applies to new Connects.
 */
@Tag("loopback")
class NvmeAuthPerHostIT {
    private static final String NQN = "nqn.2026-11.io.blocktarget:auth";
    private static final String HOST_A = "nqn.2014-08.org.nvmexpress:uuid:0a0a0a0a-1111-4222-8333-444455556666";
    private static final String HOST_B = "nqn.2014-08.org.nvmexpress:uuid:0b0b0b0b-1111-4222-8333-444455556666";
    private static final String HOST_C = "nqn.2026-12.org.example:not-listed";

    @TempDir
    Path tmp;

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static Sqe auth(FabricsCommandType type, int length) {
        return new Sqe(Sqe.OPCODE_FABRICS, 0, Sqe.PSDT_SGL_MPTR_ADDRESS, 0, type.code(), 0, 0, 0, null,
                Dhchap.cdw10(), length, 0, 0, 0, 0);
    }

    private static void send(NvmeTcpTestHost h, byte[] m) throws Exception {
        NvmeTcpTestHost.require(h.execute(auth(FabricsCommandType.AUTHENTICATION_SEND, m.length), m, 0), "auth send");
    }

    private static byte[] receive(NvmeTcpTestHost h) throws Exception {
        NvmeTcpTestHost.Reply r = h.execute(auth(FabricsCommandType.AUTHENTICATION_RECEIVE, 4096), null, 4096);
        NvmeTcpTestHost.require(r, "auth receive");
        return r.data();
    }

    private static DhchapKeys.Key key(DhchapSecret s) {
        return new DhchapKeys.Key(s.transform(), s.key());
    }

    /**
     * One transaction (SHA-256, ffdhe2048) as {@code h.hostnqn} proving {@code hostKey}; bidirectional when
     * {@code ctrlKey} is given, then R2 must be made with it. True when it ended in Success1.
     */
    private static boolean authenticate(NvmeTcpTestHost h, DhchapSecret hostKey, Optional<DhchapSecret> ctrlKey)
            throws Exception {
        send(h, new Dhchap.Negotiate(5, 0, List.of(1), List.of(0, 1)).encode());
        byte[] m = receive(h);
        assertThat(Dhchap.id(m)).as("a Challenge for every host").isEqualTo(Dhchap.ID_CHALLENGE);
        Dhchap.Challenge c = Dhchap.Challenge.parse(m);
        DhchapCrypto.DhGroup g = DhchapCrypto.group(c.dhGroupId()).orElseThrow();
        KeyPair pair = g.generate();
        byte[] session = g.sessionKey(pair, c.dhValue()).orElseThrow();
        byte[] r1 = DhchapCrypto.hostResponse(1, DhchapCrypto.transformKey(key(hostKey), h.hostnqn),
                DhchapCrypto.augmentedChallenge(1, session, c.c1()), c.seqnum(), 5, h.hostnqn, NQN);
        byte[] c2 = DhchapCrypto.random(32);
        send(h, new Dhchap.Reply(5, ctrlKey.isPresent(), ctrlKey.isPresent() ? 77 : 0, r1, c2, g.publicValue(pair))
                .encode());
        m = receive(h);
        if (Dhchap.id(m) != Dhchap.ID_SUCCESS1) {
            // AUTH_Failure1, t_id 5, reason code 01h, explanation 01h (authentication failed)
            assertThat(Arrays.copyOf(m, 8)).containsExactly(0x00, 0xF1, 0, 0, 5, 0, 1, 1);
            return false;
        }
        if (ctrlKey.isPresent()) {
            byte[] r2 = DhchapCrypto.controllerResponse(1, DhchapCrypto.transformKey(key(ctrlKey.get()), NQN),
                    DhchapCrypto.augmentedChallenge(1, session, c2), 77, 5, NQN, h.hostnqn);
            assertThat(Dhchap.Success1.parse(m).r2()).as("R2 with this host's controller key")
                    .hasValueSatisfying(v -> assertThat(v).isEqualTo(r2));
            send(h, Dhchap.success2(5));
        }
        return true;
    }

    /** Connects the admin queue as {@code hostNqn}; the CNTLID. Every host is asked to authenticate (ATR). */
    private static int connectAdmin(NvmeTcpTestHost h, String hostNqn) throws IOException {
        h.hostnqn = hostNqn;
        NvmeTcpTestHost.Reply connect = h.connect(NQN, 0, 31, ConnectData.CNTLID_DYNAMIC, 0, 0);
        NvmeTcpTestHost.require(connect, "admin Connect");
        assertThat(connect.cqe().dw0() & Dhchap.CONNECT_ATR).isEqualTo(Dhchap.CONNECT_ATR);
        return connect.cqe().dw0() & 0xFFFF;
    }

    private static NvmeTcpTestHost admin(int port, String hostNqn) throws IOException {
        NvmeTcpTestHost h = NvmeTcpTestHost.open(port, false, false);
        connectAdmin(h, hostNqn);
        return h;
    }

    private static boolean locked(NvmeTcpTestHost h) throws IOException {
        return h.execute(new PropertyCommand(0, FabricsCommandType.PROPERTY_GET, ControllerRegister.CAP, 0).toSqe(),
                null, 0).is(NvmeStatus.AUTHENTICATION_REQUIRED);
    }

    private void secret(String name, String text) throws IOException {
        Path file = tmp.resolve(name);
        Files.writeString(file, text);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    }

    @Test
    void twoHostsWithTheirOwnKeysAuthenticateAndTheOtherHostsKeyIsRefused() throws Exception {
        DhchapSecret hostA = DhchapSecret.of(1, DhchapCrypto.random(32));
        DhchapSecret hostB = DhchapSecret.of(3, DhchapCrypto.random(64));
        DhchapSecret ctrlA = DhchapSecret.of(2, DhchapCrypto.random(48));
        DhchapSecret ctrlB = DhchapSecret.of(0, DhchapCrypto.random(32));
        int port = freePort();
        Files.createDirectories(tmp.resolve("luns.d"));
        Files.writeString(tmp.resolve("blocktarget.yaml"), "bind: 127.0.0.1\niscsi-port: 0\nnvme-port: " + port
                + "\ndiscovery-port: 0\n");
        secret("host.keys", "# issue 14: a key per host\n" + HOST_A + " " + hostA.representation() + "\n\n"
                + HOST_B + "\t" + hostB.representation() + "\n");
        secret("ctrl.keys", HOST_A + " " + ctrlA.representation() + "\n" + HOST_B + " " + ctrlB.representation()
                + "\n");
        Files.writeString(tmp.resolve("luns.d/auth.yaml"), "backend: ram\nsize: 16MiB\nlogical-block-size: 4KiB\n"
                + "export: {iscsi: false}\naccess:\n  dhchap: {host-secret-file: host.keys,"
                + " ctrl-secret-file: ctrl.keys}\n");
        TargetServer server = new TargetServer(ConfigLoader.load(tmp), Optional.of(tmp));
        server.start();
        try {
            servedPerHost(port, hostA, hostB, ctrlA, ctrlB);
            // B gets a new key and a * line admits every other host: a reload re-reads the file for new Connects.
            DhchapSecret newB = DhchapSecret.of(1, DhchapCrypto.random(32));
            DhchapSecret others = DhchapSecret.of(2, DhchapCrypto.random(48));
            secret("host.keys", HOST_A + " " + hostA.representation() + "\n" + HOST_B + " " + newB.representation()
                    + "\n* " + others.representation() + "\n");
            server.controlPlane().reload();
            try (NvmeTcpTestHost b = admin(port, HOST_B)) {
                assertThat(authenticate(b, hostB, Optional.empty())).as("B's old key").isFalse();
            }
            try (NvmeTcpTestHost b = admin(port, HOST_B)) {
                assertThat(authenticate(b, newB, Optional.of(ctrlB))).as("B's new key").isTrue();
            }
            try (NvmeTcpTestHost c = admin(port, HOST_C)) {
                assertThat(authenticate(c, others, Optional.empty())).as("the * key").isTrue();
            }
        } finally {
            server.stop();
        }
    }

    private static void servedPerHost(int port, DhchapSecret hostA, DhchapSecret hostB, DhchapSecret ctrlA,
                                      DhchapSecret ctrlB) throws Exception {
        try (NvmeTcpTestHost a = NvmeTcpTestHost.open(port, false, false)) {
            int cntlid = connectAdmin(a, HOST_A);
            assertThat(authenticate(a, hostA, Optional.of(ctrlA))).isTrue();
            a.enable();
            try (NvmeTcpTestHost io = NvmeTcpTestHost.open(port, false, false)) {
                io.hostnqn = HOST_A;
                NvmeTcpTestHost.require(io.connect(NQN, 1, 127, cntlid, 0, 0), "I/O Connect");
                assertThat(io.read(1, 0, 1, 4096).is(NvmeStatus.AUTHENTICATION_REQUIRED)).isTrue();
                assertThat(authenticate(io, hostA, Optional.empty())).isTrue();
                byte[] data = DhchapCrypto.random(8 * 4096);
                NvmeTcpTestHost.require(io.write(1, 8, 8, data), "write");

                try (NvmeTcpTestHost b = admin(port, HOST_B)) {
                    assertThat(authenticate(b, hostB, Optional.of(ctrlB))).as("B with its own keys").isTrue();
                    b.enable();
                    assertThat(b.keepAlive().ok()).isTrue();
                }
                try (NvmeTcpTestHost b = admin(port, HOST_B)) {
                    assertThat(authenticate(b, hostA, Optional.empty())).as("B with A's key").isFalse();
                    assertThat(locked(b)).isTrue();
                }
                try (NvmeTcpTestHost aWithB = admin(port, HOST_A)) {
                    assertThat(authenticate(aWithB, hostB, Optional.empty())).as("A with B's key").isFalse();
                    assertThat(locked(aWithB)).isTrue();
                }
                try (NvmeTcpTestHost c = admin(port, HOST_C)) {
                    assertThat(authenticate(c, hostA, Optional.empty())).as("a host without a key").isFalse();
                    assertThat(locked(c)).isTrue();
                }
                NvmeTcpTestHost.Reply back = io.read(1, 8, 8, data.length);
                NvmeTcpTestHost.require(back, "read");
                assertThat(back.data()).isEqualTo(data);
                assertThat(a.keepAlive().ok()).isTrue();
            }
        }
    }
}
