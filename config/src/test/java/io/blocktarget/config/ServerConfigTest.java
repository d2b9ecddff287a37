package io.blocktarget.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** blocktarget.yaml: defaults, every key, every rule. */
class ServerConfigTest extends ConfigDirTest {
    @BeforeEach
    void oneLun() {
        config.lun("r", "backend: null\nsize: 1GiB\n");
    }

    @Test
    void withoutServerFileEverythingIsDefault() throws ConfigException {
        ServerConfig server = config.load().server();
        assertThat(server.source()).isNull();
        assertThat(server.bindAddress()).isEqualTo("0.0.0.0");
        assertThat(server.iscsiPort()).isEqualTo(3260);
        assertThat(server.nvmePort()).isEqualTo(4420);
        assertThat(server.discoveryPort()).isEqualTo(8009);
        assertThat(server.memoryBudget()).isEqualTo(ConfigLoader.defaultMemoryBudget());
        assertThat(server.iqnPrefix()).isEqualTo("iqn.2026-11.io.blocktarget:");
        assertThat(server.nqnPrefix()).isEqualTo("nqn.2026-11.io.blocktarget:");
        assertThat(server.eventLoops()).isZero();
        assertThat(server.eventLoopCount()).isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(server.poll()).isFalse();
    }

    @Test
    void emptyServerFileMeansDefaults() throws ConfigException {
        config.file("blocktarget.yaml", "# all defaults\n");
        ServerConfig server = config.load().server();
        assertThat(server.source()).isEqualTo(tmp.resolve("blocktarget.yaml"));
        assertThat(server.iscsiPort()).isEqualTo(3260);
    }

    @Test
    void everyKeyIsRead() throws ConfigException {
        config.file("blocktarget.yaml", """
                bind: 127.0.0.1
                iscsi-port: 13260
                nvme-port: 14420
                discovery-port: 0
                memory-budget: 12 GiB
                iqn-prefix: "iqn.2001-04.com.example:"
                nqn-prefix: "nqn.2001-04.com.example:lab."
                event-loops: 1
                poll: true
                """);
        ServerConfig server = config.load().server();
        assertThat(server).isEqualTo(new ServerConfig(tmp.resolve("blocktarget.yaml"), "127.0.0.1", 13260, 14420, 0,
                12L << 30, "iqn.2001-04.com.example:", "nqn.2001-04.com.example:lab.", 1, true));
        assertThat(server.eventLoopCount()).isEqualTo(1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"0.0.0.0", "192.168.1.255", "::", "::1", "fe80::1", "2001:db8::8a2e:370:7334"})
    void ipLiteralsAreAccepted(String address) throws ConfigException {
        config.file("blocktarget.yaml", "bind: \"" + address + "\"\n");
        assertThat(config.load().server().bindAddress()).isEqualTo(address);
    }

    @Test
    void hostNameIsNotABindAddress() {
        config.file("blocktarget.yaml", "bind: localhost\n");
        assertThat(config.problems()).containsExactly(
                "blocktarget.yaml:1: bind: localhost is not an IP address literal; " + BIND_ALLOWED);
    }

    @Test
    void shortIpv4FormIsNotABindAddress() {
        config.file("blocktarget.yaml", "\nbind: 127.1\n");
        assertThat(config.problems()).containsExactly(
                "blocktarget.yaml:2: bind: 127.1 is not an IP address literal; " + BIND_ALLOWED);
    }

    @Test
    void octetAbove255IsNotABindAddress() {
        config.file("blocktarget.yaml", "bind: 10.0.0.256\n");
        assertThat(config.problems()).containsExactly(
                "blocktarget.yaml:1: bind: 10.0.0.256 is not an IP address literal; " + BIND_ALLOWED);
    }

    @Test
    void brokenIpv6IsNotABindAddress() {
        config.file("blocktarget.yaml", "bind: \"fe80:::1\"\n");
        assertThat(config.problems()).containsExactly(
                "blocktarget.yaml:1: bind: fe80:::1 is not an IPv6 address; " + BIND_ALLOWED);
    }

    @Test
    void portAbove65535IsOutOfRange() {
        config.file("blocktarget.yaml", "iscsi-port: 65536\n");
        assertThat(config.problems()).containsExactly(
                "blocktarget.yaml:1: iscsi-port: 65536 is out of range; " + PORT_ALLOWED);
    }

