package io.blocktarget.cli;

import io.blocktarget.config.AccessConfig;
import io.blocktarget.config.BlocktargetConfig;
import io.blocktarget.config.ChapConfig;
import io.blocktarget.config.ConfigLoader;
import io.blocktarget.config.DhchapConfig;
import io.blocktarget.config.DhchapSecret;
import io.blocktarget.config.LunConfig;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/** serve's single warning when it is open to the network with no authentication at all (issue 14 item 4). */
class ExposureTest {
    private static final BlocktargetConfig DEFAULT = ConfigLoader.embeddedDefault();
    private static final ChapConfig CHAP = new ChapConfig("u", "secret-123456", Optional.empty(), Optional.empty());

    private static BlocktargetConfig withFirstLun(UnaryOperator<AccessConfig> access) {
        LunConfig first = DEFAULT.luns().getFirst();
        LunConfig changed = new LunConfig(first.name(), first.source(), first.backend(), first.size(),
                first.logicalBlockSize(), first.physicalBlockSize(), first.iscsi(), first.nvme(), first.readOnly(),
                first.file(), access.apply(first.access()), first.features());
        List<LunConfig> luns = new java.util.ArrayList<>(DEFAULT.luns());
        luns.set(0, changed);
        return new BlocktargetConfig(DEFAULT.server(), luns, List.of());
    }

    @Test
    void theEmbeddedDefaultOnTheWildcardAddressWarnsOnceWithThePorts() {
        assertThat(DEFAULT.server().bindAddress()).isEqualTo("0.0.0.0");
        assertThat(Exposure.warning(DEFAULT)).contains("listening on 0.0.0.0 (ports 3260, 4420, 8009) with no"
                + " authentication at all: anyone who reaches them can discover every target and read and write every"
                + " LUN; bind 127.0.0.1 for local tests, or set access (chap, initiators, hosts, dhchap) and"
                + " discovery-chap (docs/security.md)");
    }

    @Test
    void loopbackBindsAreQuiet() {
        for (String bind : List.of("127.0.0.1", "127.1.2.3", "::1")) {
            assertThat(Exposure.warning(DEFAULT.withServer(DEFAULT.server().withBindAddress(bind)))).as(bind)
                    .isEmpty();
        }
        assertThat(Exposure.warning(DEFAULT.withServer(DEFAULT.server().withBindAddress("::")))).isPresent();
        assertThat(Exposure.warning(DEFAULT.withServer(DEFAULT.server().withBindAddress("192.0.2.1")))).isPresent();
    }

    @Test
    void onlyThePortsThatListenAreNamedAndNoPortIsQuiet() {
        BlocktargetConfig iscsiOnly = DEFAULT.withServer(DEFAULT.server().withNvmePort(0).withDiscoveryPort(0));
        assertThat(Exposure.warning(iscsiOnly).orElseThrow()).contains("(ports 3260)");
        assertThat(Exposure.warning(iscsiOnly.withServer(iscsiOnly.server().withIscsiPort(0)))).isEmpty();
    }

    @Test
    void anyAuthenticationAnywhereSilencesIt() {
        assertThat(Exposure.warning(DEFAULT.withServer(DEFAULT.server().withDiscoveryChap(Optional.of(CHAP)))))
                .isEmpty();
        assertThat(Exposure.warning(withFirstLun(a -> new AccessConfig(Optional.of(CHAP), List.of())))).isEmpty();
        assertThat(Exposure.warning(withFirstLun(a -> new AccessConfig(Optional.empty(),
                List.of("nqn.2014-08.org.nvmexpress:uuid:6e1c2f3a-3b1d-4c8e-9a55-1a2b3c4d5e6f"))))).isEmpty();
        assertThat(Exposure.warning(withFirstLun(a -> new AccessConfig(Optional.empty(), List.of(),
                List.of("iqn.2026-11.org.example:i"), Optional.empty())))).isEmpty();
        DhchapSecret key = DhchapSecret.of(0, new byte[32]);
        assertThat(Exposure.warning(withFirstLun(a -> new AccessConfig(Optional.empty(), List.of(), List.of(),
                Optional.of(new DhchapConfig(key, Optional.empty())))))).isEmpty();
        // tls: required proves the host holds the PSK; tls: allowed still admits anyone over plain TCP.
        io.blocktarget.config.TlsPsk psk = io.blocktarget.config.TlsPsk.of(1, new byte[32]);
        for (io.blocktarget.config.TlsMode mode : io.blocktarget.config.TlsMode.values()) {
            io.blocktarget.config.TlsConfig tls = mode == io.blocktarget.config.TlsMode.OFF
                    ? io.blocktarget.config.TlsConfig.OFF
                    : new io.blocktarget.config.TlsConfig(mode, Optional.of(psk), Optional.empty());
            assertThat(Exposure.warning(withFirstLun(a -> new AccessConfig(Optional.empty(), List.of(), List.of(),
                    Optional.empty(), tls)))).as(mode.word())
                    .isEqualTo(mode == io.blocktarget.config.TlsMode.REQUIRED ? Optional.empty()
                            : Exposure.warning(DEFAULT));
        }
    }
}
