package io.blocktarget.it;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The Linux initiator VM of {@code ../shared/initiator-vm} (see its README): a network namespace
 * of our own holding the target, and a QEMU guest wired into it. The guest reaches only the
 * namespace (192.168.231.0/24); nothing leaves the machine.
 */
final class InitiatorVm implements AutoCloseable {
    /** ../shared/initiator-vm beside the checkout; INITIATOR_VM_DIR overrides (e.g. for git worktrees elsewhere). */
    static final Path VM_DIR = System.getenv("INITIATOR_VM_DIR") != null
            ? Path.of(System.getenv("INITIATOR_VM_DIR"))
            : ServerProcess.REPO.resolve("../shared/initiator-vm").normalize();
    /** The host side of the namespace's tap, where the target listens (netns.sh default). */
    static final String TARGET_ADDR = "192.168.231.1";
    /** TCG emulation is slow: first boot builds the image (~60 s), later boots take ~10 s. */
    static final Duration GUEST_TIMEOUT = Duration.ofSeconds(420);
    /** run.sh's exit code when the VM ended without the guest script reporting (kernel panic, qemu error). */
    static final int VM_DIED = 125;
    /** The first line every guest script of ours prints (vm/lbs-check.sh). */
    static final String GUEST_STARTED = "# kernel ";

    private final String namespace;

    private InitiatorVm(String namespace) {
        this.namespace = namespace;
    }

