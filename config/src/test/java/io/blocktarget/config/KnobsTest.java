package io.blocktarget.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.blocktarget.config.DeviceKnobs.Command;
import io.blocktarget.config.DeviceKnobs.Identity;
import io.blocktarget.config.DeviceKnobs.Limit;
import java.nio.file.Files;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The knobs of a LUN file (commands:, limits:, rotational:, identity:): each key, each rule, the round trip. */
class KnobsTest extends ConfigDirTest {
    private static final String RAM = "backend: ram\nsize: 1GiB\n";
    private static final String RAM_4K = "backend: ram\nsize: 1GiB\nlogical-block-size: 4KiB\n";

    private DeviceKnobs knobs(String text) throws Exception {
        config.lun("x", text);
        return config.load().luns().getFirst().features().knobs();
    }

    @Test
    void absentKnobsAreTheDefaults() throws Exception {
        assertThat(knobs(RAM)).isEqualTo(DeviceKnobs.DEFAULTS);
        assertThat(DeviceKnobs.DEFAULTS.isDefault()).isTrue();
    }

    @Test
    void everyCommandSwitchIsRead() throws Exception {
        DeviceKnobs k = knobs(RAM + "commands: {write-same: true, unmap: false, write-zeroes: false,"
                + " compare-and-write: false, compare: false, verify: false, get-lba-status: false, copy: false,"
                + " fua: false, write-cache: true}\n");
        assertThat(k.commands()).containsExactlyInAnyOrderEntriesOf(Map.of(Command.WRITE_SAME, true,
                Command.UNMAP, false, Command.WRITE_ZEROES, false, Command.COMPARE_AND_WRITE, false,
                Command.COMPARE, false, Command.VERIFY, false, Command.GET_LBA_STATUS, false, Command.COPY, false,
                Command.FUA, false, Command.WRITE_CACHE, true));
        assertThat(k.command(Command.WRITE_SAME)).contains(true);
    }

    @Test
    void writeSameCanBeSwitchedOnAt16KiB() throws Exception {
        DeviceKnobs k = knobs("backend: ram\nsize: 1GiB\nlogical-block-size: 16KiB\ncommands: {write-same: true}\n"
                + "limits: {max-write-same: 1MiB}\n");
        assertThat(k.command(Command.WRITE_SAME)).contains(true);
        assertThat(k.limit(Limit.MAX_WRITE_SAME)).contains(1L << 20);
    }

    @Test
    void unknownCommandIsRefused() {
        config.lun("x", RAM + "commands:\n  write-same: true\n  format: false\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:5: commands.format: unknown key; allowed keys:"
                + " write-same, unmap, write-zeroes, compare-and-write, compare, verify, get-lba-status, copy, fua,"
                + " write-cache, set-target-port-groups");
    }

    @Test
    void commandSwitchMustBeABoolean() {
        config.lun("x", RAM + "commands:\n  unmap: yes\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/x.yaml:4: commands.unmap: yes is not a boolean; allowed: true or false");
    }

    @Test
    void commandsMustBeAMap() {
        config.lun("x", RAM + "commands: [unmap]\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:3: commands: a list is not a map of command:"
                + " true or false; allowed: a map with the keys write-same, unmap, write-zeroes, compare-and-write,"
                + " compare, verify, get-lba-status, copy, fua, write-cache,"
                + " set-target-port-groups");
    }

    @Test
    void everyLimitIsRead() throws Exception {
        DeviceKnobs k = knobs(RAM_4K + "limits:\n  max-transfer: 1MiB\n  optimal-transfer: 256KiB\n"
                + "  optimal-transfer-granularity: 64KiB\n  max-unmap: 64MiB\n  max-unmap-descriptors: 4095\n"
                + "  unmap-granularity: 64KiB\n  unmap-alignment: 16KiB\n  max-write-same: 32MiB\n");
        assertThat(k.limits()).containsExactlyInAnyOrderEntriesOf(Map.of(Limit.MAX_TRANSFER, 1L << 20,
                Limit.OPTIMAL_TRANSFER, 256L << 10, Limit.OPTIMAL_TRANSFER_GRANULARITY, 64L << 10,
                Limit.MAX_UNMAP, 64L << 20, Limit.MAX_UNMAP_DESCRIPTORS, 4095L, Limit.UNMAP_GRANULARITY, 64L << 10,
                Limit.UNMAP_ALIGNMENT, 16L << 10, Limit.MAX_WRITE_SAME, 32L << 20));
    }

