package io.blocktarget.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.assertj.core.api.Assertions.assertThat;

/** Exit codes and messages of the CLI that need no server (the server runs in it-tests). */
class MainTest {
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cl = Main.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        return cl.execute(args);
    }

    @Test
    void versionExitsZero() {
        assertThat(run("--version")).isZero();
        assertThat(out.toString()).startsWith("blocktarget ").contains("Java 25");
    }

    @Test
    void helpListsTheCommands() {
        assertThat(run("--help")).isZero();
        assertThat(out.toString()).contains("serve", "check");
    }

    @Test
    void unknownOptionIsAUsageError() {
        assertThat(run("--bogus")).isEqualTo(2);
        assertThat(err.toString()).contains("Unknown option: '--bogus'");
    }

    @Test
    void noSubcommandIsAUsageError() {
        assertThat(run()).isEqualTo(2);
        assertThat(err.toString()).contains("Missing required subcommand");
    }

    @Test
    void checkNeedsConfig() {
        assertThat(run("check")).isEqualTo(2);
        assertThat(err.toString()).contains("Missing required option: '--config=DIR'");
    }

    @Test
    void serveRejectsPortOutOfRangeBeforeStarting() {
        assertThat(run("serve", "--iscsi-port", "70000")).isEqualTo(2);
        assertThat(err.toString()).contains("port 70000 out of range; allowed: 0 (off) .. 65535");
    }

    @Test
    void serveRejectsHostNameAsBindAddress() {
        assertThat(run("serve", "--bind", "localhost")).isEqualTo(2);
        assertThat(err.toString()).contains("--bind localhost is not an IP address");
    }

    @Test
    void checkOfMissingDirectoryExitsTwo() {
        assertThat(run("check", "--config", "/nonexistent/blocktarget-config")).isEqualTo(2);
        assertThat(err.toString()).contains("/nonexistent/blocktarget-config");
    }
}
