package io.blocktarget.it.nvme;

import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.nvme.DhchapCrypto;
import io.blocktarget.nvme.DhchapKeys;
import io.blocktarget.nvme.NamespaceSpec;
import io.blocktarget.nvme.NvmeLimits;
import io.blocktarget.nvme.NvmePort;
import io.blocktarget.nvme.NvmeSubsystems;
import io.blocktarget.protocol.nvme.Dhchap;
import io.blocktarget.protocol.nvme.FabricsCommandType;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.protocol.nvme.ControllerRegister;
import io.blocktarget.time.SystemClock;
import io.blocktarget.transport.nvmetcp.NvmeTcpTransport;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.security.KeyPair;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * DH-HMAC-CHAP over NVMe/TCP on loopback (issue 14) with the Java host: Authentication Send data in-capsule,
 * Authentication Receive data in C2HData, on the admin and an I/O queue; the right keys (bidirectional, ffdhe2048)
 * get I/O, a wrong host key gets AUTH_Failure1 and Authentication Required, and the first host's I/O goes on.
 */
@Tag("loopback")
class NvmeAuthIT {
    private static final String NQN = "nqn.2026-11.io.blocktarget:auth-it";
    private static final DhchapKeys.Key HOST_KEY = new DhchapKeys.Key(1, DhchapCrypto.random(32));
    private static final DhchapKeys.Key CTRL_KEY = new DhchapKeys.Key(2, DhchapCrypto.random(48));
    private static Vertx vertx;
    private static SystemClock clock;
    private static int port;

    @BeforeAll
    static void start() throws Exception {
        vertx = Vertx.vertx();
        clock = new SystemClock("it-timer");
        AtomicReference<NvmeTcpTransport> ref = new AtomicReference<>();
        NetServer server = vertx.createNetServer(new NetServerOptions().setHost("127.0.0.1").setPort(0))
                .connectHandler(socket -> ref.get().accept(socket, false));
        port = server.listen().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS).actualPort();
        RamBlockDevice device = new RamBlockDevice("a", new BlockGeometry(4096, 4096, 1024), false,
                new MemoryBudget(64L << 20));
        NvmeSubsystems subsystems = NvmeSubsystems.of(List.of(new NamespaceSpec(NQN, 1, "a", device)),
                List.of(new NvmePort(1, "127.0.0.1", port)), NvmeLimits.DEFAULT, clock,
                Map.of());
        subsystems.dhchap(NQN, Optional.of(new DhchapKeys(HOST_KEY, Optional.of(CTRL_KEY))));
        ref.set(NvmeTcpTransport.create(vertx, subsystems, NvmeLimits.DEFAULT));
    }

    @AfterAll
    static void stop() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        clock.close();
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

    /** One bidirectional transaction with ffdhe2048 and SHA-384; true when it ended in Success1 with a good R2. */
    private static boolean authenticate(NvmeTcpTestHost h, DhchapKeys.Key key) throws Exception {
        send(h, new Dhchap.Negotiate(3, 0, List.of(2), List.of(0, 1)).encode());
        byte[] m = receive(h);
        if (Dhchap.id(m) != Dhchap.ID_CHALLENGE) {
            return false;
        }
        Dhchap.Challenge c = Dhchap.Challenge.parse(m);
        assertThat(c.dhGroupId()).isEqualTo(1);
        DhchapCrypto.DhGroup g = DhchapCrypto.group(1).orElseThrow();
        KeyPair pair = g.generate();
        byte[] session = g.sessionKey(pair, c.dhValue()).orElseThrow();
        byte[] r1 = DhchapCrypto.hostResponse(2, DhchapCrypto.transformKey(key, h.hostnqn),
                DhchapCrypto.augmentedChallenge(2, session, c.c1()), c.seqnum(), 3, h.hostnqn, NQN);
        byte[] c2 = DhchapCrypto.random(48);
        send(h, new Dhchap.Reply(3, true, 99, r1, c2, g.publicValue(pair)).encode());
        m = receive(h);
        if (Dhchap.id(m) != Dhchap.ID_SUCCESS1) {
            assertThat(Arrays.copyOf(m, 8)).containsExactly(0x00, 0xF1, 0, 0, 3, 0, 1, 1);
            return false;
        }
        byte[] r2 = DhchapCrypto.controllerResponse(2, DhchapCrypto.transformKey(CTRL_KEY, NQN),
                DhchapCrypto.augmentedChallenge(2, session, c2), 99, 3, NQN, h.hostnqn);
        assertThat(Dhchap.Success1.parse(m).r2()).hasValueSatisfying(v -> assertThat(v).isEqualTo(r2));
        send(h, Dhchap.success2(3));
        return true;
    }

    @Test
    void rightKeysGetIoAndAWrongKeyIsRefusedWhileTheFirstHostCarriesOn() throws Exception {
        try (NvmeTcpTestHost admin = NvmeTcpTestHost.open(port, false, false)) {
            NvmeTcpTestHost.Reply connect = admin.connect(NQN, 0, 31, 0xFFFF, 0, 0);
            assertThat(connect.ok()).isTrue();
            assertThat(connect.cqe().dw0() & Dhchap.CONNECT_ATR).isEqualTo(Dhchap.CONNECT_ATR);
            int cntlid = connect.cqe().dw0() & 0xFFFF;
            assertThat(authenticate(admin, HOST_KEY)).isTrue();
            admin.enable();
            try (NvmeTcpTestHost io = NvmeTcpTestHost.open(port, false, false)) {
                NvmeTcpTestHost.Reply ioConnect = io.connect(NQN, 1, 127, cntlid, 0, 0);
                assertThat(ioConnect.cqe().dw0() & Dhchap.CONNECT_ATR).isEqualTo(Dhchap.CONNECT_ATR);
                assertThat(io.read(1, 0, 1, 4096).is(NvmeStatus.AUTHENTICATION_REQUIRED)).isTrue();
                assertThat(authenticate(io, HOST_KEY)).isTrue();
                byte[] data = DhchapCrypto.random(8 * 4096);
                NvmeTcpTestHost.require(io.write(1, 8, 8, data), "write");

                try (NvmeTcpTestHost intruder = NvmeTcpTestHost.open(port, false, false)) {
                    intruder.hostnqn = "nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-00000000bad0";
                    assertThat(intruder.connect(NQN, 0, 31, 0xFFFF, 0, 0).ok()).isTrue();
                    assertThat(authenticate(intruder, new DhchapKeys.Key(1, DhchapCrypto.random(32)))).isFalse();
                    NvmeTcpTestHost.Reply refused = intruder.execute(new io.blocktarget.protocol.nvme.PropertyCommand(0,
                            FabricsCommandType.PROPERTY_GET, ControllerRegister.CAP, 0).toSqe(), null, 0);
                    assertThat(refused.is(NvmeStatus.AUTHENTICATION_REQUIRED)).isTrue();
                }
                NvmeTcpTestHost.Reply back = io.read(1, 8, 8, data.length);
                NvmeTcpTestHost.require(back, "read");
                assertThat(back.data()).isEqualTo(data);
                assertThat(admin.keepAlive().ok()).isTrue();
            }
        }
    }
}
