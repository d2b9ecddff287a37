package io.blocktarget.cli;

import io.blocktarget.control.ControlClient;
import io.blocktarget.control.ControlClient.Response;
import io.blocktarget.control.ControlClient.UnreachableException;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** {@code blocktarget sessions [drop ID]}: iSCSI sessions and NVMe controllers of a running server. */
@Command(name = "sessions", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "List the iSCSI sessions and NVMe controllers connected to a running server (--json: with"
                + " their negotiated parameters); drop one with sessions drop ID.",
        subcommands = SessionsCommand.Drop.class)
final class SessionsCommand extends ClientCommand {
    @Override
    int run(ControlClient client, PrintWriter out, PrintWriter err) throws UnreachableException {
        Response response = client.get("/v1/sessions");
        if (!response.ok()) {
            return refused(response, err);
        }
        JsonArray sessions = response.json().getJsonArray("sessions");
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

    /**
     * {@code sessions drop ID}: closes every connection of an iSCSI session or every queue of an NVMe controller at
     * once, as a network failure would; the initiator sees its connections drop and (Linux) reconnects by itself.
     */
    @Command(name = "drop", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Drop a session: close every connection of an iSCSI session, or every queue of an NVMe"
                    + " controller, at once (the initiator may reconnect, as after a network failure).")
    static final class Drop extends ClientCommand {
        @Parameters(index = "0", paramLabel = "ID", completionCandidates = CompletionScripts.SessionIds.class,
                description = "The session's ID as sessions lists it: iscsi:TSIH or nvme:CNTLID@SUBNQN.")
        String id;

        @Override
        int run(ControlClient client, PrintWriter out, PrintWriter err) throws UnreachableException {
            Response response = client.call(HttpMethod.DELETE,
                    "/v1/sessions/" + URLEncoder.encode(id, StandardCharsets.UTF_8).replace("+", "%20"), (String) null);
            if (!response.ok()) {
                return refused(response, err);
            }
            out.println("dropped session " + id);
            return Main.EXIT_OK;
        }
    }
}
