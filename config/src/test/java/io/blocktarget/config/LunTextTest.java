package io.blocktarget.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * One LUN from text (the control API's entry point): the same rules as a file, cross-checked against the other LUNs,
 * and JSON read as the YAML it is. Also {@code export.nvme.uuid} and {@link ConfigLoader#resized}.
 */
class LunTextTest extends ConfigDirTest {
    private static final ServerConfig SERVER = ConfigLoader.embeddedDefault().server();
    private static final List<LunConfig> DEFAULTS = ConfigLoader.embeddedDefault().luns();

    private List<ConfigProblem> problems(String name, String text, List<LunConfig> others) {
        ConfigException e = catchThrowableOfType(ConfigException.class,
                () -> ConfigLoader.readLun(name, text, Optional.of(tmp), SERVER, others));
        assertThat(e).as("%s should be refused", text).isNotNull();
        return e.problems();
    }

    @Test
    void jsonBodyIsReadLikeAFile() throws ConfigException {
        LunConfig lun = ConfigLoader.readLun("j16", """
                {"backend": "ram", "size": "2GiB", "logical-block-size": "16KiB", "read-only": true,
                 "export": {"iscsi": false, "nvme": {"nsid": 7, "uuid": "91fdba0d-f87b-4c25-b80f-db7be1418b9e"}}}
                """, Optional.of(tmp), SERVER, DEFAULTS);
        assertThat(lun.name()).isEqualTo("j16");
        assertThat(lun.source()).isEqualTo(tmp.resolve("luns.d/j16.yaml"));
        assertThat(lun.size()).isEqualTo(2L << 30);
        assertThat(lun.logicalBlockSize()).isEqualTo(16384);
        assertThat(lun.physicalBlockSize()).isEqualTo(16384);
        assertThat(lun.readOnly()).isTrue();
        assertThat(lun.iscsi()).isEmpty();
        assertThat(lun.nvme()).contains(new NvmeExport("nqn.2026-11.io.blocktarget:j16", 7,
                Optional.of(UUID.fromString("91fdba0d-f87b-4c25-b80f-db7be1418b9e"))));
    }

    @Test
    void withoutConfigDirTheLunHasNoSource() throws ConfigException {
        LunConfig lun = ConfigLoader.readLun("m", "{\"backend\": \"null\", \"size\": 4096}", Optional.empty(), SERVER,
                List.of());
        assertThat(lun.source()).isNull();
        assertThat(lun.size()).isEqualTo(4096);
    }

    @Test
    void eachBadKeyIsNamed() {
        assertThat(problems("x", "{\"backend\": \"tape\", \"size\": \"1GB\", \"logical-block-size\": 3000}", List.of()))
                .extracting(ConfigProblem::key).containsExactlyInAnyOrder("backend", "size", "logical-block-size");
        assertThat(problems("x", "{\"backend\": \"ram\"}", List.of())).extracting(ConfigProblem::key)
                .containsExactly("size");
        assertThat(problems("x", "{\"backend\": \"ram\", \"size\": \"1GiB\", \"colour\": 1}", List.of()))
                .extracting(ConfigProblem::key).containsExactly("colour");
        assertThat(problems("x", "{\"backend\": \"ram\", \"size\": \"1GiB\", \"export\": {\"nvme\": {\"nsid\": 0}}}",
                List.of())).extracting(ConfigProblem::key).containsExactly("export.nvme.nsid");
    }

    @Test
    void badNameIsAProblemOfTheFileNameAndNeverAPath() {
        List<ConfigProblem> problems = problems("../etc", "{\"backend\": \"ram\", \"size\": \"1GiB\"}", List.of());
        assertThat(problems).extracting(ConfigProblem::key).containsExactly("file name");
        assertThat(problems.getFirst().file()).isEqualTo(tmp.resolve("luns.d/NAME.yaml"));
    }

    @Test
    void invalidJsonIsOneProblem() {
        assertThat(problems("x", "{\"backend\": ", List.of())).singleElement()
                .satisfies(p -> assertThat(p.message()).startsWith("invalid YAML"));
        assertThat(problems("x", "", List.of())).singleElement()
                .satisfies(p -> assertThat(p.message()).startsWith("the file is empty"));
    }

    @Test
    void exportAddressTakenByAnotherLunIsTheNewLunsProblem() {
        List<ConfigProblem> problems = problems("x", """
                {"backend": "ram", "size": "1GiB",
                 "export": {"iscsi": {"target": "iqn.2026-11.io.blocktarget:ram-4k"},
                            "nvme": {"subsystem": "nqn.2026-11.io.blocktarget:ram-4k", "nsid": 1}}}
                """, DEFAULTS);
        assertThat(problems).extracting(ConfigProblem::key).containsExactly("export.iscsi", "export.nvme");
        assertThat(problems.getFirst().message()).startsWith("iSCSI target iqn.2026-11.io.blocktarget:ram-4k LUN 0 is"
                + " also exported by LUN ram-4k;");
    }

    @Test
    void aSecondLunOfATargetIsFine() throws ConfigException {
        LunConfig lun = ConfigLoader.readLun("x", """
                {"backend": "ram", "size": "1GiB",
                 "export": {"iscsi": {"target": "iqn.2026-11.io.blocktarget:ram-4k", "lun": 1}, "nvme": false}}
                """, Optional.of(tmp), SERVER, DEFAULTS);
        assertThat(lun.iscsi()).contains(new IscsiExport("iqn.2026-11.io.blocktarget:ram-4k", 1));
    }

    @Test
    void hostsDifferingFromTheSubsystemsOtherLunsAreRefused() {
        List<ConfigProblem> problems = problems("x", """
                {"backend": "ram", "size": "1GiB", "export": {"iscsi": false,
                 "nvme": {"subsystem": "nqn.2026-11.io.blocktarget:ram-4k", "nsid": 2}},
                 "access": {"hosts": ["nqn.2014-08.org.nvmexpress:uuid:6e1c2f3a-3b1d-4c8e-9a55-1a2b3c4d5e6f"]}}
                """, DEFAULTS);
        assertThat(problems).extracting(ConfigProblem::key).containsExactly("access.hosts");
    }

    @Test
    void uuidMustBeRfc4122TextAndNotNil() {
        String template = "{\"backend\": \"ram\", \"size\": \"1GiB\", \"export\": {\"nvme\": {\"uuid\": \"%s\"}}}";
        for (String bad : List.of("1-2-3-4-5", "91fdba0d-f87b-4c25-b80f-db7be1418b9", "91fdba0df87b4c25b80fdb7be1418b9e",
                "00000000-0000-0000-0000-000000000000", "g1fdba0d-f87b-4c25-b80f-db7be1418b9e")) {
            assertThat(problems("x", template.formatted(bad), List.of())).singleElement().satisfies(p -> {
                assertThat(p.key()).isEqualTo("export.nvme.uuid");
                assertThat(p.message()).endsWith("allowed: a UUID in RFC 4122 text form, 8-4-4-4-12 hex digits, e.g."
                        + " 91fdba0d-f87b-4c25-b80f-db7be1418b9e, not the nil UUID");
            });
        }
    }

    @Test
    void uppercaseUuidIsReadAsTheSameUuid() throws ConfigException {
        LunConfig lun = ConfigLoader.readLun("x", "{\"backend\": \"ram\", \"size\": \"1GiB\", \"export\": {\"nvme\":"
                + " {\"uuid\": \"91FDBA0D-F87B-4C25-B80F-DB7BE1418B9E\"}}}", Optional.of(tmp), SERVER, List.of());
        assertThat(lun.nvme().orElseThrow().uuid()).contains(UUID.fromString("91fdba0d-f87b-4c25-b80f-db7be1418b9e"));
    }

    @Test
    void oneUuidOnTwoNamespacesIsRefusedInFilesAndText() throws ConfigException {
        String uuid = "91fdba0d-f87b-4c25-b80f-db7be1418b9e";
        config.lun("a", "backend: ram\nsize: 1GiB\nexport:\n  nvme: { uuid: " + uuid + " }\n");
        config.lun("b", "backend: ram\nsize: 1GiB\nexport:\n  nvme: { uuid: " + uuid + " }\n");
        assertThat(config.problems()).containsExactly("luns.d/b.yaml:4: export.nvme.uuid: NVMe namespace UUID " + uuid
                + " is also exported by " + tmp.resolve("luns.d/a.yaml") + ":4; allowed: each target and LUN, and each"
                + " subsystem and NSID, in one LUN file only");
        config.lun("b", "backend: ram\nsize: 1GiB\n");
        LunConfig a = config.loadLun("a");
        assertThat(problems("c", "{\"backend\": \"ram\", \"size\": \"1GiB\", \"export\": {\"nvme\": {\"uuid\": \""
                + uuid + "\"}}}", List.of(a))).extracting(ConfigProblem::key).containsExactly("export.nvme.uuid");
    }

    @Test
    void resizedChecksThePhysicalBlockSize() throws ConfigException {
        LunConfig ram16k = DEFAULTS.get(2);
        assertThat(ConfigLoader.resized(ram16k, "2GiB").size()).isEqualTo(2L << 30);
        assertThat(ConfigLoader.resized(ram16k, "16KiB").size()).isEqualTo(16384);
        assertThat(ConfigLoader.resized(ram16k, "2GiB")).usingRecursiveComparison().ignoringFields("size")
                .isEqualTo(ram16k);
        for (String bad : List.of("0", "8KiB", "24KiB", "1GB", "-1")) {
            ConfigException e = catchThrowableOfType(ConfigException.class, () -> ConfigLoader.resized(ram16k, bad));
            assertThat(e).as(bad).isNotNull();
            assertThat(e.problems()).singleElement().satisfies(p -> {
                assertThat(p.key()).isEqualTo("size");
                assertThat(p.message()).startsWith(bad).contains("allowed: a positive multiple of the physical block"
                        + " size (16 KiB)");
            });
        }
    }
}
