package io.blocktarget.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** portals: of blocktarget.yaml, paths: of a LUN file and a fault rule's portal: (issue 29 items 1, 2, 5). */
class MultipathConfigTest extends ConfigDirTest {
    private static final String TWO_PORTALS = """
            portals:
              - {name: a, address: 127.0.0.1, iscsi-port: 3261, nvme-port: 4421}
              - {name: b, address: 127.0.0.1, iscsi-port: 3262, nvme-port: 0}
            """;

    @Test
    void withoutPortalsThereIsOneDefaultPortalOfBindAndThePorts() throws ConfigException {
        config.file("blocktarget.yaml", "bind: 127.0.0.2\niscsi-port: 3300\nnvme-port: 0\n");
        config.lun("r", "backend: null\nsize: 1GiB\n");
        ServerConfig server = config.load().server();
        assertThat(server.portals()).isEmpty();
        assertThat(server.effectivePortals()).containsExactly(new PortalConfig("default", "127.0.0.2", 3300, 0));
        assertThat(server.portalNames()).containsExactly("default");
    }

    @Test
    void portalsAreReadInOrderWithTheirPortsDefaulted() throws ConfigException {
        config.file("blocktarget.yaml", """
                portals:
                  - {name: a, address: 127.0.0.1, iscsi-port: 3261, nvme-port: 4421}
                  - {name: b, address: 127.0.0.2}
                """);
        config.lun("r", "backend: null\nsize: 1GiB\npaths: {b: standby, a: non-optimized}\n");
        BlocktargetConfig loaded = config.load();
        assertThat(loaded.server().effectivePortals()).containsExactly(new PortalConfig("a", "127.0.0.1", 3261, 4421),
                new PortalConfig("b", "127.0.0.2", 3260, 4420));
        LunConfig lun = loaded.luns().getFirst();
        assertThat(lun.features().paths()).containsExactly(Map.entry("b", PathState.STANDBY),
                Map.entry("a", PathState.NON_OPTIMIZED));
        assertThat(lun.features().path("a")).isEqualTo(PathState.NON_OPTIMIZED);
    }

    @Test
    void everyStateWordReadsAndWritesBack() throws ConfigException {
        for (PathState state : PathState.values()) {
            config.file("blocktarget.yaml", TWO_PORTALS);
            config.lun("r", "backend: null\nsize: 1GiB\npaths: {a: " + state.word() + "}\n");
            BlocktargetConfig loaded = config.load();
            LunConfig lun = loaded.luns().getFirst();
            assertThat(lun.features().path("a")).isEqualTo(state);
            assertThat(lun.features().path("b")).isEqualTo(PathState.OPTIMIZED);
            assertThat(LunWriter.document(lun, loaded.server()).get("paths")).isEqualTo(Map.of("a", state.word()));
            assertThat(PathState.of(state.word())).contains(state);
        }
        assertThat(PathState.ALLOWED).isEqualTo(String.join(", ", java.util.Arrays.stream(PathState.values())
                .limit(PathState.values().length - 1).map(PathState::word).toList()) + " or transitioning");
    }

    @Test
    void aPathsChangeIsInPlaceAndNamesThePortal() throws ConfigException {
        config.file("blocktarget.yaml", TWO_PORTALS);
        config.lun("r", "backend: null\nsize: 1GiB\npaths: {a: optimized}\n");
        BlocktargetConfig before = config.load();
        config.lun("r", "backend: null\nsize: 1GiB\npaths: {a: inaccessible, b: standby}\n");
        BlocktargetConfig after = config.load();
        assertThat(ConfigDiff.lun(before.luns().getFirst(), before.server(), after.luns().getFirst(), after.server()))
                .containsExactly(new KeyChange("paths.a", ChangeRule.IN_PLACE, "optimized", "inaccessible"),
                        new KeyChange("paths.b", ChangeRule.IN_PLACE, "", "standby"));
    }

    @Test
    void badPathsNameTheKeyAndWhatIsAllowed() {
        config.file("blocktarget.yaml", TWO_PORTALS);
        config.lun("r", """
                backend: null
                size: 1GiB
                paths:
                  a: optimised
                  c: standby
                  bb: standby
                """);
        assertThat(config.problems()).containsExactly(
                "luns.d/r.yaml:4: paths.a: optimised is not a path state; allowed: optimized, non-optimized,"
                        + " inaccessible, standby, unavailable, persistent-loss or transitioning",
                "luns.d/r.yaml:5: paths.c: c is not a portal of blocktarget.yaml; allowed: a, b",
                "luns.d/r.yaml:6: paths.bb: bb is not a portal of blocktarget.yaml; did you mean `b`? allowed: a, b");
        config.lun("r", "backend: null\nsize: 1GiB\npaths: [a]\n");
        assertThat(config.problems()).containsExactly("luns.d/r.yaml:3: paths: a list is not a map of portal: state;"
                + " allowed: a map of portal (a, b) to optimized, non-optimized, inaccessible, standby, unavailable,"
                + " persistent-loss or transitioning");
        config.lun("r", "backend: null\nsize: 1GiB\npaths: {a: }\n");
        assertThat(config.problems()).containsExactly("luns.d/r.yaml:3: paths.a: no value; allowed: optimized,"
                + " non-optimized, inaccessible, standby, unavailable, persistent-loss or transitioning");
    }

    @Test
    void withoutPortalsOnlyTheDefaultPortalHasAPath() {
        config.lun("r", "backend: null\nsize: 1GiB\npaths: {default: standby, a: standby}\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/r.yaml:3: paths.a: a is not a portal of blocktarget.yaml; allowed: default");
    }