    @Test
    void negativePortIsOutOfRange() {
        config.file("blocktarget.yaml", "nvme-port: -1\n");
        assertThat(config.problems()).containsExactly(
                "blocktarget.yaml:1: nvme-port: -1 is out of range; " + PORT_ALLOWED);
    }

    @Test
    void portMustBeAnInteger() {
        config.file("blocktarget.yaml", "discovery-port: nvme\n");
        assertThat(config.problems()).containsExactly("blocktarget.yaml:1: discovery-port: nvme is not an integer;"
                + " allowed: 0..65535 (0 disables the listener)");
    }

    @Test
    void twoListenersOnOnePortAreRejected() {
        config.file("blocktarget.yaml", "iscsi-port: 4000\nnvme-port: 4000\n");
        assertThat(config.problems()).containsExactly("blocktarget.yaml:2: nvme-port: 4000 is also the iscsi-port;"
                + " allowed: a port no other listener uses, or 0");
    }

    @Test
    void portClashingWithADefaultIsRejected() {
        config.file("blocktarget.yaml", "discovery-port: 4420\n");
        assertThat(config.problems()).containsExactly("blocktarget.yaml:1: discovery-port: 4420 is also the"
                + " nvme-port; allowed: a port no other listener uses, or 0");
    }

    @Test
    void severalDisabledListenersMayAllBeZero() throws ConfigException {
        config.file("blocktarget.yaml", "iscsi-port: 0\ndiscovery-port: 0\n");
        ServerConfig server = config.load().server();
        assertThat(server.iscsiPort()).isZero();
        assertThat(server.discoveryPort()).isZero();
        assertThat(server.nvmePort()).isEqualTo(4420);
    }

    @Test
    void memoryBudgetMustBePositive() {
        config.file("blocktarget.yaml", "memory-budget: 0\n");
        assertThat(config.problems()).containsExactly("blocktarget.yaml:1: memory-budget: 0 is not greater than 0;"
                + " allowed: a size greater than 0; an integer number of bytes, optionally followed by a unit"
                + " B, KiB, MiB, GiB or TiB (powers of 1024), e.g. 4096, 16KiB or 8 GiB");
    }

    @Test
    void memoryBudgetMustBeASize() {
        config.file("blocktarget.yaml", "memory-budget: lots\n");
        assertThat(config.problems()).containsExactly("blocktarget.yaml:1: memory-budget: lots is not a size;"
                + " allowed: an integer number of bytes, optionally followed by a unit"
                + " B, KiB, MiB, GiB or TiB (powers of 1024), e.g. 4096, 16KiB or 8 GiB");
    }

    @Test
    void iqnPrefixMustEndInASeparator() {
        config.file("blocktarget.yaml", "iqn-prefix: iqn.2026-11.io.blocktarget\n");
        assertThat(config.problems()).containsExactly("blocktarget.yaml:1: iqn-prefix: iqn.2026-11.io.blocktarget does"
                + " not end in ':' or '.'; allowed: a prefix ending in ':' or '.' that makes an iSCSI name when the"
                + " LUN name is appended, e.g. iqn.2026-11.io.blocktarget:");
    }

    @Test
    void iqnPrefixMustMakeAValidName() {
        config.file("blocktarget.yaml", "iqn-prefix: \"iqn.2026-13.io.blocktarget:\"\n");
        assertThat(config.problems()).containsExactly("blocktarget.yaml:1: iqn-prefix: iqn.2026-13.io.blocktarget:"
                + " + LUN name is not a valid name: iqn.2026-13.io.blocktarget:x is not"
                + " iqn.YYYY-MM.reversed.domain[:anything]; allowed: a prefix ending in ':' or '.' that makes an iSCSI"
                + " name when the LUN name is appended, e.g. iqn.2026-11.io.blocktarget:");
    }

    @Test
    void nqnPrefixMustMakeAValidName() {
        config.file("blocktarget.yaml", "nqn-prefix: nqn.2026-11.io.blocktarget.\n");
        assertThat(config.problems()).containsExactly("blocktarget.yaml:1: nqn-prefix: nqn.2026-11.io.blocktarget."
                + " + LUN name is not a valid name: nqn.2026-11.io.blocktarget.x is not"
                + " nqn.YYYY-MM.reverse.domain:string; allowed: a prefix ending in ':' or '.' that makes an NQN when"
                + " the LUN name is appended, e.g. nqn.2026-11.io.blocktarget:");
    }

