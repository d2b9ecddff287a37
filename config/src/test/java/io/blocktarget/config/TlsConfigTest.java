package io.blocktarget.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Issue 14 deliverable 2's keys: {@code access.tls} and {@code access.tls-psk-file}; exact texts, keys never quoted. */
class TlsConfigTest extends ConfigDirTest {
    /*
     * Provenance: libnvme test/psk.c (test_data_psk, the vectors nvme_export_tls_key_versioned() /
     * nvme_import_tls_key_versioned() are checked against in libnvme's own CI): key 5512dbb6..5d5b03 (32 bytes)
     * with hash 00 and 01, and the 48-byte key (the same 32 bytes followed by ffc344bc..0b5d5b03) with hash 02.
     */
    static final byte[] KEY_32 = HexFormat.of().parseHex(
            "5512dbb6737d0106f65975b773dfb011ffc344bcf442e2dd6d8bc4870b5d5b03");
    static final byte[] KEY_48 = HexFormat.of().parseHex(
            "5512dbb6737d0106f65975b773dfb011ffc344bcf442e2dd6d8bc4870b5d5b03ffc344bcf442e2dd6d8bc4870b5d5b03");
    static final String PSK_00 = "NVMeTLSkey-1:00:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:";
    static final String PSK_01 = "NVMeTLSkey-1:01:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:";
    static final String PSK_02 = "NVMeTLSkey-1:02:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwP/w0S89ELi3W2LxIcLXVsDn8kXZQ==:";
    private static final String PSK_ALLOWED = "allowed: a file holding one PSK as nvme gen-tls-key prints it,"
            + " NVMeTLSkey-1:hh:BASE64: with hh 01 (SHA-256, a 32-byte key), 02 (SHA-384, a 48-byte key) or 00 (no"
            + " transformation, 32 or 48 bytes) and BASE64 the key followed by its CRC-32 (NVMe/TCP Transport"
            + " §3.6.1.5); one trailing newline ignored";
    private static final String NQN = "nqn.2026-11.x.y:s";

    private void lun(String name, String rest) {
        config.lun(name, "backend: ram\nsize: 1GiB\n" + rest);
    }

    // ---- interchange format -----------------------------------------------------------------------------------

    @Test
    void libnvmeVectorsParseAndPrintIdentically() {
        TlsPsk p01 = TlsPsk.parse(PSK_01);
        assertThat(p01.hmac()).isEqualTo(1);
        assertThat(p01.key()).isEqualTo(KEY_32);
        assertThat(p01.cipherHash()).isEqualTo(1);
        assertThat(p01.interchange()).isEqualTo(PSK_01);
        TlsPsk p02 = TlsPsk.parse(PSK_02);
        assertThat(p02.hmac()).isEqualTo(2);
        assertThat(p02.key()).isEqualTo(KEY_48);
        assertThat(p02.interchange()).isEqualTo(PSK_02);
        TlsPsk p00 = TlsPsk.parse(PSK_00);
        assertThat(p00.hmac()).isZero();
        assertThat(p00.cipherHash()).as("no transformation: the hash follows the key length").isEqualTo(1);
        assertThat(TlsPsk.of(0, KEY_48).cipherHash()).isEqualTo(2);
        assertThat(TlsPsk.of(1, KEY_32)).isEqualTo(p01).isNotEqualTo(p00);
        assertThat(p01.toString()).doesNotContain("VRLb").isEqualTo("TlsPsk[***]");
    }

