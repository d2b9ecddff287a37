package io.blocktarget.cli;

import io.blocktarget.control.ControlClient;
import io.blocktarget.control.ControlClient.Response;
import io.blocktarget.control.ControlClient.UnreachableException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.Arrays;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/**
 * {@code blocktarget completion bash|zsh|fish}: a completion script ({@link CompletionScripts}); LUN and session names
 * complete from the running server through the hidden {@code completion names KIND}.
 */
@Command(name = "completion", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Print a shell completion script; LUN and session names complete from the running server.",
            "bash: source <(blocktarget completion bash)",
            "zsh (after compinit): source <(blocktarget completion zsh)",
            "fish: blocktarget completion fish | source"},
        subcommands = CompletionCommand.Names.class)
final class CompletionCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    // optional for picocli (a parent's required parameter would be demanded of "completion names" too), not for us
    @Parameters(index = "0", arity = "0..1", paramLabel = "SHELL", completionCandidates = CompletionScripts.Shells.class,
            description = "${COMPLETION-CANDIDATES}")
    String shell;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        if (shell == null) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "Missing required parameter: 'SHELL'"
                    + " (" + String.join(", ", CompletionScripts.Shells.NAMES) + ")");
        }
        String script = switch (shell) {
            case "bash" -> CompletionScripts.bash(spec.root().commandLine());
            case "zsh" -> CompletionScripts.zsh(spec.root().commandLine());
            case "fish" -> CompletionScripts.fish(spec.root().commandLine());
            default -> null;
        };
        if (script == null) {
            spec.commandLine().getErr().println("blocktarget completion: " + shell + " is not supported; allowed: "
                    + String.join(", ", CompletionScripts.Shells.NAMES));
            spec.commandLine().getErr().flush();
            return Main.EXIT_USAGE;
        }
        out.print(script);
        out.flush();
        return Main.EXIT_OK;
    }

    /**
     * {@code completion names lun|session}: the names the running server has, one per line, for the completion
     * scripts; on a failure nothing on stdout (the scripts throw stderr away: a completion must not spill errors into
     * the command line).
     */
    @Command(name = "names", hidden = true, description = "Print the names of a kind the running server has, one per"
            + " line (for the completion scripts).")
    static final class Names extends ClientCommand {
        @Parameters(index = "0", paramLabel = "KIND", description = "lun or session.")
        String kind;

        private CompletionScripts.Dynamic dynamic;

        @Override
        String checkUsage() {
            dynamic = Arrays.stream(CompletionScripts.Dynamic.values()).filter(d -> d.kind().equals(kind)).findFirst()
                    .orElse(null);
            return dynamic == null ? kind + " is not a kind of name; allowed: " + Arrays.stream(
                    CompletionScripts.Dynamic.values()).map(CompletionScripts.Dynamic::kind)
                    .collect(Collectors.joining(", ")) : null;
        }

        @Override
        boolean printsOwnJson() {
            return true;
        }

        @Override
        int run(ControlClient client, PrintWriter out, PrintWriter err) throws UnreachableException {
            Response response = client.get(dynamic.path);
            if (!response.ok()) {
                return Main.EXIT_RUNTIME_FAILURE;
            }
            JsonArray items = response.json().getJsonArray(dynamic.array, new JsonArray());
            for (int i = 0; i < items.size(); i++) {
                if (items.getValue(i) instanceof JsonObject item && item.getValue(dynamic.member) != null) {
                    out.println(item.getValue(dynamic.member));
                }
            }
            return Main.EXIT_OK;
        }
    }
}