    @Test
    void badPortalsNameTheKeyAndWhatIsAllowed() {
        config.lun("r", "backend: null\nsize: 1GiB\n");
        config.file("blocktarget.yaml", """
                iscsi-port: 3270
                portals:
                  - {name: a, address: 127.0.0.1}
                  - {name: a, address: 127.0.0.2, iscsi-port: 0, nvme-port: 0}
                  - {name: C, address: localhost}
                  - {address: 127.0.0.3}
                  - {name: d, address: 127.0.0.1, iscsi-port: 3260}
                  - {name: e, address: 0.0.0.0, iscsi-port: 3261, nvme-port: 4421, tpgt: 7}
                  - {name: f, address: "::", iscsi-port: 3300, nvme-port: 8009}
                """);
        assertThat(config.problems()).containsExactly(
                "blocktarget.yaml:1: iscsi-port: not with portals: (each portal has its own iscsi-port); allowed:"
                        + " iscsi-port in the entries of portals:",
                "blocktarget.yaml:4: portals[1].name: a is also the name of portals[0]; allowed: each portal name once",
                "blocktarget.yaml:4: portals[1].nvme-port: both ports are 0, so the portal serves nothing; allowed: an"
                        + " iSCSI port, an NVMe/TCP port or both",
                "blocktarget.yaml:5: portals[2].name: C is not a portal name; allowed: 1 to 32 lower-case letters,"
                        + " digits and -, starting with a letter or digit",
                "blocktarget.yaml:5: portals[2].address: localhost is not an IP address literal; allowed: an IPv4 or"
                        + " IPv6 address literal, e.g. 0.0.0.0, 127.0.0.1, :: or ::1 (no host names)",
                "blocktarget.yaml:6: portals[3].name: missing; allowed: 1 to 32 lower-case letters, digits and -,"
                        + " starting with a letter or digit",
                "blocktarget.yaml:7: portals[4].iscsi-port: 127.0.0.1:3260 is also the iSCSI port of portal a;"
                        + " allowed: a port no other listener uses on this address (a wildcard address such as 0.0.0.0"
                        + " uses it on every address)",
                "blocktarget.yaml:7: portals[4].nvme-port: 127.0.0.1:4420 is also the NVMe/TCP port of portal a;"
                        + " allowed: a port no other listener uses on this address (a wildcard address such as 0.0.0.0"
                        + " uses it on every address)",
                "blocktarget.yaml:8: portals[5].tpgt: unknown key; allowed keys: name, address, iscsi-port, nvme-port",
                "blocktarget.yaml:9: portals[6].nvme-port: :::8009 is also discovery-port on 0.0.0.0 (0.0.0.0:8009);"
                        + " allowed: a port no other listener uses on this address (a wildcard address such as 0.0.0.0"
                        + " uses it on every address)");
        config.file("blocktarget.yaml", "portals: []\n");
        assertThat(config.problems()).containsExactly("blocktarget.yaml:1: portals: an empty list is not a list of"
                + " portals; allowed: a list of at least one portal, each a map with the keys name, address, iscsi-port,"
                + " nvme-port");
    }

    @Test
    void aWildcardPortalOverlapsEveryAddress() {
        config.lun("r", "backend: null\nsize: 1GiB\n");
        config.file("blocktarget.yaml", """
                discovery-port: 0
                portals:
                  - {name: a, address: 0.0.0.0, iscsi-port: 3261, nvme-port: 4421}
                  - {name: b, address: 127.0.0.1, iscsi-port: 3261, nvme-port: 4422}
                  - {name: c, address: 127.0.0.1, iscsi-port: 3262, nvme-port: 4422}
                """);
        assertThat(config.problems()).containsExactly(
                "blocktarget.yaml:4: portals[1].iscsi-port: 127.0.0.1:3261 is also the iSCSI port of portal a"
                        + " (0.0.0.0:3261); allowed: a port no other listener uses on this address (a wildcard address"
                        + " such as 0.0.0.0 uses it on every address)",
                "blocktarget.yaml:5: portals[2].nvme-port: 127.0.0.1:4422 is also the NVMe/TCP port of portal b;"
                        + " allowed: a port no other listener uses on this address (a wildcard address such as 0.0.0.0"
                        + " uses it on every address)");
    }

    @Test
    void portalsWriteBackEqual() throws ConfigException {
        config.file("blocktarget.yaml", TWO_PORTALS);
        config.lun("r", "backend: null\nsize: 1GiB\n");
        ServerConfig read = config.load().server();
        config.file("blocktarget.yaml", ServerWriter.yaml(read));
        assertThat(config.load().server()).isEqualTo(read);
        assertThat(ServerWriter.document(read)).doesNotContainKeys("iscsi-port", "nvme-port");
    }

    @Test
    void aFaultRuleMayNameAPortal() throws ConfigException {
        config.file("blocktarget.yaml", TWO_PORTALS);
        config.lun("r", """
                backend: null
                size: 1GiB
                faults:
                  - {id: drop-a, portal: a, action: drop-connection}
                """);
        FaultRuleConfig rule = config.load().luns().getFirst().features().faults().getFirst();
        assertThat(rule.portal()).contains("a");
        assertThat(FaultWriter.document(rule)).containsEntry("portal", "a");
        config.lun("r", """
                backend: null
                size: 1GiB
                faults:
                  - {id: drop-c, portal: c, action: drop-connection}
                  - {id: torn, portal: a, action: torn-write}
                """);
        assertThat(config.problems()).containsExactly(
                "luns.d/r.yaml:4: faults[0].portal: c is not a portal of blocktarget.yaml; allowed: a, b",
                "luns.d/r.yaml:5: faults[1].portal: not with action: torn-write (applied by the device, which does not"
                        + " know the sender); allowed: ops, lba and a trigger");
        assertThat(List.of(FaultKeys.FAULT_RULE.names())).isNotEmpty();
    }
}
