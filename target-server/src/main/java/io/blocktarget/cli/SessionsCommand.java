package io.blocktarget.cli;

import io.blocktarget.control.ControlClient;
import io.blocktarget.control.ControlClient.Response;
import io.blocktarget.control.ControlClient.UnreachableException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** {@code blocktarget sessions}: iSCSI sessions and NVMe controllers of a running server. */
@Command(name = "sessions", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "List the iSCSI sessions and NVMe controllers connected to a running server.")
final class SessionsCommand extends ClientCommand {
    @Option(names = "--json", description = "Print the API's JSON (with negotiated parameters).")
    boolean json;

    @Override
    int run(ControlClient client, PrintWriter out, PrintWriter err) throws UnreachableException {
        Response response = client.get("/v1/sessions");
        if (!response.ok()) {
            return refused(response, err);
        }
        JsonObject body = response.json();
        if (json) {
            out.println(body.encodePrettily());
            return Main.EXIT_OK;
        }
        JsonArray sessions = body.getJsonArray("sessions");
        if (sessions.isEmpty()) {
            out.println("no sessions");
            return Main.EXIT_OK;
        }
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"ID", "PROTOCOL", "INITIATOR", "TARGET", "CONNECTIONS"});
        for (int i = 0; i < sessions.size(); i++) {
            JsonObject s = sessions.getJsonObject(i);
            String target = s.getString("target");
            rows.add(new String[] {s.getString("id"), s.getString("protocol"), s.getString("initiator"),
                target == null || target.isEmpty() ? "(discovery)" : target,
                Integer.toString(s.getJsonArray("connections").size())});
        }
        table(rows, out);
        return Main.EXIT_OK;
    }
}
