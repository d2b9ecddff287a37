package io.blocktarget.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.schema.CoreSchema;

/**
 * The generated JSON Schemas are valid draft 2020-12, and what the readers take they take: the shipped examples, the
 * embedded default, the snippets of the README and docs/, a document of every section as {@link LunWriter} writes it,
 * and each key's declared example; and they refuse what the reader refuses by the key tables (unknown keys, sibling
 * rules).
 */
class ConfigSchemaTest {
    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
    private static final Schema LUN = REGISTRY.getSchema(ConfigSchema.lun());
    private static final Schema SERVER = REGISTRY.getSchema(ConfigSchema.server());
    private static final Load YAML = new Load(LoadSettings.builder().setSchema(new CoreSchema()).build());

    @TempDir
    Path tmp;

    static List<String> errors(Schema schema, Object document) {
        return schema.validate(Json.write(document), InputFormat.JSON).stream().map(Error::toString).toList();
    }

    static Object yaml(String text) {
        return YAML.loadFromString(text);
    }

    @Test
    void bothSchemasAreValidDraft202012() {
        Schema meta = REGISTRY.getSchema(SchemaLocation.of(ConfigSchema.DIALECT));
        assertThat(meta.validate(ConfigSchema.lun(), InputFormat.JSON)).isEmpty();
        assertThat(meta.validate(ConfigSchema.server(), InputFormat.JSON)).isEmpty();
        assertThat(meta.validate(ConfigSchema.apiLun(), InputFormat.JSON)).isEmpty();
        assertThat(meta.validate(ConfigSchema.faultRule(), InputFormat.JSON)).isEmpty();
        // a schema the meta-schema refuses is caught (the check can fail)
        assertThat(meta.validate("{\"type\": 7}", InputFormat.JSON)).isNotEmpty();
    }

    @Test
    void everyExampleFileValidates() throws IOException {
        List<Path> files = new ArrayList<>();
        for (String dir : List.of("basic", "chap")) {
            try (Stream<Path> luns = Files.list(Path.of("../examples", dir, "luns.d"))) {
                luns.filter(p -> p.toString().endsWith(".yaml")).sorted().forEach(files::add);
            }
        }
        assertThat(files).hasSize(4);
        for (Path file : files) {
            assertThat(errors(LUN, yaml(Files.readString(file)))).as(file.toString()).isEmpty();
        }
        Path server = Path.of("../examples/basic/blocktarget.yaml");
        assertThat(errors(SERVER, yaml(Files.readString(server)))).as(server.toString()).isEmpty();
    }

    /**
     * examples/broken: what a file shows alone the schema refuses too; a duplicate export across files, a missing
     * file and an invalid file name are the reader's (the schema sees one document).
     */
    @Test
    void theBrokenExamplesFailWhereOneDocumentShowsIt() throws IOException {
        Path broken = Path.of("../examples/broken");
        for (String refused : List.of("Big-Name", "bad-blocks", "dup-b", "file-missing", "typo")) {
            Path file = broken.resolve("luns.d/" + refused + ".yaml");
            assertThat(errors(LUN, yaml(Files.readString(file)))).as(file.toString()).isNotEmpty();
        }
        assertThat(errors(LUN, yaml(Files.readString(broken.resolve("luns.d/dup-a.yaml"))))).isEmpty();
        assertThat(errors(SERVER, yaml(Files.readString(broken.resolve("blocktarget.yaml"))))).hasSize(2);
    }

    @Test
    void theEmbeddedDefaultValidates() {
        BlocktargetConfig config = ConfigLoader.embeddedDefault();
        for (LunConfig lun : config.luns()) {
            assertThat(errors(LUN, LunWriter.document(lun, config.server()))).as(lun.name()).isEmpty();
            assertThat(errors(LUN, LunWriter.document(lun, config.server(), true))).as(lun.name()).isEmpty();
        }
        assertThat(errors(SERVER, ServerWriter.document(config.server(), true))).isEmpty();
    }

