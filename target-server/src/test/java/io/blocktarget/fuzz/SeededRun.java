package io.blocktarget.fuzz;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;

/**
 * The seeded mutational fuzz run of the normal test suite: {@code executions} inputs from {@link PduMutator} with
 * a fixed seed, so the run is the same every time (and in .ci/run). A failing input is written to
 * target/fuzz-findings/NAME-SEED-N (raw bytes, a ready Jazzer regression input) and named in the error with its
 * hex. {@code -Dfuzz.executions=N} and {@code -Dfuzz.seed=S} change the run (scripts/fuzz --seeded).
 */
public final class SeededRun {
    private SeededRun() {
    }

    /** Runs the target on each mutated input and returns the executions per second. */
    public static double run(String name, PduMutator mutator, Consumer<byte[]> target, long defaultSeed,
                             int defaultExecutions) {
        long seed = Long.getLong("fuzz.seed", defaultSeed);
        int executions = Integer.getInteger("fuzz.executions", defaultExecutions);
        Random random = new Random(seed);
        long start = System.nanoTime();
        for (int i = 0; i < executions; i++) {
            byte[] input = mutator.next(random);
            try {
                target.accept(input);
            } catch (RuntimeException | AssertionError e) {
                Path file = Path.of("target", "fuzz-findings", name + "-" + seed + "-" + i);
                try {
                    Files.createDirectories(file.getParent());
                    Files.write(file, input);
                } catch (IOException io) {
                    e.addSuppressed(io);
                }
                throw new AssertionError(name + ": input " + i + " of seed " + seed + " (saved as " + file + ", "
                        + input.length + " bytes): " + HexFormat.of().formatHex(input), e);
            }
        }
        double perSecond = executions / ((System.nanoTime() - start) / 1e9);
        System.out.printf("fuzz %s: %d executions, seed %d, %.0f exec/s%n", name, executions, seed, perSecond);
        return perSecond;
    }

    /** Writes each seed stream as a Jazzer input file into {@code dir} (its seed corpus and regression inputs). */
    public static void writeSeeds(Path dir, List<List<byte[]>> seeds) throws IOException {
        Files.createDirectories(dir);
        for (int i = 0; i < seeds.size(); i++) {
            Files.write(dir.resolve("seed-" + i), PduMutator.concat(seeds.get(i)));
        }
    }

    /**
     * Every input of a Jazzer {@code @FuzzTest} — its seeds and minimized crashes, the files of
     * src/test/resources/PACKAGE/{@code CLASS}Inputs/{@code method} — as (file name, bytes), for a plain
     * parameterized test that replays them without Jazzer's agent (which instruments every class: most of a minute
     * of the quick tier, issue 26). Fails when there is none: a replay of nothing would pass.
     */
    public static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> inputs(Class<?> fuzzTest,
                                                                                                String method) {
        String dir = fuzzTest.getSimpleName() + "Inputs/" + method;
        java.net.URL url = fuzzTest.getResource(dir);
        if (url == null) {
            throw new IllegalStateException("no inputs " + dir + " beside " + fuzzTest.getName());
        }
        try (java.util.stream.Stream<Path> files = Files.list(Path.of(url.toURI()))) {
            List<Path> sorted = files.filter(Files::isRegularFile).sorted().toList();
            if (sorted.isEmpty()) {
                throw new IllegalStateException("no inputs in " + url);
            }
            List<org.junit.jupiter.params.provider.Arguments> out = new java.util.ArrayList<>();
            for (Path f : sorted) {
                out.add(org.junit.jupiter.params.provider.Arguments.of(f.getFileName().toString(),
                        Files.readAllBytes(f)));
            }
            return out.stream();
        } catch (IOException | java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
