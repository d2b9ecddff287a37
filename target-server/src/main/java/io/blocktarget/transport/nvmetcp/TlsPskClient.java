package io.blocktarget.transport.nvmetcp;

import io.blocktarget.config.TlsPsk;
import org.bouncycastle.tls.AbstractTlsClient;
import org.bouncycastle.tls.BasicTlsPSKExternal;
import org.bouncycastle.tls.CipherSuite;
import org.bouncycastle.tls.PRFAlgorithm;
import org.bouncycastle.tls.ProtocolVersion;
import org.bouncycastle.tls.TlsAuthentication;
import org.bouncycastle.tls.TlsFatalAlert;
import org.bouncycastle.tls.AlertDescription;
import org.bouncycastle.tls.crypto.impl.jcajce.JcaTlsCryptoProvider;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Vector;

/**
 * The host end of NVMe/TCP TLS 1.3 (NVMe/TCP Transport §3.6) as a Linux host's tlshd behaves: one retained-PSK
 * identity derived as the host's libnvme 1.13 derives it (the COMPAT HkdfLabel), psk_dhe_ke, TLS 1.3 only. For the
 * project's own test hosts and load generator, which drive Bouncy Castle's TlsClientProtocol with it; the server
 * never uses it.
 */
public final class TlsPskClient extends AbstractTlsClient {
    private final TlsPskIdentity identity;
    private final byte[] tlsPsk;
    private final int[] suites;
    private volatile short alertReceived = -1;

    /** The identity (version 0 or 1) and TLS PSK a host holding {@code configured} derives for host → subsystem. */
    public TlsPskClient(int version, TlsPsk configured, String hostNqn, String subNqn) {
        this(TlsPskIdentity.of(version, configured.hmac(), configured.key(), hostNqn, subNqn,
                TlsPskIdentity.Derivation.COMPAT), configured);
    }

    public TlsPskClient(TlsPskIdentity identity, TlsPsk configured) {
        // the JDK's AES-GCM and HMAC (JCA; AES-NI and GHASH intrinsics) rather than Bouncy Castle's lightweight
        // Java AES: a load generator must not be the bottleneck when it measures the target's TLS cost
        super(new JcaTlsCryptoProvider().create(new SecureRandom()));
        this.identity = identity;
        this.tlsPsk = identity.tlsPsk(TlsPskIdentity.retained(configured.hmac(), configured.key(), identity.hostNqn(),
                TlsPskIdentity.Derivation.COMPAT), TlsPskIdentity.Derivation.COMPAT);
        this.suites = identity.hash() == 1 ? new int[] {CipherSuite.TLS_AES_128_GCM_SHA256}
                : new int[] {CipherSuite.TLS_AES_256_GCM_SHA384};
    }

    @Override
    protected ProtocolVersion[] getSupportedVersions() {
        return ProtocolVersion.TLSv13.only();
    }

    @Override
    protected int[] getSupportedCipherSuites() {
        return suites.clone();
    }

    @Override
    public Vector getExternalPSKs() {
        Vector<Object> psks = new Vector<>();
        psks.add(new BasicTlsPSKExternal(identity.text().getBytes(StandardCharsets.US_ASCII),
                getCrypto().createSecret(tlsPsk.clone()),
                identity.hash() == 1 ? PRFAlgorithm.tls13_hkdf_sha256 : PRFAlgorithm.tls13_hkdf_sha384));
        return psks;
    }

    @Override
    public TlsAuthentication getAuthentication() throws java.io.IOException {
        throw new TlsFatalAlert(AlertDescription.internal_error, "PSK only: the server must not send a certificate");
    }

    @Override
    public void notifyAlertReceived(short alertLevel, short alertDescription) {
        alertReceived = alertDescription;
    }

    /** The description of the last alert the server sent (RFC 8446 §6), -1 when none. */
    public short alertReceived() {
        return alertReceived;
    }
}
