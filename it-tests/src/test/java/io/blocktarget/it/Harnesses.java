package io.blocktarget.it;

import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The plumbing of the harness runs (docs/blktests-fstests.md): blktests and fstests built from the pinned snapshots
 * ({@code scripts/build-harnesses}), the share the guest sees at /share (the server's config directory
 * {@code examples/harnesses} with a fresh control token, the repository's blktests hook, the built trees), the guest
 * run with its output kept as an artifact, and the harnesses' own results read back into one table.
 */
final class Harnesses {
    /** Where the runs keep their artifacts: results in the harnesses' own formats, logs, the table. */
    static final Path ARTIFACTS = ServerProcess.REPO.resolve("it-tests/target/harness");
    static final Path EXAMPLES = ServerProcess.REPO.resolve("examples/harnesses");
    static final Path GUEST_SCRIPT = ServerProcess.REPO.resolve("it-tests/src/test/resources/vm/harness-run.sh");

    private Harnesses() {
    }

    enum Status {
        PASSED("passed"), FAILED("failed"), NOT_RUN("not run");

        final String text;

        Status(String text) {
            this.text = text;
        }
    }

    /** One test of one phase (e.g. blktests-nvme-512, fstests-xfs_16k_nvme) as its harness reported it. */
    record Result(String phase, String test, Status status, String detail) {
    }

    /** Builds (or finds built) blktests and xfstests; returns the directory holding both trees. */
    static Path buildHarnesses() throws IOException, InterruptedException {
        InitiatorVm.Result build = InitiatorVm.run(List.of(ServerProcess.REPO.resolve("scripts/build-harnesses").toString()),
                Duration.ofMinutes(30));
        if (build.exitCode() != 0) {
            throw new IOException("scripts/build-harnesses failed:\n" + build.output());
        }
        String[] lines = build.output().strip().split("\n");
        return Path.of(lines[lines.length - 1]);
    }

    /**
     * A fresh share for one run under {@link #ARTIFACTS}/{@code name}: harnesses/ (a copy of examples/harnesses plus
     * control.token), blocktarget/contrib/blktests, blktests/ and xfstests/ (copies of the built trees).
     */
    static Path prepareShare(String name, Path built) throws IOException, InterruptedException {
        Path share = ARTIFACTS.resolve(name);
        exec(List.of("rm", "-rf", share.toString()));
        Files.createDirectories(share.resolve("blocktarget"));
        exec(List.of("cp", "-a", EXAMPLES.toString(), share.resolve("harnesses").toString()));
        byte[] token = new byte[32];
        new SecureRandom().nextBytes(token);
        Path tokenFile = share.resolve("harnesses/control.token");
        Files.writeString(tokenFile, Base64.getEncoder().encodeToString(token) + "\n");
        Files.setPosixFilePermissions(tokenFile, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        exec(List.of("cp", "-a", ServerProcess.REPO.resolve("contrib").toString(), share.resolve("blocktarget/contrib").toString()));
        exec(List.of("cp", "-a", built.resolve("blktests").toString(), share.resolve("blktests").toString()));
        exec(List.of("cp", "-a", built.resolve("xfstests").toString(), share.resolve("xfstests").toString()));
        return share;
    }

    /** After a run: the copied trees and the LUNs' disk images go, results and logs stay. */
    static void trimShare(Path share) throws IOException, InterruptedException {
        exec(List.of("rm", "-rf", share.resolve("blktests").toString(), share.resolve("xfstests").toString(),
                share.resolve("harnesses/disks").toString()));
    }

    /** Starts blocktarget in the VM's namespace on the share's config directory and waits until it serves. */
    static ServerProcess startServer(InitiatorVm vm, Path share) throws IOException, InterruptedException {
        long luns;
        try (Stream<Path> files = Files.list(share.resolve("harnesses/luns.d"))) {
            luns = files.filter(f -> f.toString().endsWith(".yaml")).count();
        }
        ServerProcess server = vm.startServer("serve", "--config", share.resolve("harnesses").toString(),
                "--bind", InitiatorVm.TARGET_ADDR);
        server.awaitLine(false, l -> l.contains("serving " + luns + " LUNs"), Duration.ofSeconds(120));
        return server;
    }

    /**
     * Boots the guest with {@code vm/harness-run.sh} and {@code env}; its output goes to {@code share/guest.log} as it
     * comes (a long run can be watched) and is returned. run.sh gets {@code timeout} minus a minute, so its own report
     * arrives first. A guest that died while booting (before the script's first line) is booted once more.
     */
    static InitiatorVm.Result runGuest(InitiatorVm vm, Path share, Map<String, String> env, Duration timeout)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(InitiatorVm.VM_DIR.resolve("run.sh").toString(),
                "--netns", vm.namespace(), "--kernel", "latest", "--timeout", Long.toString(timeout.toSeconds() - 60),
                "--share", share.toString()));
        env.forEach((k, v) -> cmd.addAll(List.of("--env", k + "=" + v)));
        cmd.add(GUEST_SCRIPT.toString());
        Path log = share.resolve("guest.log");
        InitiatorVm.Result result = runLogged(cmd, timeout, log);
        if (result.exitCode() == InitiatorVm.VM_DIED && !result.output().contains(InitiatorVm.GUEST_STARTED)) {
            System.out.println("[initiator VM] guest died while booting; booting once more\n" + result.output());
            result = runLogged(cmd, timeout, log);
        }
        return result;
    }

    private static InitiatorVm.Result runLogged(List<String> cmd, Duration timeout, Path log)
            throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
            return new InitiatorVm.Result(124, Files.readString(log) + "\ntimed out after " + timeout);
        }
        return new InitiatorVm.Result(p.exitValue(), Files.readString(log));
    }

    // --- results ----------------------------------------------------------------------------------------------

    private static final Pattern PHASE = Pattern.compile("^PHASE (\\S+) (START|rc=(\\d+) seconds=(\\d+))$");
    /** blktests' status line: "nvme/004 (tr=tcp) (description)  [passed]", "block/003 => sda (description) [not run]". */
    private static final Pattern BLKTESTS_STATUS =
            Pattern.compile("^(\\S+/\\d{3})( => \\S+)?( \\(((?:tr|bd)=[^)]*)\\))? .*\\[(passed|failed|not run)\\]\\s*$");
    private static final Pattern FSTESTS_EXPUNGED = Pattern.compile("^(\\S+/\\d{3})\\s+\\[expunged\\]\\s*$");

    /** The phases of a guest run, in order, with their lines and exit codes (-1: the phase never finished). */
    record Phase(String name, List<String> lines, int rc, Duration time) {
    }

    static List<Phase> phases(String output) {
        List<Phase> phases = new ArrayList<>();
        String name = null;
        List<String> lines = null;
        for (String line : output.split("\n")) {
            Matcher m = PHASE.matcher(line.strip());
            if (m.matches()) {
                if (m.group(3) == null) {
                    name = m.group(1);
                    lines = new ArrayList<>();
                } else if (m.group(1).equals(name)) {
                    phases.add(new Phase(name, List.copyOf(lines), Integer.parseInt(m.group(3)),
                            Duration.ofSeconds(Long.parseLong(m.group(4)))));
                    name = null;
                }
            } else if (lines != null) {
                lines.add(line);
            }
        }
        if (name != null) {
            phases.add(new Phase(name, List.copyOf(lines), -1, Duration.ZERO));
        }
        return phases;
    }

    /**
     * blktests' results of one phase: its result files ({@code results/PHASE/DEV_COND/GROUP/NNN}, "status" and
     * "reason" lines; DEV is "nodev" or the test device, COND the test's conditions, e.g. "_tr_tcp_bd_device"),
     * with the indented lines blktests printed under the test's status line (a "not run" test's reasons) as detail.
     */
    static List<Result> blktests(Phase phase, Path share) throws IOException {
        Map<String, List<String>> printed = new LinkedHashMap<>();   // "nvme/006_tr_tcp_bd_device" -> reasons
        Map<String, String> conditions = new LinkedHashMap<>();      // same key -> "tr=tcp bd=device"
        List<String> lines = phase.lines();
        for (int i = 0; i < lines.size(); i++) {
            Matcher m = BLKTESTS_STATUS.matcher(lines.get(i));
            if (!m.matches()) {
                continue;
            }
            List<String> detail = new ArrayList<>();
            for (int j = i + 1; j < lines.size() && lines.get(j).startsWith("    "); j++) {
                String d = lines.get(j).strip();
                if (!d.startsWith("runtime")) {
                    detail.add(d);
                }
            }
            String cond = m.group(4) == null ? "" : m.group(4);
            String key = m.group(1) + (cond.isEmpty() ? "" : "_" + cond.replaceAll("[ =]", "_"));
            printed.put(key, detail);
            conditions.put(key, cond);
        }
        List<Result> results = new ArrayList<>();
        Path dir = share.resolve("results").resolve(phase.name());
        if (!Files.isDirectory(dir)) {
            return results;
        }
        List<Path> files;
        try (Stream<Path> walk = Files.walk(dir, 3)) {
            files = walk.filter(f -> f.getFileName().toString().matches("\\d{3}") && Files.isRegularFile(f))
                    .sorted().toList();
        }
        for (Path file : files) {
            String test = file.getParent().getFileName() + "/" + file.getFileName();
            String devCond = file.getParent().getParent().getFileName().toString();
            String key = test + (devCond.contains("_") ? devCond.substring(devCond.indexOf('_')) : "");
            Map<String, String> kv = new LinkedHashMap<>();
            for (String line : Files.readAllLines(file)) {
                String[] f = line.split("\t", 2);
                kv.put(f[0], f.length > 1 ? f[1] : "");
            }
            Status status = switch (kv.getOrDefault("status", "")) {
                case "pass" -> Status.PASSED;
                case "not run" -> Status.NOT_RUN;
                default -> Status.FAILED;
            };
            String cond = conditions.getOrDefault(key, "");
            String detail = status == Status.FAILED
                    ? "reason: " + kv.getOrDefault("reason", kv.getOrDefault("status", "no status"))
                            + " (" + ServerProcess.REPO.relativize(file) + ")" + failureFiles(file)
                    : String.join("; ", printed.getOrDefault(key, List.of()));
            results.add(new Result(phase.name(), test + (cond.isEmpty() ? "" : " (" + cond + ")"), status, detail));
        }
        return results;
    }

    /**
     * What blktests kept of a failed test beside its result file (the output diff {@code .out.bad}, the test's own log
     * {@code .full}, the kernel log {@code .dmesg}), the last lines of each: a CI log then says why without the run's
     * directory.
     */
    static String failureFiles(Path resultFile) throws IOException {
        StringBuilder b = new StringBuilder();
        for (String suffix : List.of(".out.bad", ".full", ".dmesg")) {
            Path f = resultFile.resolveSibling(resultFile.getFileName() + suffix);
            if (Files.isRegularFile(f)) {
                List<String> lines = Files.readAllLines(f, StandardCharsets.ISO_8859_1);
                b.append("\n    ").append(f.getFileName()).append(" (last lines):");
                lines.subList(Math.max(0, lines.size() - 15), lines.size())
                        .forEach(l -> b.append("\n      ").append(l));
            }
        }
        return b.toString();
    }

    /** The tests an expunge file names ("group/NNN  # reason"), with their reasons, in file order. */
    static Map<String, String> expunged(Path file) throws IOException {
        Map<String, String> tests = new LinkedHashMap<>();
        for (String line : Files.readAllLines(file)) {
            String[] parts = line.split("#", 2);
            String test = parts[0].strip();
            if (!test.isEmpty()) {
                tests.put(test, parts.length > 1 ? parts[1].strip() : "");
            }
        }
        return tests;
    }

    /** blktests does not mention a test -x excluded: those of {@code group} the expunge file lists, as not run. */
    static List<Result> blktestsExpunged(Phase phase, String group, Map<String, String> expunged) {
        List<Result> results = new ArrayList<>();
        expunged.forEach((test, reason) -> {
            if (test.startsWith(group + "/")) {
                results.add(new Result(phase.name(), test, Status.NOT_RUN, "expunged: " + reason));
            }
        });
        return results;
    }

    /**
     * fstests' xunit report of one phase ({@code results/PHASE/result.xml}) plus the tests it printed as
     * "[expunged]" (the report leaves them out).
     */
    static List<Result> fstests(Phase phase, Path share, Map<String, String> expunged) throws Exception {
        List<Result> results = new ArrayList<>();
        Path xml = share.resolve("results").resolve(phase.name()).resolve("result.xml");
        if (Files.exists(xml)) {
            Element suite = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(xml.toFile())
                    .getDocumentElement();
            NodeList cases = suite.getElementsByTagName("testcase");
            for (int i = 0; i < cases.getLength(); i++) {
                Element c = (Element) cases.item(i);
                String test = c.getAttribute("name");
                Status status = Status.PASSED;
                String detail = "";
                NodeList skipped = c.getElementsByTagName("skipped");
                NodeList failure = c.getElementsByTagName("failure");
                if (failure.getLength() > 0) {
                    status = Status.FAILED;
                    detail = ((Element) failure.item(0)).getAttribute("message");
                } else if (skipped.getLength() > 0) {
                    status = Status.NOT_RUN;
                    detail = ((Element) skipped.item(0)).getAttribute("message");
                }
                results.add(new Result(phase.name(), test, status, detail.strip().replace('\n', ' ')));
            }
        }
        for (String line : phase.lines()) {
            Matcher m = FSTESTS_EXPUNGED.matcher(line.strip());
            if (m.matches()) {
                results.add(new Result(phase.name(), m.group(1), Status.NOT_RUN,
                        "expunged: " + expunged.getOrDefault(m.group(1), "")));
            }
        }
        return results;
    }

    static long count(List<Result> results, Status status) {
        return results.stream().filter(r -> r.status() == status).count();
    }

    /** The line both the CI selection and the full runs end with. */
    static String countsLine(List<Result> results) {
        return count(results, Status.PASSED) + " passed, " + count(results, Status.FAILED) + " failed, "
                + count(results, Status.NOT_RUN) + " not run";
    }

    /** A Markdown table per phase (test, status, reason), each phase with its counts, and the counts line last. */
    static String table(List<Result> results, Map<String, Duration> phaseTimes) {
        StringBuilder sb = new StringBuilder();
        Map<String, List<Result>> byPhase = new LinkedHashMap<>();
        results.forEach(r -> byPhase.computeIfAbsent(r.phase(), k -> new ArrayList<>()).add(r));
        byPhase.forEach((phase, rs) -> {
            Duration t = phaseTimes.get(phase);
            sb.append("\n### ").append(phase).append(": ").append(countsLine(rs))
                    .append(t == null ? "" : String.format(" (%d min %02d s)", t.toMinutes(), t.toSecondsPart()))
                    .append("\n\n| test | result | reason |\n|---|---|---|\n");
            for (Result r : rs) {
                sb.append("| ").append(r.test()).append(" | ").append(r.status().text).append(" | ")
                        .append(r.detail().replace("|", "\\|")).append(" |\n");
            }
        });
        sb.append('\n').append(countsLine(results)).append('\n');
        return sb.toString();
    }

    /** Writes the table to {@code share/results.md} and the test log. */
    static void report(Path share, String title, List<Result> results, Map<String, Duration> phaseTimes)
            throws IOException {
        String text = "## " + title + "\n" + table(results, phaseTimes);
        Files.writeString(share.resolve("results.md"), text, StandardCharsets.UTF_8);
        System.out.println(text);
    }

    private static void exec(List<String> cmd) throws IOException, InterruptedException {
        InitiatorVm.Result r = InitiatorVm.run(cmd, Duration.ofMinutes(5));
        if (r.exitCode() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed: " + r.output());
        }
    }
}
