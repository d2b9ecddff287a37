package io.blocktarget.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The keys of partial-transfer and the connection faults (drop, stall, digest, Async logout, keep-alive stall) and
 * the delay's seed: defaults, each problem exactly, and the LunWriter round trip.
 */
class TransportFaultConfigTest extends ConfigDirTest {
    private static final String HEAD = "backend: ram\nsize: 1GiB\nfaults:\n";

    private List<FaultRuleConfig> faults(String yaml) throws Exception {
        config.lun("f", HEAD + yaml);
        return config.load().luns().getFirst().features().faults();
    }

    @Test
    void defaults() throws Exception {
        List<FaultRuleConfig> rules = faults("""
                  - { action: partial-transfer }
                  - { action: stall-connection }
                  - { action: corrupt-digest, digest: data }
                  - { action: async-logout }
                  - { action: drop-connection, ops: [read], lba: 5 }
                  - { action: keep-alive-stall, initiator: nqn.2014-08.org.example:h }
                """);
        FaultRuleConfig.Transport partial = rules.get(0).transport();
        assertThat(partial.transferBlocks()).isZero();
        assertThat(partial.partialStatus()).isEqualTo(FaultRuleConfig.PartialStatus.GOOD);
        assertThat(rules.get(1).transport().stallNanos()).isZero();
        assertThat(rules.get(1).transport().stallDirection()).isEqualTo(FaultRuleConfig.StallDirection.BOTH);
        assertThat(rules.get(2).transport().digest()).isEqualTo(FaultRuleConfig.DigestKind.DATA);
        assertThat(rules.get(3).transport().logoutSeconds()).isEqualTo(FaultRuleConfig.DEFAULT_LOGOUT_SECONDS);
        assertThat(rules.get(4).action()).isEqualTo(FaultRuleConfig.Action.DROP_CONNECTION);
        assertThat(rules.get(5).initiator()).contains("nqn.2014-08.org.example:h");
        // defaults are left out of the written form
        assertThat(FaultWriter.document(rules.get(0))).containsOnlyKeys("id", "action");
        assertThat(FaultWriter.document(rules.get(1))).containsOnlyKeys("id", "action");
        assertThat(FaultWriter.document(rules.get(3))).containsOnlyKeys("id", "action");
    }

    @Test
    void everyKeyRoundTripsThroughLunWriter() throws Exception {
        config.lun("f", HEAD + """
                  - { id: a, ops: [read], action: partial-transfer, transfer-blocks: 3, scsi-status: check-condition }
                  - { id: b, trigger: first, count: 1, action: stall-connection, stall: 30s, stall-direction: receive }
                  - { id: c, action: stall-connection, stall-direction: send }
                  - { id: d, action: corrupt-digest, digest: header }
                  - { id: e, initiator: iqn.1994-05.com.redhat:x, action: async-logout, logout-within: 0 }
                  - { id: f, trigger: every, count: 4, action: drop-connection }
                  - { id: g, trigger: first, count: 2, action: keep-alive-stall }
                  - { id: h, action: delay, delay: 1ms, jitter: 2ms, seed: 42 }
                """);
        BlocktargetConfig before = config.load();
        LunConfig lun = before.luns().getFirst();
        assertThat(lun.features().faults()).hasSize(8);
        LunFiles.prepare(tmp, lun, before.server()).commit();
        assertThat(config.load().luns()).isEqualTo(before.luns());
        List<FaultRuleConfig> r = lun.features().faults();
        assertThat(r.get(0).transport().transferBlocks()).isEqualTo(3);
        assertThat(FaultWriter.document(r.get(0)).get("scsi-status")).isEqualTo("check-condition");
        assertThat(r.get(1).transport().stallNanos()).isEqualTo(30_000_000_000L);
        assertThat(FaultWriter.document(r.get(1)).get("stall")).isEqualTo("30s");
        assertThat(FaultWriter.document(r.get(2)).get("stall-direction")).isEqualTo("send");
        assertThat(FaultWriter.document(r.get(3)).get("digest")).isEqualTo("header");
        assertThat(r.get(4).transport().logoutSeconds()).isZero();
        assertThat(FaultWriter.document(r.get(4)).get("logout-within")).isEqualTo(0);
        assertThat(r.get(7).seed()).isEqualTo(42);
        assertThat(FaultWriter.document(r.get(7)).get("seed")).isEqualTo(42L);
    }

    @Test
    void problemsNameTheKeyAndWhatIsAllowed() {
        config.lun("f", HEAD + """
                  - { action: partial-transfer, ops: [flush] }
                  - { action: partial-transfer, scsi-status: bad }
                  - { action: busy, transfer-blocks: 2 }
                  - { action: corrupt-digest }
                  - { action: corrupt-digest, digest: both }
                  - { action: stall-connection, stall-direction: up }
                  - { action: drop-connection, stall: 1s }
                  - { action: async-logout, logout-within: 3601 }
                  - { action: keep-alive-stall, ops: [read], lba: 1, queue: 1 }
                  - { action: busy, seed: 3 }
                  - { action: partial-transfer, transfer-blocks: -1 }
                """);
        assertThat(config.problems()).containsExactly(
                "luns.d/f.yaml:4: faults[0].ops: action: partial-transfer applies to reads and writes only; allowed:"
                        + " [read], [write], [read, write] or no ops",
                "luns.d/f.yaml:5: faults[1].scsi-status: bad is not a SCSI status; allowed: good, check-condition",
                "luns.d/f.yaml:6: faults[2].transfer-blocks: only with action: partial-transfer; this rule has action:"
                        + " busy",
                "luns.d/f.yaml:7: faults[3].digest: missing; allowed: header, data",
                "luns.d/f.yaml:8: faults[4].digest: both is not a digest; allowed: header, data",
                "luns.d/f.yaml:9: faults[5].stall-direction: up is not a direction; allowed: both, receive, send",
                "luns.d/f.yaml:10: faults[6].stall: only with action: stall-connection; this rule has action:"
                        + " drop-connection",
                "luns.d/f.yaml:11: faults[7].logout-within: 3601 is out of range; allowed: seconds the initiator has"
                        + " to log out (AsyncEvent 1 Parameter3), 0 to 3600",
                "luns.d/f.yaml:12: faults[8].ops: not with action: keep-alive-stall (it matches NVMe Keep Alive"
                        + " commands only); allowed: initiator, portal and a trigger",
                "luns.d/f.yaml:12: faults[8].lba: not with action: keep-alive-stall (it matches NVMe Keep Alive"
                        + " commands only); allowed: initiator, portal and a trigger",
                "luns.d/f.yaml:12: faults[8].queue: not with action: keep-alive-stall (it matches NVMe Keep Alive"
                        + " commands only); allowed: initiator, portal and a trigger",
                "luns.d/f.yaml:13: faults[9].seed: only with trigger: probability or action: delay; this rule has"
                        + " trigger: always",
                "luns.d/f.yaml:14: faults[10].transfer-blocks: -1 is out of range; allowed: blocks that are"
                        + " transferred, 0 = half of them (at most all but one)");
    }
}
