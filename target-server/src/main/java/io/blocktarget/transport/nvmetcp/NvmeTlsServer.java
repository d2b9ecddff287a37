package io.blocktarget.transport.nvmetcp;

import io.blocktarget.config.TlsPsk;
import io.blocktarget.nvme.TlsSession;
import org.bouncycastle.tls.AbstractTlsServer;
import org.bouncycastle.tls.AlertDescription;
import org.bouncycastle.tls.BasicTlsPSKExternal;
import org.bouncycastle.tls.CipherSuite;
import org.bouncycastle.tls.PRFAlgorithm;
import org.bouncycastle.tls.ProtocolVersion;
import org.bouncycastle.tls.PskIdentity;
import org.bouncycastle.tls.TlsCredentials;
import org.bouncycastle.tls.TlsFatalAlert;
import org.bouncycastle.tls.TlsPSKExternal;
import org.bouncycastle.tls.crypto.TlsCrypto;

import java.util.Arrays;
import java.util.Optional;
import java.util.Vector;
import java.util.function.Function;

/**
 * The TLS 1.3 server side of one NVMe/TCP connection (NVMe/TCP Transport §3.6): external PSKs only (RFC 8446
 * §4.2.11), no certificates, TLS_AES_128_GCM_SHA256 and TLS_AES_256_GCM_SHA384. The PSK is found from the identity
 * the host offers: a retained-PSK identity ({@link TlsPskIdentity}) names the subsystem, whose configured PSK
 * ({@code access.tls-psk-file}) yields the TLS PSK; the binder (checked by the TLS engine) proves the host has it.
 */
final class NvmeTlsServer extends AbstractTlsServer {
    private static final int[] CIPHER_SUITES = {CipherSuite.TLS_AES_128_GCM_SHA256, CipherSuite.TLS_AES_256_GCM_SHA384};

    private final Function<String, Optional<TlsPsk>> psks;
    private volatile TlsSession session;
    private volatile String failure;

    /** @param psks the configured PSK of a subsystem NQN, empty when it has none */
    NvmeTlsServer(TlsCrypto crypto, Function<String, Optional<TlsPsk>> psks) {
        super(crypto);
        this.psks = psks;
    }

    @Override
    protected ProtocolVersion[] getSupportedVersions() {
        return ProtocolVersion.TLSv13.only();
    }

    @Override
    protected int[] getSupportedCipherSuites() {
        return CIPHER_SUITES.clone();
    }

    /**
     * The first offered identity this target can serve (NVMe/TCP §3.6.1.3: version 0 or 1, retained PSK), with the
     * PRF of its hash; null when none — the handshake then fails (no certificate to fall back to).
     */
    @Override
    public TlsPSKExternal getExternalPSK(Vector identities) {
        for (Object o : identities) {
            byte[] raw = ((PskIdentity) o).getIdentity();
            Optional<TlsPskIdentity> identity = TlsPskIdentity.parse(raw);
            if (identity.isEmpty()) {
                continue;
            }
            Optional<TlsPsk> configured = psks.apply(identity.get().subNqn());
            if (configured.isEmpty()) {
                continue;
            }
            byte[] key = configured.get().key();
            try {
                Optional<byte[]> tlsPsk = identity.get().tlsPsk(configured.get().hmac(), key);
                if (tlsPsk.isEmpty()) {
                    continue;
                }
                session = new TlsSession(identity.get().hostNqn(), identity.get().subNqn());
                int prf = identity.get().hash() == 1 ? PRFAlgorithm.tls13_hkdf_sha256 : PRFAlgorithm.tls13_hkdf_sha384;
                BasicTlsPSKExternal psk = new BasicTlsPSKExternal(raw, getCrypto().createSecret(tlsPsk.get()), prf);
                Arrays.fill(tlsPsk.get(), (byte) 0);
                return psk;
            } finally {
                Arrays.fill(key, (byte) 0);
            }
        }
        failure = identities.isEmpty() ? "the host offered no PSK" : "no offered PSK identity names a subsystem"
                + " with access.tls-psk-file that could have produced it (first: " + printable(identities) + ")";
        return null;
    }

    /** No certificate: a handshake without a usable PSK ends with handshake_failure. */
    @Override
    public TlsCredentials getCredentials() throws java.io.IOException {
        throw new TlsFatalAlert(AlertDescription.handshake_failure, failure);
    }

    @Override
    public void notifyAlertRaised(short alertLevel, short alertDescription, String message, Throwable cause) {
        if (failure == null) {
            failure = "sent alert " + AlertDescription.getText(alertDescription) + (message == null ? "" : ": " + message);
        }
    }

    @Override
    public void notifyAlertReceived(short alertLevel, short alertDescription) {
        if (failure == null && alertDescription != AlertDescription.close_notify) {
            failure = "received alert " + AlertDescription.getText(alertDescription);
        }
    }

    /** The host and subsystem of the PSK the handshake used (valid once the handshake completed). */
    TlsSession session() {
        return session;
    }

    /** Why the handshake failed, for the one log line; null when nothing was recorded. */
    String failure() {
        return failure;
    }

    private static String printable(Vector identities) {
        byte[] raw = ((PskIdentity) identities.get(0)).getIdentity();
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < Math.min(raw.length, 160); i++) {
            int c = raw[i] & 0xFF;
            b.append(c >= 0x20 && c < 0x7F ? (char) c : '?');
        }
        return b.toString();
    }
}
