package io.blocktarget.cli;

import io.blocktarget.server.ControlPlane.SessionInfo;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code --json} on the control commands' results and errors, {@code sessions drop}, {@code completion names}, against
 * a ControlServer over a real Unix socket: the result is the API's JSON on stdout and nothing else; a failure is one
 * problem object on stderr and nothing on stdout.
 */
@Tag("loopback")
class CliJsonTest extends ControlCliHarness {
    private JsonObject result() {
        assertThat(err.toString()).isEmpty();
        return new JsonObject(out.toString());
    }

    private JsonObject problem() {
        assertThat(out.toString()).isEmpty();
        List<String> lines = err.toString().lines().toList();
        assertThat(lines).hasSize(1);
        return new JsonObject(lines.getFirst());
    }

    @Test
    void resultsAreTheApisJson() {
        assertThat(run("lun", "add", "x", "--backend", "null", "--size", "1GiB", "--json")).isZero();
        assertThat(result().getString("name")).isEqualTo("x");
        assertThat(run("lun", "resize", "x", "--size", "2GiB", "--json")).isZero();
        assertThat(result().getJsonObject("status").getLong("size-bytes")).isEqualTo(2L << 30);
        assertThat(run("lun", "list", "--json")).isZero();
        assertThat(result().getJsonArray("luns")).hasSize(5);
        assertThat(run("fault", "add", "x", "--action", "busy", "--json")).isZero();
        assertThat(result().getString("action")).isEqualTo("busy");
        assertThat(run("fault", "list", "x", "--json")).isZero();
        assertThat(result().getJsonArray("faults")).hasSize(1);
        assertThat(run("fault", "rm", "x", "f1", "--json")).isZero();
        assertThat(result()).isEqualTo(new JsonObject());   // 204: an empty object, still JSON
        assertThat(run("lun", "rm", "x", "--json")).isZero();
        assertThat(result()).isEqualTo(new JsonObject());
        assertThat(run("sessions", "--json")).isZero();
        assertThat(result().getJsonArray("sessions")).isEmpty();
    }

    @Test
    void aRefusalIsTheServersProblemObjectOnStderr() {
        assertThat(run("lun", "rm", "nope", "--json")).isEqualTo(2);   // refused as it stands (404)
        JsonObject p = problem();
        assertThat(p.getInteger("status")).isEqualTo(404);
        assertThat(p.getString("type")).startsWith("urn:blocktarget:problem:");
        assertThat(p.getString("detail")).contains("nope");

        assertThat(run("lun", "add", "y", "--backend", "ram", "--size", "1GiB", "--logical-block-size", "3000",
                "--json")).isEqualTo(2);   // invalid (400)
        assertThat(problem().getJsonArray("invalid-params").getJsonObject(0).getString("name"))
                .isEqualTo("logical-block-size");
    }

    @Test
    void usageErrorsAreProblemObjectsTooAndExit2() {
        assertThat(run("lun", "add", "y", "--backend", "null", "--set", "novalue", "--json")).isEqualTo(2);
        JsonObject p = problem();
        assertThat(p.getString("type")).isEqualTo("urn:blocktarget:problem:usage");
        assertThat(p.getString("detail")).contains("--set novalue");
        // one picocli cannot even parse
        assertThat(run("lun", "list", "--bogus", "--json")).isEqualTo(2);
        assertThat(problem().getString("detail")).contains("Unknown option: '--bogus'");
    }

    @Test
    void anUnreachableServerIsAProblemObject() {
        out = new StringWriter();
        err = new StringWriter();
        picocli.CommandLine cl = Main.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        assertThat(cl.execute("sessions", "--json", "--control", tmp.resolve("none.sock").toString())).isEqualTo(1);
        JsonObject p = problem();
        assertThat(p.getString("type")).isEqualTo("urn:blocktarget:problem:unreachable");
        assertThat(p.getString("detail")).contains("no control socket at " + tmp.resolve("none.sock"));
    }

    @Test
    void sessionsDropNamesTheSessionAsListed() {
        String id = "nvme:3@nqn.2026-11.io.blocktarget:ram-4k";
        plane.addSession(new SessionInfo(id, "nvme", "nqn.2014-08.org.nvmexpress:uuid:h",
                "nqn.2026-11.io.blocktarget:ram-4k", List.of("c"), Map.of()));
        plane.addSession(new SessionInfo("iscsi:7", "iscsi", "iqn.i", "iqn.t", List.of("c"), Map.of()));
        assertThat(run("sessions", "drop", id)).as(err.toString()).isZero();
        assertThat(out.toString()).isEqualTo("dropped session " + id + "\n");
        assertThat(plane.sessions()).extracting(SessionInfo::id).containsExactly("iscsi:7");
        assertThat(run("sessions", "drop", id)).isEqualTo(2);   // no such session: refused (404)
        assertThat(err.toString()).startsWith("blocktarget sessions drop: no session or controller " + id);
        assertThat(run("sessions", "drop", "iscsi:7", "--json")).isZero();
        assertThat(result()).isEqualTo(new JsonObject());
        assertThat(plane.sessions()).isEmpty();
    }

    @Test
    void completionNamesAreTheServersLunsAndSessions() {
        assertThat(run("completion", "names", "lun")).isZero();
        assertThat(out.toString().lines()).containsExactly("ram-512", "ram-4k", "ram-16k", "ram-64k");
        plane.addSession(new SessionInfo("iscsi:7", "iscsi", "iqn.i", "iqn.t", List.of("c"), Map.of()));
        assertThat(run("completion", "names", "session")).isZero();
        assertThat(out.toString().lines()).containsExactly("iscsi:7");
        assertThat(run("completion", "names", "portal")).isEqualTo(2);
        assertThat(out.toString()).isEmpty();
    }
}
