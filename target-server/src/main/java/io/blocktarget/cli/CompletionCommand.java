package io.blocktarget.cli;

import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/** {@code blocktarget completion bash}: a bash completion script, e.g. {@code source <(./blocktarget completion bash)}. */
@Command(name = "completion", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Print a shell completion script: source <(blocktarget completion bash)")
final class CompletionCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "SHELL", description = "bash (zsh reads it too, after bashcompinit)")
    String shell;

    @Override
    public Integer call() {
        if (!shell.equals("bash")) {
            spec.commandLine().getErr().println("blocktarget completion: " + shell + " is not supported; allowed: bash");
            spec.commandLine().getErr().flush();
            return Main.EXIT_USAGE;
        }
        spec.commandLine().getOut().print(AutoComplete.bash("blocktarget", spec.root().commandLine()));
        spec.commandLine().getOut().flush();
        return Main.EXIT_OK;
    }
}
