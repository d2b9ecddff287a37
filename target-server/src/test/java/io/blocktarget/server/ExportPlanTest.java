package io.blocktarget.server;

import io.blocktarget.config.ChapConfig;
import io.blocktarget.config.ConfigLoader;
import io.blocktarget.config.DhchapSecret;
import io.blocktarget.config.LunConfig;
import io.blocktarget.config.ServerConfig;
import io.blocktarget.config.TlsPsk;
import io.blocktarget.nvme.DhchapKeys;
import io.blocktarget.nvme.SecureChannel;
import io.blocktarget.server.ControlPlane.ControlException;
import io.blocktarget.transport.iscsi.Chap;
import io.blocktarget.transport.iscsi.IscsiSettings;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Building an {@link ExportPlan} from a configuration, section by section: LUNs, iSCSI targets (LUN map, initiators,
 * CHAP, session values), NVMe subsystems (namespaces, hosts, DH-HMAC-CHAP keys, TLS), discovery, the export checks an
 * API caller's list needs, warnings; and what plan equality means.
 */
class ExportPlanTest {
    private static final String IQN = ServerConfig.DEFAULT_IQN_PREFIX;
    private static final String NQN = ServerConfig.DEFAULT_NQN_PREFIX;

    @TempDir
    Path dir;
    private final ServerConfig server = ConfigLoader.embeddedDefault().server();

    @BeforeEach
    void secrets() throws Exception {
        Files.writeString(dir.resolve("chap"), "initiator-secret-1\n");
        Files.writeString(dir.resolve("chap-mutual"), "target-secret-123\n");
        Files.writeString(dir.resolve("dhchap"), DhchapSecret.of(0, new byte[32]).representation() + "\n");
        Files.writeString(dir.resolve("psk"), TlsPsk.of(1, new byte[32]).interchange() + "\n");
    }

    private LunConfig lun(String name, String json) throws Exception {
        return ConfigLoader.readLun(name, json, Optional.of(dir), server, List.of());
    }

    private String on(String target, int lun, String subsystem, long nsid) {
        return "\"export\": {\"iscsi\": {\"target\": \"" + IQN + target + "\", \"lun\": " + lun + "}, \"nvme\":"
                + " {\"subsystem\": \"" + NQN + subsystem + "\", \"nsid\": " + nsid + "}}";
    }

    @Test
    void targetsAndSubsystemsGroupTheirLunsInConfigOrder() throws Exception {
        LunConfig b = lun("b", "{\"backend\": \"null\", \"size\": \"1MiB\", " + on("s", 4, "s", 9) + "}");
        LunConfig a = lun("a", "{\"backend\": \"null\", \"size\": \"1MiB\", " + on("s", 1, "s", 2) + "}");
        LunConfig own = lun("own", "{\"backend\": \"null\", \"size\": \"1MiB\", \"export\": {\"iscsi\": false}}");
        ExportPlan plan = ExportPlan.of(server, List.of(b, own, a));
        assertThat(plan.luns()).containsExactly(b, own, a);
        assertThat(plan.targets()).containsOnlyKeys(IQN + "s");
        assertThat(plan.targets().get(IQN + "s").luns()).containsExactly(Map.entry(1L, "a"), Map.entry(4L, "b"));
        assertThat(plan.subsystems().keySet()).containsExactly(NQN + "s", NQN + "own");
        assertThat(plan.subsystems().get(NQN + "s").namespaces()).containsExactly(Map.entry(2L, "a"),
                Map.entry(9L, "b"));
        assertThat(plan.lun("own")).contains(own);
        assertThat(plan.lun("none")).isEmpty();
    }

    @Test
    void accessIsTheTargetsAndTheSubsystems() throws Exception {
        LunConfig secure = lun("sec", """
                {"backend": "ram", "size": "1MiB",
                 "access": {"chap": {"user": "alice", "secret-file": "chap", "mutual-user": "tgt",
                                     "mutual-secret-file": "chap-mutual"},
                            "initiators": ["iqn.2026-11.test:i1", "iqn.2026-11.test:i2"],
                            "hosts": ["nqn.2026-11.test:h1"], "dhchap": {"host-secret-file": "dhchap"},
                            "tls": "required", "tls-psk-file": "psk"},
                 "session": {"max-burst-length": "512KiB", "queue-depth": 16}}""");
        ExportPlan plan = ExportPlan.of(server.withDiscoveryChap(Optional.of(new ChapConfig("disco",
                "discovery-secret", Optional.empty(), Optional.empty()))), List.of(secure));
        var target = plan.targets().get(IQN + "sec").access();
        assertThat(target.chap()).contains(Chap.mutual("alice", "initiator-secret-1", "tgt", "target-secret-123"));
        assertThat(target.initiators()).containsExactlyInAnyOrder("iqn.2026-11.test:i1", "iqn.2026-11.test:i2");
        IscsiSettings d = IscsiSettings.defaults();
        assertThat(target.sessionLimits()).contains(new IscsiSettings.SessionLimits(d.maxRecvDataSegmentLength(),
                512 << 10, d.firstBurstLength(), 16));
        var subsystem = plan.subsystems().get(NQN + "sec").access();
        assertThat(subsystem.hosts()).containsExactly("nqn.2026-11.test:h1");
        assertThat(subsystem.dhchap()).contains(new DhchapKeys(new DhchapKeys.Key(0, new byte[32]), Optional.empty()));
        assertThat(subsystem.secureChannel()).isEqualTo(SecureChannel.REQUIRED);
        assertThat(subsystem.psk()).contains(TlsPsk.of(1, new byte[32]));
        assertThat(plan.discovery().iscsiChap()).contains(Chap.oneWay("disco", "discovery-secret"));
        assertThat(ExportPlan.empty(server).discovery()).isEqualTo(ExportPlan.Discovery.OPEN);
        // never a secret in what a plan says of itself (logs, dry runs)
        assertThat(plan.targets().toString()).doesNotContain("initiator-secret-1", "target-secret-123");
    }

