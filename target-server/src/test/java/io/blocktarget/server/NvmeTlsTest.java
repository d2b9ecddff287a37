package io.blocktarget.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.blocktarget.config.AccessConfig;
import io.blocktarget.config.BackendKind;
import io.blocktarget.config.LunConfig;
import io.blocktarget.config.NvmeExport;
import io.blocktarget.config.TlsConfig;
import io.blocktarget.config.TlsMode;
import io.blocktarget.config.TlsPsk;
import io.blocktarget.nvme.SecureChannel;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@code access.tls} in the export plan: one TREQ per subsystem, and the PSK the transport derives from. */
class NvmeTlsTest {
    private static final TlsPsk PSK = TlsPsk.of(1, new byte[32]);

    private static LunConfig lun(String name, String subsystem, long nsid, TlsMode mode) {
        TlsConfig tls = mode == TlsMode.OFF ? TlsConfig.OFF : new TlsConfig(mode, Optional.of(PSK), Optional.empty());
        return new LunConfig(name, null, BackendKind.RAM, 1L << 20, 512, 512, Optional.empty(),
                Optional.of(new NvmeExport(subsystem, nsid)), false, Optional.empty(),
                new AccessConfig(Optional.empty(), List.of(), List.of(), Optional.empty(), tls));
    }

    private static ExportPlan plan(LunConfig... luns) throws Exception {
        return ExportPlan.of(io.blocktarget.config.ConfigLoader.embeddedDefault().server(), List.of(luns));
    }

    @Test
    void oneSecureChannelPerSubsystemFromItsFirstLun() throws Exception {
        ExportPlan plan = plan(
                lun("a1", "nqn.2026-11.x.y:a", 1, TlsMode.REQUIRED),
                lun("a2", "nqn.2026-11.x.y:a", 2, TlsMode.REQUIRED),
                lun("b", "nqn.2026-11.x.y:b", 1, TlsMode.ALLOWED),
                lun("c", "nqn.2026-11.x.y:c", 1, TlsMode.OFF));
        Map<String, SecureChannel> channels = new java.util.LinkedHashMap<>();
        plan.subsystems().forEach((nqn, s) -> channels.put(nqn, s.access().secureChannel()));
        assertThat(channels).containsExactly(Map.entry("nqn.2026-11.x.y:a", SecureChannel.REQUIRED),
                Map.entry("nqn.2026-11.x.y:b", SecureChannel.NOT_REQUIRED),
                Map.entry("nqn.2026-11.x.y:c", SecureChannel.NOT_SPECIFIED));
    }

    @Test
    void theConfiguredPskOfEachSubsystemThatHasOne() throws Exception {
        ExportPlan plan = plan(
                lun("a1", "nqn.2026-11.x.y:a", 1, TlsMode.REQUIRED),
                lun("b", "nqn.2026-11.x.y:b", 1, TlsMode.ALLOWED),
                lun("c", "nqn.2026-11.x.y:c", 1, TlsMode.OFF));
        Map<String, TlsPsk> psks = new java.util.LinkedHashMap<>();
        plan.subsystems().forEach((nqn, s) -> s.access().psk().ifPresent(p -> psks.put(nqn, p)));
        assertThat(psks).containsOnlyKeys("nqn.2026-11.x.y:a", "nqn.2026-11.x.y:b");
        assertThat(psks.get("nqn.2026-11.x.y:a")).isSameAs(PSK);
    }
}
