package io.blocktarget.it;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The machine-readable lines of the guest script {@code vm/lbs-check.sh}: DISK, CHECK and PERF.
 */
record GuestReport(List<Disk> disks, List<Check> checks, List<Perf> perf, String output) {

    record Disk(String name, String dev, int logical, int physical, long sizeBytes) {
    }

    record Check(String name, String what, boolean ok, String detail) {
    }

    record Perf(String name, String workload, long iops, long kibPerSecond) {
    }

    static GuestReport parse(String output) {
        List<Disk> disks = new ArrayList<>();
        List<Check> checks = new ArrayList<>();
        List<Perf> perf = new ArrayList<>();
        for (String raw : output.split("\n")) {
            String line = raw.trim();
            String[] f = line.split(" +");
            try {
                switch (f[0]) {
                    case "DISK" -> disks.add(new Disk(f[1], f[2], Integer.parseInt(f[3]), Integer.parseInt(f[4]),
                            Long.parseLong(f[5])));
                    case "CHECK" -> {
                        String[] c = line.split(" +", 5);
                        checks.add(new Check(c[1], c[2], c[3].equals("OK"), c.length > 4 ? c[4] : ""));
                    }
                    case "PERF" -> perf.add(new Perf(f[1], f[2], (long) Double.parseDouble(f[3]),
                            (long) Double.parseDouble(f[4])));
                    default -> {
                    }
                }
            } catch (RuntimeException e) {
                checks.add(new Check("report", "unparsable-line", false, line));
            }
        }
        return new GuestReport(List.copyOf(disks), List.copyOf(checks), List.copyOf(perf), output);
    }

    Optional<Disk> disk(String name) {
        return disks.stream().filter(d -> d.name().equals(name)).findFirst();
    }

    /** The disk the guest reported as {@code name}; fails, with the guest's whole output, when it reported none. */
    Disk requireDisk(String name) {
        return disk(name).orElseThrow(() -> new AssertionError("no disk " + name + "\n" + output));
    }

    /** Fails, with the guest's whole output, unless a CHECK of each of {@code whats} (of any name) passed. */
    void assertPassed(String... whats) {
        for (String what : whats) {
            assertThat(checks).as(what + "\n" + output).anyMatch(c -> c.what().equals(what) && c.ok());
        }
    }

    List<Check> failures() {
        return checks.stream().filter(c -> !c.ok()).toList();
    }

    /** A short table for the test log (the CI log is where the closing notes take their figures from). */
    String summary() {
        StringBuilder sb = new StringBuilder();
        for (Disk d : disks) {
            sb.append(String.format("  %-10s %-10s logical %6d physical %6d size %d%n",
                    d.name(), d.dev(), d.logical(), d.physical(), d.sizeBytes()));
        }
        for (Check c : checks) {
            sb.append(String.format("  %-16s %-20s %s %s%n", c.name(), c.what(), c.ok() ? "OK" : "FAIL", c.detail()));
        }
        for (Perf p : perf) {
            sb.append(String.format("  %-10s %-18s %8d IOPS %8d KiB/s%n", p.name(), p.workload(), p.iops(), p.kibPerSecond()));
        }
        return sb.toString();
    }
}