    @Test
    void aLunWithoutAccessLeavesItsTargetOpen() throws Exception {
        ExportPlan plan = ExportPlan.of(server, List.of(lun("o", "{\"backend\": \"null\", \"size\": \"1MiB\"}")));
        assertThat(plan.targets().get(IQN + "o").access()).isEqualTo(io.blocktarget.transport.iscsi.TargetAccess.OPEN);
        assertThat(plan.subsystems().get(NQN + "o").access()).isEqualTo(io.blocktarget.nvme.SubsystemAccess.OPEN);
    }

    /** An API caller's list is checked as the config module checks a directory: limits at the limit and beyond. */
    @Test
    void exportsOutsideTheWireOrTwiceAreRefused() throws Exception {
        LunConfig max = lun("max", "{\"backend\": \"null\", \"size\": \"1MiB\", " + on("m", 16383, "m", 0xFFFF_FFFEL) + "}");
        assertThat(ExportPlan.of(server, List.of(max)).targets().get(IQN + "m").luns()).containsKey(16383L);
        LunConfig lunOver = withExports(max, 16384, 1);
        LunConfig nsidZero = withExports(max, 0, 0);
        LunConfig nsidOver = withExports(max, 0, 0xFFFF_FFFFL);
        assertRefused(List.of(lunOver), ControlException.Kind.INVALID, "max", "export.iscsi.lun");
        assertRefused(List.of(nsidZero), ControlException.Kind.INVALID, "max", "export.nvme.nsid");
        assertRefused(List.of(nsidOver), ControlException.Kind.INVALID, "max", "export.nvme.nsid");
        LunConfig other = lun("other", "{\"backend\": \"null\", \"size\": \"1MiB\", " + on("m", 16383, "x", 1) + "}");
        assertRefused(List.of(max, other), ControlException.Kind.CONFLICT, "other", "export.iscsi.lun");
        LunConfig sameNsid = lun("third", "{\"backend\": \"null\", \"size\": \"1MiB\", " + on("y", 0, "m", 0xFFFF_FFFEL)
                + "}");
        assertRefused(List.of(max, sameNsid), ControlException.Kind.CONFLICT, "third", "export.nvme.nsid");
        assertRefused(List.of(max, max), ControlException.Kind.CONFLICT, "max", null);
    }

    private static LunConfig withExports(LunConfig l, int lun, long nsid) {
        return new LunConfig(l.name(), l.source(), l.backend(), l.size(), l.logicalBlockSize(), l.physicalBlockSize(),
                Optional.of(new io.blocktarget.config.IscsiExport(l.iscsi().orElseThrow().target(), lun)),
                Optional.of(new io.blocktarget.config.NvmeExport(l.nvme().orElseThrow().subsystem(), nsid)),
                l.readOnly(), l.file(), l.access(), l.features());
    }

    private void assertRefused(List<LunConfig> luns, ControlException.Kind kind, String lun, String key) {
        ControlException e = assertThrows(ControlException.class, () -> ExportPlan.of(server, luns));
        assertThat(e.kind()).isEqualTo(kind);
        assertThat(e.lun()).isEqualTo(lun);
        assertThat(e.key()).isEqualTo(key);
    }

    /** Equal plans serve the same; a secret rotated in the same file is another plan. */
    @Test
    void equalityIsWhatInitiatorsSee() throws Exception {
        String json = "{\"backend\": \"ram\", \"size\": \"1MiB\", \"access\": {\"chap\": {\"user\": \"alice\","
                + " \"secret-file\": \"chap\"}}}";
        ExportPlan one = ExportPlan.of(server, List.of(lun("t", json)));
        assertThat(ExportPlan.of(server, List.of(lun("t", json)))).isEqualTo(one);
        Files.writeString(dir.resolve("chap"), "initiator-secret-2\n");
        ExportPlan rotated = ExportPlan.of(server, List.of(lun("t", json)));
        assertThat(rotated).isNotEqualTo(one);
        assertThat(rotated.targets().get(IQN + "t").access().chap().orElseThrow().secret())
                .isEqualTo("initiator-secret-2");
        assertThat(ExportPlan.of(server.withIscsiPort(13260), List.of(lun("t", json))).exports())
                .as("another port, the same exports").isEqualTo(rotated.exports());
        assertThat(Set.copyOf(one.warnings())).isEmpty();
    }
}