    @Test
    void maxTransferAt8MiBIsAllowedAndAboveIsNot() throws Exception {
        assertThat(knobs(RAM_4K + "limits: {max-transfer: 8MiB}\n").limit(Limit.MAX_TRANSFER)).contains(8L << 20);
        config.lun("x", RAM_4K + "limits: {max-transfer: 8196KiB}\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:4: limits.max-transfer: 8196KiB is out of range;"
                + " allowed: a multiple of the logical block size up to 8 MiB");
    }

    @Test
    void limitMustBeAMultipleOfTheLogicalBlockSize() {
        config.lun("x", RAM_4K + "limits:\n  optimal-transfer-granularity: 6KiB\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:5: limits.optimal-transfer-granularity: 6KiB is"
                + " not a multiple of the logical block size (4 KiB); allowed: a multiple of the logical block size"
                + " up to 65535 blocks");
    }

    @Test
    void zeroLimitIsNotPositive() {
        config.lun("x", RAM_4K + "limits: {max-unmap: 0}\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:4: limits.max-unmap: 0 is not positive;"
                + " allowed: a multiple of the logical block size up to 4294967294 blocks (absent: no limit)");
    }

    @Test
    void limitMustBeASize() {
        config.lun("x", RAM_4K + "limits: {max-transfer: lots}\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:4: limits.max-transfer: lots is not a size; "
                + SIZE_ALLOWED);
    }

    @Test
    void unmapDescriptorsAtTheLimitAndAbove() throws Exception {
        assertThat(knobs(RAM + "limits: {max-unmap-descriptors: 4095}\n").limit(Limit.MAX_UNMAP_DESCRIPTORS))
                .contains(4095L);
        config.lun("x", RAM + "limits: {max-unmap-descriptors: 4096}\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/x.yaml:3: limits.max-unmap-descriptors: 4096 is out of range; allowed: 1..4095");
    }

    @Test
    void optimalAboveMaxTransferIsRefused() {
        config.lun("x", RAM_4K + "limits:\n  max-transfer: 1MiB\n  optimal-transfer: 2MiB\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:6: limits.optimal-transfer: 2MiB is more than"
                + " max-transfer (1 MiB); allowed: at most max-transfer");
    }

    @Test
    void optimalEqualToMaxTransferIsAllowed() throws Exception {
        assertThat(knobs(RAM_4K + "limits: {max-transfer: 1MiB, optimal-transfer: 1MiB}\n").limits()).hasSize(2);
    }

    @Test
    void optimalMustBeAMultipleOfTheGranularity() {
        config.lun("x", RAM_4K + "limits:\n  optimal-transfer: 96KiB\n  optimal-transfer-granularity: 64KiB\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:5: limits.optimal-transfer: 96KiB is not a"
                + " multiple of optimal-transfer-granularity (64 KiB); allowed: a multiple of it");
    }

    @Test
    void unmapAlignmentMustBeSmallerThanTheGranularity() {
        config.lun("x", RAM_4K + "limits: {unmap-granularity: 64KiB, unmap-alignment: 64KiB}\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:4: limits.unmap-alignment: 64KiB is not smaller"
                + " than unmap-granularity (64 KiB); allowed: a multiple of the logical block size smaller than"
                + " unmap-granularity");
    }

    @Test
    void unmapLimitsNeedUnmap() {
        config.lun("x", RAM_4K + "commands: {unmap: false}\nlimits: {max-unmap: 1MiB}\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:5: limits.max-unmap: given with commands.unmap:"
                + " false; allowed: only while UNMAP is on");
    }

    @Test
    void maxWriteSameNeedsWriteSameAbove4KiB() {
        config.lun("x", "backend: ram\nsize: 1GiB\nlogical-block-size: 16KiB\nlimits: {max-write-same: 1MiB}\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:4: limits.max-write-same: given with WRITE SAME"
                + " off (the default above 4 KiB logical blocks); allowed: only while WRITE SAME is on"
                + " (commands: {write-same: true})");
    }