    @Test
    void badPrefixFallsBackToTheDefaultSoLunFilesAreStillChecked() {
        config.file("blocktarget.yaml", "iqn-prefix: bogus\n");
        config.lun("r", "backend: null\nsize: 1GiB\nsize: 2GiB\n");
        assertThat(config.problems()).hasSize(2)
                .last().asString().isEqualTo("luns.d/r.yaml:3: size: given twice (first on line 2); allowed: each key once");
    }

    @Test
    void eventLoopsOutOfRangeAndPollNotABoolean() {
        config.file("blocktarget.yaml", "event-loops: -1\npoll: yes please\n");
        assertThat(config.problems()).containsExactly(
                "blocktarget.yaml:1: event-loops: -1 is out of range; allowed: 0..1024 (0: one per CPU the process may use)",
                "blocktarget.yaml:2: poll: yes please is not a boolean; allowed: true or false");
    }

    @Test
    void unknownServerKeyNamesTheAllowedKeys() {
        config.file("blocktarget.yaml", "bind: 0.0.0.0\nport: 3260\n");
        assertThat(config.problems()).containsExactly("blocktarget.yaml:2: port: unknown key; did you mean `portals`?"
                + " allowed keys: bind, iscsi-port, nvme-port, discovery-port, memory-budget, iqn-prefix, nqn-prefix,"
                + " event-loops, poll, poll-window, control-socket, control-listen, control-token-file, discovery-chap,"
                + " portals");
    }

    @Test
    void serverDocumentMustBeAMap() {
        config.file("blocktarget.yaml", "just text\n");
        assertThat(config.problems()).containsExactly("blocktarget.yaml:1: just text is not a map of server settings;"
                + " allowed: a map with the keys bind, iscsi-port, nvme-port, discovery-port, memory-budget,"
                + " iqn-prefix, nqn-prefix, event-loops, poll, poll-window, control-socket, control-listen,"
                + " control-token-file, discovery-chap, portals");
    }

    @Test
    void pollWindowDefaultsToAutoAndReadsDurations() throws ConfigException {
        assertThat(config.load().server().pollWindowNanos()).isEqualTo(ServerConfig.POLL_WINDOW_AUTO);
        config.file("blocktarget.yaml", "poll-window: auto\n");
        assertThat(config.load().server().pollWindowNanos()).isEqualTo(ServerConfig.POLL_WINDOW_AUTO);
        config.file("blocktarget.yaml", "poll: true\n");   // auto, the default: nothing to complain about with poll
        assertThat(config.load().server().poll()).isTrue();
        config.file("blocktarget.yaml", "poll-window: 0\n");   // the way back to loops that sleep at once
        assertThat(config.load().server().pollWindowNanos()).isZero();
        config.file("blocktarget.yaml", "poll-window: 100us\n");
        assertThat(config.load().server().pollWindowNanos()).isEqualTo(100_000);
        config.file("blocktarget.yaml", "poll-window: 10ms\n");   // the limit
        assertThat(config.load().server().pollWindowNanos()).isEqualTo(10_000_000);
        config.file("blocktarget.yaml", "poll-window: 0s\npoll: true\n");   // 0 = no window: fine with poll
        assertThat(config.load().server().pollWindowNanos()).isZero();
    }

    @Test
    void pollWindowOutOfRangeWithoutUnitAndWithPoll() {
        String allowed = "allowed: auto, or a duration from 0 to 10ms with ns, us, ms or s, e.g. 100us (0: sleep at once);"
                + " not with poll: true";
        config.file("blocktarget.yaml", "poll-window: 10000001ns\n");   // limit + 1
        assertThat(config.problems()).containsExactly(
                "blocktarget.yaml:1: poll-window: 10000001ns is longer than 10ms; " + allowed);
        config.file("blocktarget.yaml", "poll-window: 100\n");
        assertThat(config.problems()).containsExactly("blocktarget.yaml:1: poll-window: 100 has no unit; " + allowed);
        config.file("blocktarget.yaml", "poll-window: -5us\n");
        assertThat(config.problems()).containsExactly("blocktarget.yaml:1: poll-window: -5us is out of range; " + allowed);
        config.file("blocktarget.yaml", "poll-window: automatic\n");
        assertThat(config.problems()).singleElement().asString().startsWith("blocktarget.yaml:1: poll-window:")
                .endsWith(allowed);
        config.file("blocktarget.yaml", "poll: true\npoll-window: 50us\n");
        assertThat(config.problems()).containsExactly("blocktarget.yaml:2: poll-window: only without poll: true"
                + " (a loop that always polls has no window to end); " + allowed);
    }
}