    @Test
    void whatIsNotTheInterchangeFormatIsRefused() {
        String body = PSK_01.substring(16, PSK_01.length() - 1);
        assertThatThrownBy(() -> TlsPsk.parse("NVMeTLSkey-2:01:" + body + ":"))
                .hasMessage("does not start with NVMeTLSkey-1:hh:");
        assertThatThrownBy(() -> TlsPsk.parse("DHHC-1:01:" + body + ":"))
                .hasMessage("does not start with NVMeTLSkey-1:hh:");
        assertThatThrownBy(() -> TlsPsk.parse("NVMeTLSkey-1:03:" + body + ":"))
                .hasMessage("has the hash indicator 03, not 00, 01 or 02");
        assertThatThrownBy(() -> TlsPsk.parse("NVMeTLSkey-1:01:" + body))
                .hasMessage("does not end with ':'");
        assertThatThrownBy(() -> TlsPsk.parse("NVMeTLSkey-1:01:!!!!:"))
                .hasMessage("is not base64 between the second and the last ':'");
        // The key length must fit the hash (libnvme: 01 only 32 bytes, 02 only 48, 00 either).
        assertThatThrownBy(() -> TlsPsk.parse("NVMeTLSkey-1:02:" + body + ":"))
                .hasMessage("holds a 32-byte key with hash 02; 01 needs 32 bytes, 02 48 bytes, 00 32 or 48");
        String body48 = PSK_02.substring(16, PSK_02.length() - 1);
        assertThatThrownBy(() -> TlsPsk.parse("NVMeTLSkey-1:01:" + body48 + ":"))
                .hasMessage("holds a 48-byte key with hash 01; 01 needs 32 bytes, 02 48 bytes, 00 32 or 48");
        assertThat(TlsPsk.parse("NVMeTLSkey-1:00:" + body48 + ":").length()).isEqualTo(48);
        // 31 bytes and 64 bytes (a DH-HMAC-CHAP length, not a TLS one) with a correct CRC.
        for (int length : new int[] {31, 33, 64}) {
            String text = "NVMeTLSkey-1:00:" + Base64.getEncoder().encodeToString(withCrc(new byte[length])) + ":";
            assertThatThrownBy(() -> TlsPsk.parse(text)).hasMessage("holds a " + length
                    + "-byte key with hash 00; 01 needs 32 bytes, 02 48 bytes, 00 32 or 48");
        }
        // One bit flipped in the key, and one in the CRC.
        for (int bit : new int[] {0, 32 * 8}) {
            byte[] raw = Base64.getDecoder().decode(body);
            raw[bit / 8] ^= 1;
            String text = "NVMeTLSkey-1:01:" + Base64.getEncoder().encodeToString(raw) + ":";
            assertThatThrownBy(() -> TlsPsk.parse(text))
                    .hasMessage("fails its CRC-32 check (a typo or a truncated copy?)");
        }
    }

    private static byte[] withCrc(byte[] key) {
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(key);
        byte[] out = java.util.Arrays.copyOf(key, key.length + 4);
        for (int i = 0; i < 4; i++) {
            out[key.length + i] = (byte) (crc.getValue() >>> (8 * i));
        }
        return out;
    }

    // ---- access.tls / access.tls-psk-file ---------------------------------------------------------------------

    @Test
    void withoutTheKeysTlsIsOff() throws ConfigException {
        lun("x", "");
        assertThat(config.loadLun("x").access().tls()).isEqualTo(TlsConfig.OFF);
        lun("y", "access:\n  tls: off\n");
        assertThat(config.loadLun("y").access().tls()).isEqualTo(TlsConfig.OFF);
    }

    @Test
    void requiredAndAllowedReadThePsk() throws ConfigException {
        config.secret("keys/tls.psk", PSK_02 + "\n");
        lun("x", "access:\n  tls: required\n  tls-psk-file: keys/tls.psk\n");
        TlsConfig tls = config.loadLun("x").access().tls();
        assertThat(tls.mode()).isEqualTo(TlsMode.REQUIRED);
        assertThat(tls.psk()).contains(TlsPsk.parse(PSK_02));
        assertThat(tls.pskFile()).contains(tmp.resolve("keys/tls.psk").toAbsolutePath().normalize());
        assertThat(tls.toString()).doesNotContain("NVMeTLS", "VRLb").contains("mode=required, psk=***");
        config.secret("crlf.psk", PSK_01 + "\r\n");
        lun("y", "access: { tls: allowed, tls-psk-file: crlf.psk }\n");
        assertThat(config.loadLun("y").access().tls().mode()).isEqualTo(TlsMode.ALLOWED);
    }

    @Test
    void problemsNameTheFileNeverTheKey() {
        config.secret("bad.psk", PSK_01.replace("VRLb", "VRLc") + "\n");
        config.secret("good.psk", PSK_01 + "\n");
        config.secret("two.psk", PSK_01 + "\n" + PSK_01 + "\n");
        lun("a", "access:\n  tls: required\n  tls-psk-file: bad.psk\n");
        lun("b", "access:\n  tls: required\n");
        lun("c", "access:\n  tls: yes\n  tls-psk-file: good.psk\n");
        lun("d", "access:\n  tls-psk-file: good.psk\n");
        lun("e", "access:\n  tls: off\n  tls-psk-file: good.psk\n");
        lun("f", "access:\n  tls: allowed\n  tls-psk-file: missing.psk\n");
        lun("g", "access:\n  tls: allowed\n  tls-psk-file: two.psk\n");
        lun("h", "access:\n  tls: allowed\n  tls-psk-file: [good.psk]\n");
        lun("i", "access:\n  tls: allowed\n  tls-psk-file: keys\n");
        config.file("keys/placeholder", "");
        List<String> problems = config.problems();
        assertThat(String.join("\n", problems)).doesNotContain("VRLb", "VRLc");
        assertThat(problems).containsExactly(
                "luns.d/a.yaml:5: access.tls-psk-file: bad.psk fails its CRC-32 check (a typo or a truncated"
                        + " copy?); " + PSK_ALLOWED,
                "luns.d/b.yaml:4: access.tls: tls: required without tls-psk-file; allowed: tls: required or allowed"
                        + " together with tls-psk-file, " + PSK_ALLOWED.substring("allowed: ".length()),
                "luns.d/c.yaml:4: access.tls: yes is not a TLS mode; allowed: required, allowed or off (default off)",
                "luns.d/d.yaml:4: access.tls-psk-file: given with tls: off; allowed: tls-psk-file together with tls:"
                        + " required or tls: allowed",
                "luns.d/e.yaml:5: access.tls-psk-file: given with tls: off; allowed: tls-psk-file together with tls:"
                        + " required or tls: allowed",
                "luns.d/f.yaml:5: access.tls-psk-file: missing.psk does not exist ("
                        + tmp.resolve("missing.psk").toAbsolutePath().normalize() + "); " + PSK_ALLOWED,
                "luns.d/g.yaml:5: access.tls-psk-file: two.psk is not base64 between the second and the last ':'; " + PSK_ALLOWED,
                "luns.d/h.yaml:5: access.tls-psk-file: a list is not a path; " + PSK_ALLOWED,
                "luns.d/i.yaml:5: access.tls-psk-file: keys is not a regular file; " + PSK_ALLOWED);
    }