    @Test
    void maxWriteSameNeedsWriteSameWhenSwitchedOff() {
        config.lun("x", RAM + "commands: {write-same: false}\nlimits: {max-write-same: 1MiB}\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:4: limits.max-write-same: given with"
                + " commands.write-same: false; allowed: only while WRITE SAME is on (commands: {write-same: true})");
    }

    @Test
    void rotationalIsABoolean() throws Exception {
        assertThat(knobs(RAM + "rotational: true\n").rotational()).contains(true);
        config.lun("x", RAM + "rotational: 7200\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/x.yaml:3: rotational: 7200 is not a boolean; allowed: true or false");
    }

    /** {@code removable:} (issue 28: the key exactly, default false) and {@code sanitize-duration:}. */
    @Test
    void removableIsABoolean() throws Exception {
        assertThat(knobs(RAM).removable()).isEmpty();
        assertThat(knobs(RAM + "removable: true\n").removable()).contains(true);
        assertThat(knobs(RAM + "removable: false\n").removable()).contains(false);
        config.lun("x", RAM + "removable: yes please\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/x.yaml:3: removable: yes please is not a boolean; allowed: true or false");
    }

    @Test
    void sanitizeDurationIsADurationOfAtMostAnHour() throws Exception {
        assertThat(knobs(RAM).sanitizeDurationNanos()).isEmpty();
        assertThat(knobs(RAM + "sanitize-duration: 2s\n").sanitizeDurationNanos()).contains(2_000_000_000L);
        assertThat(knobs(RAM + "sanitize-duration: 1500ms\n").sanitizeDurationNanos()).contains(1_500_000_000L);
        assertThat(knobs(RAM + "sanitize-duration: 0s\n").sanitizeDurationNanos()).contains(0L);
        assertThat(knobs(RAM + "sanitize-duration: 3600s\n").sanitizeDurationNanos()).contains(3_600_000_000_000L);
        config.lun("x", RAM + "sanitize-duration: 3601s\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:3: sanitize-duration: 3601s is out of range;"
                + " allowed: a duration: a number with ns, us, ms or s, e.g. 10ms (at most 1 hour)");
        config.lun("x", RAM + "sanitize-duration: 10\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:3: sanitize-duration: 10 has no unit;"
                + " allowed: a duration: a number with ns, us, ms or s, e.g. 10ms (at most 1 hour)");
    }

    @Test
    void removableAndSanitizeDurationRoundTrip() throws Exception {
        config.lun("m", RAM + "removable: true\nsanitize-duration: 1500ms\n");
        BlocktargetConfig before = config.load();
        LunFiles.prepare(tmp, before.luns().getFirst(), before.server()).commit();
        assertThat(Files.readString(tmp.resolve("luns.d/m.yaml"))).contains("removable: true\n")
                .contains("sanitize-duration: 1500ms\n");
        assertThat(config.load().luns()).isEqualTo(before.luns());
    }

    @Test
    void identityIsRead() throws Exception {
        DeviceKnobs k = knobs(RAM + "identity:\n  vendor: ACME\n  product: Roadrunner 9000\n  revision: '2.1'\n"
                + "  serial: SN-0001\n  naa: 6001405ABCDEF0123456789ABCDEF012\n"
                + "  nguid: 0123456789abcdef0123456789abcdef\n  eui64: 0123456789ABCDEF\n");
        assertThat(k.identity()).containsExactlyInAnyOrderEntriesOf(Map.of(Identity.VENDOR, "ACME",
                Identity.PRODUCT, "Roadrunner 9000", Identity.REVISION, "2.1", Identity.SERIAL, "SN-0001",
                Identity.NAA, "6001405abcdef0123456789abcdef012", Identity.NGUID, "0123456789abcdef0123456789abcdef",
                Identity.EUI64, "0123456789abcdef"));
    }

    @Test
    void vendorAtEightCharactersAndNine() throws Exception {
        assertThat(knobs(RAM + "identity: {vendor: ABCDEFGH}\n").identity(Identity.VENDOR)).contains("ABCDEFGH");
        config.lun("x", RAM + "identity: {vendor: ABCDEFGHI}\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:3: identity.vendor: ABCDEFGHI has 9 characters;"
                + " allowed: 1 to 8 printable ASCII characters, no leading or trailing space (the SCSI T10 vendor"
                + " identification)");
    }

