package io.blocktarget.nvme;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.math.BigInteger;
import java.security.KeyPair;
import java.util.HexFormat;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * DH-HMAC-CHAP arithmetic (NVMe Base 2.2 §8.3.4.5). Provenance of the expected values: computed with Python's hmac
 * and hashlib following the Linux algorithm (drivers/nvme/common/auth.c nvme_auth_transform_key,
 * nvme_auth_augmented_challenge; drivers/nvme/target/auth.c nvmet_auth_host_hash / nvmet_auth_ctrl_hash), not with
 * this code.
 */
class DhchapCryptoTest {
    private static final HexFormat HEX = HexFormat.of();
    static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:3a9c6a5e-1111-4222-8333-444455556666";
    static final String SUBSYSTEM = "nqn.2026-11.io.blocktarget:auth";

    private static byte[] range(int from, int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (from + i);
        }
        return b;
    }

    private static byte[] filled(int value, int length) {
        byte[] b = new byte[length];
        java.util.Arrays.fill(b, (byte) value);
        return b;
    }

    @Test
    void keyTransformationIsHmacOfTheNqnAndNvmeOverFabricsWithTheIndicatedHash() {
        assertThat(HEX.formatHex(DhchapCrypto.transformKey(new DhchapKeys.Key(3, range(0, 64)), HOST))).isEqualTo(
                "9cb2d508f3ef01bf6a4bdd1ac8ac3620696d9ee8e01d95694b5a919de1eae2e0"
                        + "214483760747a2a5801455d3b7ebeb10578f01b25f799b8a2441d86164f70e47");
        assertThat(HEX.formatHex(DhchapCrypto.transformKey(new DhchapKeys.Key(2, range(100, 48)), SUBSYSTEM)))
                .isEqualTo("de03539aa0bd1975d91e650e02e89e531f66a1d6b29a648304a0fb08acf91286"
                        + "2899f39bbea472de11d92a0219a4d909");
        assertThat(DhchapCrypto.transformKey(new DhchapKeys.Key(0, range(0, 32)), HOST)).isEqualTo(range(0, 32));
    }

    @Test
    void hostResponseVector() {
        byte[] r1 = DhchapCrypto.hostResponse(DhchapCrypto.SHA256, range(0, 32), filled(0xC1, 32), 0x01020304,
                0x0A0B, HOST, SUBSYSTEM);
        assertThat(HEX.formatHex(r1)).isEqualTo("b9461cf734abe296afee7c8340afb48f5ad9840931dc3d1a2b94e67f4b6ff91b");
    }

    @Test
    void controllerResponseVectorWithATransformedKey() {
        byte[] key = DhchapCrypto.transformKey(new DhchapKeys.Key(2, range(100, 48)), SUBSYSTEM);
        byte[] r2 = DhchapCrypto.controllerResponse(DhchapCrypto.SHA384, key, filled(0xC2, 48), 0x7FFFFFFF, 0x0A0B,
                SUBSYSTEM, HOST);
        assertThat(HEX.formatHex(r2)).isEqualTo("589779ebeb7edd0277033cb5af4fcda0478cae90ffa159b6c32585fd95b36d44"
                + "2b3f5b22eb3dc061e767ee98d036c29c");
    }

    @Test
    void augmentedChallengeIsHmacKeyedWithTheHashOfTheSessionKey() {
        byte[] aug = DhchapCrypto.augmentedChallenge(DhchapCrypto.SHA512, range(0, 256), filled(0x55, 64));
        assertThat(HEX.formatHex(aug)).isEqualTo("49ff966f8c026b86c08203d95a8111f6d0d96716e2db8e034aae7a901d828843"
                + "48e6f760d464bd15520122b7ebcf275728eaea99096083f4b200bc3c8536cb18");
    }

    @Test
    void hashLengthsAndUnknownIds() {
        assertThat(DhchapCrypto.hashLength(1)).isEqualTo(32);
        assertThat(DhchapCrypto.hashLength(2)).isEqualTo(48);
        assertThat(DhchapCrypto.hashLength(3)).isEqualTo(64);
        assertThat(DhchapCrypto.hashLength(0)).isZero();
        assertThat(DhchapCrypto.hashLength(4)).isZero();
        assertThat(DhchapCrypto.group(0)).isEmpty();
        assertThat(DhchapCrypto.group(6)).isEmpty();
    }

    /** RFC 7919 §A.1: ffdhe2048's prime starts FFFFFFFF FFFFFFFF ADF85458 A2BB4A9A, generator 2. */
    @Test
    void ffdhe2048IsTheRfc7919Prime() {
        DhchapCrypto.DhGroup g = DhchapCrypto.group(1).orElseThrow();
        assertThat(g.p().toString(16)).startsWith("ffffffffffffffffadf85458a2bb4a9a").endsWith("ffffffffffffffff");
        assertThat(g.g()).isEqualTo(BigInteger.TWO);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void bothSidesDeriveTheSameFixedLengthSessionKey(int id) {
        deriveTheSameFixedLengthSessionKey(id);
    }

    /** ffdhe6144 and ffdhe8192: seconds of key generation each (the stress tier). */
    @ParameterizedTest
    @ValueSource(ints = {4, 5})
    @Tag("stress")
    void bothSidesDeriveTheSameFixedLengthSessionKeyInTheLargeGroups(int id) {
        deriveTheSameFixedLengthSessionKey(id);
    }

    private static void deriveTheSameFixedLengthSessionKey(int id) {
        DhchapCrypto.DhGroup g = DhchapCrypto.group(id).orElseThrow();
        int bits = new int[] {0, 2048, 3072, 4096, 6144, 8192}[id];
        assertThat(g.p().bitLength()).isEqualTo(bits);
        assertThat(g.valueLength()).isEqualTo(bits / 8);
        KeyPair a = g.generate();
        KeyPair b = g.generate();
        byte[] ab = g.sessionKey(a, g.publicValue(b)).orElseThrow();
        byte[] ba = g.sessionKey(b, g.publicValue(a)).orElseThrow();
        assertThat(ab).hasSize(bits / 8).isEqualTo(ba);
        assertThat(g.publicValue(a)).hasSize(bits / 8);
    }

    @Test
    void degeneratePeerValuesAreRefused() {
        DhchapCrypto.DhGroup g = DhchapCrypto.group(1).orElseThrow();
        KeyPair a = g.generate();
        int n = g.valueLength();
        assertThat(g.sessionKey(a, new byte[n])).isEmpty();
        assertThat(g.sessionKey(a, DhchapCrypto.fixed(BigInteger.ONE, n))).isEmpty();
        assertThat(g.sessionKey(a, DhchapCrypto.fixed(g.p().subtract(BigInteger.ONE), n))).isEmpty();
        assertThat(g.sessionKey(a, DhchapCrypto.fixed(g.p(), n))).isEmpty();
        assertThat(g.sessionKey(a, DhchapCrypto.fixed(BigInteger.TWO, n - 1))).isEmpty(); // wrong length
        assertThat(g.sessionKey(a, DhchapCrypto.fixed(BigInteger.TWO, n))).isPresent();
    }

    @Test
    void fixedLengthPadsAndDropsTheSignByte() {
        assertThat(DhchapCrypto.fixed(BigInteger.valueOf(0x0102), 4)).containsExactly(0, 0, 1, 2);
        assertThat(DhchapCrypto.fixed(BigInteger.valueOf(0xFF), 1)).containsExactly(0xFF);
    }
}