    @Test
    void tlsNeedsAnNvmeExport() {
        config.secret("good.psk", PSK_01);
        lun("x", "export: { nvme: false }\naccess:\n  tls: required\n  tls-psk-file: good.psk\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:5: access.tls: only allowed for a LUN"
                + " exported over NVMe/TCP; this LUN has export.nvme: false");
    }

    @Test
    void aWorldReadablePskIsAWarning() throws Exception {
        config.secret("open.psk", PSK_01.getBytes(), "rw-r--r--");
        lun("x", "access: { tls: allowed, tls-psk-file: open.psk }\n");
        BlocktargetConfig loaded = config.load();
        assertThat(loaded.luns().getFirst().access().tls().mode()).isEqualTo(TlsMode.ALLOWED);
        assertThat(loaded.warnings()).anyMatch(w -> w.contains("access.tls-psk-file: ")
                && w.contains("is readable by every user") && !w.contains("VRLb"));
    }

    @Test
    void lunsOfOneSubsystemMustAgreeOnModeAndPsk() {
        config.secret("one.psk", PSK_01);
        config.secret("same.psk", PSK_01);
        config.secret("other.psk", PSK_02);
        String export = "export: { nvme: { subsystem: \"" + NQN + "\", nsid: %d } }\n";
        lun("a", export.formatted(1) + "access:\n  tls: required\n  tls-psk-file: one.psk\n");
        lun("b", export.formatted(2) + "access:\n  tls: required\n  tls-psk-file: same.psk\n");
        lun("c", export.formatted(3) + "access:\n  tls: required\n  tls-psk-file: other.psk\n");
        lun("d", export.formatted(4) + "access:\n  tls: allowed\n  tls-psk-file: one.psk\n");
        lun("e", export.formatted(5));
        String tail = " for the same NVMe subsystem " + NQN + "; allowed: the same access.tls in every LUN file"
                + " exporting one subsystem, or none in all of them";
        String a = tmp.resolve("luns.d/a.yaml") + ":5";
        assertThat(config.problems()).containsExactly(
                "luns.d/c.yaml:5: access.tls: this file has tls: required with a PSK with other secrets but " + a
                        + " has tls: required with a PSK" + tail,
                "luns.d/d.yaml:5: access.tls: this file has tls: allowed with a PSK but " + a
                        + " has tls: required with a PSK" + tail,
                "luns.d/e.yaml: access.tls: this file has tls: off but " + a + " has tls: required with a PSK" + tail);
    }

    @Test
    void tlsRoundTripsThroughTheWriter() throws Exception {
        config.secret("keys/tls.psk", PSK_01 + "\n");
        lun("x", "access:\n  tls: allowed\n  tls-psk-file: keys/tls.psk\n");
        lun("y", "access:\n  tls: off\n");
        BlocktargetConfig before = config.load();
        for (LunConfig lun : before.luns()) {
            LunFiles.prepare(tmp, lun, before.server()).commit();
        }
        String x = Files.readString(tmp.resolve("luns.d/x.yaml"));
        assertThat(x).doesNotContain("NVMeTLS").contains("tls: allowed", "tls-psk-file: "
                + tmp.resolve("keys/tls.psk").toAbsolutePath().normalize());
        assertThat(Files.readString(tmp.resolve("luns.d/y.yaml"))).doesNotContain("tls");
        assertThat(config.load().luns()).isEqualTo(before.luns());
    }
}