    @Test
    void serialMustBePrintableAscii() {
        config.lun("x", RAM + "identity: {serial: \"s\\u00e9rie\"}\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:3: identity.serial: s\u00e9rie has a character"
                + " that is not printable ASCII; allowed: 1 to 20 printable ASCII characters, no leading or trailing"
                + " space (the NVMe serial number field (also the SCSI unit serial number))");
    }

    @Test
    void naaMustBeNaa6() {
        config.lun("x", RAM + "identity: {naa: 5001405abcdef0123456789abcdef012}\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:3: identity.naa: 5001405abcdef0123456789abcdef012"
                + " does not start with 6 (NAA 6h); allowed: 32 hex digits starting with 6 (an NAA 6h registered"
                + " extended designator)");
    }

    @Test
    void eui64MustBe16HexDigitsNotZero() {
        config.lun("x", RAM + "identity: {eui64: 0123}\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:3: identity.eui64: 0123 is not 16 hex digits;"
                + " allowed: 16 hex digits, not all zero");
        config.lun("x", RAM + "identity: {nguid: '00000000000000000000000000000000'}\n");
        assertThat(config.problems()).containsExactly("luns.d/x.yaml:3: identity.nguid: 00000000000000000000000000000000"
                + " is all zero (means: no identifier); allowed: 32 hex digits, not all zero");
    }

    @Test
    void lunsOfOneSubsystemMustAgreeOnControllerFields() {
        config.lun("a", RAM + "export: { nvme: { subsystem: 'nqn.2001-04.com.example:s', nsid: 1 } }\n"
                + "identity: {serial: ONE}\n");
        config.lun("b", RAM + "export: { nvme: { subsystem: 'nqn.2001-04.com.example:s', nsid: 2 } }\n"
                + "commands:\n  compare: false\n");
        assertThat(config.problems()).containsExactly(
                "luns.d/b.yaml:3: identity.serial: this file has no identity.serial but " + tmp.resolve("luns.d/a.yaml")
                        + ":4 has identity.serial: ONE for the same NVMe subsystem nqn.2001-04.com.example:s; allowed: the"
                        + " same identity.serial in every LUN file exporting one subsystem, or none in all of them",
                "luns.d/b.yaml:5: commands.compare: this file has commands.compare: false but " + tmp.resolve("luns.d/a.yaml") + ":3 has"
                        + " no commands.compare for the same NVMe subsystem nqn.2001-04.com.example:s; allowed: the"
                        + " same commands.compare in every LUN file exporting one subsystem, or none in all of them");
    }

    @Test
    void lunsOfOneSubsystemMayShareControllerFields() throws Exception {
        config.lun("a", RAM + "export: { nvme: { subsystem: 'nqn.2001-04.com.example:s', nsid: 1 } }\n"
                + "identity: {serial: ONE, vendor: A}\n");
        config.lun("b", RAM + "export: { nvme: { subsystem: 'nqn.2001-04.com.example:s', nsid: 2 } }\n"
                + "identity: {serial: ONE, vendor: B}\n");
        assertThat(config.load().luns()).hasSize(2);
    }

    @Test
    void knobsRoundTrip() throws Exception {
        config.lun("k", RAM_4K + "commands: {write-same: true, fua: false, write-cache: true}\n"
                + "limits: {max-transfer: 1MiB, max-unmap-descriptors: 16, unmap-alignment: 0, max-write-same: 12KiB}\n"
                + "rotational: true\nidentity: {vendor: ACME, revision: '1.0', naa: 6001405abcdef0123456789abcdef012,"
                + " serial: '0042'}\n");
        BlocktargetConfig before = config.load();
        LunConfig lun = before.luns().getFirst();
        LunFiles.prepare(tmp, lun, before.server()).commit();
        String text = Files.readString(tmp.resolve("luns.d/k.yaml"));
        assertThat(text).contains("commands:\n  write-same: true\n  fua: false\n  write-cache: true\n")
                .contains("limits:\n  max-transfer: 1MiB\n  max-unmap-descriptors: 16\n  unmap-alignment: 0\n"
                        + "  max-write-same: 12KiB\n").contains("rotational: true\n");
        assertThat(config.load().luns()).isEqualTo(before.luns());
        assertThat(lun.features().knobs().identity(Identity.SERIAL)).isEqualTo(Optional.of("0042"));
    }
}
