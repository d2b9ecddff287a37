package io.blocktarget.control;

import io.blocktarget.config.ConfigLoader;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** openapi.json (written by hand) documents every route the router has, and no route it lacks. */
class OpenApiTest {
    private static final Set<String> METHODS = Set.of("get", "put", "post", "delete", "patch", "head", "options");

    @TempDir
    Path tmp;

    static List<String> documented() {
        JsonObject doc = new JsonObject(ControlApi.openapiText());
        List<String> ops = new ArrayList<>();
        JsonObject paths = doc.getJsonObject("paths");
        for (String path : paths.fieldNames()) {
            for (String key : paths.getJsonObject(path).fieldNames()) {
                if (METHODS.contains(key)) {
                    ops.add(key.toUpperCase(Locale.ROOT) + " " + path);
                }
            }
        }
        return ops.stream().sorted().toList();
    }

    @Test
    void everyRouteIsDocumentedAndEveryDocumentedOperationIsARoute() throws Exception {
        InMemoryControlPlane plane = new InMemoryControlPlane(ConfigLoader.embeddedDefault().server(),
                Optional.empty(), List.of());
        try (ControlFixture fixture = ControlFixture.start(plane, tmp)) {
            List<String> routes = fixture.server.routes();
            assertThat(routes).contains("GET /v1/luns", "POST /v1/luns/{name}/resize", "GET /metrics");
            assertThat(routes).containsExactlyInAnyOrderElementsOf(documented());
        }
    }

    @Test
    void everyOperationHasAnIdAndResponses() {
        JsonObject paths = new JsonObject(ControlApi.openapiText()).getJsonObject("paths");
        for (String path : paths.fieldNames()) {
            for (String key : paths.getJsonObject(path).fieldNames()) {
                if (METHODS.contains(key)) {
                    JsonObject op = paths.getJsonObject(path).getJsonObject(key);
                    assertThat(op.getString("operationId")).as(key + " " + path).isNotBlank();
                    assertThat(op.getJsonObject("responses").fieldNames()).as(key + " " + path).isNotEmpty();
                }
            }
        }
    }
}
