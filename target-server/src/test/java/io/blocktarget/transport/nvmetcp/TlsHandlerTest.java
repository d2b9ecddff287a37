package io.blocktarget.transport.nvmetcp;

import io.blocktarget.config.TlsPsk;
import io.blocktarget.nvme.ChannelSecurity;
import io.blocktarget.nvme.TlsSession;
import io.blocktarget.protocol.nvme.Cqe;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.protocol.nvmetcp.C2HData;
import io.blocktarget.protocol.nvmetcp.CapsuleResp;
import io.blocktarget.protocol.nvmetcp.NvmeTcpPdu;
import io.blocktarget.protocol.nvmetcp.ICReq;
import io.blocktarget.protocol.nvmetcp.PduOptions;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import org.bouncycastle.tls.AlertDescription;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * NVMe/TCP over TLS 1.3 with a PSK (NVMe/TCP Transport §3.6) on an EmbeddedChannel: the host end runs Bouncy
 * Castle's client engine with the identity and TLS PSK derived as libnvme derives them (TlsPskIdentity, pinned by
 * TlsPskIdentityTest), then ICReq, Connect and I/O go encrypted.
 */
class TlsHandlerTest {
    private static final byte[] KEY32 = new byte[32];
    private static final byte[] KEY48 = new byte[48];

    static {
        for (int i = 0; i < 48; i++) {
            KEY48[i] = (byte) (0xA0 + i);
            if (i < 32) {
                KEY32[i] = (byte) (0x10 + i);
            }
        }
    }

    private static FakeTarget target(TlsPsk psk) {
        FakeTarget t = new FakeTarget();
        t.tlsPsk = psk;
        return t;
    }

    /** hmac 1 / SHA-256 → TLS_AES_128_GCM_SHA256; hmac 2 / SHA-384 → TLS_AES_256_GCM_SHA384; identities v0 and v1. */
    @ParameterizedTest
    @CsvSource({"1, 0", "1, 1", "2, 0", "2, 1", "0, 1"})
    void handshakeThenConnectAndIoGoEncrypted(int hmac, int version) {
        TlsPsk psk = TlsPsk.of(hmac, hmac == 2 ? KEY48 : KEY32);
        try (HostEnd host = new HostEnd(target(psk))) {
            assertThat(host.startTls(new TlsPskClient(version, psk, HostEnd.HOSTNQN, FakeTarget.SUBNQN)))
                    .as("handshake").isTrue();
            assertThat(host.channel.pipeline().get(TlsHandler.class)).isNotNull();
            host.icReq(false, false);
            Cqe cqe = host.connect(1, 127, 0, FakeTarget.SUBNQN);
            assertThat(cqe.status().sc()).isZero();
            assertThat(host.target.connection.security()).isEqualTo(ChannelSecurity.TLS13);
            assertThat(host.target.connection.tlsSession())
                    .contains(new TlsSession(HostEnd.HOSTNQN, FakeTarget.SUBNQN));
            byte[] data = new byte[4096];
            Arrays.fill(data, (byte) 0x5A);
            host.capsule(Sqe.of(0x01, 7, 1, SglDescriptor.inCapsule(0, data.length), 8), data);
            assertThat(host.response().status().sc()).isZero();
            // a 64 KiB read back is four TLS records and more (2^14 bytes of plaintext each, RFC 8446 §5.1)
            host.capsule(Sqe.of(0x02, 8, 1, SglDescriptor.transportDataBlock(65536), 0));
            List<NvmeTcpPdu> out = host.drain();
            byte[] read = new byte[65536];
            int at = 0;
            for (NvmeTcpPdu pdu : out) {
                if (pdu instanceof C2HData d) {
                    int n = d.data().readableBytes();
                    d.data().getBytes(d.data().readerIndex(), read, at, n);
                    at += n;
                }
            }
            assertThat(at).isEqualTo(65536);
            assertThat(out.getLast()).isInstanceOf(CapsuleResp.class);
            out.forEach(NvmeTcpPdu::release);
            assertThat(Arrays.copyOfRange(read, 4096, 8192)).isEqualTo(data);
            assertThat(Arrays.copyOfRange(read, 0, 4096)).containsOnly(0);
        }
    }

    @Test
    void aWrongKeyFailsTheHandshakeAndClosesTheConnection() {
        TlsPsk configured = TlsPsk.of(1, KEY32);
        byte[] other = KEY32.clone();
        other[0] ^= 1;
        try (HostEnd host = new HostEnd(target(configured))) {
            TlsPskClient client = new TlsPskClient(0, TlsPsk.of(1, other), HostEnd.HOSTNQN, FakeTarget.SUBNQN);
            assertThat(host.startTls(client)).isFalse();
            assertThat(client.alertReceived()).isEqualTo(AlertDescription.decrypt_error);
            assertThat(host.channel.isOpen()).isFalse();
            assertThat(host.target.connection).as("no Connect reached the target").isNull();
        }
    }

    @Test
    void anIdentityForASubsystemWithoutAPskFailsTheHandshake() {
        TlsPsk psk = TlsPsk.of(1, KEY32);
        try (HostEnd host = new HostEnd(target(psk))) {
            TlsPskClient client = new TlsPskClient(1, psk, HostEnd.HOSTNQN, "nqn.2026-11.io.blocktarget:other");
            assertThat(host.startTls(client)).isFalse();
            assertThat(client.alertReceived()).isEqualTo(AlertDescription.handshake_failure);
            assertThat(host.channel.isOpen()).isFalse();
        }
    }

