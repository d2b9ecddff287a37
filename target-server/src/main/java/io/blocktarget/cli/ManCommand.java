package io.blocktarget.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

/**
 * {@code blocktarget man 8|5}: prints {@code blocktarget(8)} or {@code blocktarget.yaml(5)} as roff, for
 * {@code scripts/dist} (the release's {@code man/}). Hidden: a build step, not an operator's command.
 */
@Command(name = "man", hidden = true, mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Print the man page blocktarget(8) (8) or blocktarget.yaml(5) (5) as roff.")
final class ManCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "SECTION", description = "8 (the commands) or 5 (the configuration files)")
    String section;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        switch (section) {
            case "8" -> out.print(ManPages.command(spec.root(), VersionProvider.version()));
            case "5" -> out.print(ManPages.configuration(VersionProvider.version()));
            default -> {
                PrintWriter err = spec.commandLine().getErr();
                err.println("blocktarget man: " + section + " is not a section; allowed: 8 (blocktarget) or 5"
                        + " (blocktarget.yaml)");
                err.flush();
                return Main.EXIT_USAGE;
            }
        }
        out.flush();
        return Main.EXIT_OK;
    }
}
