package io.blocktarget.cli;

import io.blocktarget.control.ControlClient;
import io.blocktarget.control.ControlClient.Response;
import io.blocktarget.control.ControlClient.UnreachableException;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Command;

import java.io.PrintWriter;
import java.util.List;

/** {@code blocktarget reload}: the server re-reads its config dir and applies the difference. */
@Command(name = "reload", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Make a running server re-read its --config DIR (blocktarget.yaml and luns.d) and apply the"
                + " difference (like SIGHUP). A directory with a problem changes nothing; its problems are printed. A"
                + " change that replaces a RAM or null LUN or shrinks one needs --force; server keys that need a"
                + " restart are warnings.")
final class ReloadCommand extends ClientCommand {
    @picocli.CommandLine.Mixin
    LunCommand.ChangeFlags flags;

    @Override
    int run(ControlClient client, PrintWriter out, PrintWriter err) throws UnreachableException {
        Response response = client.call(HttpMethod.POST, "/v1/reload" + flags.query(), (String) null);
        if (!response.ok()) {
            return refused(response, err);
        }
        JsonObject result = response.json();
        applied(result, out, err);
        if (flags.dryRun) {
            return Main.EXIT_OK;
        }
        if (!result.getBoolean("changed", false)) {
            out.println("reloaded: nothing changed");
            return Main.EXIT_OK;
        }
        for (String kind : List.of("added", "removed", "resized", "replaced", "reexported", "retuned")) {
            if (!result.getJsonArray(kind).isEmpty()) {
                out.println(kind + ": " + String.join(", ", result.getJsonArray(kind).stream().map(String::valueOf)
                        .toList()));
            }
        }
        return Main.EXIT_OK;
    }
}
