package io.blocktarget.it;

import io.blocktarget.config.TlsPsk;
import io.blocktarget.transport.nvmetcp.TlsPskIdentity;
import io.blocktarget.transport.nvmetcp.TlsPskIdentity.Derivation;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The PSK identities and TLS PSKs the target derives are the ones Linux derives (issue 14 item 2; guest script
 * {@code vm/tls-keys-check.sh}): the guest's nvme-cli 2.13 / libnvme 1.13 {@code check-tls-key --insert} puts the
 * TLS PSK into the kernel's {@code .nvme} keyring under its identity — exactly what {@code nvme connect --tls} has
 * tlshd offer in its ClientHello — for identity versions 0 and 1, SHA-256 and SHA-384 (nvme-cli 2.13 has no
 * {@code --compat}); each identity must equal {@link TlsPskIdentity}'s, and the PSK too where the guest's kernel lets {@code keyctl pipe} read it. Keys printed by
 * {@code nvme gen-tls-key} must parse as {@link TlsPsk}. No target is involved; LinuxTlsIT does the handshake.
 */
@Tag("vm")
class LinuxTlsKeysIT {
    /** libnvme test/psk.c's configured key (the same vectors TlsPskIdentityTest uses), hash 01 and 02. */
    private static final String KEY01 = "NVMeTLSkey-1:01:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:";
    private static final String KEY02 =
            "NVMeTLSkey-1:02:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwP/w0S89ELi3W2LxIcLXVsDn8kXZQ==:";
    private static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:6e1c2f3a-3b1d-4c8e-9a55-1a2b3c4d5e6f";
    private static final String SUB = "nqn.2026-11.io.blocktarget:tls";

    @Test
    void identitiesAndPsksAreLinuxs() throws Exception {
        InitiatorVm.assumeAvailable();
        Path script = Path.of(LinuxTlsKeysIT.class.getResource("/vm/tls-keys-check.sh").toURI());
        try (InitiatorVm vm = InitiatorVm.create("tlskeys")) {
            InitiatorVm.Result result = vm.runGuest(script, Map.of("KEY01", KEY01, "KEY02", KEY02, "HOST", HOST,
                    "SUB", SUB));
            GuestReport report = GuestReport.parse(result.output());
            String context = result.output();
            System.out.println("[tls-keys / kernel latest]\n" + context);
            assertThat(result.exitCode()).as(context).isZero();
            assertThat(report.failures()).as(context).isEmpty();
            List<String> compared = new ArrayList<>();
            for (String line : result.output().split("\n")) {
                String[] f = line.trim().split(" ", 6);
                if (f[0].equals("PSK")) {
                    int version = Integer.parseInt(f[1]);
                    Derivation derivation = f[2].equals("1") ? Derivation.COMPAT : Derivation.RFC8446;
                    TlsPsk configured = TlsPsk.parse(f[3].equals("01") ? KEY01 : KEY02);
                    TlsPskIdentity mine = TlsPskIdentity.of(version, configured.hmac(), configured.key(), HOST, SUB,
                            derivation);
                    if (version == 1 && !f[5].equals(mine.text())) {
                        // the digest depends on the retained PSK, i.e. on which HkdfLabel the guest's libnvme used
                        // (its nvme-cli 2.13 has no --compat switch): the server tries both, so does this check
                        derivation = Derivation.COMPAT;
                        mine = TlsPskIdentity.of(version, configured.hmac(), configured.key(), HOST, SUB, derivation);
                    }
                    assertThat(f[5]).as(line).isEqualTo(mine.text());
                    // what the server does with the identity alone: derive a TLS PSK from the configured key
                    assertThat(TlsPskIdentity.parse(f[5].getBytes(StandardCharsets.US_ASCII)).orElseThrow()
                            .tlsPsk(configured.hmac(), configured.key())).as(line).isPresent();
                    System.out.println("[tls-keys] " + f[5].substring(0, 8) + " hash " + f[3] + ": " + derivation);
                    if (f[4].equals("-")) {      // the guest's kernel kept the PSK unreadable: identity only
                        compared.add(f[1] + "/" + f[2] + "/" + f[3]);
                        continue;
                    }
                    byte[] retained = TlsPskIdentity.retained(configured.hmac(), configured.key(), HOST, derivation);
                    assertThat(HexFormat.of().formatHex(mine.tlsPsk(retained, derivation))).as(line).isEqualTo(f[4]);
                    // What the server does with the identity alone (version 1: the digest picks the derivation).
                    TlsPskIdentity parsed = TlsPskIdentity.parse(f[5].getBytes(StandardCharsets.US_ASCII))
                            .orElseThrow();
                    if (version == 1 || derivation == Derivation.RFC8446) {
                        assertThat(parsed.tlsPsk(configured.hmac(), configured.key()).map(HexFormat.of()::formatHex))
                                .as(line).contains(f[4]);
                    }
                    compared.add(f[1] + "/" + f[2] + "/" + f[3]);
                } else if (f[0].equals("GEN")) {
                    TlsPsk generated = TlsPsk.parse(f[2]);
                    assertThat(generated.hmac()).as(line).isEqualTo(Integer.parseInt(f[1]));
                    assertThat(generated.length()).as(line).isEqualTo(f[1].equals("01") ? 32 : 48);
                    assertThat(generated.interchange()).as(line).isEqualTo(f[2]);
                    compared.add("gen" + f[1]);
                }
            }
            assertThat(compared).as(context).containsExactlyInAnyOrder("0/0/01", "1/0/01", "0/0/02", "1/0/02",
                    "gen01", "gen02");
        }
    }
}
