package io.blocktarget.it.nvme;

import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.config.TlsPsk;
import io.blocktarget.nvme.NamespaceSpec;
import io.blocktarget.nvme.NvmeLimits;
import io.blocktarget.nvme.NvmePort;
import io.blocktarget.nvme.NvmeSubsystems;
import io.blocktarget.nvme.SecureChannel;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.time.SystemClock;
import io.blocktarget.transport.nvmetcp.NvmeTcpTransport;
import io.blocktarget.transport.nvmetcp.TlsPskClient;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import org.bouncycastle.tls.AlertDescription;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * NVMe/TCP over TLS 1.3 with a PSK through a real socket and the server's Vert.x event loops (issue 14 item 2): the
 * Java host derives identity and TLS PSK as libnvme does, handshakes, connects and does verified I/O; a wrong key is
 * refused with an alert; a plain connection to the subsystem that requires TLS is refused, and plain I/O to another
 * subsystem on the same port runs on while all of this happens.
 */
@Tag("loopback")
class NvmeTlsIT {
    private static final String TLS = "nqn.2026-11.io.blocktarget:tls-it";
    private static final String PLAIN = "nqn.2026-11.io.blocktarget:plain-it";
    private static final TlsPsk PSK = psk();
    private static Vertx vertx;
    private static SystemClock clock;
    private static int port;

    private static TlsPsk psk() {
        byte[] k = new byte[48];
        new SecureRandom().nextBytes(k);
        return TlsPsk.of(2, k);
    }

    @BeforeAll
    static void start() throws Exception {
        vertx = Vertx.vertx();
        clock = new SystemClock("it-timer");
        AtomicReference<NvmeTcpTransport> ref = new AtomicReference<>();
        NetServer server = vertx.createNetServer(new NetServerOptions().setHost("127.0.0.1").setPort(0))
                .connectHandler(socket -> ref.get().accept(socket, false));
        port = server.listen().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS).actualPort();
        MemoryBudget budget = new MemoryBudget(64L << 20);
        NvmeSubsystems subsystems = NvmeSubsystems.of(List.of(
                        new NamespaceSpec(TLS, 1, "t", new RamBlockDevice("t", new BlockGeometry(4096, 4096, 1024), false,
                                budget)),
                        new NamespaceSpec(PLAIN, 1, "p", new RamBlockDevice("p", new BlockGeometry(4096, 4096, 1024),
                                false, budget))),
                List.of(new NvmePort(1, "127.0.0.1", port)), NvmeLimits.DEFAULT, clock,
                Map.of());
        subsystems.secureChannel(TLS, SecureChannel.REQUIRED);
        subsystems.tlsPsk(TLS, Optional.of(PSK));
        ref.set(NvmeTcpTransport.create(vertx, subsystems, NvmeLimits.DEFAULT));
    }

    @AfterAll
    static void stop() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        clock.close();
    }

    private static byte[] pattern(int seed, int length) {
        byte[] b = new byte[length];
        new java.util.Random(seed).nextBytes(b);
        return b;
    }

    private static void verifiedIo(NvmeTcpTestHost h, int seed) throws IOException {
        for (int i = 0; i < 8; i++) {
            byte[] data = pattern(seed + i, 64 << 10);     // 16 blocks: in R2T transfers and several TLS records
            NvmeTcpTestHost.require(h.write(1, i * 16L, 16, data), "write");
            NvmeTcpTestHost.Reply r = h.read(1, i * 16L, 16, data.length);
            NvmeTcpTestHost.require(r, "read");
            assertThat(Arrays.equals(r.data(), data)).as("read back %d", i).isTrue();
        }
    }

    /** Admin queue + enable + one I/O queue, each its own connection (TLS when {@code tls} gives a client). */
    private static NvmeTcpTestHost[] controller(String nqn, java.util.function.Supplier<TlsPskClient> tls)
            throws IOException {
        NvmeTcpTestHost admin = tls == null ? NvmeTcpTestHost.open(port, false, false)
                : NvmeTcpTestHost.openTls(port, tls.get());
        NvmeTcpTestHost.require(admin.connect(nqn, 0, 31, 0xFFFF, 0, 0), "admin Connect");
        admin.enable();
        int cntlid = admin.identifyController().cntlid();
        NvmeTcpTestHost io = tls == null ? NvmeTcpTestHost.open(port, false, false)
                : NvmeTcpTestHost.openTls(port, tls.get());
        NvmeTcpTestHost.require(io.connect(nqn, 1, 127, cntlid, 0, 0), "I/O Connect");
        return new NvmeTcpTestHost[] {admin, io};
    }

    private static void close(NvmeTcpTestHost[] hosts) throws IOException {
        for (NvmeTcpTestHost h : hosts) {
            h.close();
        }
    }

    @Test
    void tlsHostConnectsAndDoesVerifiedIoWhileOthersAreRefusedAndPlainIoGoesOn() throws Exception {
        NvmeTcpTestHost[] plain = controller(PLAIN, null);
        try {
            for (int version : new int[] {0, 1}) {
                NvmeTcpTestHost[] tls = controller(TLS,
                        () -> new TlsPskClient(version, PSK, NvmeTcpTestHost.HOSTNQN, TLS));
                verifiedIo(tls[1], 100 * version);
                close(tls);
            }
            // a wrong key. Identity version 0 names no key: the binder does not verify (RFC 8446 §4.2.11) and the
            // server says decrypt_error. Version 1 carries a digest of the key: no PSK matches, handshake_failure.
            byte[] other = new byte[48];
            new SecureRandom().nextBytes(other);
            for (int version : new int[] {0, 1}) {
                TlsPskClient wrong = new TlsPskClient(version, TlsPsk.of(2, other), NvmeTcpTestHost.HOSTNQN, TLS);
                assertThatThrownBy(() -> NvmeTcpTestHost.openTls(port, wrong).close()).isInstanceOf(IOException.class);
                assertThat(wrong.alertReceived()).as("version %d", version).isEqualTo(version == 0
                        ? AlertDescription.decrypt_error : AlertDescription.handshake_failure);
            }
            // plain to the subsystem that requires TLS: Connect Invalid Host, then closed
            try (NvmeTcpTestHost h = NvmeTcpTestHost.open(port, false, false)) {
                NvmeTcpTestHost.Reply r = h.connect(TLS, 0, 31, 0xFFFF, 0, 0);
                assertThat(r.is(NvmeStatus.CONNECT_INVALID_HOST)).as("%s", r.cqe()).isTrue();
            }
            verifiedIo(plain[1], 7);
        } finally {
            close(plain);
        }
    }
}
