package io.blocktarget.it;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The release tarball (issue 16, item 1): {@code ./blocktarget dist} builds it, and unpacked elsewhere its
 * {@code bin/blocktarget} runs on the bundled jlink'd runtime with no JDK on PATH and no JAVA_HOME (the
 * environment holds nothing but a PATH of {@code readlink} and {@code dirname}): {@code --version},
 * {@code check} of the bundled examples, and {@code serve} until SIGTERM, exit 0 each time.
 */
@Tag("loopback")
class DistIT {
    private static final long TIMEOUT_S = 60;
    /** Building the release runs jdeps over the whole jar (about a minute alone on a busy 2-core machine) and jlink. */
    private static final long DIST_TIMEOUT_S = 600;

    @TempDir
    static Path tmp;
    static Path release;
    static String version;

    @BeforeAll
    static void buildAndUnpack() throws Exception {
        Path out = tmp.resolve("dist");
        Result dist = run(new ProcessBuilder(ServerProcess.REPO.resolve("blocktarget").toString(), "dist",
                "--out", out.toString()).directory(ServerProcess.REPO.toFile()), DIST_TIMEOUT_S);
        assertThat(dist.exit).as("./blocktarget dist\n%s", dist.all()).isZero();
        Matcher m = Pattern.compile("blocktarget-(\\d+\\.\\d+\\.\\d+[^/]*)-linux-x64\\.tar\\.gz").matcher(dist.out.getLast());
        assertThat(m.find()).as("tarball path on stdout: %s", dist.out).isTrue();
        version = m.group(1);
        Path tarball = Path.of(dist.out.getLast());
        assertThat(tarball.getParent()).isEqualTo(out);
        Path unpacked = Files.createDirectory(tmp.resolve("unpacked elsewhere"));
        Result tar = run(new ProcessBuilder("tar", "-C", unpacked.toString(), "-xzf", tarball.toString()));
        assertThat(tar.exit).as("tar\n%s", tar.all()).isZero();
        release = unpacked.resolve("blocktarget-" + version);
        Files.delete(tarball);
    }

    @Test
    void holdsRuntimeJarLauncherUnitExamplesAndHelp() throws IOException {
        assertThat(release.resolve("bin/blocktarget")).isExecutable();
        assertThat(release.resolve("lib/blocktarget.jar")).isRegularFile();
        // a jlink image: a runtime, not a JDK
        assertThat(release.resolve("runtime/bin/java")).isExecutable();
        assertThat(release.resolve("runtime/bin/javac")).doesNotExist();
        assertThat(release.resolve("runtime/include")).doesNotExist();   // --no-header-files
        assertThat(release.resolve("runtime/man")).doesNotExist();       // --no-man-pages
        // only the modules scripts/dist names (issue 33: java.desktop, java.sql, java.compiler went)
        String modules = Files.readAllLines(release.resolve("runtime/release")).stream()
                .filter(l -> l.startsWith("MODULES=")).findFirst().orElseThrow();
        assertThat(modules.substring("MODULES=".length()).replace("\"", "").split(" ")).containsExactlyInAnyOrder(
                "java.base", "java.logging", "java.management", "java.naming", "jdk.jcmd", "jdk.jfr",
                "jdk.management", "jdk.unsupported", "java.security.sasl", "jdk.internal.jvmstat", "jdk.attach");
        assertThat(release.resolve("systemd/blocktarget.service")).content()
                .contains("ExecStart=/opt/blocktarget/bin/blocktarget serve --config /etc/blocktarget"
                        + " --control-socket /run/blocktarget/control.sock", "ReadWritePaths=/etc/blocktarget/luns.d",
                        "Documentation=man:blocktarget(8)");
        assertThat(release.resolve("systemd/blocktarget.sysusers")).isRegularFile();
        assertThat(release.resolve("systemd/blocktarget.tmpfiles")).content()
                .contains("d /etc/blocktarget/luns.d   2770 root blocktarget -");
        assertThat(release.resolve("systemd/blocktarget.default")).content().contains("#BLOCKTARGET_JAVA_OPTS=");
        assertThat(release.resolve("examples/basic/luns.d/ram-16k.yaml")).isRegularFile();
        assertThat(release.resolve("doc/blocktarget.txt")).content()
                .contains("Usage: blocktarget [-hV] [COMMAND]", "Usage: blocktarget serve", "Usage: blocktarget check");
        assertThat(release.resolve("doc/README.md")).isRegularFile();
        // the unit's Documentation= file:/opt/blocktarget/doc/docs/operating.md is in the release
        assertThat(release.resolve("systemd/blocktarget.service")).content()
                .contains("file:/opt/blocktarget/doc/docs/operating.md");
        assertThat(release.resolve("doc/docs/operating.md")).content().contains("## Run as a service (systemd)");
        assertThat(release.resolve("doc/docs/configuration.md")).content()
                .isEqualTo(io.blocktarget.config.KeyReference.markdown());
        // the man pages, as the bundled CLI generates them (the unit's Documentation=man:blocktarget(8))
        assertThat(release.resolve("man/man8/blocktarget.8")).content()
                .startsWith(".\\\" Generated by blocktarget man 8")
                .contains(".TH \"BLOCKTARGET\" 8 \"\" \"blocktarget " + version + "\"",
                        ".SS \"blocktarget lun add\"", ".SS \"blocktarget fault add\"");
        assertThat(release.resolve("man/man5/blocktarget.yaml.5")).content()
                .contains(".TH \"BLOCKTARGET.YAML\" 5", ".SH \"LUN FILES\"", ".B logical\\-block\\-size\n");
    }

