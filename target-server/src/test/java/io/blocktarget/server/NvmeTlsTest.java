package io.blocktarget.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blocktarget.config.AccessConfig;
import io.blocktarget.config.BackendKind;
import io.blocktarget.config.BlocktargetConfig;
import io.blocktarget.config.LunConfig;
import io.blocktarget.config.NvmeExport;
import io.blocktarget.config.ServerConfig;
import io.blocktarget.config.TlsConfig;
import io.blocktarget.config.TlsMode;
import io.blocktarget.config.TlsPsk;
import io.blocktarget.nvme.SecureChannel;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@code access.tls} applied by the server: one TREQ per subsystem, and no TLS promised that this build lacks. */
class NvmeTlsTest {
    private static final TlsPsk PSK = TlsPsk.of(1, new byte[32]);

    private static LunConfig lun(String name, String subsystem, long nsid, TlsMode mode) {
        TlsConfig tls = mode == TlsMode.OFF ? TlsConfig.OFF : new TlsConfig(mode, Optional.of(PSK), Optional.empty());
        return new LunConfig(name, null, BackendKind.RAM, 1L << 20, 512, 512, Optional.empty(),
                Optional.of(new NvmeExport(subsystem, nsid)), false, Optional.empty(),
                new AccessConfig(Optional.empty(), List.of(), List.of(), Optional.empty(), tls));
    }

    @Test
    void oneSecureChannelPerSubsystemFromItsFirstLun() {
        Map<String, SecureChannel> channels = NvmeTls.bySubsystem(List.of(
                lun("a1", "nqn.2026-11.x.y:a", 1, TlsMode.REQUIRED),
                lun("a2", "nqn.2026-11.x.y:a", 2, TlsMode.REQUIRED),
                lun("b", "nqn.2026-11.x.y:b", 1, TlsMode.ALLOWED),
                lun("c", "nqn.2026-11.x.y:c", 1, TlsMode.OFF)));
        assertThat(channels).containsExactly(Map.entry("nqn.2026-11.x.y:a", SecureChannel.REQUIRED),
                Map.entry("nqn.2026-11.x.y:b", SecureChannel.NOT_REQUIRED),
                Map.entry("nqn.2026-11.x.y:c", SecureChannel.NOT_SPECIFIED));
    }

    @Test
    void withoutATlsEngineServeRefusesTlsAndSaysWhy() {
        ServerConfig server = new ServerConfig(null, "127.0.0.1", 0, 0, 0, 64L << 20,
                ServerConfig.DEFAULT_IQN_PREFIX, ServerConfig.DEFAULT_NQN_PREFIX);
        TargetServer target = new TargetServer(new BlocktargetConfig(server, List.of(
                lun("plain", "nqn.2026-11.x.y:p", 1, TlsMode.OFF),
                lun("secure", "nqn.2026-11.x.y:s", 1, TlsMode.ALLOWED)), List.of()));
        assertThatThrownBy(target::start).isInstanceOf(ServerStartException.class).hasMessage(
                "LUN secure: access.tls: tls: allowed needs TLS 1.3 with a PSK on the NVMe/TCP listener, which this"
                        + " build does not have (Bouncy Castle's TLS library bctls-jdk18on is not in it); allowed:"
                        + " tls: off");
        assertThat(target.state()).isEqualTo(TargetServer.State.STOPPED);
        assertThat(NvmeTls.unavailable(List.of(lun("plain", "nqn.2026-11.x.y:p", 1, TlsMode.OFF)))).isEmpty();
    }
}
