package io.blocktarget.control;

import io.blocktarget.block.IoKind;
import io.blocktarget.block.fault.FaultCommand;
import io.blocktarget.block.fault.LunFaults;
import io.blocktarget.block.lun.CommandStats;
import io.blocktarget.config.ConfigLoader;
import io.blocktarget.control.ControlClient.Response;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code GET /metrics} beyond the LUN families (ControlApiTest has those): build info, the process and JVM figures,
 * fault-rule hits per LUN and rule — and the whole page is valid Prometheus text format 0.0.4 (checked line by line
 * by {@link #problems}, which a broken page must fail: see {@link #theCheckerCatchesWhatItClaimsTo}).
 */
@Tag("loopback")
class MetricsTest {
    @TempDir
    Path tmp;
    private InMemoryControlPlane plane;
    private ControlFixture fixture;

    @BeforeEach
    void start() throws Exception {
        plane = new InMemoryControlPlane(ConfigLoader.embeddedDefault().server(), Optional.empty(),
                ConfigLoader.embeddedDefault().luns());
        fixture = ControlFixture.start(plane, tmp);
    }

    @AfterEach
    void stop() throws Exception {
        fixture.close();
    }

    private String scrape() throws Exception {
        Response r = fixture.get("/metrics");
        assertThat(r.status()).isEqualTo(200);
        return r.body();
    }

    @Test
    void buildInfoNamesVersionAndCommit() throws Exception {
        assertThat(scrape().lines()).contains("blocktarget_build_info{commit=\"" + BuildInfo.commit() + "\",version=\""
                + BuildInfo.version() + "\"} 1");
        // built by Maven: the commit of this checkout (or "unknown" without git), never empty
        assertThat(BuildInfo.commit()).matches("[0-9a-f]{12}(-dirty)?|unknown");
    }

    @Test
    void processAndJvmFiguresAreThere() throws Exception {
        List<String> lines = scrape().lines().toList();
        for (String family : List.of("process_resident_memory_bytes ", "jvm_memory_used_bytes{",
                "jvm_buffer_memory_used_bytes{id=\"direct\"}", "jvm_buffer_count_buffers{id=\"direct\"}",
                "jvm_gc_memory_allocated_bytes_total ", "jvm_threads_live_threads ", "jvm_threads_states_threads{",
                "process_files_open_files ", "process_files_max_files ", "process_cpu_usage ",
                "process_uptime_seconds ", "system_cpu_count ", "jvm_info{")) {
            assertThat(lines).as(family).anyMatch(l -> l.startsWith(family));
        }
        long rss = value(lines, "process_resident_memory_bytes ");
        assertThat(rss).as("RSS of a JVM: more than 16 MiB, less than 64 GiB").isBetween(16L << 20, 64L << 30);
        assertThat(value(lines, "process_files_open_files ")).isPositive();
    }

    private static long value(List<String> lines, String prefix) {
        return (long) Double.parseDouble(lines.stream().filter(l -> l.startsWith(prefix)).findFirst().orElseThrow()
                .substring(prefix.length()).strip());
    }

    @Test
    void vmRssIsReadFromProcStatusInBytes() throws Exception {
        Path status = Files.writeString(tmp.resolve("status"), "Name:\tjava\nVmPeak:\t  900 kB\nVmRSS:\t  123456 kB\n");
        assertThat(RuntimeMetrics.residentBytes(status)).hasValue(123456L * 1024);
        assertThat(RuntimeMetrics.residentBytes(Files.writeString(tmp.resolve("none"), "Name:\tx\n"))).isEmpty();
        assertThat(RuntimeMetrics.residentBytes(tmp.resolve("absent"))).isEmpty();
    }

    @Test
    void faultHitsAreCountedPerLunRuleAndAction() throws Exception {
        Response added = fixture.call(HttpMethod.POST, "/v1/luns/ram-16k/faults",
                new JsonObject("{\"id\": \"bad\", \"ops\": [\"read\"], \"lba\": \"1000-1099\", \"action\": \"medium-error\"}"));
        assertThat(added.status()).as(added.body()).isEqualTo(201);
        LunFaults faults = plane.faults("ram-16k").orElseThrow();
        for (int i = 0; i < 3; i++) {
            faults.command(new FaultCommand(FaultCommand.Protocol.NVME, IoKind.READ, 2, 1050, 1, "nqn.h", 1));
        }
        faults.command(new FaultCommand(FaultCommand.Protocol.NVME, IoKind.READ, 2, 5, 1, "nqn.h", 1));   // no match
        List<String> lines = scrape().lines().toList();
        assertThat(lines).contains(
                "blocktarget_lun_fault_hits_total{action=\"medium-error\",lun=\"ram-16k\",rule=\"bad\"} 3.0",
                "blocktarget_lun_fault_matched_total{action=\"medium-error\",lun=\"ram-16k\",rule=\"bad\"} 3.0");
        assertThat(fixture.call(HttpMethod.DELETE, "/v1/luns/ram-16k/faults/bad", (JsonObject) null).status())
                .isEqualTo(204);
        assertThat(scrape()).doesNotContain("rule=\"bad\"");
    }

    @Test
    void endToEndCommandFamiliesArePerLunProtocolAndClass() throws Exception {
        CommandStats stats = plane.lunState("ram-4k").orElseThrow().commandStats();
        stats.record(CommandStats.Protocol.NVME, CommandStats.OpClass.READ, 1_500, 4096, true);
        stats.record(CommandStats.Protocol.NVME, CommandStats.OpClass.READ, 3_000_000, 4096, true);
        stats.record(CommandStats.Protocol.ISCSI, CommandStats.OpClass.WRITE, 20_000, 8192, false);
        List<String> lines = scrape().lines().toList();
        assertThat(lines).contains(
                "blocktarget_lun_commands_total{class=\"read\",lun=\"ram-4k\",protocol=\"nvme\"} 2.0",
                "blocktarget_lun_commands_total{class=\"write\",lun=\"ram-4k\",protocol=\"iscsi\"} 1.0",
                "blocktarget_lun_commands_total{class=\"flush\",lun=\"ram-4k\",protocol=\"iscsi\"} 0.0",
                "blocktarget_lun_command_errors_total{class=\"write\",lun=\"ram-4k\",protocol=\"iscsi\"} 1.0",
                "blocktarget_lun_command_bytes_total{direction=\"read\",lun=\"ram-4k\",protocol=\"nvme\"} 8192.0",
                "blocktarget_lun_command_bytes_total{direction=\"write\",lun=\"ram-4k\",protocol=\"iscsi\"} 0.0",
                // cumulative buckets: 1.5 µs is in le=2e-6 (not le=1.414e-6), 3 ms in le=0.004096
                "blocktarget_lun_command_latency_seconds_bucket{lun=\"ram-4k\",protocol=\"nvme\",le=\"1.414E-6\"} 0",
                "blocktarget_lun_command_latency_seconds_bucket{lun=\"ram-4k\",protocol=\"nvme\",le=\"2.0E-6\"} 1",
                "blocktarget_lun_command_latency_seconds_bucket{lun=\"ram-4k\",protocol=\"nvme\",le=\"0.002896309\"} 1",
                "blocktarget_lun_command_latency_seconds_bucket{lun=\"ram-4k\",protocol=\"nvme\",le=\"0.004096\"} 2",
                "blocktarget_lun_command_latency_seconds_bucket{lun=\"ram-4k\",protocol=\"nvme\",le=\"+Inf\"} 2",
                "blocktarget_lun_command_latency_seconds_count{lun=\"ram-4k\",protocol=\"nvme\"} 2",
                "blocktarget_lun_command_latency_seconds_sum{lun=\"ram-4k\",protocol=\"nvme\"} 0.0030015");
        assertThat(lines.stream().filter(l -> l.startsWith("blocktarget_lun_command_latency_seconds_bucket{lun=\"ram-4k\","
                + "protocol=\"nvme\"")).count()).isEqualTo(CommandStats.BOUNDS + 1);
        assertThat(problems(String.join("\n", lines) + "\n")).isEmpty();
    }

    @Test
    void thePageIsValidPrometheusText() throws Exception {
        fixture.call(HttpMethod.POST, "/v1/luns/ram-4k/faults", new JsonObject("{\"action\": \"busy\"}"));
        plane.lunState("ram-4k");   // whatever the plane has, the page stays valid
        String page = scrape();
        assertThat(problems(page)).isEmpty();
        assertThat(page.lines().filter(l -> l.startsWith("# TYPE ")).count()).isGreaterThan(30);
    }

    @Test
    void theCheckerCatchesWhatItClaimsTo() {
        assertThat(problems("# TYPE a counter\na_total 1\n")).isEmpty();
        assertThat(problems("a 1\n")).as("sample without TYPE").isNotEmpty();
        assertThat(problems("# TYPE a gauge\na{x=\"1\"} 1\na{x=\"1\"} 2\n")).as("duplicate series").isNotEmpty();
        assertThat(problems("# TYPE a gauge\n# TYPE a gauge\n")).as("TYPE twice").isNotEmpty();
        assertThat(problems("# TYPE a gauge\na{x=1} 1\n")).as("unquoted label").isNotEmpty();
        assertThat(problems("# TYPE a gauge\na one\n")).as("not a number").isNotEmpty();
        assertThat(problems("# TYPE 1a gauge\n")).as("bad name").isNotEmpty();
        assertThat(problems("# TYPE a gauge\nb 1\n")).as("sample of an undeclared family").isNotEmpty();
        assertThat(problems("# TYPE h histogram\nh_bucket{le=\"1.0\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_count 1\n"))
                .as("buckets not cumulative").isNotEmpty();
        assertThat(problems("# TYPE a gauge\na 1")).as("no final newline").isNotEmpty();
    }

    private static final Pattern NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Pattern SAMPLE = Pattern.compile(
            "([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)})? ([^ ]+)( -?[0-9]+)?");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\\\n]|\\\\[\\\\\"n])*)\"");
    private static final Set<String> TYPES = Set.of("counter", "gauge", "histogram", "summary", "untyped");

    /**
     * What is wrong with a text-format page (version 0.0.4): HELP / TYPE syntax, one TYPE per family before its
     * samples, sample syntax (name, quoted and escaped labels, a float value), each sample belonging to a declared
     * family (with the _total, _bucket, _sum, _count, _created suffixes of its type), no series twice, histogram
     * buckets cumulative, and a final newline.
     */
    static List<String> problems(String page) {
        List<String> problems = new ArrayList<>();
        if (!page.isEmpty() && !page.endsWith("\n")) {
            problems.add("no final newline");
        }
        Map<String, String> types = new HashMap<>();
        Set<String> series = new HashSet<>();
        Map<String, Double> lastBucket = new HashMap<>();
        int n = 0;
        for (String line : page.split("\n", -1)) {
            n++;
            if (line.isEmpty()) {
                continue;
            }
            if (line.startsWith("# HELP ")) {
                String[] parts = line.split(" ", 4);
                if (parts.length < 3 || !NAME.matcher(parts[2]).matches()) {
                    problems.add(n + ": bad HELP: " + line);
                }
                continue;
            }
            if (line.startsWith("# TYPE ")) {
                String[] parts = line.split(" ");
                if (parts.length != 4 || !NAME.matcher(parts[2]).matches() || !TYPES.contains(parts[3])) {
                    problems.add(n + ": bad TYPE: " + line);
                } else if (types.put(parts[2], parts[3]) != null) {
                    problems.add(n + ": TYPE of " + parts[2] + " twice");
                }
                continue;
            }
            if (line.startsWith("#")) {
                continue;   // a comment
            }
            Matcher m = SAMPLE.matcher(line);
            if (!m.matches()) {
                problems.add(n + ": not a sample: " + line);
                continue;
            }
            String name = m.group(1);
            String labels = m.group(3) == null ? "" : m.group(3);
            double value;
            try {
                value = switch (m.group(4)) {
                    case "+Inf" -> Double.POSITIVE_INFINITY;
                    case "-Inf" -> Double.NEGATIVE_INFINITY;
                    case "NaN" -> Double.NaN;
                    default -> Double.parseDouble(m.group(4));
                };
            } catch (NumberFormatException e) {
                problems.add(n + ": value " + m.group(4) + " is not a number");
                continue;
            }
            String rest = labels;
            Map<String, String> labelMap = new HashMap<>();
            while (!rest.isEmpty()) {
                Matcher l = LABEL.matcher(rest);
                if (!l.lookingAt()) {
                    problems.add(n + ": bad labels: " + labels);
                    break;
                }
                if (labelMap.put(l.group(1), l.group(2)) != null) {
                    problems.add(n + ": label " + l.group(1) + " twice");
                }
                rest = rest.substring(l.end());
                if (rest.startsWith(",")) {
                    rest = rest.substring(1);
                }
            }
            String family = family(name, types);
            if (family == null) {
                problems.add(n + ": " + name + " belongs to no declared family");
                continue;
            }
            if (!series.add(name + "{" + new java.util.TreeMap<>(labelMap) + "}")) {
                problems.add(n + ": series twice: " + line);
            }
            if (types.get(family).equals("histogram") && name.endsWith("_bucket")) {
                Map<String, String> others = new java.util.TreeMap<>(labelMap);
                String le = others.remove("le");
                String key = name + others;
                double previous = lastBucket.getOrDefault(key, 0.0);
                if (le == null || value < previous) {
                    problems.add(n + ": bucket not cumulative or without le: " + line);
                }
                lastBucket.put(key, value);
            }
        }
        return problems;
    }

    private static String family(String name, Map<String, String> types) {
        if (types.containsKey(name)) {
            return name;
        }
        for (String suffix : List.of("_total", "_created", "_bucket", "_sum", "_count")) {
            if (name.endsWith(suffix)) {
                String base = name.substring(0, name.length() - suffix.length());
                if (types.containsKey(base)) {
                    return base;
                }
            }
        }
        return null;
    }
}
