package io.blocktarget.it;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The CLI as a user meets it: the built jar (and the ./blocktarget launcher) as a separate process.
 * Servers bind to 127.0.0.1 on free ports only.
 */
@Tag("loopback")
class CliIT {
    private static final Duration START = Duration.ofSeconds(60);
    private static final Duration STOP = Duration.ofSeconds(60);

    @TempDir
    Path tmp;

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static void assertNoStackTrace(List<String> lines) {
        assertThat(lines).noneMatch(l -> l.startsWith("\tat ") || l.contains("Exception in thread"));
    }

    @Test
    void checkOfTheBasicExampleIsValid() throws Exception {
        try (ServerProcess p = ServerProcess.start("check", "--config", "examples/basic")) {
            assertThat(p.awaitExit(START)).as(String.join("\n", p.stderr())).isZero();
            assertThat(p.stdout().get(0)).startsWith("LUN").contains("BACKEND", "LOGICAL", "PHYSICAL");
            assertThat(p.stdout()).anyMatch(l -> l.contains("valid"));
            assertNoStackTrace(p.stderr());
        }
    }

    @Test
    void checkOfTheChapExampleFlagsAccessAndNeverPrintsASecret() throws Exception {
        try (ServerProcess p = ServerProcess.start("check", "--config", "examples/chap")) {
            assertThat(p.awaitExit(START)).as(String.join("\n", p.stderr())).isZero();
            assertThat(p.stdout()).anyMatch(l -> l.startsWith("secure ") && l.endsWith("mutual-chap,hosts=1"));
            // a fresh checkout has 0644 secret files (git keeps no 0600): warnings name the files, not their content
            assertThat(p.stderr()).allMatch(l -> l.startsWith("warning: ") && l.contains("is readable by every user"));
            for (String secret : List.of("example-initiator-secret", "example-target-secret")) {
                assertThat(p.stdout()).noneMatch(l -> l.contains(secret));
                assertThat(p.stderr()).noneMatch(l -> l.contains(secret));
            }
        }
    }

    @Test
    void checkOfTheBrokenExampleNamesEveryProblemAndExitsTwo() throws Exception {
        try (ServerProcess p = ServerProcess.start("check", "--config", "examples/broken")) {
            assertThat(p.awaitExit(START)).isEqualTo(2);
            List<String> err = p.stderr();
            List<String> problems = err.stream().filter(l -> l.matches("examples/broken/\\S+\\.yaml(:\\d+)?: .+")).toList();
            String summary = err.getLast();
            assertThat(summary).matches("blocktarget: \\d+ problems in examples/broken");
            int count = Integer.parseInt(summary.replaceAll("\\D+(\\d+).*", "$1"));
            assertThat(problems).hasSize(count).hasSizeGreaterThanOrEqualTo(3);
            // several files, each named, most with the line
            assertThat(problems.stream().map(l -> l.substring(0, l.indexOf(".yaml"))).distinct().count())
                    .isGreaterThan(1);
            assertThat(problems).anyMatch(l -> l.matches("examples/broken/luns\\.d/bad-blocks\\.yaml:3: "
                    + "logical-block-size: 3000 is not a power of two; allowed: .+"));
            assertThat(err).hasSize(count + 1);
            assertNoStackTrace(err);
            assertThat(p.stdout()).isEmpty();
        }
    }

    @Test
    void serveEmbeddedDefaultPrintsTheMatrixAndStopsOnSigterm() throws Exception {
        int iscsi = freePort();
        int nvme = freePort();
        int discovery = freePort();
        try (ServerProcess p = ServerProcess.start("serve", "--bind", "127.0.0.1",
                "--iscsi-port", "" + iscsi, "--nvme-port", "" + nvme, "--discovery-port", "" + discovery)) {
            p.awaitLine(true, l -> l.startsWith("  nvme discover"), START);
            List<String> out = p.stdout();
            assertThat(out).anyMatch(l -> l.equals("portals: iSCSI 127.0.0.1:" + iscsi + ", NVMe/TCP 127.0.0.1:" + nvme
                    + ", discovery 127.0.0.1:" + discovery));
            assertThat(out).anyMatch(l -> l.matches("ram-512 +ram +1 GiB +512 +4096 +iqn\\.2026-11\\.io\\.blocktarget:ram-512 +0 +nqn\\.2026-11\\.io\\.blocktarget:ram-512 +1"));
            assertThat(out).anyMatch(l -> l.matches("ram-4k +ram +1 GiB +4096 +4096 .*"));
            assertThat(out).anyMatch(l -> l.matches("ram-16k +ram +1 GiB +16384 +16384 .*"));
            assertThat(out).anyMatch(l -> l.matches("ram-64k +ram +1 GiB +65536 +65536 .*"));
            assertThat(out).anyMatch(l -> l.equals("  iscsiadm -m discovery -t st -p 127.0.0.1:" + iscsi
                    + " && iscsiadm -m node -l"));
            p.awaitLine(false, l -> l.contains("INFO  blocktarget.server: serving 4 LUNs"), START);

            // garbage on every portal: the connection is closed (after a Reject / C2HTermReq), the server carries on
            for (int port : new int[] {iscsi, nvme, discovery}) {
                try (Socket s = new Socket()) {
                    s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
                    s.setSoTimeout(30_000);
                    byte[] garbage = new byte[256];
                    java.util.Arrays.fill(garbage, (byte) 0xFF);
                    s.getOutputStream().write(garbage);
                    InputStream in = s.getInputStream();
                    assertThat(in.readAllBytes().length).isLessThan(512);
                }
            }

            p.terminate();
            assertThat(p.awaitExit(STOP)).isZero();
            assertThat(p.stderr()).anyMatch(l -> l.endsWith("blocktarget.server: stopped"));
            assertNoStackTrace(p.stderr());
        }
    }