    /** The schemas for editors: shipped == generated (== served, OpenApiTest). */
    @Test
    void shipsTheGeneratedSchemas() throws Exception {
        assertThat(release.resolve("share/schema/lun.schema.json")).content()
                .isEqualTo(io.blocktarget.config.ConfigSchema.lun());
        assertThat(release.resolve("share/schema/server.schema.json")).content()
                .isEqualTo(io.blocktarget.config.ConfigSchema.server());
        Result lun = runRelease(List.of("schema", "lun"));
        assertThat(lun.exit).as(lun.all()).isZero();
        assertThat(String.join("\n", lun.out) + "\n").isEqualTo(io.blocktarget.config.ConfigSchema.lun());
    }

    @Test
    void versionAndCheckRunWithoutAnyJdk() throws Exception {
        Result v = runRelease(List.of("--version"));
        assertThat(v.exit).as(v.all()).isZero();
        assertThat(v.out.getFirst()).isEqualTo("blocktarget " + version);

        Path examples = release.resolve("examples/basic");
        Result check = runRelease(List.of("check", "--config", examples.toString()));
        assertThat(check.exit).as(check.all()).isZero();
        assertThat(check.out.getLast()).isEqualTo(examples + ": valid, 3 LUNs");
    }

    /**
     * serve on the bundled runtime until SIGTERM; meanwhile the bundled CLI adds a LUN through the control socket
     * and {@code /metrics} answers with the JVM and process figures (the runtime has what Vert.x's Unix socket,
     * Micrometer's binders and the CLI need).
     */
    @Test
    void serveUntilSigtermExitsZero() throws Exception {
        int iscsi = freePort();
        int nvme = freePort();
        Path examples = release.resolve("examples/basic");
        Path socket = tmp.resolve("control.sock");
        Process p = releaseProcess(List.of("serve", "--config", examples.toString(), "--bind", "127.0.0.1",
                "--iscsi-port", "" + iscsi, "--nvme-port", "" + nvme, "--discovery-port", "0",
                "--control-socket", socket.toString())).start();
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        List<String> err = new ArrayList<>();
        Thread outPump = pump(p, lines, false);
        Thread errPump = pump(p, err, true);
        try {
            String portals = null;
            while (portals == null) {
                String line = lines.poll(TIMEOUT_S, TimeUnit.SECONDS);
                assertThat(line).as("no portals line; stderr: %s", err).isNotNull();
                if (line.startsWith("portals: ")) {
                    portals = line;
                }
            }
            assertThat(portals).isEqualTo("portals: iSCSI 127.0.0.1:" + iscsi + ", NVMe/TCP 127.0.0.1:" + nvme);
            try (Socket s = new Socket()) {   // listening
                s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), iscsi), 5_000);
            }
            // the file LUN was created inside the unpacked examples, relative to its configuration directory
            assertThat(examples.resolve("disks/file-4k.img")).isRegularFile();
            Result add = runRelease(List.of("lun", "add", "dist-null", "--backend", "null", "--size", "1GiB",
                    "--control", socket.toString(), "--json"));
            assertThat(add.exit).as(add.all()).isZero();
            assertThat(String.join("\n", add.out)).contains("\"name\" : \"dist-null\"");
            assertThat(examples.resolve("luns.d/dist-null.yaml")).isRegularFile();
            Result rm = runRelease(List.of("lun", "rm", "dist-null", "--control", socket.toString()));
            assertThat(rm.exit).as(rm.all()).isZero();
            String metrics = get(socket, "/metrics");
            assertThat(metrics).contains("blocktarget_build_info{commit=\"", "version=\"" + version + "\"} 1",
                    "process_resident_memory_bytes ", "jvm_buffer_memory_used_bytes{id=\"direct\"}",
                    "process_files_open_files ", "jvm_gc_");
            p.toHandle().destroy();   // SIGTERM
            assertThat(p.waitFor(TIMEOUT_S, TimeUnit.SECONDS)).isTrue();
            outPump.join();
            errPump.join();
            synchronized (err) {   // complete after the join
                assertThat(p.exitValue()).as("stderr: %s", err).isZero();
                assertThat(err).anyMatch(l -> l.endsWith("blocktarget.server: stopped"));
            }
        } finally {
            p.destroyForcibly();
        }
    }

    /**
     * The checkout launcher's build-on-first-use (scripts/server.sh, bt_ensure_jar, with Maven replaced by
     * {@code true}) in a scratch tree: one stderr line saying why it builds, nothing when the jar is newest.
     */
    @Test
    void checkoutLauncherSaysInOneLineWhyItBuilds() throws Exception {
        Path root = Files.createDirectories(tmp.resolve("checkout"));
        Files.writeString(root.resolve("pom.xml"), "<project/>");
        Path source = Files.createDirectories(root.resolve("protocol/src/main/java")).resolve("Pdu.java");
        Files.writeString(source, "class Pdu {}");
        Path jar = Files.createDirectories(root.resolve("target-server/target")).resolve("blocktarget.jar");
        java.nio.file.attribute.FileTime old = java.nio.file.attribute.FileTime.fromMillis(1_000_000_000_000L);
        Files.setLastModifiedTime(root.resolve("pom.xml"), old);

        Files.setLastModifiedTime(source, old);
        assertThat(ensureJar(root).err).containsExactly("blocktarget: building the server, first use; log: target/build.log");

        Files.writeString(jar, "jar");   // now newer than every source
        assertThat(ensureJar(root).err).isEmpty();

        // git pull: a source newer than the jar
        Files.setLastModifiedTime(jar, old);
        Files.setLastModifiedTime(source, java.nio.file.attribute.FileTime.fromMillis(old.toMillis() + 60_000));
        assertThat(ensureJar(root).err).containsExactly("blocktarget: building the server, "
                + "protocol/src/main/java/Pdu.java is newer than the jar (git pull?); log: target/build.log");
    }

    private static Result ensureJar(Path root) throws Exception {
        Result r = run(new ProcessBuilder("bash", "-c",
                "set -euo pipefail; ROOT=$1; MVN=true; source \"$2\"; bt_ensure_jar", "_",
                root.toString(), ServerProcess.REPO.resolve("scripts/server.sh").toString()));
        assertThat(r.exit).as(r.all()).isZero();
        return r;
    }

    private record Result(int exit, List<String> out, List<String> err) {
        String all() {
            return "stdout:\n" + String.join("\n", out) + "\nstderr:\n" + String.join("\n", err);
        }
    }

    /**
     * The release launcher in an environment without Java: no JAVA_HOME, and PATH holds only the two tools
     * bin/blocktarget uses. The host's default {@code java} (17) cannot run the jar, so a zero exit and
     * "blocktarget VERSION" prove the bundled runtime ran it.
     */
    private static ProcessBuilder releaseProcess(List<String> args) throws IOException {
        Path bin = tmp.resolve("no-jdk-bin");
        if (!Files.isDirectory(bin)) {
            Files.createDirectory(bin);
            for (String tool : new String[] {"readlink", "dirname"}) {
                Files.copy(Path.of("/usr/bin", tool), bin.resolve(tool));   // a copy: a symlink out of @TempDir makes JUnit warn
            }
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(release.resolve("bin/blocktarget").toString());
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(tmp.toFile());
        pb.environment().clear();
        pb.environment().put("PATH", bin.toString());
        return pb;
    }

    private static Result runRelease(List<String> args) throws Exception {
        return run(releaseProcess(args));
    }

    private static Result run(ProcessBuilder pb) throws Exception {
        return run(pb, TIMEOUT_S);
    }

    private static Result run(ProcessBuilder pb, long timeoutSeconds) throws Exception {
        Process p = pb.start();
        List<String> out = new ArrayList<>();
        List<String> err = new ArrayList<>();
        Thread o = pump(p, out, false);
        Thread e = pump(p, err, true);
        try {
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                throw new AssertionError(pb.command() + " did not exit within " + timeoutSeconds + " s");
            }
            o.join();
            e.join();
            return new Result(p.exitValue(), List.copyOf(out), List.copyOf(err));
        } finally {
            p.destroyForcibly();
        }
    }

    private static Thread pump(Process p, java.util.Collection<String> sink, boolean stderr) {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(
                    stderr ? p.getErrorStream() : p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    synchronized (sink) {
                        sink.add(line);
                    }
                }
            } catch (IOException e) {
                // process gone
            }
        }, "dist-it-" + (stderr ? "stderr" : "stdout"));
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** A GET over the control socket with the JDK's own Unix-domain channel; the whole response. */
    private static String get(Path socket, String path) throws IOException {
        try (java.nio.channels.SocketChannel ch = java.nio.channels.SocketChannel.open(
                java.net.UnixDomainSocketAddress.of(socket))) {
            ch.write(java.nio.ByteBuffer.wrap(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII)));
            return new String(java.nio.channels.Channels.newInputStream(ch).readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
