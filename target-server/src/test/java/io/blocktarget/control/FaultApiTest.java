package io.blocktarget.control;

import io.blocktarget.block.IoKind;
import io.blocktarget.block.fault.FaultCommand;
import io.blocktarget.block.fault.LunFaults;
import io.blocktarget.config.ConfigLoader;
import io.blocktarget.control.ControlClient.Response;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code /v1/luns/{name}/faults} over a real Unix socket: add, list with hit counts, remove, and every refusal. */
class FaultApiTest {
    @TempDir
    Path tmp;
    private ControlFixture fixture;
    private InMemoryControlPlane plane;

    @BeforeEach
    void start() throws Exception {
        plane = new InMemoryControlPlane(ConfigLoader.embeddedDefault().server(), Optional.empty(),
                ConfigLoader.embeddedDefault().luns());
        fixture = ControlFixture.start(plane, tmp);
    }

    @AfterEach
    void stop() throws Exception {
        fixture.close();
    }

    private Response post(String json) throws Exception {
        return fixture.call(HttpMethod.POST, "/v1/luns/ram-16k/faults", new JsonObject(json));
    }

    @Test
    void addListCountRemove() throws Exception {
        Response added = post("{\"ops\": [\"read\"], \"lba\": \"1000-1099\", \"action\": \"medium-error\"}");
        assertThat(added.status()).as(added.body()).isEqualTo(201);
        JsonObject rule = added.json();
        assertThat(rule.getString("id")).isEqualTo("f1");
        assertThat(rule.getString("lba")).isEqualTo("1000-1099");
        assertThat(rule.getLong("hits")).isZero();

        LunFaults faults = plane.faults("ram-16k").orElseThrow();
        assertThat(faults.command(new FaultCommand(FaultCommand.Protocol.NVME, IoKind.READ, 2, 1050, 1, "nqn.h", 1)))
                .isNotNull();
        Response list = fixture.get("/v1/luns/ram-16k/faults");
        assertThat(list.status()).isEqualTo(200);
        JsonArray rules = list.json().getJsonArray("faults");
        assertThat(rules).hasSize(1);
        assertThat(rules.getJsonObject(0).getLong("hits")).isEqualTo(1);
        assertThat(rules.getJsonObject(0).getLong("matched")).isEqualTo(1);
        assertThat(list.json().getInteger("held")).isZero();

        assertThat(post("{\"id\": \"slow\", \"action\": \"delay\", \"delay\": \"5ms\"}").status()).isEqualTo(201);
        assertThat(faults.rules()).hasSize(2);
        Response removed = fixture.call(HttpMethod.DELETE, "/v1/luns/ram-16k/faults/f1", (JsonObject) null);
        assertThat(removed.status()).isEqualTo(204);
        assertThat(faults.rules()).extracting(r -> r.rule().id()).containsExactly("slow");
        assertThat(fixture.call(HttpMethod.DELETE, "/v1/luns/ram-16k/faults/f1", (JsonObject) null).status())
                .isEqualTo(404);
    }

    @Test
    void refusalsNameTheField() throws Exception {
        Response bad = post("{\"lba\": \"9-1\", \"action\": \"medium-error\"}");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.contentType()).isEqualTo("application/problem+json");
        assertThat(bad.json().getString("field")).isEqualTo("lba");
        assertThat(post("{\"lba\": 5}").json().getString("field")).isEqualTo("action");
        assertThat(post("{\"action\": \"busy\", \"colour\": \"red\"}").json().getString("field")).isEqualTo("colour");

        assertThat(post("{\"id\": \"x\", \"action\": \"busy\"}").status()).isEqualTo(201);
        Response dup = post("{\"id\": \"x\", \"action\": \"busy\"}");
        assertThat(dup.status()).isEqualTo(409);
        assertThat(dup.json().getString("field")).isEqualTo("id");

        assertThat(fixture.call(HttpMethod.POST, "/v1/luns/nope/faults", new JsonObject("{\"action\": \"busy\"}"))
                .status()).isEqualTo(404);
        assertThat(fixture.get("/v1/luns/nope/faults").status()).isEqualTo(404);
    }

    @Test
    void aPortalMustBeOneOfTheServers() throws Exception {
        Response refused = post("{\"portal\": \"b\", \"action\": \"drop-connection\"}");
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.json().getString("detail"))
                .isEqualTo("portal: b is not a portal of blocktarget.yaml; allowed: default");
        assertThat(refused.json().getString("field")).isEqualTo("portal");
        Response added = post("{\"portal\": \"default\", \"action\": \"drop-connection\"}");
        assertThat(added.status()).as(added.body()).isEqualTo(201);
        assertThat(added.json().getString("portal")).isEqualTo("default");
        assertThat(plane.faults("ram-16k").orElseThrow().rules().getFirst().rule().match().portal()).isEqualTo(1);
    }
}
