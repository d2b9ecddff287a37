package io.blocktarget.server;

import io.blocktarget.block.lun.AccessState;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.config.ConfigLoader;
import io.blocktarget.config.ServerConfig;
import io.blocktarget.control.ControlClient.Response;
import io.blocktarget.control.ControlFixture;
import io.blocktarget.nvme.NvmeLimits;
import io.blocktarget.nvme.NvmePort;
import io.blocktarget.nvme.NvmeSubsystems;
import io.blocktarget.time.ManualClock;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * issue 29: {@code /v1/paths}, {@code /v1/luns/{name}/paths} and {@code PUT /v1/luns/{name}/paths/{portal}} over a
 * real Unix socket against a real registry with two portals: the change is made in place, written back to the LUN's
 * file, and a transition is ended by the registry's manual clock; every refusal names what is allowed.
 */
class PathControlTest {
    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock();
    private final MemoryBudget budget = new MemoryBudget(64L << 20);
    private Registry registry;
    private ControlFixture fixture;

    @BeforeEach
    void start() throws Exception {
        Files.createDirectories(dir.resolve("luns.d"));
        Files.writeString(dir.resolve("blocktarget.yaml"), """
                memory-budget: 64MiB
                portals:
                  - { name: a, address: 127.0.0.1, iscsi-port: 3260, nvme-port: 4420 }
                  - { name: b, address: 127.0.0.2, iscsi-port: 3260, nvme-port: 4420 }
                """);
        Files.writeString(dir.resolve("luns.d/disk.yaml"), "backend: ram\nsize: 1MiB\npaths: { b: standby }\n");
        ServerConfig server = ConfigLoader.load(dir).server();
        NvmeSubsystems nvme = NvmeSubsystems.of(List.of(), List.of(new NvmePort(1, "127.0.0.1", 4420),
                new NvmePort(2, "127.0.0.2", 4420)), NvmeLimits.DEFAULT, clock, Map.of());
        registry = new Registry(server, Optional.of(dir), budget, Registry.opener(budget, Runnable::run), null, nvme,
                clock);
        registry.reload();
        fixture = ControlFixture.start(registry, dir);
    }

    @AfterEach
    void stop() throws Exception {
        fixture.close();
        registry.closeAll();
    }

    private io.blocktarget.block.lun.PathStates states() {
        return registry.snapshot().luns().getFirst().state().paths();
    }

    private Response put(String portal, String body) throws Exception {
        return fixture.call(HttpMethod.PUT, "/v1/luns/disk/paths/" + portal, new JsonObject(body));
    }

    private static JsonObject row(Response r, int i) {
        return r.json().getJsonArray("paths").getJsonObject(i);
    }

    @Test
    void listsPortalsAndEveryPath() throws Exception {
        Response all = fixture.get("/v1/paths");
        assertThat(all.status()).isEqualTo(200);
        assertThat(all.json().getJsonArray("portals")).isEqualTo(new JsonArray()
                .add(new JsonObject("{\"name\":\"a\",\"id\":1,\"address\":\"127.0.0.1\",\"iscsi-port\":3260,"
                        + "\"nvme-port\":4420}"))
                .add(new JsonObject("{\"name\":\"b\",\"id\":2,\"address\":\"127.0.0.2\",\"iscsi-port\":3260,"
                        + "\"nvme-port\":4420}")));
        assertThat(row(all, 1)).isEqualTo(new JsonObject("{\"lun\":\"disk\",\"portal\":\"b\",\"portal-id\":2,"
                + "\"state\":\"standby\",\"configured\":\"standby\",\"origin\":\"configured\"}"));
        Response one = fixture.get("/v1/luns/disk/paths");
        assertThat(one.json().getString("lun")).isEqualTo("disk");
        assertThat(one.json().getJsonArray("paths")).hasSize(2);
        assertThat(fixture.get("/v1/luns/nope/paths").status()).isEqualTo(404);
    }

    @Test
    void aSetIsAppliedInPlaceAndWrittenBack() throws Exception {
        io.blocktarget.block.lun.PathStates before = states();
        Response r = put("a", "{\"state\": \"non-optimized\"}");
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        assertThat(row(r, 0).getString("state")).isEqualTo("non-optimized");
        assertThat(row(r, 0).getString("origin")).isEqualTo("implicit");
        assertThat(r.json().getJsonObject("applied").getJsonArray("steps").getList()).containsExactly(
                "set the paths of LUN disk: a optimized -> non-optimized (data and sessions kept; initiators are"
                        + " told)");
        assertThat(states()).as("the same LUN").isSameAs(before);
        assertThat(before.state(1)).isEqualTo(AccessState.NON_OPTIMIZED);
        assertThat(before.state(2)).isEqualTo(AccessState.STANDBY);
        assertThat(Files.readString(dir.resolve("luns.d/disk.yaml")))
                .contains("paths:", "a: non-optimized", "b: standby");
        assertThat(ConfigLoader.load(dir).luns().getFirst().features().paths())
                .as("the file reads back as the server has it").isEqualTo(Map.of(
                        "a", io.blocktarget.config.PathState.NON_OPTIMIZED,
                        "b", io.blocktarget.config.PathState.STANDBY));

        Response again = put("a", "{\"state\": \"non-optimized\"}");
        assertThat(again.json().getJsonObject("applied").getBoolean("changed")).isFalse();
    }

