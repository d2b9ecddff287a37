package io.blocktarget.cli;

import io.blocktarget.control.ControlClient;
import io.blocktarget.control.ControlClient.Response;
import io.blocktarget.control.ControlClient.UnreachableException;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code blocktarget fault add|list|rm}: the fault rules of a LUN of a running server (issue 11), through its control
 * API. Rules added here are in memory only; a LUN file's {@code faults:} list is the lasting form.
 */
@Command(name = "fault", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Add, list and remove the fault rules of a LUN of a running server (in memory only).",
        subcommands = {FaultCommand.Add.class, FaultCommand.ListFaults.class, FaultCommand.Remove.class})
final class FaultCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "Missing required subcommand (add, list or rm)");
    }

    static String path(String lun) {
        return LunCommand.path(lun) + "/faults";
    }

    /** "f1: ops [read] lba 1000-1099 → medium-error (hits 3)". */
    static String describe(JsonObject rule) {
        StringBuilder sb = new StringBuilder(rule.getString("id")).append(":");
        for (String key : rule.fieldNames()) {
            if (!List.of("id", "lun", "hits", "matched", "notApplicable", "action").contains(key)) {
                sb.append(' ').append(key).append('=').append(rule.getValue(key));
            }
        }
        sb.append(" -> ").append(rule.getString("action"));
        long notApplicable = rule.getLong("notApplicable", 0L);
        if (notApplicable > 0) {
            // e.g. corrupt-digest on a connection without that digest: counted in HITS, nothing happened
            sb.append(" (").append(notApplicable).append(" not applicable)");
        }
        return sb.toString();
    }

    @Command(name = "add", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Add a fault rule to LUN NAME; it acts at once on iSCSI and NVMe/TCP. Every key of a"
                    + " faults: entry can be given with --set KEY=VALUE.")
    static final class Add extends ClientCommand {
        @Parameters(index = "0", paramLabel = "NAME", completionCandidates = CompletionScripts.LunNames.class,
                description = "The LUN.")
        String lun;

        @Option(names = "--id", paramLabel = "ID", description = "The rule's name (default f1, f2, ...).")
        String id;

        @Option(names = "--ops", paramLabel = "KIND", split = ",", splitSynopsisLabel = ",",
                completionCandidates = CompletionScripts.FaultOps.class,
                description = "Operation kinds, comma-separated (default: all): ${COMPLETION-CANDIDATES}.")
        List<String> ops;

        @Option(names = "--lba", paramLabel = "FIRST[-LAST]", description = "LBA range, inclusive: 1000-1099.")
        String lba;

        @Option(names = "--portal", paramLabel = "PORTAL", description = "Only commands through this portal (of"
                + " blocktarget.yaml's portals:): fail one path while the others serve.")
        String portal;

        @Option(names = "--trigger", paramLabel = "TRIGGER", completionCandidates = CompletionScripts.FaultTriggers.class,
                description = "${COMPLETION-CANDIDATES} (default always).")
        String trigger;

        @Option(names = "--count", paramLabel = "N", description = "With first / every.")
        Long count;

        @Option(names = "--action", required = true, paramLabel = "ACTION",
                completionCandidates = CompletionScripts.FaultActions.class,
                description = "${COMPLETION-CANDIDATES} (their keys with --set).")
        String action;

        @Option(names = "--delay", paramLabel = "DURATION", description = "With action delay: 10ms.")
        String delay;

        @Option(names = "--set", paramLabel = "KEY=VALUE", description = "Any other key (sense=3/11/00,"
                + " nvme-status=3/02, nvme-dnr=true, initiator=..., probability=0.01, seed=7); VALUE is JSON when it parses"
                + " as JSON.")
        List<String> settings = new ArrayList<>();

        private JsonObject body;

        @Override
        String checkUsage() {
            body = new JsonObject();
            if (id != null) {
                body.put("id", id);
            }
            if (ops != null) {
                body.put("ops", new JsonArray(new ArrayList<>(ops)));
            }
            if (lba != null) {
                body.put("lba", lba);
            }
            if (portal != null) {
                body.put("portal", portal);
            }
            if (trigger != null) {
                body.put("trigger", trigger);
            }
            if (count != null) {
                body.put("count", count);
            }
            body.put("action", action);
            if (delay != null) {
                body.put("delay", delay);
            }
            for (String setting : settings) {
                int eq = setting.indexOf('=');
                if (eq <= 0) {
                    return "--set " + setting + ": allowed: KEY=VALUE, e.g. sense=3/11/00";
                }
                body.put(setting.substring(0, eq), LunCommand.Add.value(setting.substring(eq + 1)));
            }
            return null;
        }

        @Override
        int run(ControlClient client, PrintWriter out, PrintWriter err) throws UnreachableException {
            Response response = client.call(HttpMethod.POST, path(lun), body);
            if (!response.ok()) {
                return refused(response, err);
            }
            out.println("added fault rule to LUN " + lun + ": " + describe(response.json()));
            return Main.EXIT_OK;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "List a LUN's fault rules with their hit counts.")
    static final class ListFaults extends ClientCommand {
        @Parameters(index = "0", paramLabel = "NAME", completionCandidates = CompletionScripts.LunNames.class)
        String lun;

        @Override
        int run(ControlClient client, PrintWriter out, PrintWriter err) throws UnreachableException {
            Response response = client.get(path(lun));
            if (!response.ok()) {
                return refused(response, err);
            }
            JsonObject list = response.json();
            List<String[]> rows = new ArrayList<>();
            rows.add(new String[] {"ID", "HITS", "MATCHED", "RULE"});
            JsonArray faults = list.getJsonArray("faults");
            for (int i = 0; i < faults.size(); i++) {
                JsonObject r = faults.getJsonObject(i);
                rows.add(new String[] {r.getString("id"), String.valueOf(r.getValue("hits")),
                    String.valueOf(r.getValue("matched")), describe(r)});
            }
            table(rows, out);
            out.println(list.getInteger("held", 0) + " command(s) held by no-response rules");
            return Main.EXIT_OK;
        }
    }

    @Command(name = "rm", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Remove a fault rule.")
    static final class Remove extends ClientCommand {
        @Parameters(index = "0", paramLabel = "NAME", completionCandidates = CompletionScripts.LunNames.class)
        String lun;

        @Parameters(index = "1", paramLabel = "ID")
        String id;

        @Override
        int run(ControlClient client, PrintWriter out, PrintWriter err) throws UnreachableException {
            Response response = client.call(HttpMethod.DELETE,
                    path(lun) + "/" + URLEncoder.encode(id, StandardCharsets.UTF_8), (String) null);
            if (!response.ok()) {
                return refused(response, err);
            }
            out.println("removed fault rule " + id + " of LUN " + lun);
            return Main.EXIT_OK;
        }
    }
}
