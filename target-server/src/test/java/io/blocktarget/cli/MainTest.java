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

    @Test
    void everyControlCommandTakesJson() {
        java.util.List<String> without = new java.util.ArrayList<>();
        java.util.ArrayDeque<CommandLine> todo = new java.util.ArrayDeque<>(java.util.List.of(Main.commandLine()));
        int clients = 0;
        while (!todo.isEmpty()) {
            CommandLine cl = todo.pop();
            todo.addAll(cl.getSubcommands().values());
            if (cl.getCommand() instanceof ClientCommand) {
                clients++;
                if (cl.getCommandSpec().findOption("--json") == null) {
                    without.add(cl.getCommandSpec().qualifiedName());
                }
            }
        }
        assertThat(clients).isGreaterThan(12);
        assertThat(without).isEmpty();
    }

    @Test
    void checkJsonSaysValidOrEveryProblem(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws java.io.IOException {
        java.nio.file.Path luns = java.nio.file.Files.createDirectories(dir.resolve("luns.d"));
        java.nio.file.Files.writeString(luns.resolve("a.yaml"), "backend: null\nsize: 1GiB\n");
        assertThat(run("check", "--config", dir.toString(), "--json")).isZero();
        io.vertx.core.json.JsonObject ok = new io.vertx.core.json.JsonObject(out.toString());
        assertThat(ok.getBoolean("valid")).isTrue();
        assertThat(ok.getJsonArray("luns").getJsonObject(0).getString("name")).isEqualTo("a");
        assertThat(err.toString()).isEmpty();
        out.getBuffer().setLength(0);
        java.nio.file.Files.writeString(luns.resolve("b.yaml"), "backend: null\nsize: 1GiB\nlogical-block-size: 3000\n");
        assertThat(run("check", "--config", dir.toString(), "--json")).isEqualTo(2);
        assertThat(out.toString()).isEmpty();
        io.vertx.core.json.JsonObject problem = new io.vertx.core.json.JsonObject(err.toString().strip());
        assertThat(problem.getString("type")).isEqualTo("urn:blocktarget:problem:invalid-config");
        assertThat(problem.getJsonArray("invalid-params").getJsonObject(0).getString("name"))
                .endsWith("b.yaml:3:logical-block-size");
    }

    @Test
    void completionNeedsAShell() {
        assertThat(run("completion")).isEqualTo(2);
        assertThat(err.toString()).contains("Missing required parameter: 'SHELL' (bash, zsh, fish)");
    }

    @Test
    void serveRefusesAnEmptyOrTooLongControlSocket() {
        assertThat(run("serve", "--control-socket", "")).isEqualTo(2);
        assertThat(err.toString()).contains("--control-socket: empty; allowed: a socket path, or off");
        assertThat(run("serve", "--control-socket", "/" + "s".repeat(107))).isEqualTo(2);
        assertThat(err.toString()).contains("longer than 107 bytes");
    }

    @Test
    void schemaPrintsTheGeneratedSchemas() {
        assertThat(run("schema", "lun")).isZero();
        assertThat(out.toString()).isEqualTo(io.blocktarget.config.ConfigSchema.lun());
        out.getBuffer().setLength(0);
        assertThat(run("schema", "server")).isZero();
        assertThat(out.toString()).isEqualTo(io.blocktarget.config.ConfigSchema.server());
        out.getBuffer().setLength(0);
        assertThat(run("schema", "--markdown")).isZero();
        assertThat(out.toString()).isEqualTo(io.blocktarget.config.KeyReference.markdown());
    }

    @Test
    void schemaOfAnUnknownKindIsAUsageError() {
        assertThat(run("schema", "disk")).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("blocktarget schema: disk is not a kind; allowed: lun or server\n");
        assertThat(run("schema")).isEqualTo(2);
        assertThat(err.toString()).contains("which schema? allowed: lun or server");
    }

    @Test
    void setKeysAreCheckedAgainstTheDeclarationWithAHint() {
        // refused before any server is asked (exit 2, nothing sent)
        assertThat(run("lun", "add", "x", "--backend", "ram", "--set", "logical-block-sise=4KiB")).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("blocktarget lun add: --set logical-block-sise=4KiB: logical-block-sise"
                + " is not a LUN key; did you mean `logical-block-size`? allowed: a key of luns.d/NAME.yaml: backend,"
                + " size, logical-block-size, physical-block-size, read-only, export, access, path, create, direct-io,"
                + " atomic, zoned, placement, commands, limits, rotational, removable, sanitize-duration, identity, faults,"
                + " session, paths\n");
        err.getBuffer().setLength(0);
        assertThat(run("lun", "set", "x", "limits.max-tranfer=1MiB")).isEqualTo(2);
        assertThat(err.toString()).startsWith("blocktarget lun set: limits.max-tranfer=1MiB: limits.max-tranfer is not"
                + " a LUN key; did you mean `limits.max-transfer`? allowed: a key of limits: max-transfer,");
        err.getBuffer().setLength(0);
        assertThat(run("lun", "set", "x", "rotational.on=true")).isEqualTo(2);
        assertThat(err.toString()).contains("rotational.on is not a LUN key: rotational has no keys of its own;"
                + " allowed: rotational=VALUE");
        err.getBuffer().setLength(0);
        assertThat(run("lun", "add", "x", "--backend", "ram", "--set", "name=y")).isEqualTo(2);
        assertThat(err.toString()).contains("--set name=y: name is not a LUN key;");
    }

    @Test
    void completionOffersEveryLunKeyPath() {
        assertThat(run("completion", "bash")).isZero();
        String script = out.toString();
        for (String path : java.util.List.of("logical-block-size=", "export.nvme.nsid=", "limits.max-transfer=",
                "access.dhchap.host-secret-file=", "faults=", "session.queue-depth=")) {
            assertThat(script).contains(path);
        }
        assertThat(new LunCommand.KeyPaths()).hasSize((int) io.blocktarget.config.LunKeys.declared().stream()
                .filter(d -> !d.path().contains("[]")).count());
    }
}
