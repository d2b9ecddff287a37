package io.blocktarget.cli;

import io.blocktarget.config.ConfigLoader;
import io.blocktarget.config.PathState;
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
 * {@code blocktarget path list|set} (issue 29): the state of each LUN on each portal of a running server — what SCSI
 * initiators see as ALUA and NVMe hosts as ANA — through its control API. {@code set} changes the LUN's
 * {@code paths:} and writes it back to its file, like {@code lun set}.
 */
@Command(name = "path", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "List and set the state of LUNs on the portals of a running server (ALUA / ANA; written back to"
                + " the LUN's file).",
        subcommands = {PathCommand.ListPaths.class, PathCommand.SetPath.class})
final class PathCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "Missing required subcommand (list or set)");
    }

    @Command(name = "list", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "List every LUN's state on each portal (or LUN's only): STATE now (transitioning during a"
                    + " transition), CONFIGURED in its paths:, and ORIGIN of the last change (configured, implicit:"
                    + " the target, explicit: an initiator's SET TARGET PORT GROUPS).")
    static final class ListPaths extends ClientCommand {
        @Parameters(index = "0", arity = "0..1", paramLabel = "LUN",
                completionCandidates = CompletionScripts.LunNames.class, description = "Only this LUN.")
        String lun;

        @Override
        int run(ControlClient client, PrintWriter out, PrintWriter err) throws UnreachableException {
            Response response = client.get(lun == null ? "/v1/paths" : LunCommand.path(lun) + "/paths");
            if (!response.ok()) {
                return refused(response, err);
            }
            print(response.json(), out);
            return Main.EXIT_OK;
        }
    }

    /** The paths table: one row per LUN and portal. */
    static void print(JsonObject answer, PrintWriter out) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"LUN", "PORTAL", "ID", "STATE", "CONFIGURED", "ORIGIN"});
        JsonArray paths = answer.getJsonArray("paths", new JsonArray());
        for (int i = 0; i < paths.size(); i++) {
            JsonObject p = paths.getJsonObject(i);
            rows.add(new String[] {p.getString("lun"), p.getString("portal"), String.valueOf(p.getValue("portal-id")),
                p.getString("state"), p.getString("configured"), p.getString("origin")});
        }
        ClientCommand.table(rows, out);
    }

    @Command(name = "set", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Set LUN's state on PORTAL: applied in place (data and sessions kept; SCSI initiators get"
                    + " ASYMMETRIC ACCESS STATE CHANGED, NVMe hosts an ANA change notice) and written to paths: of"
                    + " its file.")
    static final class SetPath extends ClientCommand {
        @Parameters(index = "0", paramLabel = "LUN", completionCandidates = CompletionScripts.LunNames.class)
        String lun;

        @Parameters(index = "1", paramLabel = "PORTAL", description = "A portal of blocktarget.yaml (default"
                + " without portals:).")
        String portal;

        @Parameters(index = "2", paramLabel = "STATE", completionCandidates = CompletionScripts.PathStates.class,
                description = "${COMPLETION-CANDIDATES}.")
        String state;

        @Option(names = "--transition", paramLabel = "DURATION", description = "Transitioning this long first (SCSI"
                + " transitioning, NVMe ANA change), then STATE: 500ms, 5s.")
        String transition;

        @Option(names = "--dry-run", description = "Print what would change and change nothing.")
        boolean dryRun;

        private JsonObject body;

        @Override
        String checkUsage() {
            if (PathState.of(state).isEmpty()) {
                return state + " is not a path state; allowed: " + PathState.ALLOWED;
            }
            body = new JsonObject().put("state", state);
            if (transition != null) {
                try {
                    ConfigLoader.parseDuration(transition);
                } catch (IllegalArgumentException e) {
                    return "--transition " + transition + ": " + e.getMessage();
                }
                body.put("transition", transition);
            }
            return null;
        }

        @Override
        int run(ControlClient client, PrintWriter out, PrintWriter err) throws UnreachableException {
            Response response = client.call(HttpMethod.PUT, LunCommand.path(lun) + "/paths/"
                    + URLEncoder.encode(portal, StandardCharsets.UTF_8) + (dryRun ? "?dry-run=true" : ""), body);
            if (!response.ok()) {
                return refused(response, err);
            }
            JsonObject applied = LunCommand.appliedOf(response.json());
            if (!applied.getBoolean("changed", true) && !dryRun) {
                out.println(lun + " on " + portal + ": no change (" + state + ")");
                applied(applied, out, err);
                return Main.EXIT_OK;
            }
            applied(applied, out, err);
            if (dryRun) {
                return Main.EXIT_OK;
            }
            out.println("set LUN " + lun + " on portal " + portal + " to " + state + (transition == null ? ""
                    : " (transitioning for " + transition + " first)"));
            print(response.json(), out);
            return Main.EXIT_OK;
        }
    }
}
