package io.blocktarget.it;

import io.blocktarget.it.iscsi.IscsiTestInitiator;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 25 as a user meets it: {@code blocktarget serve --config DIR} and the CLI as separate processes. A change that
 * replaces a RAM LUN (its data) or shrinks it is refused with exit 2 and a message saying what would be lost, and the
 * LUN file is left alone; --dry-run prints the keys with their rules and the steps; --force applies it and prints each
 * changed key with its rule; warnings go to stderr; exit 0 done, 1 server unreachable, 2 refused.
 */
@Tag("loopback")
class ChangeCliIT {
    private static final Duration START = Duration.ofSeconds(60);
    private static final String IQN = "iqn.2026-11.io.blocktarget:";

    @TempDir
    Path tmp;

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** One CLI run: exit code, stdout, stderr. */
    private record Run(int exit, List<String> out, List<String> err) {
    }

    private Run cli(String... args) throws Exception {
        String[] withControl = new String[args.length + 2];
        System.arraycopy(args, 0, withControl, 0, args.length);
        withControl[args.length] = "--control";
        withControl[args.length + 1] = tmp.resolve("control.sock").toString();
        try (ServerProcess p = ServerProcess.start(withControl)) {
            int exit = p.awaitExit(START);
            return new Run(exit, p.stdout(), p.stderr());
        }
    }

    @Test
    void aChangeSaysWhatItDoesAndLosingDataNeedsForce() throws Exception {
        int iscsi = freePort();
        Files.createDirectories(tmp.resolve("luns.d"));
        Files.writeString(tmp.resolve("blocktarget.yaml"), "control-socket: control.sock\nmemory-budget: 256MiB\n");
        Path file = tmp.resolve("luns.d/t16.yaml");
        Files.writeString(file, "backend: ram\nsize: 64MiB\nlogical-block-size: 16KiB\n");
        try (ServerProcess server = ServerProcess.start("serve", "--config", tmp.toString(), "--bind", "127.0.0.1",
                "--iscsi-port", Integer.toString(iscsi), "--nvme-port", "0", "--discovery-port", "0")) {
            server.awaitLine(false, l -> l.contains("blocktarget.server: serving 1 LUNs"), START);
            IscsiTestInitiator session = IscsiTestInitiator.connect(new InetSocketAddress("127.0.0.1", iscsi),
                    0x400000250101L);
            session.login(IQN + "t16", null);
            session.clearUnitAttention();
            byte[] write16 = ByteBuffer.allocate(16).put((byte) 0x8A).put((byte) 0).putLong(0).putInt(1)
                    .put((byte) 0).put((byte) 0).array();
            assertThat(session.command(0, write16, 0, new byte[16384]).status()).isZero();

            Run refused = cli("lun", "set", "t16", "logical-block-size=4KiB");
            assertThat(refused.exit()).as(refused.toString()).isEqualTo(2);
            assertThat(refused.err()).containsExactly("blocktarget lun set: replaces LUN t16: its 64 MiB RAM data"
                    + " (64 KiB allocated) is lost and its 1 session sees a new disk; give --force");
            assertThat(refused.out()).isEmpty();
            assertThat(Files.readString(file)).contains("logical-block-size: 16KiB");

            Run dry = cli("lun", "set", "t16", "logical-block-size=4KiB", "--dry-run");
            assertThat(dry.exit()).as(dry.toString()).isZero();
            assertThat(dry.out()).first().isEqualTo("t16: logical-block-size 16KiB -> 4KiB (replace)");
            assertThat(dry.out()).contains("would open the ram backend of LUN t16 (64 MiB, 4096-byte blocks, physical"
                    + " 16384) for its replace").last().isEqualTo("dry run: nothing changed");
            assertThat(dry.err()).singleElement().asString().startsWith("blocktarget lun set: warning: without --force"
                    + " this is refused: replaces LUN t16");

            Run forced = cli("lun", "set", "t16", "logical-block-size=4KiB", "--force");
            assertThat(forced.exit()).as(forced.toString()).isZero();
            assertThat(forced.out()).containsExactly("t16: logical-block-size 16KiB -> 4KiB (replace)",
                    "changed LUN t16: 64 MiB ram, 4 KiB blocks (physical 16 KiB); iSCSI " + IQN + "t16 LUN 0; NVMe"
                            + " nqn.2026-11.io.blocktarget:t16 NSID 1");
            assertThat(Files.readString(file)).contains("logical-block-size: 4KiB");

            Run shrink = cli("lun", "resize", "t16", "--size", "32MiB");
            assertThat(shrink.exit()).isEqualTo(2);
            assertThat(shrink.err()).singleElement().asString().startsWith("blocktarget lun resize: shrinks LUN t16"
                    + " from 64 MiB to 32 MiB: the data beyond 32 MiB is lost");
            assertThat(cli("lun", "resize", "t16", "--size", "32MiB", "--force").exit()).isZero();

            Run inPlace = cli("lun", "set", "t16", "rotational=true");
            assertThat(inPlace.exit()).isZero();
            assertThat(inPlace.out()).first().isEqualTo("t16: rotational (none) -> true (in place)");

            Run invalid = cli("lun", "set", "t16", "logical-block-size=3000");
            assertThat(invalid.exit()).isEqualTo(2);
            assertThat(invalid.err()).containsExactly("blocktarget lun set: logical-block-size: 3000 is not a power of"
                    + " two; allowed: a power of two from 512 B to 64 KiB");

            Run big = cli("lun", "add", "big", "--backend", "ram", "--size", "1TiB", "--set", "export.iscsi=false");
            assertThat(big.exit()).as(big.toString()).isZero();
            assertThat(big.err()).anyMatch(l -> l.startsWith("blocktarget lun add: warning: RAM disks declare")
                    && l.contains("more than the memory budget"));

            Run list = cli("lun", "list");
            assertThat(list.exit()).isZero();
            assertThat(list.out().getFirst()).endsWith("IN-FLIGHT  STATE");
            assertThat(list.out()).anyMatch(l -> l.startsWith("t16 ") && l.endsWith(" active"));
            Run show = cli("lun", "show", "t16");
            assertThat(show.exit()).isZero();
            JsonObject status = new JsonObject(String.join("\n", show.out())).getJsonObject("status");
            assertThat(status.getString("state")).isEqualTo("active");
            assertThat(status.getValue("last-error")).isNull();

            Run nope = cli("lun", "show", "nope");
            assertThat(nope.exit()).isEqualTo(2);
            try (ServerProcess p = ServerProcess.start("lun", "list", "--control", tmp.resolve("none.sock").toString())) {
                assertThat(p.awaitExit(START)).as("unreachable").isEqualTo(1);
            }
            session.close();
            server.terminate();
            assertThat(server.awaitExit(START)).isZero();
        }
    }

