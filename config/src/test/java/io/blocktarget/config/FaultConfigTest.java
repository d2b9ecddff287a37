package io.blocktarget.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The {@code faults:} list of a LUN file: each rule's problem exactly, defaults, and the LunWriter round trip. */
class FaultConfigTest extends ConfigDirTest {
    private static final String HEAD = "backend: ram\nsize: 1GiB\nfaults:\n";

    private List<FaultRuleConfig> faults(String yaml) throws Exception {
        config.lun("f", HEAD + yaml);
        return config.load().luns().getFirst().features().faults();
    }

    @Test
    void aMediumErrorRangeReadsWithDefaults() throws Exception {
        List<FaultRuleConfig> rules = faults("  - { ops: [read], lba: 1000-1099, action: medium-error }\n"
                + "  - { action: no-response, ops: read }\n");
        assertThat(rules).hasSize(2);
        FaultRuleConfig r = rules.getFirst();
        assertThat(r.id()).isEqualTo("f1");
        assertThat(r.ops()).containsExactly("read");
        assertThat(r.firstLba()).isEqualTo(1000);
        assertThat(r.lastLba()).isEqualTo(1099);
        assertThat(r.trigger()).isEqualTo(FaultRuleConfig.Trigger.ALWAYS);
        assertThat(r.action()).isEqualTo(FaultRuleConfig.Action.MEDIUM_ERROR);
        assertThat(rules.get(1).id()).isEqualTo("f2");
        assertThat(rules.get(1).hasLbaRange()).isFalse();
    }

    @Test
    void everyKeyRoundTripsThroughLunWriter() throws Exception {
        config.lun("f", HEAD + """
                  - { id: a, ops: [read, write], lba: 7, scsi-opcodes: [0x28, 136], nvme-opcodes: [2], trigger: first, count: 3, action: status, sense: 3/11/00, nvme-status: 2/81 }
                  - { id: b, initiator: iqn.2026-11.test:host, queue: 2, trigger: probability, probability: 0.25, seed: 7, action: delay, delay: 10ms, jitter: 1500us }
                  - { id: c, trigger: every, count: 10, action: busy }
                  - { id: d, trigger: after, after: 2s, action: not-ready }
                  - { id: e, lba: 0-99, trigger: once-per-lba, ops: [read], action: corrupt-read }
                  - { id: g, action: torn-write, persist-blocks: 2 }
                  - { id: h, action: task-set-full }
                  - { id: i, action: aborted }
                  - { id: j, action: no-response }
                  - { id: k, action: throttle, iops: 100, bandwidth: 10MiB/s }
                  - { id: l, ops: [write], action: throttle, bandwidth: 1000 }
                """);
        BlocktargetConfig before = config.load();
        LunConfig lun = before.luns().getFirst();
        assertThat(lun.features().faults()).hasSize(11);
        LunFiles.prepare(tmp, lun, before.server()).commit();
        assertThat(config.load().luns()).isEqualTo(before.luns());
        FaultRuleConfig b = lun.features().faults().get(1);
        assertThat(b.delayNanos()).isEqualTo(10_000_000);
        assertThat(b.jitterNanos()).isEqualTo(1_500_000);
        assertThat(FaultWriter.document(b).get("jitter")).isEqualTo("1500us");
        assertThat(FaultWriter.document(lun.features().faults().getFirst()).get("scsi-opcodes"))
                .isEqualTo(List.of("0x28", "0x88"));
    }

    /** {@code queries:} (issue 32): read, written back, and an unknown query named with the allowed ones. */
    @Test
    void placementQueriesRoundTripAndUnknownOnesAreRefused() throws Exception {
        config.lun("f", HEAD + """
                  - { id: q, queries: [fdp-configurations, stream-status], action: status, nvme-status: 0/02, sense: 5/24/00 }
                """);
        BlocktargetConfig before = config.load();
        FaultRuleConfig q = before.luns().getFirst().features().faults().getFirst();
        assertThat(q.queries()).containsExactly("fdp-configurations", "stream-status");
        assertThat(FaultWriter.document(q).get("queries")).isEqualTo(List.of("fdp-configurations", "stream-status"));
        LunFiles.prepare(tmp, before.luns().getFirst(), before.server()).commit();
        assertThat(config.load().luns()).isEqualTo(before.luns());
        config.lun("f", HEAD + """
                  - { queries: [fdp-config], action: busy }
                """);
        assertThat(config.problems()).containsExactly("luns.d/f.yaml:4: faults[0].queries: fdp-config is not a"
                + " data placement query; allowed: fdp-feature, fdp-configurations, ruh-status, block-limits-extension,"
                + " io-advice-hints, stream-status");
    }

