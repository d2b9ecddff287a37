package io.blocktarget.cli;

import io.blocktarget.config.BlocktargetConfig;
import io.blocktarget.config.ConfigException;
import io.blocktarget.config.ConfigLoader;
import io.blocktarget.config.ConfigProblem;
import io.blocktarget.config.LunConfig;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
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

    @Option(names = "--json", description = "Print the result as JSON on stdout ({\"config-dir\", \"valid\": true,"
            + " \"luns\", \"warnings\"}) and an invalid directory as one JSON problem object on stderr, each problem"
            + " in invalid-params (name: file:line:key, reason: the whole line).")
    boolean json;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            if (json) {
                return json(out, err);
            }
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
            return Main.EXIT_OK;
        } finally {
            out.flush();
            err.flush();
        }
    }

    private int json(PrintWriter out, PrintWriter err) {
        BlocktargetConfig c;
        try {
            c = ConfigLoader.load(configDir);
        } catch (ConfigException e) {
            JsonArray params = new JsonArray();
            for (ConfigProblem p : e.problems()) {
                String where = p.file() + (p.line() > 0 ? ":" + p.line() : "")
                        + (p.key() == null || p.key().isEmpty() ? "" : ":" + p.key());
                params.add(new JsonObject().put("name", where).put("reason", p.toString()));
            }
            int n = e.problems().size();
            err.println(new JsonObject().put("type", "urn:blocktarget:problem:invalid-config")
                    .put("title", "Invalid configuration")
                    .put("detail", n + (n == 1 ? " problem" : " problems") + " in " + configDir)
                    .put("invalid-params", params).encode());
            return Main.EXIT_USAGE;
        }
        JsonArray luns = new JsonArray();
        for (LunConfig lun : c.luns()) {
            luns.add(new JsonObject().put("name", lun.name()).put("backend", lun.backend().configName())
                    .put("size-bytes", lun.size())
                    .put("logical-block-size", lun.logicalBlockSize())
                    .put("physical-block-size", lun.physicalBlockSize()));
        }
        out.println(new JsonObject().put("config-dir", configDir.toString()).put("valid", true).put("luns", luns)
                .put("warnings", new JsonArray(c.warnings())).encodePrettily());
        return Main.EXIT_OK;
    }
}
