package io.blocktarget.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LoadGenOptionsTest {
    private static final String[] MINIMAL = {"--proto", "iscsi", "--target", "127.0.0.1:3260", "--name",
            "iqn.2026-11.io.blocktarget:ram-4k", "--rw", "randread", "--bs", "4k", "--qd", "32", "--jobs", "1",
            "--time", "10s"};

    private static String[] with(String... extra) {
        String[] all = new String[MINIMAL.length + extra.length];
        System.arraycopy(MINIMAL, 0, all, 0, MINIMAL.length);
        System.arraycopy(extra, 0, all, MINIMAL.length, extra.length);
        return all;
    }

    @Test
    void minimalCommandLineTakesTheDefaults() {
        LoadGenOptions o = LoadGenOptions.parse(MINIMAL);
        assertThat(o).isEqualTo(new LoadGenOptions(LoadGenOptions.Protocol.ISCSI, "127.0.0.1", 3260,
                "iqn.2026-11.io.blocktarget:ram-4k", 0, 1, Workload.RANDREAD, 70, 4096, 32, 1, Duration.ofSeconds(10),
                Duration.ZERO, 0, false, false, Optional.empty(), 0, List.of(), false, NvmeConnection.HOSTNQN,
                Optional.empty()));
    }

    @Test
    void everyOptionIsRead() {
        LoadGenOptions o = LoadGenOptions.parse("--proto", "nvme", "--target", "[::1]:4420", "--name",
                "nqn.2026-11.io.blocktarget:ram-4k", "--nsid", "3", "--rw", "randrw", "--mix", "30", "--bs", "128KiB",
                "--qd", "8", "--jobs", "2", "--time", "1500ms", "--ramp", "2s", "--size", "1GiB", "--digests",
                "--verify", "--json", "/tmp/out.json", "--threads", "2", "--cpus", "1,3-4", "--disable-sqflow",
                "--hostnqn", "nqn.2014-08.org.nvmexpress:uuid:00000000-0000-0000-0000-000000000001",
                "--tls-psk-file", "/tmp/tls.psk", "--tls-identity-version", "0");
        assertThat(o).isEqualTo(new LoadGenOptions(LoadGenOptions.Protocol.NVME, "::1", 4420,
                "nqn.2026-11.io.blocktarget:ram-4k", 0, 3, Workload.RANDRW, 30, 128 * 1024, 8, 2,
                Duration.ofMillis(1500), Duration.ofSeconds(2), 1L << 30, true, true, Optional.of(Path.of("/tmp/out.json")),
                2, List.of(1, 3, 4), true, "nqn.2014-08.org.nvmexpress:uuid:00000000-0000-0000-0000-000000000001",
                Optional.of(new LoadGenOptions.Tls(Path.of("/tmp/tls.psk"), 0))));
    }

    @Test
    void eventLoopsDefaultToOnePerJobUpToTheCpus() {
        assertThat(jobs(4).eventLoops(2)).isEqualTo(2);
        assertThat(jobs(1).eventLoops(8)).isEqualTo(1);
        assertThat(jobs(4, "--threads", "3").eventLoops(2)).isEqualTo(3);
        assertThat(jobs(2, "--threads", "8").eventLoops(2)).isEqualTo(2);
    }

    /** MINIMAL with {@code --jobs n} instead of 1, plus {@code extra}. */
    private static LoadGenOptions jobs(int n, String... extra) {
        String[] args = with(extra);
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--jobs")) {
                args[i + 1] = Integer.toString(n);
            }
        }
        return LoadGenOptions.parse(args);
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {"0;0", "1,3-4;1,3,4", "2-2;2", "0-1,7;0,1,7"})
    void cpuLists(String text, String expected) {
        assertThat(LoadGenOptions.cpuList(text)).containsExactlyElementsOf(
                java.util.Arrays.stream(expected.split(",")).map(Integer::valueOf).toList());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "1,", "3-1", "a", "1-2-3", "-1", "4096"})
    void badCpuListsAreRefused(String text) {
        assertThatThrownBy(() -> LoadGenOptions.parse(with("--cpus", text)))
                .isInstanceOf(LoadGenOptions.UsageException.class).hasMessageContaining("--cpus");
    }

    @Test
    void threadsMustBePositiveAndSqFlowIsNvmeOnly() {
        assertThatThrownBy(() -> LoadGenOptions.parse(with("--threads", "0")))
                .isInstanceOf(LoadGenOptions.UsageException.class).hasMessageContaining("--threads");
        assertThatThrownBy(() -> LoadGenOptions.parse(with("--disable-sqflow")))
                .isInstanceOf(LoadGenOptions.UsageException.class).hasMessageContaining("--disable-sqflow is for nvme");
    }

    /** NVMe/TCP TLS: identity version 1 by default, 0 or 1 only, only with a PSK file, only for nvme. */
    @Test
    void tlsOptionsAreNvmeOnlyAndTheIdentityVersionIsZeroOrOne() {
        String[] nvme = {"--proto", "nvme", "--target", "127.0.0.1:4420", "--name", "nqn.2026-11.io.blocktarget:t",
                "--rw", "randread", "--bs", "4k", "--qd", "1", "--jobs", "1", "--time", "1s"};
        java.util.function.Function<String[], String[]> plus = extra -> {
            String[] all = java.util.Arrays.copyOf(nvme, nvme.length + extra.length);
            System.arraycopy(extra, 0, all, nvme.length, extra.length);
            return all;
        };
        assertThat(LoadGenOptions.parse(nvme).tls()).isEmpty();
        assertThat(LoadGenOptions.parse(plus.apply(new String[] {"--tls-psk-file", "k"})).tls())
                .contains(new LoadGenOptions.Tls(Path.of("k"), 1));
        assertThat(LoadGenOptions.parse(plus.apply(new String[] {"--tls-psk-file", "k", "--tls-identity-version",
                "1"})).tls()).contains(new LoadGenOptions.Tls(Path.of("k"), 1));
        assertThatThrownBy(() -> LoadGenOptions.parse(plus.apply(new String[] {"--tls-psk-file", "k",
                "--tls-identity-version", "2"}))).hasMessage("--tls-identity-version 2 is not 0 or 1");
        assertThatThrownBy(() -> LoadGenOptions.parse(plus.apply(new String[] {"--tls-identity-version", "0"})))
                .hasMessage("--tls-identity-version needs --tls-psk-file");
        assertThatThrownBy(() -> LoadGenOptions.parse(with("--tls-psk-file", "k")))
                .isInstanceOf(LoadGenOptions.UsageException.class).hasMessage("--tls-psk-file is for nvme");
        assertThatThrownBy(() -> LoadGenOptions.parse(with("--hostnqn", "nqn.x")))
                .hasMessage("--hostnqn is for nvme");
        assertThatThrownBy(() -> LoadGenOptions.parse(plus.apply(new String[] {"--hostnqn", "a b"})))
                .hasMessageStartingWith("--hostnqn must be");
        String longest = "nqn.2014-08.x:" + "a".repeat(223 - 14);
        assertThat(LoadGenOptions.parse(plus.apply(new String[] {"--hostnqn", longest})).hostNqn()).isEqualTo(longest);
        assertThatThrownBy(() -> LoadGenOptions.parse(plus.apply(new String[] {"--hostnqn", longest + "a"})))
                .hasMessageStartingWith("--hostnqn must be");
    }

    @Test
    void lunIsForIscsi() {
        assertThat(LoadGenOptions.parse(with("--lun", "1")).lun()).isEqualTo(1);
    }

    @ParameterizedTest
    @CsvSource({"4096,4096", "4k,4096", "4K,4096", "128k,131072", "128KiB,131072", "1m,1048576", "1MiB,1048576",
            "1g,1073741824", "2GiB,2147483648", "1t,1099511627776", "512b,512"})
    void sizes(String text, long bytes) {
        assertThat(LoadGenOptions.size("--size", text)).isEqualTo(bytes);
    }

    @ParameterizedTest
    @CsvSource({"10s,10000", "10,10000", "500ms,500", "2m,120000", "1h,3600000"})
    void durations(String text, long millis) {
        assertThat(LoadGenOptions.duration("--time", text)).isEqualTo(Duration.ofMillis(millis));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "--bogus|x|unknown option --bogus",
            "--nsid|1|--nsid is for nvme; use --lun",
            "--mix|50|--mix is only for --rw randrw",
            "--size|1x|--size: not a size: 1x",
            "--size|1k|--size must be at least --bs",
            "--ramp|-1s|--ramp: not a duration: -1s",
            "--json||--json needs a value"})
    void badOptionsAreNamed(String option, String value, String message) {
        String[] args = value == null ? with(option) : with(option, value);
        assertThatThrownBy(() -> LoadGenOptions.parse(args)).isInstanceOf(LoadGenOptions.UsageException.class)
                .hasMessage(message);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "--proto|scsi|--proto must be iscsi or nvme, not scsi",
            "--target|localhost|--target must be HOST:PORT, not localhost",
            "--target|localhost:0|--target: port 0 is not 1..65535",
            "--rw|readwrite|--rw must be one of randread, randwrite, read, write, randrw",
            "--bs|1000|--bs 1000 must be a multiple of 512 in 512..16MiB",
            "--bs|32m|--bs 33554432 exceeds 16MiB",
            "--qd|0|--qd 0 is not 1..1024",
            "--qd|1025|--qd 1025 is not 1..1024",
            "--qd|x|--qd: not a number: x",
            "--jobs|0|--jobs 0 is not 1..256",
            "--time|0s|--time must be > 0 and <= 24h",
            "--time|25h|--time must be > 0 and <= 24h"})
    void badValuesAreNamed(String option, String value, String message) {
        String[] args = MINIMAL.clone();
        for (int i = 0; i < args.length; i += 2) {
            if (args[i].equals(option)) {
                args[i + 1] = value;
            }
        }
        assertThatThrownBy(() -> LoadGenOptions.parse(args)).isInstanceOf(LoadGenOptions.UsageException.class)
                .hasMessage(message);
    }

    @Test
    void missingAndRepeatedOptions() {
        assertThatThrownBy(() -> LoadGenOptions.parse("--proto", "iscsi")).hasMessage("--target is required");
        assertThatThrownBy(() -> LoadGenOptions.parse(with("--qd", "4"))).hasMessage("--qd given twice");
    }

    /** --verify keeps a bit per I/O of the range: 2^28 of them (1 TiB at 4 KiB) at most. */
    @Test
    void verifyRefusesARangeOfMoreIosThanItTracks() {
        assertThat(LoadGenOptions.parse(with("--size", "1t", "--verify")).verify()).isTrue();
        assertThat(LoadGenOptions.parse(with("--size", "2t")).verify()).isFalse();
        assertThatThrownBy(() -> LoadGenOptions.parse(with("--size", "2t", "--verify")))
                .isInstanceOf(LoadGenOptions.UsageException.class).hasMessage("--verify tracks at most 268435456 I/Os"
                        + " of --bs (one bit each); --size 2199023255552 holds 536870912: give a smaller --size or a"
                        + " larger --bs");
        // the whole device, known after connecting
        assertThatThrownBy(() -> LoadGenOptions.checkVerifiable(AckedWrites.MAX_UNITS + 1, "the device (x bytes)"))
                .isInstanceOf(LoadGenOptions.UsageException.class).hasMessageContaining("the device (x bytes) holds");
    }

    @Test
    void blockSizeMustBeAMultipleOfTheDevicesBlock() {
        LoadGenOptions o = LoadGenOptions.parse(MINIMAL);
        assertThat(o.blocksPerIo(512)).isEqualTo(8);
        assertThat(o.blocksPerIo(4096)).isEqualTo(1);
        assertThatThrownBy(() -> o.blocksPerIo(16384))
                .hasMessage("--bs 4096 is not a multiple of the device's block size 16384");
    }

    @Test
    void usageErrorExitsWithTwoAndPrintsUsage() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = LoadGen.run(new String[] {"--proto", "fc"}, new PrintStream(out), new PrintStream(err));
        assertThat(code).isEqualTo(2);
        assertThat(out.size()).isZero();
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("loadgen: --proto must be iscsi or nvme, not fc")
                .contains("usage: loadgen --proto iscsi|nvme");
    }

    @Test
    void unreachableTargetExitsWithOne() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        // port 1 on loopback: nothing listens there (tcpmux), so the connect is refused at once
        String[] args = MINIMAL.clone();
        args[3] = "127.0.0.1:1";
        int code = LoadGen.run(args, new PrintStream(out), new PrintStream(err));
        assertThat(code).isEqualTo(1);
        assertThat(out.size()).isZero();
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("loadgen: cannot connect to 127.0.0.1:1");
    }
}
