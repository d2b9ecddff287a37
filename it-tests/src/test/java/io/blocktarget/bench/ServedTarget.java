package io.blocktarget.bench;

import io.blocktarget.it.ProcessOutput;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code blocktarget serve --bind 127.0.0.1} from the built jar (system property {@code blocktarget.jar}) with the
 * embedded RAM matrix on free loopback ports, as the benchmark runs it; stdout/stderr go to files so nothing
 * blocks. Closing kills it.
 */
final class ServedTarget implements AutoCloseable {
    static final Path JAR = Path.of(System.getProperty("blocktarget.jar", "../target-server/target/blocktarget.jar"));

    final int iscsiPort;
    final int nvmePort;
    private final Process process;
    private final Path log;
    private final ProcessOutput output;

    ServedTarget() throws IOException, InterruptedException {
        iscsiPort = freePort();
        nvmePort = freePort();
        log = Files.createTempFile("loadgen-it-server", ".log");
        process = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-Xmx512m",
                "-jar", JAR.toAbsolutePath().toString(), "serve", "--bind", "127.0.0.1",
                "--iscsi-port", Integer.toString(iscsiPort), "--nvme-port", Integer.toString(nvmePort),
                "--discovery-port", "0")
                .redirectErrorStream(true).start();
        output = ProcessOutput.follow(process, log);
        try {
            output.await(line -> line.startsWith("portals: "), java.time.Duration.ofSeconds(30)); // they listen
        } catch (AssertionError e) {
            close();
            throw new IOException("blocktarget did not start: " + e.getMessage());
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    String output() {
        return output.text();
    }

    /** The --target option for a protocol. */
    String target(LoadGenOptions.Protocol protocol) {
        return "127.0.0.1:" + (protocol == LoadGenOptions.Protocol.ISCSI ? iscsiPort : nvmePort);
    }

    /** The --name of the embedded LUN {@code lun} (ram-512, ram-4k, ram-16k, ram-64k) for a protocol. */
    static String name(LoadGenOptions.Protocol protocol, String lun) {
        return (protocol == LoadGenOptions.Protocol.ISCSI ? "iqn" : "nqn") + ".2026-11.io.blocktarget:" + lun;
    }

    static List<LoadGenOptions.Protocol> protocols() {
        return List.of(LoadGenOptions.Protocol.values());
    }

    @Override
    public void close() throws IOException {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Files.deleteIfExists(log);
    }
}
