package io.blocktarget.transport.iscsi;

import io.blocktarget.protocol.iscsi.DataIn;
import io.blocktarget.protocol.iscsi.Digest;
import io.blocktarget.protocol.iscsi.LoginResponse;
import io.blocktarget.protocol.iscsi.LoginStatus;
import io.blocktarget.protocol.iscsi.LogoutResponse;
import io.blocktarget.protocol.iscsi.Reject;
import io.blocktarget.protocol.iscsi.ScsiResponse;
import io.blocktarget.protocol.iscsi.TargetPdu;
import io.blocktarget.protocol.iscsi.TextParameters;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Replays what a real Linux initiator (kernel 7.3 iscsi_tcp + open-iscsi 2.1.8) sent to tgt — login,
 * SCSI scan, a 4 KiB read and write, logout; captures in protocol/src/test/resources/iscsi with their
 * provenance — into our target, all at once and at random splits, and checks every command is answered.
 */
class CapturedInitiatorReplayTest {
    private static final Path CAPTURES = Path.of("..", "protocol", "src", "test", "resources", "iscsi");

    static byte[] load(String name) throws IOException {
        StringBuilder hex = new StringBuilder();
        for (String line : Files.readAllLines(CAPTURES.resolve(name))) {
            if (!line.startsWith("#")) {
                hex.append(line.strip());
            }
        }
        return HexFormat.of().parseHex(hex);
    }

    @ParameterizedTest(name = "{0} split {1}")
    @CsvSource({"openiscsi-nodigest-initiator.hex, 0, NONE", "openiscsi-nodigest-initiator.hex, 7, NONE",
            "openiscsi-crc32c-initiator.hex, 0, CRC32C", "openiscsi-crc32c-initiator.hex, 13, CRC32C"})
    void linuxSessionIsServedFromLoginToLogout(String capture, long seed, Digest digest) throws IOException {
        byte[] stream = load(capture);
        RamTestTarget target = new RamTestTarget("iqn.2024-01.test.tgt:cap", 512, 64 * 2048);
        try (Harness h = new Harness(Harness.transport(IscsiSettings.defaults(), target))) {
            if (seed == 0) {
                h.sendRaw(stream);
            } else {
                Random random = new Random(seed);
                for (int at = 0; at < stream.length; ) {
                    int n = Math.min(stream.length - at, 1 + random.nextInt(700));
                    h.sendRaw(java.util.Arrays.copyOfRange(stream, at, at + n));
                    at += n;
                }
            }
            List<TargetPdu> answers = new ArrayList<>();
            TargetPdu first = h.receive();
            assertThat(first).isInstanceOf(LoginResponse.class);
            LoginResponse login = (LoginResponse) first;
            assertThat(login.status()).isEqualTo(LoginStatus.SUCCESS);
            assertThat(login.tsih()).isNotZero();
            TextParameters keys = Harness.keys(login);
            assertThat(keys.get("HeaderDigest")).contains(digest.keyValue());
            assertThat(keys.get("DataDigest")).contains(digest.keyValue());
            login.release();
            h.headerDigest = digest;
            h.dataDigest = digest;
            TargetPdu p;
            while ((p = h.receive()) != null) {
                answers.add(p);
            }
            assertThat(answers).noneMatch(a -> a instanceof Reject);
            assertThat(answers.getLast()).isInstanceOf(LogoutResponse.class);
            long statuses = answers.stream().filter(a -> a instanceof ScsiResponse
                    || (a instanceof DataIn d && d.status().isPresent())).count();
            long commands = target.events().stream().filter(e -> e.startsWith("op ")).count();
            assertThat(commands).isGreaterThanOrEqualTo(3);
            assertThat(statuses).isEqualTo(commands);
            answers.forEach(TargetPdu::release);
            assertThat(h.open()).isFalse();
        }
    }
}
