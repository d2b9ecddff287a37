package io.blocktarget.server;

import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.IoKind;
import io.blocktarget.block.fault.FaultAction;
import io.blocktarget.block.fault.FaultBlockDevice;
import io.blocktarget.block.fault.FaultCommand;
import io.blocktarget.block.fault.FaultRule;
import io.blocktarget.block.fault.FaultStatus;
import io.blocktarget.block.fault.FaultTrigger;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.block.nil.NullBlockDevice;
import io.blocktarget.config.ConfigLoader;
import io.blocktarget.config.FaultRuleConfig;
import io.blocktarget.config.LunConfig;
import io.blocktarget.time.ManualClock;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** A LUN file's faults: become the block layer's rules, installed on the LUN's state with the device wrapped. */
class FaultRulesTest {

    @Test
    void operationKindsOfTheConfigAreTheBlockLayersKinds() {
        assertThat(FaultRuleConfig.OPERATION_KINDS)
                .containsExactlyElementsOf(Arrays.stream(IoKind.values()).map(IoKind::configName).toList());
    }

    private static FaultRule rule(String json) throws Exception {
        return FaultRules.of(ConfigLoader.readFaultRule(json, "f1"));
    }

    @Test
    void aPortalRuleHitsCommandsOfThatPortalOnly() throws Exception {
        FaultRuleConfig config = ConfigLoader.readFaultRule("{\"portal\": \"b\", \"action\": \"drop-connection\"}",
                "f1");
        FaultRule r = FaultRules.of(config, List.of("a", "b"));
        assertThat(r.match().portal()).as("portal b is the second: id 2").isEqualTo(2);
        assertThat(FaultRules.of(ConfigLoader.readFaultRule("{\"action\": \"drop-connection\"}", "f1"),
                List.of("a", "b")).match().portal()).as("no portal: any").isZero();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> FaultRules.of(config, List.of("a")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("portal b");

        io.blocktarget.block.fault.LunFaults faults = new io.blocktarget.block.fault.LunFaults(new ManualClock());
        faults.replace(List.of(r), List.of(config));
        assertThat(faults.command(new FaultCommand(FaultCommand.Protocol.SCSI, IoKind.READ, 0x28, 0, 1, "iqn.x", -1,
                1))).as("portal a serves").isNull();
        assertThat(faults.command(new FaultCommand(FaultCommand.Protocol.NVME, IoKind.READ, 2, 0, 1, "nqn.h", 1, 0)))
                .as("no known portal").isNull();
        assertThat(faults.command(new FaultCommand(FaultCommand.Protocol.NVME, IoKind.READ, 2, 0, 1, "nqn.h", 1, 2)))
                .as("portal b").isNotNull();
        assertThat(faults.command(new FaultCommand(FaultCommand.Protocol.SCSI, IoKind.WRITE, 0x2A, 0, 1, "iqn.x", -1,
                2))).isNotNull();
    }

    @Test
    void theNvmeStatusFieldBitsMap() throws Exception {
        assertThat(rule("{\"action\": \"status\", \"nvme-status\": \"3/02\", \"nvme-dnr\": false,"
                + " \"nvme-crd\": 2, \"nvme-more\": true}").action()).isEqualTo(new FaultAction.Fail(
                new FaultStatus(FaultStatus.Condition.EXPLICIT, -1, 0, 0, 3, 2, 0, 2, true)));
        assertThat(rule("{\"action\": \"status\", \"nvme-status\": \"7/ff\", \"nvme-dnr\": true}").action())
                .isEqualTo(new FaultAction.Fail(new FaultStatus(FaultStatus.Condition.EXPLICIT, -1, 0, 0, 7, 0xFF, 1,
                        0, false)));
    }

    @Test
    void everyTriggerAndActionMaps() throws Exception {
        FaultRule r = rule("{\"ops\": [\"read\", \"write-zeroes\"], \"lba\": \"5-9\", \"scsi-opcodes\": [\"0x28\"],"
                + " \"initiator\": \"iqn.x\", \"queue\": 3, \"trigger\": \"first\", \"count\": 4,"
                + " \"action\": \"status\", \"sense\": \"4/44/00\", \"nvme-status\": \"0/06\"}");
        assertThat(r.match().kinds()).containsExactlyInAnyOrder(IoKind.READ, IoKind.WRITE_ZEROES);
        assertThat(r.match().firstLba()).isEqualTo(5);
        assertThat(r.match().lastLba()).isEqualTo(9);
        assertThat(r.match().scsiOpcodes()).containsExactly(0x28);
        assertThat(r.match().initiator()).isEqualTo("iqn.x");
        assertThat(r.match().queue()).isEqualTo(3);
        assertThat(r.trigger()).isEqualTo(new FaultTrigger.FirstN(4));
        assertThat(r.action()).isEqualTo(new FaultAction.Fail(
                new FaultStatus(FaultStatus.Condition.EXPLICIT, 4, 0x44, 0, 0, 6)));
        assertThat(rule("{\"trigger\": \"every\", \"count\": 2, \"action\": \"busy\"}").trigger())
                .isEqualTo(new FaultTrigger.EveryNth(2));
        assertThat(rule("{\"trigger\": \"probability\", \"probability\": 0.5, \"seed\": 9, \"action\": \"busy\"}")
                .trigger()).isEqualTo(new FaultTrigger.Probability(0.5, 9));
        assertThat(rule("{\"trigger\": \"after\", \"after\": \"2s\", \"action\": \"busy\"}").trigger())
                .isEqualTo(new FaultTrigger.After(2_000_000_000L));
        assertThat(rule("{\"lba\": 1, \"trigger\": \"once-per-lba\", \"action\": \"busy\"}").trigger())
                .isEqualTo(new FaultTrigger.OncePerLba());
        assertThat(rule("{\"action\": \"delay\", \"delay\": \"1ms\", \"jitter\": \"2ms\"}").action())
                .isEqualTo(new FaultAction.Delay(1_000_000, 2_000_000));
        assertThat(rule("{\"action\": \"torn-write\", \"persist-blocks\": 3}").action())
                .isEqualTo(new FaultAction.TornWrite(3));
        assertThat(rule("{\"action\": \"throttle\", \"iops\": 50, \"bandwidth\": \"1MiB/s\"}").action())
                .isEqualTo(new FaultAction.Throttle(50, 1 << 20));
        assertThat(rule("{\"action\": \"corrupt-read\"}").action()).isEqualTo(new FaultAction.CorruptRead());
        assertThat(rule("{\"action\": \"no-response\"}").action()).isEqualTo(new FaultAction.NoResponse());
        for (String a : List.of("medium-error", "not-ready", "busy", "task-set-full", "aborted")) {
            assertThat(rule("{\"action\": \"" + a + "\"}").action()).isInstanceOf(FaultAction.Fail.class);
        }
    }

    @Test
    void aLunFilesRulesAreInstalledAndItsDeviceApplies() throws Exception {
        LunConfig config = ConfigLoader.readLun("f", """
                {"backend": "null", "size": "1MiB", "logical-block-size": 4096,
                 "faults": [{"ops": ["read"], "lba": "10-19", "action": "medium-error"}, {"action": "corrupt-read"}]}""",
                Optional.empty(), ConfigLoader.embeddedDefault().server(), List.of());
        LunState state = Lun.stateFor(config, new ManualClock());
        assertThat(state.faults().rules()).extracting(r -> r.rule().id()).containsExactly("f1", "f2");
        assertThat(state.faults().rules().getFirst().origin()).isEqualTo(config.features().faults().getFirst());
        assertThat(state.faults().command(new FaultCommand(FaultCommand.Protocol.SCSI, IoKind.READ, 0x28, 15, 1,
                "iqn.x", -1)).firstLba()).isEqualTo(15);
        Lun lun = new Lun(config, new NullBlockDevice("f", new BlockGeometry(4096, 4096, 256), false), state);
        assertThat(lun.device()).isInstanceOf(FaultBlockDevice.class);
        Lun again = new Lun(config, lun.device(), state);
        assertThat(again.device()).as("wrapped once").isSameAs(lun.device());
        lun.device().close();
    }
}
