package io.blocktarget.bench;

import io.blocktarget.bench.LoadGenOptions.Protocol;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The load generator against a real {@code blocktarget serve} (embedded RAM matrix) over loopback: every
 * protocol × direction × size runs for a second at QD 8 without errors, data written with {@code --verify} reads
 * back as written, and a target that is not there or refuses the name ends the run with exit status 1.
 */
@Tag("loopback")
class LoadGenIT {
    private static final Pattern LINE = Pattern.compile(
            "proto=(\\w+) rw=(\\w+) bs=(\\d+) qd=(\\d+) jobs=(\\d+) iops=(\\d+) mbps=(\\d+\\.\\d) p50us=(\\d+)"
                    + " p99us=(\\d+) p999us=(\\d+) errors=(\\d+)(?: unwritten=(\\d+))?");
    private static ServedTarget target;

    @BeforeAll
    static void start() throws Exception {
        target = new ServedTarget();
    }

    @AfterAll
    static void stop() throws Exception {
        target.close();
    }

    /** Exit status, stdout, stderr of one run, and the summary line's fields by name. */
    record Run(int code, String out, String err, Map<String, String> fields) {
        long number(String field) {
            return Long.parseLong(fields.get(field));
        }
    }

    private static Run loadgen(Protocol protocol, String lun, String... args) {
        List<String> all = new ArrayList<>(List.of("--proto", protocol.cliName, "--target", target.target(protocol),
                "--name", ServedTarget.name(protocol, lun)));
        all.addAll(List.of(args));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = LoadGen.run(all.toArray(String[]::new), new PrintStream(out, true), new PrintStream(err, true));
        String stdout = out.toString(StandardCharsets.UTF_8);
        Matcher m = LINE.matcher(stdout);
        Map<String, String> fields = new HashMap<>();
        if (m.find()) {
            fields.putAll(Map.of("proto", m.group(1), "rw", m.group(2), "bs", m.group(3), "qd", m.group(4),
                    "jobs", m.group(5), "iops", m.group(6), "mbps", m.group(7), "p50us", m.group(8),
                    "p99us", m.group(9), "errors", m.group(11)));
            if (m.group(12) != null) {
                fields.put("unwritten", m.group(12));
            }
        }
        return new Run(code, stdout, err.toString(StandardCharsets.UTF_8), fields);
    }