    /** Skips the calling test, with the reason, only where this machine truly cannot run the VM. */
    static void assumeAvailable() {
        Assumptions.assumeTrue(Files.isExecutable(VM_DIR.resolve("run.sh")),
                "initiator VM not found at " + VM_DIR + " (../shared/initiator-vm beside the checkout)");
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")),
                "the initiator VM needs root (network namespaces, tap devices)");
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/sbin/ip")) || Files.isExecutable(Path.of("/sbin/ip"))
                || Files.isExecutable(Path.of("/usr/bin/ip")), "iproute2 (ip) is not installed");
    }

    /** Creates a fresh namespace (netns.sh up) named after this JVM, so parallel runs never share one. */
    static InitiatorVm create(String tag) throws IOException, InterruptedException {
        String ns = "bt-" + tag + "-" + ProcessHandle.current().pid();
        run(List.of(VM_DIR.resolve("netns.sh").toString(), "down", ns), Duration.ofSeconds(30)); // leftovers
        Result up = run(List.of(VM_DIR.resolve("netns.sh").toString(), "up", ns), Duration.ofSeconds(30));
        if (up.exitCode() != 0) {
            throw new IOException("netns.sh up " + ns + " failed: " + up.output());
        }
        return new InitiatorVm(ns);
    }

    String namespace() {
        return namespace;
    }

    /** Starts blocktarget inside the namespace. */
    ServerProcess startServer(String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", namespace));
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.addAll(List.of("--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                "-Xmx256m", "-jar", ServerProcess.JAR.toAbsolutePath().toString()));
        cmd.addAll(List.of(args));
        return ServerProcess.exec(cmd, Map.of());
    }

    /** Boots the guest, runs {@code guestScript} with {@code env}, returns its exit code and output. */
    Result runGuest(Path guestScript, Map<String, String> env) throws IOException, InterruptedException {
        return runGuest(guestScript, env, "latest", GUEST_TIMEOUT);
    }

    /**
     * Boots the guest with {@code kernel} ("latest" = 7.x, "bookworm" = 6.1), runs {@code guestScript};
     * run.sh kills the VM 60 s before {@code timeout} so its own report arrives first.
     */
    Result runGuest(Path guestScript, Map<String, String> env, String kernel, Duration timeout)
            throws IOException, InterruptedException {
        return runGuest(guestScript, env, kernel, timeout, null);
    }

    /** As {@link #runGuest(Path, Map, String, Duration)}, with host directory {@code share} at /share (run.sh --share). */
    Result runGuest(Path guestScript, Map<String, String> env, String kernel, Duration timeout, Path share)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(VM_DIR.resolve("run.sh").toString(),
                "--netns", namespace, "--kernel", kernel, "--timeout", Long.toString(timeout.toSeconds() - 60)));
        if (share != null) {
            cmd.addAll(List.of("--share", share.toAbsolutePath().toString()));
        }
        env.forEach((k, v) -> cmd.addAll(List.of("--env", k + "=" + v)));
        cmd.add(GuestScripts.ship(guestScript).toString());
        Result result = run(cmd, timeout);
        if (result.exitCode() == VM_DIED && !result.output().contains(GUEST_STARTED)) {
            // The emulated guest died while booting, before our script ran a line (seen once: an int3
            // Oops in sched_clock_cpu 1 s into a TCG boot of 7.3). Nothing of the target was exercised,
            // so boot once more; a failure after the script started is never retried.
            System.out.println("[initiator VM] guest died while booting; booting once more\n" + result.output());
            result = run(cmd, timeout);
        }
        return result;
    }

    /**
     * Boots the guest and returns at once: run.sh streams the guest script's output to its stdout, so the test reads
     * it line by line ({@link ServerProcess#awaitLine}) and acts on the server while the guest runs (the host side of
     * an interactive check). {@code env} entries are {@code K=V}. Returns once the guest's script has started; a guest
     * that died while booting (run.sh's code 125 before the script's first line, as {@link #runGuest} retries) is
     * booted once more — after the script started nothing is retried.
     */
    ServerProcess startGuest(Path guestScript, List<String> env, String kernel, Duration timeout)
            throws IOException, InterruptedException {
        return startGuest(guestScript, env, kernel, timeout, null);
    }

    /**
     * As {@link #startGuest(Path, List, String, Duration)}, with host directory {@code share} at /share (run.sh
     * --share): also a way to tell the running guest something (a file the test creates there).
     */
    ServerProcess startGuest(Path guestScript, List<String> env, String kernel, Duration timeout, Path share)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(VM_DIR.resolve("run.sh").toString(),
                "--netns", namespace, "--kernel", kernel, "--timeout", Long.toString(timeout.toSeconds())));
        if (share != null) {
            cmd.addAll(List.of("--share", share.toAbsolutePath().toString()));
        }
        env.forEach(e -> cmd.addAll(List.of("--env", e)));
        cmd.add(GuestScripts.ship(guestScript).toString());
        ServerProcess guest = ServerProcess.exec(cmd, Map.of());
        if (guest.sawLine(true, l -> l.startsWith(GUEST_STARTED), timeout)) {
            return guest;
        }
        int code = guest.awaitExit(Duration.ofSeconds(60));
        if (code != VM_DIED) {
            return guest; // the caller's awaitLine reports what happened
        }
        System.out.println("[initiator VM] guest died while booting; booting once more\n"
                + String.join("\n", guest.stderr()));
        guest.close();
        return ServerProcess.exec(cmd, Map.of());
    }

    /**
     * Gives the namespace another address in the guest's /24 (e.g. 192.168.231.3), e.g. for a second portal. It goes on
     * {@code lo} as a /32: run.sh takes the tap's (ivm0's) one address as the guest's peer, and the namespace answers
     * the guest's ARP for any of its addresses on the tap anyway.
     */
    void addAddress(String address) throws IOException, InterruptedException {
        Result r = run(List.of("ip", "-n", namespace, "addr", "add", address + "/32", "dev", "lo"),
                Duration.ofSeconds(30));
        if (r.exitCode() != 0) {
            throw new IOException("ip -n " + namespace + " addr add " + address + "/32 dev lo failed: " + r.output());
        }
    }

    @Override
    public void close() throws IOException, InterruptedException {
        run(List.of(VM_DIR.resolve("netns.sh").toString(), "down", namespace), Duration.ofSeconds(30));
    }

    record Result(int exitCode, String output) {
    }

    static Result run(List<String> command, Duration timeout) throws IOException, InterruptedException {
        Path log = Files.createTempFile("blocktarget-it-", ".log");
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                p.waitFor(30, TimeUnit.SECONDS);
                return new Result(124, "timed out after " + timeout + ": " + command + "\n" + Files.readString(log));
            }
            return new Result(p.exitValue(), Files.readString(log));
        } finally {
            Files.deleteIfExists(log);
        }
    }
}
