package io.blocktarget.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** One test per rule of a LUN file, each asserting the exact problem: file, line, key, text. */
class LunRulesTest extends ConfigDirTest {
    private static final String LUN_KEYS = "allowed keys: backend, size, logical-block-size, physical-block-size,"
            + " read-only, export, access, path, create, direct-io, atomic, zoned, placement, commands, limits,"
            + " rotational, removable, sanitize-duration, identity, faults, session, paths";

    @Test
    void logicalBlockSizeMustBeAPowerOfTwo() {
        config.lun("x", "backend: ram\nsize: 1GiB\n\nlogical-block-size: 3000\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/x.yaml:4: logical-block-size: 3000 is not a power of two;"
                        + " allowed: a power of two from 512 B to 64 KiB");
    }

    @Test
    void logicalBlockSizeAbove64KiBIsOutOfRange() {
        config.lun("x", "backend: ram\nsize: 1GiB\nlogical-block-size: 128KiB\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/x.yaml:3: logical-block-size: 128KiB is out of range;"
                        + " allowed: a power of two from 512 B to 64 KiB");
    }

    @Test
    void logicalBlockSizeBelow512IsOutOfRange() {
        config.lun("x", "backend: ram\nsize: 1GiB\nlogical-block-size: 256\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/x.yaml:3: logical-block-size: 256 is out of range;"
                        + " allowed: a power of two from 512 B to 64 KiB");
    }

    @Test
    void physicalBlockSizeBelowLogicalIsRejected() {
        config.lun("x", "backend: ram\nsize: 1GiB\nlogical-block-size: 16KiB\nphysical-block-size: 4KiB\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/x.yaml:4: physical-block-size: 4KiB is smaller than the logical block size (16 KiB);"
                        + " allowed: a power of two from the logical block size to 32 MiB");
    }

    @Test
    void physicalBlockSizeAbove32MiBIsOutOfRange() {
        config.lun("x", "backend: ram\nsize: 1GiB\nphysical-block-size: 64 MiB\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/x.yaml:3: physical-block-size: 64 MiB is out of range;"
                        + " allowed: a power of two from the logical block size to 32 MiB");
    }

    @Test
    void physicalBlockSizeMustBeAPowerOfTwo() {
        config.lun("x", "backend: ram\nsize: 1GiB\nphysical-block-size: 12KiB\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/x.yaml:3: physical-block-size: 12KiB is not a power of two;"
                        + " allowed: a power of two from the logical block size to 32 MiB");
    }

    @Test
    void physicalBlockSizeOf32MiBIsAccepted() throws ConfigException {
        config.lun("x", "backend: ram\nsize: 64MiB\nlogical-block-size: 64KiB\nphysical-block-size: 32MiB\n");
        LunConfig lun = config.loadLun("x");
        assertThat(lun.logicalBlockSize()).isEqualTo(65536);
        assertThat(lun.physicalBlockSize()).isEqualTo(32 * 1024 * 1024);
        assertThat(lun.blockCount()).isEqualTo(1024);
    }

    @Test
    void sizeMustBeAMultipleOfThePhysicalBlockSize() {
        config.lun("x", "backend: ram\nlogical-block-size: 4096\nsize: 1000000\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/x.yaml:3: size: 1000000 is not a multiple of the physical block size 4 KiB;"
                        + " allowed: a positive multiple of the physical block size (4 KiB)");
    }

    @Test
    void sizeOfADefaultPhysicalBlockSizeOf4KiBIsChecked() {
        // logical 512 -> physical 4096 (512e): 512 * 9 bytes are whole logical but not whole physical blocks.
        config.lun("x", "backend: null\nsize: 4608\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/x.yaml:2: size: 4608 is not a multiple of the physical block size 4 KiB;"
                        + " allowed: a positive multiple of the physical block size (4 KiB)");
    }

    @Test
    void sizeMustBePositive() {
        config.lun("x", "backend: ram\nsize: 0\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/x.yaml:2: size: 0 is not positive;"
                        + " allowed: a positive multiple of the physical block size (4 KiB)");
    }

    @Test
    void sizeIsRequiredForRam() {
        config.lun("x", "backend: ram\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml: size: missing; " + SIZE_ALLOWED);
    }

    @Test
    void sizeIsRequiredForNull() {
        config.lun("x", "backend: null\nread-only: true\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml: size: missing; " + SIZE_ALLOWED);
    }

    @Test
    void sizeWithADecimalUnitNamesTheAllowedUnits() {
        config.lun("x", "backend: ram\nsize: 10KB\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:2: size: 10KB: KB is not a unit; " + SIZE_ALLOWED);
    }

    @Test
    void sizeAsAListIsAWrongType() {
        config.lun("x", "backend: ram\nsize: [1]\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:2: size: a list is not a size; " + SIZE_ALLOWED);
    }

    @Test
    void sizeAsAMapIsAWrongType() {
        config.lun("x", "backend: ram\nsize:\n  gib: 1\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:3: size: a map is not a size; " + SIZE_ALLOWED);
    }

    @Test
    void sizeWithoutValue() {
        config.lun("x", "backend: ram\nsize:\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:2: size: no value; " + SIZE_ALLOWED);
    }

    @Test
    void sizeOverflowingALongIsReported() {
        config.lun("x", "backend: ram\nsize: 8388608TiB\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:2: size: 8388608TiB does not fit in 64 bits;"
                + " allowed: at most 9223372036854775807 bytes (8 EiB - 1)");
    }

    @Test
    void backendIsRequired() {
        config.lun("x", "size: 1GiB\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml: backend: missing; allowed: ram, file or null");
    }

