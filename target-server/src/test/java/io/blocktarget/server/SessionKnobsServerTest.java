package io.blocktarget.server;

import io.blocktarget.config.AccessConfig;
import io.blocktarget.config.BackendKind;
import io.blocktarget.config.DeviceKnobs;
import io.blocktarget.config.DeviceKnobs.Session;
import io.blocktarget.config.IscsiExport;
import io.blocktarget.config.LunConfig;
import io.blocktarget.config.LunFeatures;
import io.blocktarget.nvme.NvmeLimits;
import io.blocktarget.transport.iscsi.IscsiSettings;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** Issue 11 session: knobs: the config's defaults are the transports' values, and each target gets its own. */
class SessionKnobsServerTest {
    private static LunConfig lun(String name, String target, DeviceKnobs knobs) {
        return new LunConfig(name, null, BackendKind.RAM, 1L << 30, 4096, 4096,
                Optional.of(new IscsiExport(target, 0)), Optional.empty(), false, Optional.empty(), AccessConfig.OPEN,
                LunFeatures.NONE.withKnobs(knobs));
    }

    @Test
    void theConfigDefaultsAreTheTransportsValues() {
        NvmeLimits nvme = NvmeLimits.DEFAULT;
        assertThat(nvme.maxDataTransferBytes()).isEqualTo(Session.MDTS.defaultValue());
        assertThat(nvme.ioInCapsuleDataBytes()).isEqualTo(Session.IN_CAPSULE_DATA.defaultValue());
        assertThat(nvme.maxIoQueues()).isEqualTo(Session.IO_QUEUES.defaultValue());
        assertThat(nvme.maxQueueEntries()).isEqualTo(Session.QUEUE_SIZE.defaultValue());
        IscsiSettings iscsi = IscsiSettings.defaults();
        assertThat(iscsi.maxRecvDataSegmentLength()).isEqualTo(Session.MAX_RECV_DATA_SEGMENT_LENGTH.defaultValue());
        assertThat(iscsi.maxBurstLength()).isEqualTo(Session.MAX_BURST_LENGTH.defaultValue());
        assertThat(iscsi.firstBurstLength()).isEqualTo(Session.FIRST_BURST_LENGTH.defaultValue());
        assertThat(iscsi.queueDepth()).isEqualTo(Session.QUEUE_DEPTH.defaultValue());
        assertThat(nvme.forSubsystem(DeviceKnobs.DEFAULTS)).isSameAs(nvme);
    }

    @Test
    void eachTargetTakesItsLunsValuesAndTheServersForTheRest() throws Exception {
        DeviceKnobs small = DeviceKnobs.DEFAULTS.withSession(Map.of(Session.QUEUE_DEPTH, 4L,
                Session.MAX_BURST_LENGTH, 512L << 10, Session.MDTS, 64L << 10));
        DeviceKnobs nvmeOnly = DeviceKnobs.DEFAULTS.withSession(Map.of(Session.MDTS, 64L << 10));
        ExportPlan plan = ExportPlan.of(io.blocktarget.config.ConfigLoader.embeddedDefault().server(), List.of(
                lun("a", "iqn.2026-11.io.blocktarget:a", small),
                lun("b", "iqn.2026-11.io.blocktarget:b", DeviceKnobs.DEFAULTS),
                lun("c", "iqn.2026-11.io.blocktarget:c", nvmeOnly)));
        Map<String, IscsiSettings.SessionLimits> limits = new java.util.LinkedHashMap<>();
        plan.targets().forEach((name, t) -> t.access().sessionLimits().ifPresent(l -> limits.put(name, l)));
        assertThat(limits).containsOnlyKeys("iqn.2026-11.io.blocktarget:a");
        assertThat(limits.get("iqn.2026-11.io.blocktarget:a"))
                .isEqualTo(new IscsiSettings.SessionLimits(256 * 1024, 512 * 1024, 256 * 1024, 4));
    }
}
