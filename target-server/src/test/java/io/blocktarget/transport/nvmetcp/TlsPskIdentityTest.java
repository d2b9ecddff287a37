package io.blocktarget.transport.nvmetcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.blocktarget.transport.nvmetcp.TlsPskIdentity.Derivation;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * NVMe/TCP Transport §3.6.1.3 PSK identities and TLS PSKs.
 *
 * <p>Provenance. Configured keys, NQNs and the four version-1 identities (their PSK digests pin the retained-PSK
 * derivation and the digest HMAC, both derivations): libnvme test/psk.c (test_data_identity and
 * test_data_identity_compat, checked there against nvme_generate_tls_key_identity[_compat]()). The TLS PSKs: computed
 * with a separate Python 3 script (hmac/hashlib, HKDF written out from RFC 5869 and the HkdfLabel of RFC 8446 §7.1 /
 * libnvme's compat variant) that reproduces those four libnvme identities; no Linux-side capture of a TLS PSK yet
 * (the guest's keyring holds it; see the VM test when it runs).
 */
class TlsPskIdentityTest {
    private static final byte[] KEY_32 = HexFormat.of().parseHex(
            "5512dbb6737d0106f65975b773dfb011ffc344bcf442e2dd6d8bc4870b5d5b03");
    private static final byte[] KEY_48 = HexFormat.of().parseHex(
            "5512dbb6737d0106f65975b773dfb011ffc344bcf442e2dd6d8bc4870b5d5b03ffc344bcf442e2dd6d8bc4870b5d5b03");
    private static final String HOST = "nqn.psk-test-host";
    private static final String SUB = "nqn.psk-test-subsys";

    private static byte[] hex(String hex) {
        return HexFormat.of().parseHex(hex);
    }

    @Test
    void version1IdentitiesAreLibnvmes() {
        assertThat(TlsPskIdentity.of(1, 1, KEY_32, HOST, SUB, Derivation.RFC8446).text()).isEqualTo(
                "NVMe1R01 nqn.psk-test-host nqn.psk-test-subsys iSbjiStwJ/1TrTvDlt2fjFmzvsytOJelidNnA+X5lEU=");
        assertThat(TlsPskIdentity.of(1, 2, KEY_48, HOST, SUB, Derivation.RFC8446).text()).isEqualTo(
                "NVMe1R02 nqn.psk-test-host nqn.psk-test-subsys"
                        + " QhW2+Rp6RzHlNtCslyRxMnwJ11tKKhz8JCAQpQ+XUD8f9td1VeH5h53yz2wKJG1a");
        assertThat(TlsPskIdentity.of(1, 1, KEY_32, HOST, SUB, Derivation.COMPAT).text()).isEqualTo(
                "NVMe1R01 nqn.psk-test-host nqn.psk-test-subsys 66GuqV08TsAGII39teWUfwQwizjv06Jy8jOcX3NAAzM=");
        assertThat(TlsPskIdentity.of(1, 2, KEY_48, HOST, SUB, Derivation.COMPAT).text()).isEqualTo(
                "NVMe1R02 nqn.psk-test-host nqn.psk-test-subsys"
                        + " RsKmYJ3nAn1ApjjMloJFbAkLPivONDAX/xW327YBUsn2eGShXSjCZvBaOxscLqmz");
    }

    @Test
    void version0IdentityNamesHashHostAndSubsystem() {
        assertThat(TlsPskIdentity.of(0, 1, KEY_32, HOST, SUB, Derivation.RFC8446).text())
                .isEqualTo("NVMe0R01 nqn.psk-test-host nqn.psk-test-subsys");
        // Hash 00 (no transformation): the identity's hash follows the key length.
        assertThat(TlsPskIdentity.of(0, 0, KEY_48, HOST, SUB, Derivation.RFC8446).text())
                .isEqualTo("NVMe0R02 nqn.psk-test-host nqn.psk-test-subsys");
    }

    @Test
    void tlsPskForEachIdentityAndDerivation() {
        String[][] vectors = {
            // hmac, version, identity, RFC 8446 TLS PSK, compat TLS PSK
            {"1", "0", "NVMe0R01 nqn.psk-test-host nqn.psk-test-subsys",
                "05c6503551ad136e6ee32e6eeb3f6d500b69701d84ec71e328f65c7f51566f68",
                "09fb1983ac6d6d0353e7cae4f23daddd651c367fa347c59d9cf6936f5a83eafb"},
            {"2", "0", "NVMe0R02 nqn.psk-test-host nqn.psk-test-subsys",
                "f42ba63824cdfe421914c582921f85b5b5b7e2d4df084caeedc9be20b212e8bb0fe8a23e9d59a1c8fc6449da4970a78d",
                "2ee4754186a625b28a3936ef4a40d839c3ad958b2e017562ee07e2501f172ce999dc9c29033ea7ee33f814f192c13f47"},
        };
        for (String[] v : vectors) {
            int hmac = Integer.parseInt(v[0]);
            byte[] key = hmac == 1 ? KEY_32 : KEY_48;
            TlsPskIdentity id = TlsPskIdentity.parse(v[2].getBytes(StandardCharsets.US_ASCII)).orElseThrow();
            assertThat(id.tlsPsk(TlsPskIdentity.retained(hmac, key, HOST, Derivation.RFC8446), Derivation.RFC8446))
                    .isEqualTo(hex(v[3]));
            assertThat(id.tlsPsk(TlsPskIdentity.retained(hmac, key, HOST, Derivation.COMPAT), Derivation.COMPAT))
                    .isEqualTo(hex(v[4]));
            // Version 0 says nothing about the derivation: the server takes COMPAT's, what the guest's nvme-cli
            // 2.13 derives (LinuxTlsKeysIT).
            assertThat(id.tlsPsk(hmac, key)).hasValueSatisfying(p -> assertThat(p).isEqualTo(hex(v[4])));
        }
    }

    @Test
    void version1DigestPicksTheDerivationTheHostUsed() {
        TlsPskIdentity rfc = TlsPskIdentity.of(1, 1, KEY_32, HOST, SUB, Derivation.RFC8446);
        TlsPskIdentity compat = TlsPskIdentity.of(1, 1, KEY_32, HOST, SUB, Derivation.COMPAT);
        assertThat(rfc.tlsPsk(1, KEY_32)).hasValueSatisfying(p -> assertThat(p).isEqualTo(
                hex("8fc3c0badfd4c0c66fa3ca33aadd0314f85536cc9bc47338b60f3e6e563786ca")));
        assertThat(compat.tlsPsk(1, KEY_32)).hasValueSatisfying(p -> assertThat(p).isEqualTo(
                hex("b9f5ab2a41ba6e72a23a12066302a2f775fa6c0942c8e0b18ca8ac07edf305e2")));
        TlsPskIdentity rfc48 = TlsPskIdentity.of(1, 2, KEY_48, HOST, SUB, Derivation.RFC8446);
        assertThat(rfc48.tlsPsk(2, KEY_48)).hasValueSatisfying(p -> assertThat(p).isEqualTo(hex(
                "a2b2f943f479fc682555cec89857c80ed004ce92f32a973d5764155bb7e36b17a85368a0666d250afac9282dda2e62ca")));
    }

    @Test
    void aWrongKeyOrHashYieldsNoPsk() {
        byte[] other = KEY_32.clone();
        other[0] ^= 1;
        // Version 1: the digest proves the key; another key matches neither derivation.
        assertThat(TlsPskIdentity.of(1, 1, KEY_32, HOST, SUB, Derivation.RFC8446).tlsPsk(1, other)).isEmpty();
        // A digest for another host does not fit this host's retained PSK.
        TlsPskIdentity otherHost = TlsPskIdentity.of(1, 1, KEY_32, "nqn.other-host", SUB, Derivation.RFC8446);
        TlsPskIdentity forged = new TlsPskIdentity(1, 1, HOST, SUB, otherHost.digest());
        assertThat(forged.tlsPsk(1, KEY_32)).isEmpty();
        // The identity's hash must be the configured PSK's: a SHA-384 identity against a SHA-256 key.
        assertThat(TlsPskIdentity.of(0, 2, KEY_48, HOST, SUB, Derivation.RFC8446).tlsPsk(1, KEY_32)).isEmpty();
        // Version 0 with another key: a PSK comes out, and differs (the TLS binder then fails).
        assertThat(TlsPskIdentity.of(0, 1, KEY_32, HOST, SUB, Derivation.RFC8446).tlsPsk(1, other))
                .hasValueSatisfying(p -> assertThat(p).isNotEqualTo(
                        hex("05c6503551ad136e6ee32e6eeb3f6d500b69701d84ec71e328f65c7f51566f68")));
    }

    @Test
    void parseAcceptsOnlyRetainedVersion0And1Identities() {
        assertThat(parse("NVMe0R01 " + HOST + " " + SUB)).contains(new TlsPskIdentity(0, 1, HOST, SUB,
                Optional.empty()));
        assertThat(parse("NVMe1R02 " + HOST + " " + SUB + " abc=")).contains(new TlsPskIdentity(1, 2, HOST, SUB,
                Optional.of("abc=")));
        assertThat(parse("NVMe0G01 " + HOST + " " + SUB)).as("generated PSK (secure concatenation)").isEmpty();
        assertThat(parse("NVMe2R01 " + HOST + " " + SUB)).as("version 2").isEmpty();
        assertThat(parse("NVMe0R03 " + HOST + " " + SUB)).as("hash 03").isEmpty();
        assertThat(parse("NVMe0R00 " + HOST + " " + SUB)).as("hash 00").isEmpty();
        assertThat(parse("NVMe0R01 " + HOST)).as("no subsystem").isEmpty();
        assertThat(parse("NVMe0R01 " + HOST + " " + SUB + " x")).as("a digest in version 0").isEmpty();
        assertThat(parse("NVMe1R01 " + HOST + " " + SUB)).as("version 1 without digest").isEmpty();
        assertThat(parse("NVMe0R01 " + HOST + "  " + SUB)).as("two spaces").isEmpty();
        assertThat(parse("NVMe0R01 " + HOST + " " + SUB + "\u0000")).as("a control byte").isEmpty();
        assertThat(parse("NVMe0R01")).isEmpty();
        assertThat(parse("")).isEmpty();
    }

    private static Optional<TlsPskIdentity> parse(String text) {
        return TlsPskIdentity.parse(text.getBytes(StandardCharsets.ISO_8859_1));
    }
}