    @Test
    void backendMustBeKnown() {
        config.lun("x", "backend: disk\nsize: 1GiB\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/x.yaml:1: backend: disk is not a backend; allowed: ram, file or null");
    }

    @Test
    void backendNullIsTheNullBackendNotAMissingValue() throws ConfigException {
        config.lun("x", "backend: null\nsize: 1GiB\n");
        assertThat(config.loadLun("x").backend()).isEqualTo(BackendKind.NULL);
    }

    @Test
    void backendWithoutValue() {
        config.lun("x", "backend:\nsize: 1GiB\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:1: backend: no value; allowed: ram, file or null");
    }

    @Test
    void readOnlyMustBeABoolean() {
        config.lun("x", "backend: ram\nsize: 1GiB\nread-only: maybe\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/x.yaml:3: read-only: maybe is not a boolean; allowed: true or false");
    }

    @Test
    void yamlOneOneBooleansAreStrings() {
        config.lun("x", "backend: ram\nsize: 1GiB\nread-only: yes\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/x.yaml:3: read-only: yes is not a boolean; allowed: true or false");
    }

    @Test
    void readOnlyTrueIsKept() throws ConfigException {
        config.lun("x", "backend: ram\nsize: 1GiB\nread-only: true\n");
        assertThat(config.loadLun("x").readOnly()).isTrue();
    }

    @Test
    void unknownKeyNamesTheAllowedKeys() {
        config.lun("x", "backend: ram\nsize: 1GiB\nblock-size: 4096\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:3: block-size: unknown key; " + LUN_KEYS);
    }

    @Test
    void keyGivenTwice() {
        config.lun("x", "backend: ram\nsize: 1GiB\nsize: 2GiB\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/x.yaml:3: size: given twice (first on line 2); allowed: each key once");
    }

    @Test
    void fileKeysOnARamBackendAreRejected() {
        config.lun("x", "backend: ram\nsize: 1GiB\npath: disk.img\ndirect-io: true\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/x.yaml:3: path: only allowed with backend: file; this LUN has backend: ram",
                "luns.d/x.yaml:4: direct-io: only allowed with backend: file; this LUN has backend: ram");
    }

    @Test
    void createOnANullBackendIsRejected() {
        config.lun("x", "backend: null\nsize: 1GiB\ncreate: true\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/x.yaml:3: create: only allowed with backend: file; this LUN has backend: null");
    }

    @Test
    void lunNameFromTheFileNameMustBeValid() {
        config.lun("Data_1", "backend: ram\nsize: 1GiB\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/Data_1.yaml: file name: Data_1 is not a valid LUN name; allowed: 1 to 63 lowercase letters,"
                        + " digits, '-' and '.', starting with a letter or digit"
                        + " (the name becomes part of the derived IQN and NQN)");
    }

    @Test
    void lunNameMayNotStartWithADash() {
        config.lun("-x", "backend: ram\nsize: 1GiB\n");
        assertThat(config.problems()).singleElement().asString()
                .startsWith("luns.d/-x.yaml: file name: -x is not a valid LUN name;");
    }

    @Test
    void lunNameOf63CharactersIsAcceptedAnd64Rejected() throws ConfigException {
        String name63 = "a".repeat(63);
        config.lun(name63, "backend: ram\nsize: 1GiB\n");
        assertThat(config.load().luns()).extracting(LunConfig::name).containsExactly(name63);
        config.lun("b".repeat(64), "backend: ram\nsize: 1GiB\n");
        assertThat(config.problems()).singleElement().asString()
                .startsWith("luns.d/" + "b".repeat(64) + ".yaml: file name: " + "b".repeat(64) + " is not a valid");
    }

    @Test
    void emptyLunFileIsAnError() {
        config.lun("x", "# nothing yet\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml: the file is empty; allowed: a map with at least"
                + " backend: and size:, e.g. backend: ram and size: 1GiB");
    }

    @Test
    void documentMustBeAMapping() {
        config.lun("x", "- backend: ram\n- size: 1GiB\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:1: a list is not a LUN definition; allowed: a map"
                + " with the keys backend, size, logical-block-size, physical-block-size, read-only, export, access,"
                + " path, create, direct-io, atomic, zoned, placement, commands, limits, rotational, removable,"
                + " sanitize-duration, identity, faults, session, paths");
    }

    @Test
    void yamlSyntaxErrorCarriesItsLine() {
        config.lun("x", "backend: ram\nsize: 1GiB\n  logical-block-size: 4KiB\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:3: invalid YAML: mapping values are not allowed here");
    }

    @Test
    void yamlSyntaxErrorWithContext() {
        config.lun("x", "backend: ram\nexport: {iscsi: false\n");
        assertThat(config.problems()).singleElement().asString()
                .startsWith("luns.d/x.yaml:3: invalid YAML: expected ',' or '}', but got <stream end>")
                .endsWith("(while parsing a flow mapping)");
    }

    @Test
    void secondYamlDocumentIsAnError() {
        config.lun("x", "backend: ram\nsize: 1GiB\n---\nbackend: null\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/x.yaml:3: invalid YAML: but found another document (expected a single document in the stream)");
    }

    @Test
    void invalidUtf8IsAnError() {
        config.bytes("luns.d/x.yaml", new byte[] {'b', 'a', 'c', 'k', (byte) 0xC3, (byte) 0x28, '\n'});
        assertThat(config.problems()).containsExactly(
                "luns.d/x.yaml: not valid UTF-8 text; allowed: a UTF-8 encoded YAML file");
    }
}