    @Test
    void problemsNameTheKeyAndWhatIsAllowed() {
        config.lun("f", HEAD + """
                  - { lba: 10-5, action: medium-error }
                  - { action: explode }
                  - { trigger: first, action: busy }
                  - { trigger: always, count: 2, action: busy }
                  - { action: status }
                  - { action: status, sense: 3/11, nvme-status: 0/00 }
                  - { action: delay }
                  - { action: corrupt-read, initiator: iqn.x, ops: [write] }
                  - { trigger: once-per-lba, action: medium-error }
                  - { ops: [reed], action: busy, id: Bad }
                  - { id: dup, action: busy }
                  - { id: dup, action: busy }
                  - { action: delay, delay: 10 }
                  - { trigger: probability, probability: 2, action: busy }
                """);
        assertThat(config.problems()).containsExactly(
                "luns.d/f.yaml:4: faults[0].lba: 10-5 is not a range from a smaller to a larger LBA; allowed: an LBA"
                        + " or an inclusive range FIRST-LAST, e.g. 1000-1099",
                "luns.d/f.yaml:5: faults[1].action: explode is not an action; allowed: medium-error, not-ready, busy,"
                        + " task-set-full, aborted, status, no-response, delay, throttle, corrupt-read, torn-write,"
                        + " partial-transfer, drop-connection, stall-connection, corrupt-digest, async-logout,"
                        + " keep-alive-stall",
                "luns.d/f.yaml:6: faults[2].count: missing; allowed: a count of commands, at least 1",
                "luns.d/f.yaml:7: faults[3].count: only with trigger: first or every; this rule has trigger: always",
                "luns.d/f.yaml:8: faults[4].action: status needs sense, nvme-status or both; allowed: sense: "
                        + FaultKeys.SENSE_ALLOWED + "; nvme-status: " + FaultKeys.NVME_ALLOWED,
                "luns.d/f.yaml:9: faults[5].sense: 3/11 is not KEY/ASC/ASCQ; allowed: " + FaultKeys.SENSE_ALLOWED,
                "luns.d/f.yaml:9: faults[5].nvme-status: 0/00 is out of range or success; allowed: "
                        + FaultKeys.NVME_ALLOWED,
                "luns.d/f.yaml:10: faults[6].delay: missing; allowed: " + FaultReader.DURATION_ALLOWED,
                "luns.d/f.yaml:11: faults[7].initiator: not with action: corrupt-read (applied by the device, which"
                        + " does not know the sender); allowed: ops, lba and a trigger",
                "luns.d/f.yaml:11: faults[7].ops: action: corrupt-read applies to reads only; allowed: [read] or no ops",
                "luns.d/f.yaml:12: faults[8].trigger: once-per-lba needs an lba range; allowed: lba: "
                        + FaultKeys.LBA_ALLOWED,
                "luns.d/f.yaml:13: faults[9].id: Bad is not an id; allowed: " + FaultKeys.ID_ALLOWED,
                "luns.d/f.yaml:13: faults[9].ops: reed is not an operation kind; allowed: read, write, flush, unmap,"
                        + " write-zeroes, compare, verify, copy, atomic-write, zone-management, zone-append, other",
                "luns.d/f.yaml:15: faults[11].id: dup is the id of an earlier rule; allowed: each id once per LUN",
                "luns.d/f.yaml:16: faults[12].delay: 10 has no unit; allowed: " + FaultReader.DURATION_ALLOWED,
                "luns.d/f.yaml:17: faults[13].probability: 2 is not a probability; allowed: a number in (0, 1], e.g. 0.01");
    }

    @Test
    void throttleNeedsALimitAndItsKeysOnlyGoWithIt() {
        config.lun("f", HEAD + """
                  - { action: throttle }
                  - { action: busy, iops: 5 }
                  - { action: throttle, bandwidth: 0 }
                """);
        assertThat(config.problems()).containsExactly(
                "luns.d/f.yaml:4: faults[0].action: throttle needs iops, bandwidth or both; allowed: iops: a number per"
                        + " second; bandwidth: " + FaultKeys.THROTTLE_ALLOWED,
                "luns.d/f.yaml:5: faults[1].iops: only with action: throttle; this rule has action: busy",
                "luns.d/f.yaml:6: faults[2].bandwidth: 0 is not positive; allowed: " + FaultKeys.THROTTLE_ALLOWED);
    }

    @Test
    void faultsMustBeAList() {
        config.lun("f", "backend: ram\nsize: 1GiB\nfaults: medium-error\n");
        assertThat(config.problems()).containsExactly("luns.d/f.yaml:3: faults: medium-error is not a list; allowed:"
                + " a list of fault rules, each a map with the keys " + String.join(", ", FaultKeys.FAULT_RULE.names()));
    }

    @Test
    void aRuleAloneIsReadForTheControlApi() throws Exception {
        FaultRuleConfig r = ConfigLoader.readFaultRule("{\"lba\": \"1000-1099\", \"action\": \"medium-error\"}", "f3");
        assertThat(r.id()).isEqualTo("f3");
        assertThat(r.firstLba()).isEqualTo(1000);
        ConfigException e = catchThrowableOfType(ConfigException.class,
                () -> ConfigLoader.readFaultRule("{\"lba\": \"x\", \"action\": \"busy\"}", "f1"));
        assertThat(e.problems()).hasSize(1);
        assertThat(e.problems().getFirst().key()).isEqualTo("lba");
        e = catchThrowableOfType(ConfigException.class, () -> ConfigLoader.readFaultRule("[1]", "f1"));
        assertThat(e.problems().getFirst().message()).startsWith("a list is not a fault rule");
    }

    @Test
    void durationsParseExactly() throws Exception {
        assertThat(FaultReader.parseDuration("10ms")).isEqualTo(10_000_000);
        assertThat(FaultReader.parseDuration("1.5s")).isEqualTo(1_500_000_000);
        assertThat(FaultReader.parseDuration("3600s")).isEqualTo(3_600_000_000_000L);
        assertThat(catchThrowableOfType(InvalidValue.class, () -> FaultReader.parseDuration("3601s"))).isNotNull();
        assertThat(catchThrowableOfType(InvalidValue.class, () -> FaultReader.parseDuration("0.5ns"))).isNotNull();
        assertThat(FaultReader.formatDuration(0)).isEqualTo("0ns");
        assertThat(FaultReader.formatDuration(2_000_000_000)).isEqualTo("2s");
    }
}
