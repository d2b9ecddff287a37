package io.blocktarget.it.nvme;

import io.blocktarget.it.ProcessOutput;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real blocktarget process for the load and soak tests: two 128 MiB RAM LUNs of 4 KiB blocks ("load-iscsi" for
 * the iSCSI sessions, "load-nvme" for the NVMe/TCP controllers), native memory tracking on so that its direct
 * memory can be reported, and a snapshot of its heap, direct memory, RSS, file descriptors and threads.
 */
final class ServedLoad implements AutoCloseable {
    static final String IQN = "iqn.2026-11.io.blocktarget:load-iscsi";
    static final String NQN = "nqn.2026-11.io.blocktarget:load-nvme";
    final int iscsiPort;
    final int nvmePort;
    final Process process;
    final Path log;
    private final ProcessOutput output;

    /** What the server process holds at one moment (after a full GC). */
    record Stats(long heapUsedKiB, long directKiB, long rssKiB, int fds, int threads) {
        @Override
        public String toString() {
            return String.format("heap %d MiB, direct %d MiB, RSS %d MiB, fds %d, threads %d", heapUsedKiB >> 10,
                    directKiB >> 10, rssKiB >> 10, fds, threads);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    ServedLoad(Path dir) throws Exception {
        Path config = dir.resolve("conf");
        Files.createDirectories(config.resolve("luns.d"));
        iscsiPort = freePort();
        nvmePort = freePort();
        Files.writeString(config.resolve("blocktarget.yaml"), "bind: 127.0.0.1\niscsi-port: " + iscsiPort
                + "\nnvme-port: " + nvmePort + "\ndiscovery-port: 0\ncontrol-socket: off\n");
        for (String name : List.of("load-iscsi", "load-nvme")) {
            Files.writeString(config.resolve("luns.d/" + name + ".yaml"),
                    "backend: ram\nsize: 128MiB\nlogical-block-size: 4KiB\n");
        }
        log = dir.resolve("server.log");
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-Xmx512m",
                "-XX:NativeMemoryTracking=summary", "-jar",
                Path.of(System.getProperty("blocktarget.jar")).toAbsolutePath().toString(),
                "serve", "--config", config.toString()));
        process = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        output = ProcessOutput.follow(process, log);
        output.await(line -> line.startsWith("portals: "), Duration.ofSeconds(60)); // printed once they listen
    }

    LoadDriver driver() {
        return new LoadDriver(iscsiPort, nvmePort, IQN, NQN);
    }

    private String jcmd(String... args) throws IOException, InterruptedException {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        List<String> cmd = new ArrayList<>(List.of(jcmd.toString(), Long.toString(process.pid())));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        p.waitFor(60, TimeUnit.SECONDS);
        return out;
    }

    private static long number(Pattern p, String text) {
        Matcher m = p.matcher(text);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    /** Heap after a full GC, NMT "Other" (direct ByteBuffers, Netty's arenas), /proc status and fd count. */
    Stats stats() throws IOException, InterruptedException {
        jcmd("GC.run");
        String heap = jcmd("GC.heap_info");
        String nmt = jcmd("VM.native_memory", "summary");
        String status = Files.readString(Path.of("/proc", Long.toString(process.pid()), "status"));
        int fds;
        try (var s = Files.list(Path.of("/proc", Long.toString(process.pid()), "fd"))) {
            fds = (int) s.count();
        }
        long heapUsed = number(Pattern.compile("used (\\d+)K"), heap);
        long direct = number(Pattern.compile("-\\s+Other \\(reserved=\\d+KB, committed=(\\d+)KB\\)"), nmt);
        return new Stats(heapUsed, direct, number(Pattern.compile("VmRSS:\\s+(\\d+) kB"), status), fds,
                (int) number(Pattern.compile("Threads:\\s+(\\d+)"), status));
    }

    @Override
    public void close() throws Exception {
        process.toHandle().destroy();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String text = output.awaitEnd(Duration.ofSeconds(30));
        assertThat(process.exitValue()).as(text).isZero();
        assertThat(text).doesNotContain("LEAK", "Exception in thread", "internal error");
    }
}
