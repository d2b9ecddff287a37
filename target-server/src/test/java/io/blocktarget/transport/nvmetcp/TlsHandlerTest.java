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
import org.bouncycastle.tls.AlertDescription;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

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
}
