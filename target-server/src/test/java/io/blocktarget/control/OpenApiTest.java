package io.blocktarget.control;

import io.blocktarget.config.ConfigLoader;
import io.blocktarget.config.ConfigSchema;
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

/**
 * openapi.json documents every route the router has, and no route it lacks; its LUN and fault-rule schemas are the
 * ones generated from the key declarations (generated == served).
 */
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

    @Test
    void theServedLunDefinitionIsTheGeneratedSchemaOfALunFilePlusName() {
        JsonObject doc = new JsonObject(ControlApi.openapiText());
        assertThat(doc.getString("openapi")).isEqualTo("3.1.0");
        JsonObject schemas = doc.getJsonObject("components").getJsonObject("schemas");
        JsonObject definition = schemas.getJsonObject("LunDefinition");
        assertThat(definition).isEqualTo(new JsonObject(ConfigSchema.apiLun()));

        // generated == served: the LUN file's schema, key for key, with name in front
        JsonObject file = new JsonObject(ConfigSchema.lun());
        JsonObject properties = definition.getJsonObject("properties").copy();
        assertThat(properties.remove("name")).isNotNull();
        assertThat(properties).isEqualTo(file.getJsonObject("properties"));
        assertThat(definition.getBoolean("additionalProperties")).isFalse();
        assertThat(definition.getJsonArray("required").getList()).containsExactly("name", "backend");
        // what issue 25 found missing from the hand-written definition
        assertThat(properties.fieldNames()).contains("atomic", "zoned", "commands", "limits", "identity", "faults",
                "session", "rotational");
        assertThat(properties.getJsonObject("access").getJsonObject("properties").fieldNames())
                .contains("dhchap", "tls", "tls-psk-file", "initiators");

        JsonObject lun = schemas.getJsonObject("Lun");
        JsonObject lunProperties = lun.getJsonObject("properties").copy();
        assertThat(lunProperties.remove("status")).isEqualTo(new JsonObject().put("$ref", "#/components/schemas/LunStatus"));
        assertThat(lunProperties).isEqualTo(definition.getJsonObject("properties"));
    }

    @Test
    void theServedFaultRuleIsTheGeneratedRulePlusItsCounts() {
        JsonObject schemas = new JsonObject(ControlApi.openapiText()).getJsonObject("components")
                .getJsonObject("schemas");
        JsonObject served = schemas.getJsonObject("FaultRule").getJsonObject("properties").copy();
        for (String count : List.of("lun", "hits", "matched", "notApplicable")) {
            assertThat(served.remove(count)).as(count).isNotNull();
        }
        assertThat(served).isEqualTo(new JsonObject(ConfigSchema.faultRule()).getJsonObject("properties"));
        assertThat(schemas.containsKey("FaultRuleStatus")).isFalse();
    }

    @Test
    void everySchemaReferenceResolves() {
        JsonObject doc = new JsonObject(ControlApi.openapiText());
        List<String> refs = new ArrayList<>();
        collectRefs(doc, refs);
        assertThat(refs).isNotEmpty();
        for (String ref : refs) {
            assertThat(ref).startsWith("#/");
            Object at = doc;
            for (String part : ref.substring(2).split("/")) {
                at = ((JsonObject) at).getValue(part);
                assertThat(at).as(ref).isNotNull();
            }
        }
    }

    private static void collectRefs(Object node, List<String> refs) {
        if (node instanceof JsonObject o) {
            o.forEach(e -> {
                if (e.getKey().equals("$ref")) {
                    refs.add((String) e.getValue());
                } else {
                    collectRefs(e.getValue(), refs);
                }
            });
        } else if (node instanceof io.vertx.core.json.JsonArray a) {
            a.forEach(v -> collectRefs(v, refs));
        }
    }
}
