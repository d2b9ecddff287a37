package io.blocktarget.cli;

import io.blocktarget.config.BlocktargetConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;

/** {@code blocktarget check --config DIR}: validate, print the LUN table; exit 0 when valid, 2 when not. */
@Command(name = "check", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Validate a configuration directory and print its LUN table. Exit 0 if valid, 2 if not.")
final class CheckCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--config", paramLabel = "DIR", required = true,
            description = "Directory with blocktarget.yaml (optional) and luns.d/*.yaml.")
    Path configDir;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Optional<BlocktargetConfig> config = ConfigSource.load(configDir, err);
        if (config.isEmpty()) {
            return Main.EXIT_USAGE;
        }
        BlocktargetConfig c = config.get();
        LunTable.print(c, out);
        for (String warning : c.warnings()) {
            err.println("warning: " + warning);
        }
        out.println(configDir + ": valid, " + c.luns().size() + (c.luns().size() == 1 ? " LUN" : " LUNs"));
        out.flush();
        err.flush();
        return Main.EXIT_OK;
    }
}
