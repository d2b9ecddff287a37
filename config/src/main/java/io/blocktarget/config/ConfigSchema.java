package io.blocktarget.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON Schemas (draft 2020-12) of a LUN file and of {@code blocktarget.yaml}, generated from the key tables: each
 * key's type, allowed values, default, example and one-line doc (its {@code description}); {@code
 * additionalProperties: false} wherever the reader refuses unknown keys; the sibling rules ("path only with backend:
 * file") as {@code if} / {@code then}. Printed by {@code blocktarget schema lun|server}, shipped in the release for
 * editors (yaml-language-server), and served as the control API's LUN definition. The schema says what a file may
 * look like; checks that need several files, the file system or arithmetic across keys stay the reader's.
 */
public final class ConfigSchema {
    static final String DIALECT = "https://json-schema.org/draft/2020-12/schema";

    private ConfigSchema() {
    }

    /** The schema of {@code luns.d/NAME.yaml}, as JSON text. */
    public static String lun() {
        return Json.write(lunSchema());
    }

    /** The schema of {@code blocktarget.yaml}, as JSON text. */
    public static String server() {
        return Json.write(serverSchema());
    }

    /**
     * The body of the control API's {@code POST /v1/luns}: the LUN file's schema plus {@code name} (the file name),
     * without {@code $schema} (it sits inside the OpenAPI 3.1 document), as JSON text.
     */
    public static String apiLun() {
        Map<String, Object> schema = lunSchema();
        schema.remove("$schema");
        schema.put("title", "LunDefinition");
        schema.put("description", "name plus the keys of luns.d/NAME.yaml (docs/configuration.md)");
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("name", ValueType.schema("type", "string", "pattern", "^" + Names.LUN_NAME_TEXT + "$",
                "description", "the LUN's name (its file name minus .yaml): " + Names.LUN_NAME_ALLOWED));
        properties.putAll(map(schema.get("properties")));
        schema.put("properties", properties);
        List<Object> required = new ArrayList<>(List.of("name"));
        required.addAll((List<?>) schema.get("required"));
        schema.put("required", required);
        return Json.write(schema);
    }

    /** One fault rule (an entry of {@code faults:}, the body of {@code POST /v1/luns/NAME/faults}), as JSON text. */
    public static String faultRule() {
        Map<String, Object> schema = object(FaultKeys.FAULT_RULE);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("title", "FaultRule");
        out.put("description", LunKeys.FAULTS.doc());
        out.putAll(schema);
        return Json.write(out);
    }

    static Map<String, Object> lunSchema() {
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("$schema", DIALECT);
        schema.put("title", "blocktarget LUN file (luns.d/NAME.yaml)");
        schema.put("description", "One LUN; its name is the file name minus .yaml. Sizes are a number of bytes or a"
                + " number with B, KiB, MiB, GiB or TiB. Key reference: docs/configuration.md.");
        schema.putAll(object(LunKeys.LUN));
        return schema;
    }

    static Map<String, Object> serverSchema() {
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("$schema", DIALECT);
        schema.put("title", "blocktarget server settings (blocktarget.yaml)");
        schema.put("description", "Server-wide settings, all optional. Key reference: docs/configuration.md.");
        schema.putAll(object(ServerKeys.SERVER));
        return schema;
    }

    /** A section: its keys, required ones, no others, and its sibling rules. */
    private static Map<String, Object> object(Key<?> section) {
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", "object");
        Map<String, Object> properties = new LinkedHashMap<>();
        List<String> required = new ArrayList<>();
        List<Object> rules = new ArrayList<>();
        Map<String, Object> dependent = new LinkedHashMap<>();
        for (Key<?> key : section.children()) {
            properties.put(key.name(), schema(key));
            if (key.isRequired()) {
                required.add(key.name());
            }
            for (Key.Condition c : key.conditions()) {
                switch (c.kind()) {
                    case REQUIRED_WHEN -> rules.add(ValueType.schema(
                            "if", ValueType.schema("properties", Map.of(c.sibling(), ValueType.schema("enum",
                                    values(c))), "required", List.of(c.sibling())),
                            "then", ValueType.schema("required", List.of(key.name()))));
                    case ONLY_WHEN -> rules.add(ValueType.schema(
                            "if", ValueType.schema("required", List.of(key.name())),
                            "then", ValueType.schema("properties", Map.of(c.sibling(), ValueType.schema("enum",
                                    values(c))), "required", List.of(c.sibling()))));
                    case NEEDS -> dependent.put(key.name(), List.of(c.sibling()));
                }
            }
        }
        schema.put("properties", properties);
        if (!required.isEmpty()) {
            schema.put("required", required);
        }
        schema.put("additionalProperties", false);
        if (!dependent.isEmpty()) {
            schema.put("dependentRequired", dependent);
        }
        if (!rules.isEmpty()) {
            schema.put("allOf", rules);
        }
        return schema;
    }

    /** The sibling's values; YAML reads an unquoted {@code null} as null, so "null" stands for both. */
    private static List<Object> values(Key.Condition c) {
        List<Object> values = new ArrayList<>(c.values());
        if (values.contains("null")) {
            values.add(null);
        }
        return values;
    }

    private static Map<String, Object> schema(Key<?> key) {
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("description", key.doc());
        switch (key.shape()) {
            case VALUE -> {
                schema.putAll(key.type().schema());
                jsonDefault(key).ifPresent(d -> schema.put("default", d));
            }
            case LIST -> {
                Map<String, Object> list = ValueType.schema("type", "array", "minItems", 1, "items",
                        key.type().schema());
                if (key.isSingleAllowed()) {
                    schema.put("anyOf", List.of(key.type().schema(), list));
                } else {
                    schema.putAll(list);
                }
            }
            case SECTION -> schema.putAll(object(key));
            case SECTION_OR_BOOLEAN -> schema.put("anyOf", List.of(ValueType.schema("type", "boolean"), object(key)));
            case LIST_OF_SECTIONS -> {
                schema.put("type", "array");
                schema.put("items", object(key));
            }
        }
        key.example().ifPresent(e -> schema.put("examples", List.of(e)));
        return schema;
    }

    /** The default as JSON, when the key has a fixed one its own schema accepts. */
    private static java.util.Optional<Object> jsonDefault(Key<?> key) {
        Object value = key.defaultValue().orElse(null);
        Object type = key.type().schema().get("type");
        List<?> types = type instanceof List<?> l ? l : type == null ? List.of() : List.of(type);
        if (value instanceof Boolean && types.contains("boolean")) {
            return java.util.Optional.of(value);
        }
        if (value instanceof Long && types.contains("integer")) {
            return java.util.Optional.of(value);
        }
        if (value instanceof String && types.contains("string")) {
            return java.util.Optional.of(value);
        }
        Object enumValues = key.type().schema().get("enum");
        if (value != null && enumValues instanceof List<?> names && names.contains(key.defaultText())) {
            return java.util.Optional.of(key.defaultText());
        }
        return java.util.Optional.empty();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value) {
        return (Map<String, Object>) value;
    }
}
