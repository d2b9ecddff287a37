package io.blocktarget.it;

import io.blocktarget.it.Harnesses.Phase;
import io.blocktarget.it.Harnesses.Result;
import io.blocktarget.it.Harnesses.Status;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The upstream harnesses against blocktarget (issue 30; docs/blktests-fstests.md): blktests and fstests, built from
 * the pinned snapshots of ../shared/third-party by {@code scripts/build-harnesses}, run in the Linux 7.x guest of the
 * initiator VM against a server serving {@code examples/harnesses} — the very files the docs page shows. blktests'
 * nvme group reaches the server through {@code contrib/blktests/nvme_target_control} over control-listen.
 * <ul>
 * <li>{@link #ciSelection}: a few tests of each kind, minutes — the vm tier;</li>
 * <li>{@link #blktestsFull}, {@link #fstestsQuick}, {@link #fstestsAtomicWrites}: the whole nvme group at 512 B and
 *     16 KiB, the scsi / block device tests, fstests' quick group per block size and protocol — the stress tier.</li>
 * </ul>
 * Every run ends with "N passed, N failed, N not run" and leaves the harnesses' own results (blktests' result files,
 * fstests' check.log and xunit result.xml), the guest's output, the server log and a table in
 * {@code it-tests/target/harness/NAME/}. A test the harness reports failed fails the run; "not run" carries the
 * harness's own reason, or the expunge file's.
 */
@Tag("vm")
class LinuxHarnessesIT {
    /** blktests: the hook's tests (at each block size) and the device tests, quick ones of each kind. */
    static final List<String> CI_BLKTESTS_NVME = List.of("nvme/004", "nvme/006", "nvme/008", "nvme/041");
    static final List<String> CI_BLKTESTS_NVME_DEV = List.of("nvme/059");
    static final List<String> CI_BLKTESTS_SCSI = List.of("block/003", "scsi/006");
    /** fstests: generic/001 on XFS at 16 KiB over NVMe/TCP and at 4 KiB over iSCSI, one atomic-write test. */
    static final List<String> CI_FSTESTS = List.of("generic/001");
    static final List<String> CI_FSTESTS_ATOMIC = List.of("generic/765");
    private static final Duration CI_RUN = Duration.ofMinutes(60);
    /** The full runs under TCG on a shared 2-core host: hours (docs/blktests-fstests.md has the measured times). */
    private static final Duration FULL_RUN = Duration.ofHours(Long.getLong("it.harness.hours", 12));

    /** The full runs take hours: asked for by name ({@code -Dit.harness.full=true}), never part of a tier's run. */
    private static void full() {
        assumeTrue(Boolean.getBoolean("it.harness.full"), "full harness runs take hours: -Dit.harness.full=true");
    }

    @Test
    void ciSelection() throws Exception {
        Run run = run("ci", Map.of(
                "BLKTESTS_NVME", String.join(" ", CI_BLKTESTS_NVME),
                "BLKTESTS_NVME_LBS", "512 16384",
                "BLKTESTS_NVME_DEV", String.join(" ", CI_BLKTESTS_NVME_DEV),
                "BLKTESTS_SCSI", String.join(" ", CI_BLKTESTS_SCSI),
                "BLKTESTS_SCSI_DEVS", "16k",
                "FSTESTS_SECTIONS", "xfs_16k_nvme xfs_4k_iscsi xfs_atomic_nvme",
                "FSTESTS_ARGS", String.join(" ", CI_FSTESTS),
                "FSTESTS_ATOMIC_ARGS", String.join(" ", CI_FSTESTS_ATOMIC)), CI_RUN);
        run.assertNoFailure();
        for (String lbs : List.of("512", "16384")) {
            for (String test : CI_BLKTESTS_NVME) {
                run.assertPassed("blktests-nvme-" + lbs, test);
            }
            for (String test : CI_BLKTESTS_NVME_DEV) {
                run.assertPassed("blktests-nvme-dev-" + lbs, test);
            }
        }
        for (String test : CI_BLKTESTS_SCSI) {
            run.assertPassed("blktests-scsi-16k", test);
        }
        for (String section : List.of("xfs_16k_nvme", "xfs_4k_iscsi")) {
            for (String test : CI_FSTESTS) {
                run.assertPassed("fstests-" + section, test);
            }
        }
        for (String test : CI_FSTESTS_ATOMIC) {
            run.assertPassed("fstests-xfs_atomic_nvme", test);
        }
    }

    /** blktests' nvme group through the hook at 512 B and 16 KiB, its device tests, the scsi / block device tests. */
    @Test
    @Tag("stress")
    void blktestsFull() throws Exception {
        full();
        Run run = run("blktests-full", Map.of(
                "BLKTESTS_NVME", "nvme",
                "BLKTESTS_NVME_LBS", "512 16384",
                "BLKTESTS_NVME_DEV", "nvme",
                "BLKTESTS_SCSI", "scsi block",
                "BLKTESTS_SCSI_DEVS", "512 16k",
                // the fio runs of TIMED tests at most a minute each (block/005 took 9 min under emulation)
                "BLKTESTS_TIMEOUT", "60"), FULL_RUN);
        run.assertNoFailure();
        // every test of the nvme group is accounted for at each block size: run (passed / not run), or expunged
        Set<String> group = run.groupTests("nvme");
        for (String lbs : List.of("512", "16384")) {
            Set<String> seen = new TreeSet<>();
            run.results.stream().filter(r -> r.phase().startsWith("blktests-nvme-") && r.phase().endsWith("-" + lbs))
                    .forEach(r -> seen.add(r.test().split(" ")[0]));
            assertThat(seen).as("nvme tests reported at %s", lbs).containsAll(group);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"xfs_4k_nvme", "xfs_4k_iscsi", "xfs_16k_nvme", "xfs_16k_iscsi"})
    @Tag("stress")
    void fstestsQuick(String section) throws Exception {
        full();
        run("fstests-quick-" + section, Map.of("FSTESTS_SECTIONS", section, "FSTESTS_ARGS", "-g quick"), FULL_RUN)
                .assertNoFailure();
    }

    /**
     * The part of fstests' quick group a VM run can afford (the whole group is most of a day per configuration
     * under TCG; these take 10 to 12 minutes per configuration): the quick tests that move data through the block
     * device in the ways a block size changes — buffered, direct, AIO and mmap I/O, fsx with direct I/O,
     * preallocation, punch / zero range, SEEK_DATA / HOLE — plus fsstress and an XFS growfs.
     */
    static final List<String> FSTESTS_BLOCK_SIZE = List.of(
            "generic/001", "generic/013", "generic/091", "generic/214", "generic/240", "generic/246", "generic/248",
            "generic/263", "generic/286", "generic/391", "generic/436", "generic/450", "generic/465", "generic/469",
            "generic/568", "xfs/078");

    /** {@link #FSTESTS_BLOCK_SIZE} on XFS at 16 KiB and 4 KiB over both protocols (45 minutes under TCG). */
    @Test
    @Tag("stress")
    void fstestsBlockSize() throws Exception {
        full();
        Run run = run("fstests-block-size", Map.of("FSTESTS_SECTIONS", "xfs_16k_nvme xfs_16k_iscsi xfs_4k_nvme "
                + "xfs_4k_iscsi", "FSTESTS_ARGS", String.join(" ", FSTESTS_BLOCK_SIZE)), FULL_RUN);
        run.assertNoFailure();
    }

    @ParameterizedTest
    @ValueSource(strings = {"xfs_atomic_nvme", "xfs_atomic_iscsi"})
    @Tag("stress")
    void fstestsAtomicWrites(String section) throws Exception {
        full();
        run("fstests-atomic-" + section, Map.of("FSTESTS_SECTIONS", section, "FSTESTS_ATOMIC_ARGS",
                "-g atomicwrites"), FULL_RUN).assertNoFailure();
    }

    /**
     * Any selection, by hand (re-running what a full run failed, say): {@code -Dit.harness.env="BLKTESTS_NVME=nvme/012
     * nvme/029;BLKTESTS_NVME_LBS=16384"}, harness-run.sh's variables separated by semicolons.
     */
    @Test
    @Tag("stress")
    void selection() throws Exception {
        String spec = System.getProperty("it.harness.env");
        assumeTrue(spec != null && !spec.isBlank(), "a selection by hand: -Dit.harness.env=\"VAR=VALUE;...\"");
        Map<String, String> env = new LinkedHashMap<>();
        for (String pair : spec.split(";")) {
            String[] kv = pair.split("=", 2);
            assertThat(kv).as("%s is VAR=VALUE", pair).hasSize(2);
            env.put(kv[0].strip(), kv[1].strip());
        }
        run("selection", env, FULL_RUN).assertNoFailure();
    }

    /**
     * docs/blktests-fstests.md shows the files the runs use: every file of examples/harnesses (but the expunge
     * lists, which it links) is quoted there verbatim, under a line naming it.
     */
    @Test
    void docsQuoteTheTestedFilesVerbatim() throws Exception {
        String doc = Files.readString(ServerProcess.REPO.resolve("docs/blktests-fstests.md"));
        List<Path> files;
        try (Stream<Path> walk = Files.walk(Harnesses.EXAMPLES)) {
            files = walk.filter(Files::isRegularFile).filter(f -> !f.getFileName().toString().startsWith("expunge"))
                    .sorted().toList();
        }
        assertThat(files).hasSizeGreaterThan(10);
        for (Path file : files) {
            String name = ServerProcess.REPO.relativize(file).toString();
            Matcher m = Pattern.compile("(?m)^<!-- file: " + Pattern.quote(name) + " -->\\n```[a-z]*\\n(.*?)^```$",
                    Pattern.DOTALL).matcher(doc);
            assertThat(m.find()).as("docs/blktests-fstests.md quotes %s", name).isTrue();
            assertThat(m.group(1)).as("%s as quoted", name).isEqualTo(Files.readString(file));
        }
    }

    // --- one run --------------------------------------------------------------------------------------------

    /** A finished guest run: its phases, results and where its artifacts are. */
    record Run(Path share, String output, List<Phase> phases, List<Result> results, Path built) {
        void assertNoFailure() {
            assertThat(results).as("harness results; table in %s", share.resolve("results.md"))
                    .filteredOn(r -> r.status() == Status.FAILED).isEmpty();
        }

        void assertPassed(String phase, String test) {
            assertThat(results).as("%s %s passed; table in %s", phase, test, share.resolve("results.md"))
                    .anyMatch(r -> r.phase().equals(phase) && r.test().split(" ")[0].equals(test)
                            && r.status() == Status.PASSED);
        }

        /** The tests of a blktests group in the built tree (tests/GROUP/NNN). */
        Set<String> groupTests(String group) throws Exception {
            Set<String> tests = new TreeSet<>();
            try (Stream<Path> files = Files.list(built.resolve("blktests/tests").resolve(group))) {
                files.map(f -> f.getFileName().toString()).filter(n -> n.matches("\\d{3}"))
                        .forEach(n -> tests.add(group + "/" + n));
            }
            return tests;
        }
    }

    /**
     * The tests of a scsi / block group without {@code test_device}: they make their own device (scsi_debug,
     * null_blk, ...) and test the kernel with it, so they do not apply to a target's disk; -d leaves them out.
     */
    private static List<Result> notDeviceTests(Phase phase, Path groupDir, Map<String, String> expunged)
            throws Exception {
        List<Result> results = new ArrayList<>();
        List<Path> tests;
        try (Stream<Path> files = Files.list(groupDir)) {
            tests = files.filter(f -> f.getFileName().toString().matches("\\d{3}")).sorted().toList();
        }
        for (Path test : tests) {
            String name = groupDir.getFileName() + "/" + test.getFileName();
            String text = Files.readString(test);
            if (text.contains("test_device()") || text.contains("test_device_array()") || expunged.containsKey(name)) {
                continue;
            }
            List<String> uses = new ArrayList<>();
            for (String device : List.of("scsi_debug", "null_blk", "ublk", "loop", "nvme", "sr_mod", "dm")) {
                if (Pattern.compile("\\b_?(have_|init_|configure_|require_)?" + device + "\\b|" + device + "_")
                        .matcher(text).find()) {
                    uses.add(device);
                }
            }
            results.add(new Result(phase.name(), name, Status.NOT_RUN, "not applicable: no test device; makes its own"
                    + (uses.isEmpty() ? "" : " (" + String.join(", ", uses) + ")")));
        }
        return results;
    }

    private static Run run(String name, Map<String, String> env, Duration timeout) throws Exception {
        InitiatorVm.assumeAvailable();
        long t0 = System.nanoTime();
        Path built = Harnesses.buildHarnesses();
        Path share = Harnesses.prepareShare(name, built);
        Map<String, String> blktestsExpunge = Harnesses.expunged(Harnesses.EXAMPLES.resolve("blktests/expunge"));
        Map<String, String> fstestsExpunge = Harnesses.expunged(Harnesses.EXAMPLES.resolve("fstests/expunge"));
        InitiatorVm.Result guest;
        List<String> serverLog;
        try (InitiatorVm vm = InitiatorVm.create("hrn");
             ServerProcess server = Harnesses.startServer(vm, share)) {
            guest = Harnesses.runGuest(vm, share, env, timeout);
            server.terminate();
            server.awaitExit(Duration.ofSeconds(60));
            serverLog = server.stderr();
        }
        Files.write(share.resolve("server.log"), serverLog);
        Duration wall = Duration.ofNanos(System.nanoTime() - t0);
        List<Phase> phases = Harnesses.phases(guest.output());
        List<Result> results = new ArrayList<>();
        Map<String, Duration> times = new LinkedHashMap<>();
        for (Phase phase : phases) {
            times.put(phase.name(), phase.time());
            if (phase.name().startsWith("blktests-")) {
                results.addAll(Harnesses.blktests(phase, share));
                String selection = phase.name().startsWith("blktests-scsi-") ? env.get("BLKTESTS_SCSI")
                        : phase.name().startsWith("blktests-nvme-dev-") ? env.get("BLKTESTS_NVME_DEV")
                        : env.get("BLKTESTS_NVME");
                // each phase also leaves out what expunge-LBS lists (tests that assume other block sizes); the
                // scsi phases are named by their disk (blktests-dev-16k), the nvme phases by the block size
                Map<String, String> expunge = new LinkedHashMap<>(blktestsExpunge);
                String lbs = phase.name().substring(phase.name().lastIndexOf('-') + 1).replace("16k", "16384");
                Path perLbs = Harnesses.EXAMPLES.resolve("blktests/expunge-" + lbs);
                if (Files.exists(perLbs)) {
                    expunge.putAll(Harnesses.expunged(perLbs));
                }
                for (String group : selection.split(" ")) {
                    if (!group.contains("/")) {   // a whole group: the tests -x left out are not run, say why
                        results.addAll(Harnesses.blktestsExpunged(phase, group, expunge));
                        if (phase.name().startsWith("blktests-scsi-")) {   // and those -d leaves out
                            results.addAll(notDeviceTests(phase, built.resolve("blktests/tests").resolve(group),
                                    blktestsExpunge));
                        }
                    }
                }
            } else {
                results.addAll(Harnesses.fstests(phase, share, fstestsExpunge));
            }
        }
        Harnesses.report(share, name + String.format(" (wall time %d min %02d s)", wall.toMinutes(),
                wall.toSecondsPart()), results, times);
        Harnesses.trimShare(share);
        System.out.println("[" + name + "] wall time " + wall.toMinutes() + " min " + wall.toSecondsPart() + " s; "
                + Harnesses.countsLine(results));
        Run run = new Run(share, guest.output(), phases, results, built);
        // every phase the guest started finished, and what it printed was read
        assertThat(phases).as("phases; guest output in %s", share.resolve("guest.log")).isNotEmpty()
                .allMatch(p -> p.rc() >= 0);
        assertThat(phases).as("phases that ended in trouble before the harness ran (rc 2); see guest.log")
                .noneMatch(p -> p.rc() == 2);
        assertThat(guest.exitCode()).as("guest exit code (0: no harness reported a failure); see %s",
                share.resolve("guest.log")).isIn(0, 1);
        return run;
    }
}
