package io.blocktarget.cli;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every logger of the server is named {@code blocktarget} or {@code blocktarget.*}: LogSetup sets BLOCKTARGET_LOG's
 * level on the {@code blocktarget} logger, so a logger named after its class ({@code io.blocktarget.nvme.Controller})
 * would stay at INFO whatever the operator asks for.
 */
class LoggerNamesTest {
    private static final Pattern GET_LOGGER = Pattern.compile("(?:System|Logger)\\.getLogger\\(([^)]*)\\)");

    @Test
    void everyLoggerOfTheSourcesIsUnderBlocktarget() throws IOException {
        List<String> outside = new ArrayList<>();
        int found = 0;
        for (String module : List.of("target-server", "config", "protocol")) {
            Path sources = Path.of("..", module, "src", "main", "java");
            try (Stream<Path> files = Files.walk(sources)) {
                for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                    Matcher m = GET_LOGGER.matcher(Files.readString(file));
                    while (m.find()) {
                        found++;
                        String argument = m.group(1).strip();
                        boolean ours = argument.matches("\"blocktarget(\\.[a-z0-9.]+)?\"");
                        // LogSetup itself configures the root ("") and the libraries' loggers
                        boolean setup = file.endsWith("LogSetup.java")
                                && argument.matches("\"(|io\\.netty|io\\.vertx)\"");
                        if (!ours && !setup) {
                            outside.add(file.getFileName() + ": getLogger(" + argument + ")");
                        }
                    }
                }
            }
        }
        assertThat(found).as("the scan finds the loggers at all").isGreaterThan(20);
        assertThat(outside).isEmpty();
    }

    @Test
    void theLevelComesFromBlocktargetLogAnyCaseElseInfo() {
        assertThat(LogSetup.parse("fine", java.util.logging.Level.INFO)).isEqualTo(java.util.logging.Level.FINE);
        assertThat(LogSetup.parse(" WARNING ", java.util.logging.Level.INFO))
                .isEqualTo(java.util.logging.Level.WARNING);
        assertThat(LogSetup.parse("loud", java.util.logging.Level.INFO)).isEqualTo(java.util.logging.Level.INFO);
        assertThat(LogSetup.parse(null, java.util.logging.Level.INFO)).isEqualTo(java.util.logging.Level.INFO);
    }
}