    static Stream<Arguments> matrix() {
        List<Arguments> cases = new ArrayList<>();
        for (Protocol p : Protocol.values()) {
            for (String rw : List.of("randread", "randwrite")) {
                for (String bs : List.of("4k", "128k")) {
                    cases.add(Arguments.of(p, rw, bs));
                }
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("matrix")
    void runsWithoutErrors(Protocol protocol, String rw, String bs) throws Exception {
        Path json = Files.createTempFile("loadgen-it", ".json");
        try {
            Run r = loadgen(protocol, "ram-4k", "--rw", rw, "--bs", bs, "--qd", "8", "--jobs", "1", "--time", "1s",
                    "--json", json.toString());
            assertThat(r.code()).as("exit status; stderr: %s", r.err()).isZero();
            assertThat(r.fields()).as("summary line in %s", r.out()).containsEntry("proto", protocol.cliName)
                    .containsEntry("rw", rw).containsEntry("bs", Long.toString(LoadGenOptions.size("--bs", bs)))
                    .containsEntry("qd", "8").containsEntry("jobs", "1").containsEntry("errors", "0");
            assertThat(r.number("iops")).isPositive();
            assertThat(r.number("p50us")).isPositive();
            String written = Files.readString(json);
            assertThat(written).startsWith("{\"proto\":\"" + protocol.cliName + "\",\"rw\":\"" + rw + "\"")
                    .contains("\"errors\":0,").contains("\"percentiles\":[").contains("\"hdr_base64\":\"")
                    .containsPattern("\"client_cpu_us_per_io\":[0-9]+\\.[0-9]{3},");
        } finally {
            Files.deleteIfExists(json);
        }
    }

    /**
     * A sequential write pass with the address pattern over a small range (at least once around it), then random
     * reads of it checked word by word, none of it zeros (the reading run writes nothing, so a lost write would
     * count as unwritten); reads of a range twice as large must find the blocks never written as zeros — counted
     * as unwritten, not as errors. Runs on the 512-byte LUN so one I/O spans several logical blocks.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Protocol.class)
    void writtenDataReadsBack(Protocol protocol) {
        for (String bs : List.of("4k", "128k")) {
            long ioSize = LoadGenOptions.size("--bs", bs);
            String size = Long.toString(32 * ioSize);
            Run write = loadgen(protocol, "ram-512", "--rw", "write", "--bs", bs, "--qd", "8", "--jobs", "1",
                    "--time", "1s", "--size", size, "--verify");
            assertThat(write.code()).as(write.err()).isZero();
            assertThat(write.number("errors")).isZero();
            assertThat(write.number("iops")).as("the write pass covered the range").isGreaterThanOrEqualTo(32);
            Run read = loadgen(protocol, "ram-512", "--rw", "randread", "--bs", bs, "--qd", "8", "--jobs", "2",
                    "--time", "1s", "--size", size, "--verify");
            assertThat(read.code()).as(read.err()).isZero();
            assertThat(read.number("iops")).isPositive();
            assertThat(read.number("errors")).as("verify errors reading %s back", bs).isZero();
            assertThat(read.number("unwritten")).as("zeros reading %s back", bs).isZero();
            Run beyond = loadgen(protocol, "ram-512", "--rw", "randread", "--bs", bs, "--qd", "8", "--jobs", "1",
                    "--time", "1s", "--size", Long.toString(64 * ioSize + 4 * 1024 * 1024), "--verify");
            assertThat(beyond.code()).as(beyond.err()).isZero();
            assertThat(beyond.number("unwritten")).as("never-written blocks read as zeros").isPositive();
            assertThat(beyond.number("errors")).as("zeros of blocks this run never wrote").isZero();
        }
    }

    /**
     * NVMe/TCP with SQ flow control disabled (reads end with C2HData SUCCESS, no CapsuleResp), two queues on one
     * pinned event loop, and writes of 1 MiB — above the in-capsule size, so they go by R2T and H2CData — read
     * back with verification; the range beyond, never written with the pattern, must still be noticed.
     */
    @Test
    void nvmeSuccessFlagR2TWritesAndPinnedSharedLoop() {
        for (String bs : List.of("4k", "1m")) {
            long ioSize = LoadGenOptions.size("--bs", bs);
            String size = Long.toString(16 * ioSize);
            Run write = loadgen(Protocol.NVME, "ram-4k", "--rw", "write", "--bs", bs, "--qd", "4", "--jobs", "2",
                    "--threads", "1", "--cpus", "0", "--disable-sqflow", "--time", "1s", "--size", size, "--verify");
            assertThat(write.code()).as(write.err()).isZero();
            assertThat(write.number("errors")).isZero();
            assertThat(write.number("iops")).as("the write pass covered the range").isGreaterThanOrEqualTo(16);
            assertThat(write.out()).containsPattern(" clientcpuus=[0-9]+\\.[0-9]{2}");
            Run read = loadgen(Protocol.NVME, "ram-4k", "--rw", "randread", "--bs", bs, "--qd", "4", "--jobs", "2",
                    "--threads", "1", "--cpus", "0", "--disable-sqflow", "--time", "1s", "--size", size, "--verify");
            assertThat(read.code()).as(read.err()).isZero();
            assertThat(read.number("iops")).isPositive();
            assertThat(read.number("errors")).as("verify errors reading %s back", bs).isZero();
            assertThat(read.number("unwritten")).as("zeros reading %s back", bs).isZero();
            Run beyond = loadgen(Protocol.NVME, "ram-4k", "--rw", "randread", "--bs", bs, "--qd", "4", "--jobs", "1",
                    "--disable-sqflow", "--time", "1s", "--size", Long.toString(64 * ioSize + 4 * 1024 * 1024),
                    "--verify");
            assertThat(beyond.code()).as(beyond.err()).isZero();
            // ram-4k may also hold another test's data written without --verify: errors then
            assertThat(beyond.number("unwritten") + beyond.number("errors")).as("never-written blocks noticed")
                    .isPositive();
        }
    }

    /** Header and data digests on, two connections, mixed random I/O with verification, a 16 KiB device. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Protocol.class)
    void digestsAndMixedIoOnTwoConnections(Protocol protocol) {
        Run write = loadgen(protocol, "ram-16k", "--rw", "write", "--bs", "64k", "--qd", "4", "--jobs", "1",
                "--time", "1s", "--size", "1MiB", "--verify", "--digests");
        assertThat(write.code()).as(write.err()).isZero();
        assertThat(write.number("iops")).isGreaterThanOrEqualTo(16);
        Run mixed = loadgen(protocol, "ram-16k", "--rw", "randrw", "--mix", "50", "--bs", "16k", "--qd", "16",
                "--jobs", "2", "--time", "1s", "--ramp", "200ms", "--size", "1MiB", "--verify", "--digests");
        assertThat(mixed.code()).as(mixed.err()).isZero();
        assertThat(mixed.fields()).containsEntry("jobs", "2").containsEntry("errors", "0");
        assertThat(mixed.number("iops")).isPositive();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Protocol.class)
    void unknownNameFailsTheRun(Protocol protocol) {
        Run r = loadgen(protocol, "no-such-lun", "--rw", "randread", "--bs", "4k", "--qd", "1", "--jobs", "1",
                "--time", "1s");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).startsWith("loadgen: ").contains(ServedTarget.name(protocol, "no-such-lun"));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Protocol.class)
    void blockSizeBelowTheDevicesIsAUsageError(Protocol protocol) {
        Run r = loadgen(protocol, "ram-16k", "--rw", "randread", "--bs", "4k", "--qd", "1", "--jobs", "1",
                "--time", "1s");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("loadgen: --bs 4096 is not a multiple of the device's block size 16384\n");
    }
}