    /** Issue 29: {@code path list} / {@code path set} from a shell, against a server with two portals. */
    @Test
    void pathSetAndListFromTheShell() throws Exception {
        Files.createDirectories(tmp.resolve("luns.d"));
        Files.writeString(tmp.resolve("blocktarget.yaml"), "control-socket: control.sock\nmemory-budget: 256MiB\n"
                + "discovery-port: 0\nportals:\n"
                + "  - { name: a, address: 127.0.0.1, iscsi-port: " + freePort() + ", nvme-port: 0 }\n"
                + "  - { name: b, address: 127.0.0.1, iscsi-port: " + freePort() + ", nvme-port: 0 }\n");
        Path file = tmp.resolve("luns.d/mp.yaml");
        Files.writeString(file, "backend: ram\nsize: 16MiB\n");
        try (ServerProcess server = ServerProcess.start("serve", "--config", tmp.toString())) {
            server.awaitLine(false, l -> l.contains("blocktarget.server: serving 1 LUNs"), START);
            Run set = cli("path", "set", "mp", "b", "standby");
            assertThat(set.exit()).as(set.toString()).isZero();
            assertThat(set.out()).contains("mp: paths.b (none) -> standby (in place)",
                    "set LUN mp on portal b to standby");
            assertThat(Files.readString(file)).contains("b: standby");
            Run list = cli("path", "list");
            assertThat(list.exit()).as(list.toString()).isZero();
            assertThat(list.out().get(0)).matches("LUN\\s+PORTAL\\s+ID\\s+STATE\\s+CONFIGURED\\s+ORIGIN\\s*");
            assertThat(list.out().subList(1, list.out().size())).hasSize(2).anySatisfy(l -> assertThat(l)
                    .matches("mp\\s+b\\s+2\\s+standby\\s+standby\\s+implicit\\s*"));
            Run json = cli("path", "list", "mp", "--json");
            assertThat(json.exit()).isZero();
            assertThat(new io.vertx.core.json.JsonObject(String.join("\n", json.out())).getJsonArray("paths"))
                    .hasSize(2);
            Run portal = cli("path", "set", "mp", "c", "standby");
            assertThat(portal.exit()).isEqualTo(2);
            assertThat(portal.err()).containsExactly("blocktarget path set: no portal named c; allowed: a, b");
            Run state = cli("path", "set", "mp", "a", "sleepy");
            assertThat(state.exit()).isEqualTo(2);
            assertThat(state.err()).containsExactly("blocktarget path set: sleepy is not a path state; allowed: "
                    + io.blocktarget.config.PathState.ALLOWED);
        }
    }
}