    /** Every ```yaml block of the README and of the docs/ pages that is a LUN file or a blocktarget.yaml. */
    @Test
    void theDocumentedSnippetsValidate() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(Path.of("../README.md")));
        try (Stream<Path> docs = Files.list(Path.of("../docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        int checked = 0;
        for (Path page : pages) {
            List<String> lines = Files.readAllLines(page);
            for (int i = 0; i < lines.size(); i++) {
                if (!lines.get(i).equals("```yaml")) {
                    continue;
                }
                StringBuilder block = new StringBuilder();
                int start = i + 1;
                for (i = start; !lines.get(i).equals("```"); i++) {
                    block.append(lines.get(i)).append('\n');
                }
                Object doc = yaml(block.toString());
                if (!(doc instanceof Map<?, ?> map) || map.isEmpty()) {
                    continue;
                }
                String first = (String) map.keySet().iterator().next();
                Schema schema = LunKeys.LUN.child(first).isPresent() ? LUN
                        : ServerKeys.SERVER.child(first).isPresent() ? SERVER : null;
                // a docs/ page may show other YAML (e.g. a Prometheus scrape config): one with no key of ours
                if (schema == null && !page.endsWith("README.md") && map.keySet().stream().map(String::valueOf)
                        .noneMatch(k -> LunKeys.LUN.child(k).isPresent() || ServerKeys.SERVER.child(k).isPresent())) {
                    continue;
                }
                assertThat(schema)
                        .as("%s:%d: a yaml block that is neither a LUN file nor blocktarget.yaml", page, start)
                        .isNotNull();
                assertThat(errors(schema, doc)).as("%s:%d", page, start).isEmpty();
                checked++;
            }
        }
        assertThat(checked).isGreaterThanOrEqualTo(10);
    }

    @Test
    void documentsOfEverySectionAsTheWriterWritesThemValidate() throws Exception {
        ConfigDir dir = new ConfigDir(tmp)
                .secret("i.secret", "initiator-secret-1")
                .secret("t.secret", "target-secret-2")
                .secret("host.key", AccessAuthTest.KEY_00)
                .secret("ctrl.key", AccessAuthTest.KEY_02)
                .secret("tls.psk", TlsConfigTest.PSK_01)
                .file("a.img", "")
                .lun("knob", """
                        backend: ram
                        size: 1GiB
                        logical-block-size: 4KiB
                        read-only: true
                        export:
                          iscsi: {target: "iqn.2026-11.io.blocktarget:t", lun: 3}
                          nvme: {subsystem: "nqn.2026-11.io.blocktarget:s", nsid: 0x10, uuid: 91fdba0d-f87b-4c25-b80f-db7be1418b9e}
                        access:
                          chap: {user: u1, secret-file: i.secret, mutual-user: u2, mutual-secret-file: t.secret}
                          hosts: [nqn.2014-08.org.nvmexpress:uuid:6e1c2f3a-3b1d-4c8e-9a55-1a2b3c4d5e6f]
                          initiators: [iqn.2004-10.com.ubuntu:01:abc]
                          dhchap: {host-secret-file: host.key, ctrl-secret-file: ctrl.key}
                          tls: required
                          tls-psk-file: tls.psk
                        atomic: {max-bytes: 64KiB, boundary-bytes: 128KiB}
                        commands: {write-same: true, unmap: true, write-cache: false}
                        limits: {max-transfer: 1MiB, optimal-transfer: 256KiB, max-unmap-descriptors: 64, npwg: 16KiB}
                        rotational: true
                        identity: {vendor: ACME, product: KnobDisk, revision: "1.0", serial: KNOB0001}
                        session: {mdts: 512KiB, io-queues: 2, queue-depth: 32}
                        faults:
                          - {ops: read, lba: 1000-1099, action: medium-error}
                          - {trigger: first, count: 3, action: status, sense: 3/11/00, nvme-status: 2/81, nvme-dnr: true}
                          - {trigger: probability, probability: 0.5, seed: 7, action: delay, delay: 10ms, jitter: 1ms}
                          - {action: throttle, iops: 100, bandwidth: 10MiB/s}
                          - {action: stall-connection, stall: 5s, stall-direction: send}
                          - {action: corrupt-digest, digest: data}
                        """)
                .lun("zoned", """
                        backend: ram
                        size: 1GiB
                        logical-block-size: 4KiB
                        export: {nvme: false}
                        zoned: {zone-size: 64MiB, zone-capacity: 48MiB, conventional-zones: 1, max-open: 8,
                                max-active: 12, zone-append-max-bytes: 1MiB}
                        """)
                .lun("file", "backend: file\npath: a.img\ncreate: true\ndirect-io: true\nsize: 64MiB\n")
                .file("blocktarget.yaml", """
                        bind: 127.0.0.1
                        iscsi-port: 3261
                        memory-budget: 1GiB
                        event-loops: 2
                        poll-window: 100us
                        control-socket: off
                        discovery-chap: {user: d1, secret-file: i.secret}
                        """);
        Files.delete(tmp.resolve("a.img"));
        BlocktargetConfig config = dir.load();
        assertThat(config.luns()).hasSize(3);
        for (LunConfig lun : config.luns()) {
            Map<String, Object> doc = LunWriter.document(lun, config.server());
            assertThat(errors(LUN, doc)).as(lun.name()).isEmpty();
            // and the API's definition takes it with its name
            Map<String, Object> withName = new LinkedHashMap<>();
            withName.put("name", lun.name());
            withName.putAll(doc);
            assertThat(errors(REGISTRY.getSchema(ConfigSchema.apiLun()), withName)).isEmpty();
        }
        Schema rule = REGISTRY.getSchema(ConfigSchema.faultRule());
        for (FaultRuleConfig r : config.luns().stream().filter(l -> l.name().equals("knob")).findFirst().orElseThrow()
                .features().faults()) {
            assertThat(errors(rule, FaultWriter.document(r))).as(r.id()).isEmpty();
        }
        assertThat(errors(SERVER, ServerWriter.document(config.server()))).isEmpty();
        assertThat(errors(SERVER, ServerWriter.document(config.server(), true))).isEmpty();
    }

    /** Each key's declared example, checked by the key's own schema. */
    @Test
    void everyDeclaredExampleValidates() {
        int checked = examples(ConfigSchema.lunSchema(), LunKeys.declared())
                + examples(ConfigSchema.serverSchema(), ServerKeys.declared());
        assertThat(checked).isGreaterThan(100);
    }

    private static int examples(Map<String, Object> root, List<KeyPaths.Declared> declared) {
        int checked = 0;
        for (KeyPaths.Declared d : declared) {
            if (d.key().example().isEmpty()) {
                assertThat(d.key().shape()).as(d.path() + " has no example")
                        .isIn(Key.Shape.SECTION, Key.Shape.SECTION_OR_BOOLEAN, Key.Shape.LIST_OF_SECTIONS);
                continue;
            }
            Map<String, Object> schema = at(root, d.path());
            List<Error> errors = REGISTRY.getSchema(Json.write(schema))
                    .validate(Json.write(d.key().example().get()), InputFormat.JSON);
            assertThat(errors).as(d.path() + ": " + d.key().example().get()).isEmpty();
            checked++;
        }
        return checked;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> at(Map<String, Object> root, String path) {
        Map<String, Object> at = root;
        for (String part : path.split("\\.")) {
            boolean list = part.endsWith("[]");
            String name = list ? part.substring(0, part.length() - 2) : part;
            if (at.containsKey("anyOf") && !at.containsKey("properties")) {
                at = ((List<Map<String, Object>>) at.get("anyOf")).get(1);
            }
            at = (Map<String, Object>) ((Map<String, Object>) at.get("properties")).get(name);
            if (list) {
                at = (Map<String, Object>) at.get("items");
            }
        }
        return at;
    }

    @Test
    void whatTheTablesRefuseTheSchemaRefuses() {
        assertThat(errors(LUN, yaml("backend: ram\nsise: 1GiB\n"))).isNotEmpty();
        assertThat(errors(LUN, yaml("backend: ram\nsize: 1GiB\nlimits: {max-tranfer: 1MiB}\n"))).isNotEmpty();
        assertThat(errors(LUN, yaml("backend: tape\nsize: 1GiB\n"))).isNotEmpty();
        assertThat(errors(LUN, yaml("size: 1GiB\n"))).as("backend is required").isNotEmpty();
        assertThat(errors(LUN, yaml("backend: ram\n"))).as("size is required for ram").isNotEmpty();
        assertThat(errors(LUN, yaml("backend: null\n"))).as("and for null (YAML's null)").isNotEmpty();
        assertThat(errors(LUN, yaml("backend: file\nsize: 1GiB\n"))).as("path is required for file").isNotEmpty();
        assertThat(errors(LUN, yaml("backend: ram\nsize: 1GiB\npath: a.img\n"))).as("path only for file")
                .isNotEmpty();
        assertThat(errors(LUN, yaml("backend: file\npath: a.img\nzoned: {zone-size: 64MiB}\n"))).as("zoned: ram")
                .isNotEmpty();
        assertThat(errors(LUN, yaml("backend: ram\nsize: 1GiB\nlogical-block-size: 3000\n"))).isNotEmpty();
        assertThat(errors(LUN, yaml("backend: ram\nsize: 1GiB\nread-only: yes\n"))).as("YAML 1.2: yes is a string")
                .isNotEmpty();
        assertThat(errors(LUN, yaml("backend: ram\nsize: 1GiB\nexport: {nvme: {nsid: 0}}\n"))).isNotEmpty();
        assertThat(errors(LUN, yaml("backend: ram\nsize: 1GiB\naccess: {tls-psk-file: a.psk}\n")))
                .as("tls-psk-file only with tls: required or allowed").isNotEmpty();
        assertThat(errors(LUN, yaml("backend: ram\nsize: 1GiB\naccess: {chap: {user: u, secret-file: s,"
                + " mutual-user: m}}\n"))).as("mutual-user needs mutual-secret-file").isNotEmpty();
        assertThat(errors(LUN, yaml("backend: ram\nsize: 1GiB\nfaults: [{count: 3, action: busy}]\n")))
                .as("count only with trigger: first or every").isNotEmpty();
        assertThat(errors(LUN, yaml("backend: ram\nsize: 1GiB\nfaults: [{trigger: every, action: busy}]\n")))
                .as("count is required with every").isNotEmpty();
        assertThat(errors(LUN, yaml("backend: ram\nsize: 1GiB\nfaults: [{action: delay}]\n")))
                .as("delay is required with action: delay").isNotEmpty();
        assertThat(errors(LUN, yaml("backend: ram\nsize: 1GiB\nfaults: [{ops: read}]\n"))).as("action is required")
                .isNotEmpty();
        assertThat(errors(SERVER, yaml("control-listen: 127.0.0.1:9740\n"))).as("needs control-token-file")
                .isNotEmpty();
        assertThat(errors(SERVER, yaml("iscsi_port: 3260\n"))).isNotEmpty();
        assertThat(errors(SERVER, yaml("iscsi-port: 70000\n"))).isNotEmpty();
        // and the same documents fixed are taken
        assertThat(errors(LUN, yaml("backend: null\nsize: 1TiB\n"))).isEmpty();
        assertThat(errors(LUN, yaml("backend: ram\nsize: 1GiB\nfaults: [{trigger: every, count: 2, action: busy}]\n")))
                .isEmpty();
        assertThat(errors(LUN, yaml("backend: ram\nsize: 1GiB\nexport: {nvme: {nsid: \"0x10\"}, iscsi: true}\n")))
                .isEmpty();
        assertThat(errors(SERVER, yaml("control-listen: 127.0.0.1:9740\ncontrol-token-file: t\n"))).isEmpty();
    }
}
