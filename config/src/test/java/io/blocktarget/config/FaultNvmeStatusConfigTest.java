package io.blocktarget.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@code nvme-status: SCT/SC} of a status rule takes any Status Code Type 0..7 and Status Code 00..ff but success
 * (NVMe Base 2.x §4.2.3, Figure "Completion Queue Entry: Status Field"), named by blocktarget or not, and the Status
 * Field bits beside it: {@code nvme-dnr} (Do Not Retry), {@code nvme-crd} (Command Retry Delay 0..3) and
 * {@code nvme-more} (M), each only with an {@code nvme-status}; LunWriter and the control API's JSON carry them.
 */
class FaultNvmeStatusConfigTest extends ConfigDirTest {
    private static final String HEAD = "backend: ram\nsize: 1GiB\nfaults:\n";
    private static final String CRD_ALLOWED = "0..3: 0 = retry at once, 1..3 = after CRDT1..CRDT3 of Identify"
            + " Controller";

    private List<FaultRuleConfig> faults(String yaml) throws Exception {
        config.lun("f", HEAD + yaml);
        return config.load().luns().getFirst().features().faults();
    }

    @Test
    void anyPairButSuccessWithTheBitsTheRuleChooses() throws Exception {
        List<FaultRuleConfig> rules = faults("""
                  - { action: status, nvme-status: 1/C0 }
                  - { action: status, nvme-status: 3/02, nvme-dnr: false }
                  - { action: status, nvme-status: 7/ff, nvme-dnr: true, nvme-crd: 3, nvme-more: true }
                  - { action: status, nvme-status: 0/01, nvme-dnr: false, nvme-crd: 0 }
                  - { action: status, nvme-status: 0/ff, sense: 3/11/00, nvme-more: false }
                  - { action: status, nvme-status: 7/00 }
                """);
        assertThat(rules).extracting(FaultRuleConfig::nvmeStatus).containsExactly(
                Optional.of(new FaultRuleConfig.NvmeCode(1, 0xC0, Optional.empty(), 0, false)),
                Optional.of(new FaultRuleConfig.NvmeCode(3, 0x02, Optional.of(false), 0, false)),
                Optional.of(new FaultRuleConfig.NvmeCode(7, 0xFF, Optional.of(true), 3, true)),
                Optional.of(new FaultRuleConfig.NvmeCode(0, 0x01, Optional.of(false), 0, false)),
                Optional.of(new FaultRuleConfig.NvmeCode(0, 0xFF, Optional.empty(), 0, false)),
                Optional.of(new FaultRuleConfig.NvmeCode(7, 0x00, Optional.empty(), 0, false)));
        assertThat(rules.getFirst().nvmeStatus().orElseThrow()).hasToString("1/c0");
    }

    @Test
    void outOfRangeSuccessAndBitsWithoutAStatusAreProblems() {
        config.lun("f", HEAD + """
                  - { action: status, nvme-status: 8/00 }
                  - { action: status, nvme-status: 0/100 }
                  - { action: status, nvme-status: 0/00 }
                  - { action: status, nvme-status: 2/81, nvme-dnr: yes }
                  - { action: status, nvme-status: 2/81, nvme-crd: 4 }
                  - { action: status, sense: 3/11/00, nvme-dnr: true }
                  - { action: busy, nvme-dnr: true }
                  - { action: status, nvme-status: 2/81, nvme-more: 1 }
                  - { action: status, sense: 3/11/00, nvme-crd: 1, nvme-more: true }
                """);
        String status = "; allowed: " + FaultKeys.NVME_ALLOWED;
        String without = "only with nvme-status (the NVMe status it qualifies); this rule has none; allowed:"
                + " nvme-status: " + FaultKeys.NVME_ALLOWED;
        assertThat(config.problems()).containsExactly(
                "luns.d/f.yaml:4: faults[0].nvme-status: 8/00 is out of range or success" + status,
                "luns.d/f.yaml:5: faults[1].nvme-status: 0/100 is out of range or success" + status,
                "luns.d/f.yaml:6: faults[2].nvme-status: 0/00 is out of range or success" + status,
                "luns.d/f.yaml:7: faults[3].nvme-dnr: yes is not a boolean; allowed: true or false",
                "luns.d/f.yaml:8: faults[4].nvme-crd: 4 is out of range; allowed: " + CRD_ALLOWED,
                "luns.d/f.yaml:9: faults[5].nvme-dnr: " + without,
                "luns.d/f.yaml:10: faults[6].nvme-dnr: only with action: status; this rule has action: busy",
                "luns.d/f.yaml:11: faults[7].nvme-more: 1 is not a boolean; allowed: true or false",
                "luns.d/f.yaml:12: faults[8].nvme-crd: " + without,
                "luns.d/f.yaml:12: faults[8].nvme-more: " + without);
    }

    @Test
    void theBitsRoundTripThroughLunWriterAndAreLeftOutAtTheirDefaults() throws Exception {
        config.lun("f", HEAD + """
                  - { id: a, action: status, nvme-status: 3/02, nvme-dnr: false, nvme-crd: 1, nvme-more: true }
                  - { id: b, action: status, nvme-status: 1/c0, nvme-dnr: true }
                  - { id: c, action: status, nvme-status: 7/ff }
                """);
        BlocktargetConfig before = config.load();
        LunConfig lun = before.luns().getFirst();
        LunFiles.prepare(tmp, lun, before.server()).commit();
        assertThat(config.load().luns()).isEqualTo(before.luns());
        List<FaultRuleConfig> rules = lun.features().faults();
        assertThat(FaultWriter.document(rules.get(0))).containsEntry("nvme-status", "3/02")
                .containsEntry("nvme-dnr", false).containsEntry("nvme-crd", 1).containsEntry("nvme-more", true);
        assertThat(FaultWriter.document(rules.get(1))).containsEntry("nvme-status", "1/c0")
                .containsEntry("nvme-dnr", true).doesNotContainKeys("nvme-crd", "nvme-more");
        assertThat(FaultWriter.document(rules.get(2))).containsEntry("nvme-status", "7/ff")
                .doesNotContainKeys("nvme-dnr", "nvme-crd", "nvme-more");
    }

    @Test
    void theControlApisJsonTakesThem() throws Exception {
        FaultRuleConfig r = ConfigLoader.readFaultRule("{\"action\": \"status\", \"nvme-status\": \"7/ff\","
                + " \"nvme-dnr\": true, \"nvme-crd\": 2}", "f1");
        assertThat(r.nvmeStatus()).contains(new FaultRuleConfig.NvmeCode(7, 0xFF, Optional.of(true), 2, false));
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ConfigLoader.readFaultRule(
                "{\"action\": \"status\", \"sense\": \"3/11/00\", \"nvme-dnr\": false}", "f1"));
        assertThat(e.problems()).hasSize(1);
        assertThat(e.problems().getFirst().key()).isEqualTo("nvme-dnr");
    }
}