    @Test
    void aTransitionIsTransitioningUntilTheClockEndsIt() throws Exception {
        Response dry = fixture.call(HttpMethod.PUT, "/v1/luns/disk/paths/b?dry-run=true",
                new JsonObject("{\"state\": \"optimized\", \"transition\": \"2s\"}"));
        assertThat(dry.json().getBoolean("dry-run")).isTrue();
        assertThat(dry.json().getJsonArray("steps").getList()).containsExactly("set the paths of LUN disk: b standby"
                + " -> optimized (transitioning for 2s first) (data and sessions kept; initiators are told)");
        assertThat(states().state(2)).isEqualTo(AccessState.STANDBY);
        assertThat(Files.readString(dir.resolve("luns.d/disk.yaml"))).contains("b: standby");

        Response r = put("b", "{\"state\": \"optimized\", \"transition\": \"2s\"}");
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        assertThat(row(r, 1).getString("state")).isEqualTo("transitioning");
        assertThat(row(r, 1).getString("configured")).isEqualTo("optimized");
        assertThat(Files.readString(dir.resolve("luns.d/disk.yaml"))).contains("b: optimized");
        clock.advanceMillis(1_999);
        assertThat(row(fixture.get("/v1/luns/disk/paths"), 1).getString("state")).isEqualTo("transitioning");
        clock.advanceMillis(1);
        assertThat(row(fixture.get("/v1/luns/disk/paths"), 1).getString("state")).isEqualTo("optimized");
    }

    @Test
    void refusalsNameWhatIsAllowed() throws Exception {
        Response lun = fixture.call(HttpMethod.PUT, "/v1/luns/nope/paths/a", new JsonObject("{\"state\":\"standby\"}"));
        assertThat(lun.status()).isEqualTo(404);
        assertThat(lun.json().getString("detail")).isEqualTo("no LUN named nope");
        Response portal = put("c", "{\"state\": \"standby\"}");
        assertThat(portal.status()).isEqualTo(404);
        assertThat(portal.json().getString("detail")).isEqualTo("no portal named c; allowed: a, b");
        Response state = put("a", "{\"state\": \"asleep\"}");
        assertThat(state.status()).isEqualTo(400);
        assertThat(state.json().getString("detail")).isEqualTo("state: asleep is not a path state; allowed: "
                + io.blocktarget.config.PathState.ALLOWED);
        assertThat(state.json().getString("field")).isEqualTo("state");
        assertThat(put("a", "{}").json().getString("detail")).startsWith("state: missing; allowed: optimized");
        Response transition = put("a", "{\"state\": \"standby\", \"transition\": \"soon\"}");
        assertThat(transition.status()).isEqualTo(400);
        assertThat(transition.json().getString("field")).isEqualTo("transition");
        assertThat(put("a", "{\"state\": \"standby\", \"when\": 1}").json().getString("detail"))
                .isEqualTo("when: unknown member; allowed: state, transition");
        assertThat(states().state(1)).as("nothing changed").isEqualTo(AccessState.OPTIMIZED);
        assertThat(Files.readString(dir.resolve("luns.d/disk.yaml"))).doesNotContain("a:");
    }

    @Test
    void anInitiatorsChangeIsWrittenBackAndKeepsItsOrigin() throws Exception {
        Object nexus = new Object();   // what SET TARGET PORT GROUPS passes: the SCSI nexus that asked
        states().set(Map.of(1, AccessState.NON_OPTIMIZED, 2, AccessState.OPTIMIZED), 0, nexus);
        // the write-back runs on the control worker, in order with the API's changes: one more change waits for it
        assertThat(fixture.call(HttpMethod.PUT, "/v1/luns/disk/paths/a?dry-run=true",
                new JsonObject("{\"state\": \"non-optimized\"}")).json().getJsonArray("steps")).isEmpty();
        assertThat(Files.readString(dir.resolve("luns.d/disk.yaml"))).contains("a: non-optimized", "b: optimized");
        Response paths = fixture.get("/v1/luns/disk/paths");
        assertThat(row(paths, 0)).isEqualTo(new JsonObject("{\"lun\":\"disk\",\"portal\":\"a\",\"portal-id\":1,"
                + "\"state\":\"non-optimized\",\"configured\":\"non-optimized\",\"origin\":\"explicit\"}"));
        assertThat(row(paths, 1).getString("configured")).isEqualTo("optimized");
        assertThat(row(paths, 1).getString("origin")).isEqualTo("explicit");
        assertThat(states().stamp().source()).as("writing it back told no one again").isSameAs(nexus);

        // a reload of the written file changes nothing
        assertThat(registry.reload().changedNothing()).isTrue();
        assertThat(states().state(1)).isEqualTo(AccessState.NON_OPTIMIZED);
    }
}