    @Test
    void plainNvmeTcpStillWorksWhereTlsIsOfferedAndTheHandlerLeaves() {
        try (HostEnd host = new HostEnd(target(TlsPsk.of(1, KEY32)))) {
            assertThat(host.channel.pipeline().get(TlsHandler.class)).isNotNull();
            host.icReq(false, false);
            assertThat(host.channel.pipeline().get(TlsHandler.class)).isNull();
            assertThat(host.connect(0, 31, 0, FakeTarget.SUBNQN).status().sc()).isZero();
            assertThat(host.target.connection.security()).isEqualTo(ChannelSecurity.NONE);
        }
    }

    @Test
    void noTlsHandlerWhenNoSubsystemHasAPsk() {
        try (HostEnd host = new HostEnd(target(null))) {
            assertThat(host.channel.pipeline().get(TlsHandler.class)).isNull();
        }
    }

    @Test
    void garbageAfterATlsRecordTypeClosesTheConnection() {
        try (HostEnd host = new HostEnd(target(TlsPsk.of(1, KEY32)))) {
            host.sendBytes(new byte[] {0x16, 0x03, 0x01, 0x00, 0x05, 1, 2, 3, 4, 5});
            assertThat(host.channel.isOpen()).isFalse();
        }
    }

    /**
     * Moves bytes between the host's channel and the controller's until neither has anything to send (the
     * EmbeddedChannels are the two ends of one socket).
     */
    private static void shuttle(EmbeddedChannel host, EmbeddedChannel controller) {
        for (int round = 0; round < 50; round++) {
            boolean moved = false;
            host.runPendingTasks();
            for (Object o; (o = host.readOutbound()) != null; moved = true) {
                controller.writeInbound(o);
            }
            controller.runPendingTasks();
            for (Object o; (o = controller.readOutbound()) != null; moved = true) {
                host.writeInbound(o);
            }
            if (!moved) {
                return;
            }
        }
        throw new AssertionError("still talking after 50 rounds");
    }

    /**
     * The handler's host end (what the load generator runs) against its server end: the handshake future completes,
     * then an ICReq written in clear reaches the controller through the records and its ICResp comes back
     * decrypted, byte for byte an ICResp (NVMe/TCP §3.6.2.3, 128 bytes).
     */
    @ParameterizedTest
    @CsvSource({"1, 0", "1, 1", "2, 0", "2, 1"})
    void clientModeHandshakesAndCarriesPdus(int hmac, int version) throws Exception {
        TlsPsk psk = TlsPsk.of(hmac, hmac == 2 ? KEY48 : KEY32);
        try (HostEnd controller = new HostEnd(target(psk))) {
            CompletableFuture<Void> handshake = new CompletableFuture<>();
            List<ByteBuf> plain = new ArrayList<>();
            EmbeddedChannel host = new EmbeddedChannel(TlsHandler.client(
                    new TlsPskClient(version, psk, HostEnd.HOSTNQN, FakeTarget.SUBNQN), handshake),
                    new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            plain.add((ByteBuf) msg);
                        }
                    });
            try {
                assertThat(handshake).as("nothing before the server answered").isNotDone();
                shuttle(host, controller.channel);
                assertThat(handshake).isCompleted();
                ByteBuf icReq = Unpooled.buffer();
                new ICReq(ICReq.PFV_1_0, 0, false, false, 0).encode(icReq, PduOptions.NONE);
                host.writeAndFlush(icReq);
                shuttle(host, controller.channel);
                CompositeByteBuf received = Unpooled.compositeBuffer();
                plain.forEach(b -> received.addComponent(true, b));
                try {
                    assertThat(received.readableBytes()).isEqualTo(128);
                    assertThat((int) received.getUnsignedByte(0)).as("PDU type ICResp").isEqualTo(0x01);
                    assertThat((int) received.getUnsignedByte(2)).as("HLEN").isEqualTo(128);
                } finally {
                    received.release();
                }
            } finally {
                host.finishAndReleaseAll();
            }
        }
    }

    /** A wrong key on the host end: the future fails naming the server's alert, and the host's channel closes. */
    @Test
    void clientModeWithAWrongKeyFailsTheFutureWithTheAlert() {
        byte[] other = KEY32.clone();
        other[0] ^= 1;
        try (HostEnd controller = new HostEnd(target(TlsPsk.of(1, KEY32)))) {
            CompletableFuture<Void> handshake = new CompletableFuture<>();
            EmbeddedChannel host = new EmbeddedChannel(TlsHandler.client(
                    new TlsPskClient(0, TlsPsk.of(1, other), HostEnd.HOSTNQN, FakeTarget.SUBNQN), handshake));
            shuttle(host, controller.channel);
            assertThat(handshake).isCompletedExceptionally();
            assertThatThrownBy(handshake::join).hasCauseInstanceOf(java.io.IOException.class)
                    .cause().hasMessage("TLS handshake failed: the target sent alert decrypt_error");
            assertThat(host.isOpen()).isFalse();
            assertThat(controller.target.connection).as("no Connect reached the target").isNull();
            host.finishAndReleaseAll();
        }
    }
}
