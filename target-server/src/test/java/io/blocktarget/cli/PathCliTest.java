package io.blocktarget.cli;

import io.blocktarget.config.PathState;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code blocktarget path list|set} against a running ControlServer (one portal, default): the table, --json, a set,
 * and every refusal with exit 2 and what is allowed.
 */
class PathCliTest extends ControlCliHarness {
    @Test
    void listPrintsOneRowPerLunAndPortal() {
        assertThat(run("path", "list")).as(err.toString()).isZero();
        String[] lines = out.toString().split("\n");
        assertThat(lines[0]).matches("LUN\\s+PORTAL\\s+ID\\s+STATE\\s+CONFIGURED\\s+ORIGIN\\s*");
        assertThat(lines).hasSize(1 + plane.lunConfigs().size());
        assertThat(out.toString()).containsPattern("ram-4k\\s+default\\s+1\\s+optimized\\s+optimized\\s+configured");

        assertThat(run("path", "list", "ram-4k", "--json")).as(err.toString()).isZero();
        JsonObject json = new JsonObject(out.toString());
        assertThat(json.getString("lun")).isEqualTo("ram-4k");
        assertThat(json.getJsonArray("paths")).hasSize(1);
        assertThat(json.getJsonArray("portals").getJsonObject(0).getString("name")).isEqualTo("default");
    }

    @Test
    void setChangesTheLunsPaths() {
        assertThat(run("path", "set", "ram-4k", "default", "standby")).as(err.toString()).isZero();
        assertThat(out.toString()).contains("ram-4k: paths.default (none) -> standby (in place)",
                "set LUN ram-4k on portal default to standby");
        assertThat(plane.lunConfigs().stream().filter(l -> l.name().equals("ram-4k")).findFirst().orElseThrow()
                .features().path("default")).isEqualTo(PathState.STANDBY);
        assertThat(run("path", "set", "ram-4k", "default", "standby", "--transition", "5s")).isZero();
        assertThat(out.toString()).contains("ram-4k on default: no change (standby)");
        assertThat(run("path", "set", "ram-4k", "default", "optimized", "--dry-run")).isZero();
        assertThat(out.toString()).contains("dry run: nothing changed");
    }

    @Test
    void refusalsExit2WithWhatIsAllowed() {
        assertThat(run("path", "set", "nope", "default", "standby")).isEqualTo(2);
        assertThat(err.toString()).contains("blocktarget path set: no LUN named nope");
        assertThat(run("path", "set", "ram-4k", "b", "standby")).isEqualTo(2);
        assertThat(err.toString()).contains("no portal named b; allowed: default");
        assertThat(run("path", "set", "ram-4k", "default", "asleep")).isEqualTo(2);
        assertThat(err.toString()).contains("asleep is not a path state; allowed: " + PathState.ALLOWED);
        assertThat(run("path", "set", "ram-4k", "default", "standby", "--transition", "soon")).isEqualTo(2);
        assertThat(err.toString()).contains("--transition soon: ");
        assertThat(run("path", "list", "nope")).isEqualTo(2);
        assertThat(run("path")).isEqualTo(2);
        assertThat(plane.applies()).as("nothing reached the server").isZero();
    }
}
