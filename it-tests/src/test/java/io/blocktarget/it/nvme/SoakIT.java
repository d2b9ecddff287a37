package io.blocktarget.it.nvme;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The soak (not in CI; scripts/soak runs it): rounds of 32 iSCSI sessions and 32 NVMe/TCP controllers x 4 queues
 * against one server process until {@code -Dsoak.duration} (e.g. 5m, 1h) has passed. Every round connects anew,
 * does verified I/O (3 passes of write, read back, compare), and ends a third of its sessions by dropping every
 * socket without Logout or an orderly disconnect (as when a host dies), the rest orderly. Every
 * {@code -Dsoak.sample} (default 30 s) the server's heap after a full GC, direct memory (NMT "Other"), RSS, file
 * descriptors and threads are sampled into target/soak-report.txt. Pass: no mismatch, no failed command, and after
 * the warm-up sample the fds and threads are back at the baseline and the heap and direct memory within 64 MiB of
 * it (a leak of a connection's worth per round would exceed that in minutes).
 */
@Tag("stress")
@EnabledIfSystemProperty(named = "soak.duration", matches = "\\d+[smh]")
class SoakIT {
    @TempDir
    Path tmp;

    private static Duration parse(String s) {
        long n = Long.parseLong(s.substring(0, s.length() - 1));
        return switch (s.charAt(s.length() - 1)) {
            case 's' -> Duration.ofSeconds(n);
            case 'm' -> Duration.ofMinutes(n);
            default -> Duration.ofHours(n);
        };
    }

    @Test
    void roundsOfConnectVerifiedIoAndDropsStayFlat() throws Exception {
        Duration duration = parse(System.getProperty("soak.duration"));
        Duration sampleEvery = parse(System.getProperty("soak.sample", "30s"));
        int sessions = Integer.getInteger("soak.sessions", 32);
        int controllers = Integer.getInteger("soak.controllers", 32);
        List<String> report = new ArrayList<>();
        Path out = Path.of("target", "soak-report.txt");
        try (ServedLoad server = new ServedLoad(tmp)) {
            LoadDriver driver = server.driver();
            Random endings = new Random(0x50A4);
            long start = System.nanoTime();
            long end = start + duration.toNanos();
            long nextSample = start;
            long rounds = 0;
            long verified = 0;
            ServedLoad.Stats baseline = null;
            ServedLoad.Stats last = null;
            while (System.nanoTime() < end) {
                LoadDriver.Totals t = driver.round(sessions, controllers, 3, rounds, endings);
                assertThat(t.mismatches()).as("round %d", rounds).isZero();
                verified += t.verifiedBytes();
                rounds++;
                if (System.nanoTime() >= nextSample) {
                    last = server.stats();
                    if (baseline == null) {
                        baseline = last;
                    }
                    String line = String.format("t=%4ds rounds=%d verified=%d MiB  %s",
                            (System.nanoTime() - start) / 1_000_000_000L, rounds, verified >> 20, last);
                    report.add(line);
                    System.out.println("soak: " + line);
                    Files.createDirectories(out.getParent());
                    Files.write(out, report);
                    nextSample = System.nanoTime() + sampleEvery.toNanos();
                }
            }
            last = server.stats();
            String summary = String.format("soak done: %s, %d rounds, %d sessions + %d controllers x %d queues each,"
                            + " %d MiB verified, 0 mismatches; baseline %s; end %s", duration, rounds, sessions,
                    controllers, LoadDriver.QUEUES, verified >> 20, baseline, last);
            report.add(summary);
            Files.write(out, report);
            System.out.println(summary);
            assertThat(last.fds()).as("fds back at the baseline").isLessThanOrEqualTo(baseline.fds() + 8);
            assertThat(last.threads()).as("threads").isLessThanOrEqualTo(baseline.threads() + 4);
            assertThat(last.heapUsedKiB()).as("heap after GC").isLessThanOrEqualTo(baseline.heapUsedKiB() + 65536);
            assertThat(last.directKiB()).as("direct memory").isLessThanOrEqualTo(baseline.directKiB() + 65536);
        }
    }
}