    @Test
    void serveStopsCleanlyOnSigintAndCreatesAndFlushesFileBackends() throws Exception {
        Path config = tmp.resolve("conf");
        Files.createDirectories(config.resolve("luns.d"));
        Path img = tmp.resolve("disk-4k.img");
        Files.writeString(config.resolve("blocktarget.yaml"),
                "bind: 127.0.0.1\niscsi-port: " + freePort() + "\nnvme-port: 0\ndiscovery-port: 0\n");
        Files.writeString(config.resolve("luns.d/disk-4k.yaml"),
                "backend: file\npath: " + img + "\ncreate: true\nsize: 64MiB\nlogical-block-size: 4KiB\n");
        try (ServerProcess p = ServerProcess.start("serve", "--config", config.toString())) {
            p.awaitLine(false, l -> l.contains("serving 1 LUNs"), START);
            assertThat(Files.size(img)).isEqualTo(64L << 20);
            p.signal("INT");
            assertThat(p.awaitExit(STOP)).isZero();
            assertNoStackTrace(p.stderr());
        }
    }

    @Test
    void servePortInUseFailsWithOneLineAndExitOne() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             ServerProcess p = ServerProcess.start("serve", "--bind", "127.0.0.1",
                     "--iscsi-port", "" + taken.getLocalPort(), "--nvme-port", "0", "--discovery-port", "0")) {
            assertThat(p.awaitExit(START)).isEqualTo(1);
            assertThat(p.stderr()).anyMatch(l -> l.startsWith("blocktarget: cannot listen on 127.0.0.1:"
                    + taken.getLocalPort() + " (iSCSI): "));
            assertNoStackTrace(p.stderr());
        }
    }

    @Test
    void serveWithBrokenConfigExitsTwoWithoutServing() throws Exception {
        try (ServerProcess p = ServerProcess.start("serve", "--config", "examples/broken",
                "--bind", "127.0.0.1", "--iscsi-port", "0", "--nvme-port", "0", "--discovery-port", "0")) {
            assertThat(p.awaitExit(START)).isEqualTo(2);
            assertThat(p.stderr()).anyMatch(l -> l.matches("examples/broken/\\S+\\.yaml:\\d+: .+"));
            assertThat(p.stdout()).isEmpty();
        }
    }

    @Test
    void launcherRunsTheBuiltJar() throws Exception {
        try (ServerProcess p = ServerProcess.exec(List.of("./blocktarget", "--version"), Map.of())) {
            assertThat(p.awaitExit(START)).as(String.join("\n", p.stderr())).isZero();
            assertThat(p.stdout()).first().asString().startsWith("blocktarget ");
        }
    }

    @Test
    void launcherWithoutJdk25SaysWhatToInstall() throws Exception {
        Path jdk17 = Path.of("/usr/lib/jvm/java-17-openjdk-amd64");
        Map<String, String> env = Map.of("JAVA_HOME", Files.isDirectory(jdk17) ? jdk17.toString() : "/nonexistent",
                "BLOCKTARGET_JVM_DIRS", "");
        for (String command : List.of("./blocktarget", "./run-tests")) {
            try (ServerProcess p = ServerProcess.exec(List.of(command, "--version"), env)) {
                assertThat(p.awaitExit(START)).isEqualTo(1);
                assertThat(p.stderr()).hasSize(1);
                assertThat(p.stderr().getFirst()).contains("needs a JDK 25 or newer").contains("install");
                assertThat(p.stdout()).isEmpty();
            }
        }
    }
}
