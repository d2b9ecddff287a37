package io.blocktarget.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.blocktarget.config.DeviceKnobs.Limit;
import io.blocktarget.config.DeviceKnobs.Session;
import java.nio.file.Files;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The issue 11 knobs that are negotiated per session / controller ({@code session:}) and the NVMe preferred
 * granularities ({@code limits.npwg} ...): each key at its limit and one past it, the cross rules, the per target /
 * subsystem agreement, the round trip.
 */
class SessionKnobsTest extends ConfigDirTest {
    private static final String RAM_4K = "backend: ram\nsize: 1GiB\nlogical-block-size: 4KiB\n";
    private static final String RAM_16K = "backend: ram\nsize: 1GiB\nlogical-block-size: 16KiB\n";

    private DeviceKnobs knobs(String text) throws Exception {
        config.lun("x", text);
        return config.load().luns().getFirst().features().knobs();
    }

    private String problem(String text) {
        config.lun("x", text);
        assertThat(config.problems()).hasSize(1);
        return config.problems().getFirst();
    }

    @Test
    void defaultsAreTodaysValues() {
        assertThat(Session.MDTS.defaultValue()).isEqualTo(1L << 20);
        assertThat(Session.IN_CAPSULE_DATA.defaultValue()).isEqualTo(256L << 10);
        assertThat(Session.IO_QUEUES.defaultValue()).isEqualTo(128);
        assertThat(Session.QUEUE_SIZE.defaultValue()).isEqualTo(1024);
        assertThat(Session.MAX_RECV_DATA_SEGMENT_LENGTH.defaultValue()).isEqualTo(256L << 10);
        assertThat(Session.FIRST_BURST_LENGTH.defaultValue()).isEqualTo(256L << 10);
        assertThat(Session.MAX_BURST_LENGTH.defaultValue()).isEqualTo(1L << 20);
        assertThat(Session.QUEUE_DEPTH.defaultValue()).isEqualTo(128);
        assertThat(DeviceKnobs.DEFAULTS.sessionValue(Session.MDTS)).isEqualTo(1L << 20);
    }

    @Test
    void everySessionKeyIsRead() throws Exception {
        DeviceKnobs k = knobs(RAM_4K + "session:\n  mdts: 512KiB\n  in-capsule-data: 8KiB\n  io-queues: 2\n"
                + "  queue-size: 64\n  max-recv-data-segment-length: 8KiB\n  first-burst-length: 64KiB\n"
                + "  max-burst-length: 128KiB\n  queue-depth: 16\n");
        assertThat(k.session()).containsExactlyInAnyOrderEntriesOf(Map.of(Session.MDTS, 512L << 10,
                Session.IN_CAPSULE_DATA, 8L << 10, Session.IO_QUEUES, 2L, Session.QUEUE_SIZE, 64L,
                Session.MAX_RECV_DATA_SEGMENT_LENGTH, 8L << 10, Session.FIRST_BURST_LENGTH, 64L << 10,
                Session.MAX_BURST_LENGTH, 128L << 10, Session.QUEUE_DEPTH, 16L));
        assertThat(k.isDefault()).isFalse();
    }

    @Test
    void mdtsAtItsLimitsAndBeyond() throws Exception {
        assertThat(knobs(RAM_4K + "session: {mdts: 4KiB}\n").session(Session.MDTS)).contains(4096L);
        assertThat(knobs(RAM_4K + "session: {mdts: 128MiB}\n").session(Session.MDTS)).contains(128L << 20);
        assertThat(problem(RAM_4K + "session: {mdts: 256MiB}\n")).isEqualTo("luns.d/x.yaml:4: session.mdts: 256MiB"
                + " is out of range; allowed: a power of two from 4KiB to 128MiB (MDTS counts 4 KiB pages)");
        assertThat(problem(RAM_4K + "session: {mdts: 2KiB}\n")).contains("session.mdts: 2KiB is out of range");
        assertThat(problem(RAM_4K + "session: {mdts: 12KiB}\n")).contains("session.mdts: 12KiB is out of range");
    }

    @Test
    void mdtsMustHoldOneBlock() throws Exception {
        assertThat(knobs(RAM_16K + "session: {mdts: 16KiB}\n").session(Session.MDTS)).contains(16L << 10);
        assertThat(problem(RAM_16K + "session: {mdts: 8KiB}\n")).isEqualTo("luns.d/x.yaml:4: session.mdts: 8KiB is"
                + " smaller than the logical block size (16 KiB); allowed: a power of two from the logical block size"
                + " to 128 MiB");
    }

    @Test
    void inCapsuleDataIsSixteenByteUnitsUpToMdts() throws Exception {
        assertThat(knobs(RAM_4K + "session: {in-capsule-data: 0}\n").session(Session.IN_CAPSULE_DATA)).contains(0L);
        assertThat(knobs(RAM_4K + "session: {mdts: 64KiB, in-capsule-data: 64KiB}\n")
                .session(Session.IN_CAPSULE_DATA)).contains(64L << 10);
        assertThat(problem(RAM_4K + "session: {mdts: 64KiB, in-capsule-data: 65552}\n")).isEqualTo(
                "luns.d/x.yaml:4: session.in-capsule-data: 65552 is more than mdts (64 KiB); allowed: a multiple of 16"
                        + " bytes up to mdts");
        assertThat(problem(RAM_4K + "session: {in-capsule-data: 8200}\n")).contains(
                "session.in-capsule-data: 8200 is out of range; allowed: a multiple of 16 bytes");
        // the default MDTS (1 MiB) bounds it too
        assertThat(problem(RAM_4K + "session: {in-capsule-data: 1048592}\n")).contains("is more than mdts (1 MiB)");
    }

    @Test
    void queueCountAndSizeAtTheirLimits() throws Exception {
        assertThat(knobs(RAM_4K + "session: {io-queues: 1, queue-size: 2}\n").session())
                .containsEntry(Session.IO_QUEUES, 1L).containsEntry(Session.QUEUE_SIZE, 2L);
        assertThat(knobs(RAM_4K + "session: {io-queues: 128, queue-size: 1024}\n").session())
                .containsEntry(Session.IO_QUEUES, 128L).containsEntry(Session.QUEUE_SIZE, 1024L);
        assertThat(problem(RAM_4K + "session: {io-queues: 129}\n"))
                .isEqualTo("luns.d/x.yaml:4: session.io-queues: 129 is out of range; allowed: 1..128");
        assertThat(problem(RAM_4K + "session: {io-queues: 0}\n")).contains("session.io-queues: 0 is out of range");
        assertThat(problem(RAM_4K + "session: {queue-size: 1025}\n")).isEqualTo("luns.d/x.yaml:4: session.queue-size:"
                + " 1025 is out of range; allowed: 2..1024 entries (CAP.MQES + 1; the smallest queue has 2)");
        assertThat(problem(RAM_4K + "session: {queue-size: 1}\n")).contains("session.queue-size: 1 is out of range");
    }

    @Test
    void iscsiLengthsAtTheirLimits() throws Exception {
        assertThat(knobs(RAM_4K + "session: {max-recv-data-segment-length: 512, first-burst-length: 512,"
                + " max-burst-length: 512}\n").session()).containsEntry(Session.MAX_RECV_DATA_SEGMENT_LENGTH, 512L)
                .containsEntry(Session.FIRST_BURST_LENGTH, 512L).containsEntry(Session.MAX_BURST_LENGTH, 512L);
        assertThat(knobs(RAM_4K + "session: {max-recv-data-segment-length: 16777215, max-burst-length: 16777215}\n")
                .session(Session.MAX_BURST_LENGTH)).contains(16777215L);
        assertThat(problem(RAM_4K + "session: {max-recv-data-segment-length: 16MiB}\n")).isEqualTo("luns.d/x.yaml:4:"
                + " session.max-recv-data-segment-length: 16MiB is out of range; allowed: 512 to 16777215 bytes"
                + " (2^24 - 1, RFC 7143 §13)");
        assertThat(problem(RAM_4K + "session: {first-burst-length: 511}\n"))
                .contains("session.first-burst-length: 511 is out of range");
    }

    @Test
    void firstBurstMayNotExceedMaxBurst() throws Exception {
        assertThat(knobs(RAM_4K + "session: {first-burst-length: 64KiB, max-burst-length: 64KiB}\n")
                .session(Session.FIRST_BURST_LENGTH)).contains(64L << 10);
        assertThat(problem(RAM_4K + "session: {first-burst-length: 65537, max-burst-length: 64KiB}\n")).isEqualTo(
                "luns.d/x.yaml:4: session.first-burst-length: 65537 is more than max-burst-length (65536); allowed:"
                        + " at most max-burst-length (RFC 7143 §13.14)");
        // against the default FirstBurstLength (256 KiB)
        assertThat(problem(RAM_4K + "session: {max-burst-length: 128KiB}\n")).isEqualTo("luns.d/x.yaml:4:"
                + " session.max-burst-length: 128KiB is less than the default first-burst-length (262144); allowed: at"
                + " least first-burst-length, or give first-burst-length too (RFC 7143 §13.14)");
    }

    @Test
    void queueDepthAtItsLimits() throws Exception {
        assertThat(knobs(RAM_4K + "session: {queue-depth: 1}\n").session(Session.QUEUE_DEPTH)).contains(1L);
        assertThat(knobs(RAM_4K + "session: {queue-depth: 65535}\n").session(Session.QUEUE_DEPTH)).contains(65535L);
        assertThat(problem(RAM_4K + "session: {queue-depth: 65536}\n")).isEqualTo("luns.d/x.yaml:4:"
                + " session.queue-depth: 65536 is out of range; allowed: 1..65535 commands (MaxCmdSN - ExpCmdSN + 1)");
        assertThat(problem(RAM_4K + "session: {queue-depth: 0}\n")).contains("session.queue-depth: 0 is out of range");
    }

    @Test
    void unknownSessionKeyIsRefused() {
        assertThat(problem(RAM_4K + "session:\n  max-connections: 2\n")).isEqualTo("luns.d/x.yaml:5:"
                + " session.max-connections: unknown key; allowed keys: mdts, in-capsule-data, io-queues, queue-size,"
                + " max-recv-data-segment-length, first-burst-length, max-burst-length, queue-depth");
    }

    @Test
    void nvmeGranularitiesAreRead() throws Exception {
        DeviceKnobs k = knobs(RAM_4K + "limits: {npwg: 16KiB, npwa: 8KiB, npdg: 64KiB, npda: 32KiB, nows: 128KiB}\n");
        assertThat(k.limits()).containsExactlyInAnyOrderEntriesOf(Map.of(Limit.NPWG, 16L << 10, Limit.NPWA, 8L << 10,
                Limit.NPDG, 64L << 10, Limit.NPDA, 32L << 10, Limit.NOWS, 128L << 10));
    }

    @Test
    void nvmeGranularitiesAtTheirLimits() throws Exception {
        // 65536 blocks of 4 KiB = 256 MiB: the 16-bit 0's based field's largest value
        assertThat(knobs(RAM_4K + "limits: {npwg: 256MiB, npwa: 256MiB, nows: 256MiB}\n").limit(Limit.NPWG))
                .contains(256L << 20);
        assertThat(problem(RAM_4K + "limits: {npda: 268439552}\n")).isEqualTo("luns.d/x.yaml:4: limits.npda:"
                + " 268439552 is out of range; allowed: a multiple of the logical block size up to 65536 blocks (a"
                + " 16-bit 0's based count of blocks)");
        assertThat(problem(RAM_4K + "limits: {npdg: 6KiB}\n")).isEqualTo("luns.d/x.yaml:4: limits.npdg: 6KiB is not a"
                + " multiple of the logical block size (4 KiB); allowed: a multiple of the logical block size up to"
                + " 65536 blocks (a 16-bit 0's based count of blocks)");
        assertThat(problem(RAM_4K + "limits: {npwa: 0}\n")).contains("limits.npwa: 0 is not positive");
    }

    @Test
    void nowsMustBeAMultipleOfNpwg() throws Exception {
        assertThat(knobs(RAM_4K + "limits: {npwg: 16KiB, nows: 48KiB}\n").limit(Limit.NOWS)).contains(48L << 10);
        assertThat(problem(RAM_4K + "limits: {npwg: 16KiB, nows: 40KiB}\n")).isEqualTo("luns.d/x.yaml:4: limits.nows:"
                + " nows (40 KiB) is not a multiple of npwg (16 KiB); allowed: nows a multiple of npwg (NVM Command Set,"
                + " Identify Namespace)");
        // npwg alone against the derived NOWS (optimal-transfer)
        assertThat(problem(RAM_4K + "limits: {optimal-transfer: 48KiB, npwg: 32KiB}\n"))
                .contains("limits.npwg: nows (48 KiB) is not a multiple of npwg (32 KiB)");
    }

    @Test
    void lunsOfOneSubsystemMustAgreeOnNvmeSessionKeys() {
        config.lun("a", RAM_4K + "export: { nvme: { subsystem: 'nqn.2001-04.com.example:s', nsid: 1 } }\n"
                + "session: {mdts: 512KiB}\n");
        config.lun("b", RAM_4K + "export: { nvme: { subsystem: 'nqn.2001-04.com.example:s', nsid: 2 } }\n"
                + "session: {mdts: 256KiB}\n");
        assertThat(config.problems()).containsExactly("luns.d/b.yaml:5: session.mdts: this file has session.mdts:"
                + " 262144 but " + tmp.resolve("luns.d/a.yaml") + ":5 has session.mdts: 524288 for the same NVMe"
                + " subsystem nqn.2001-04.com.example:s; allowed: the same session.mdts in every LUN file exporting"
                + " one subsystem, or none in all of them");
    }

    @Test
    void lunsOfOneTargetMustAgreeOnIscsiSessionKeys() throws Exception {
        config.lun("a", RAM_4K + "export: { iscsi: { target: 'iqn.2001-04.com.example:t', lun: 0 }, nvme: false }\n"
                + "session: {queue-depth: 8}\n");
        config.lun("b", RAM_4K + "export: { iscsi: { target: 'iqn.2001-04.com.example:t', lun: 1 }, nvme: false }\n");
        assertThat(config.problems()).containsExactly("luns.d/b.yaml:4: session.queue-depth: this file has no"
                + " session.queue-depth but " + tmp.resolve("luns.d/a.yaml") + ":5 has session.queue-depth: 8 for the"
                + " same iSCSI target iqn.2001-04.com.example:t; allowed: the same session.queue-depth in every LUN"
                + " file exporting one target, or none in all of them");
    }

    @Test
    void iscsiKeysDoNotBindSubsystemsAndNvmeKeysDoNotBindTargets() throws Exception {
        // same target, different NVMe values (each LUN its own subsystem): fine
        config.lun("a", RAM_4K + "export: { iscsi: { target: 'iqn.2001-04.com.example:t', lun: 0 } }\n"
                + "session: {mdts: 512KiB}\n");
        config.lun("b", RAM_4K + "export: { iscsi: { target: 'iqn.2001-04.com.example:t', lun: 1 } }\n"
                + "session: {mdts: 256KiB}\n");
        assertThat(config.load().luns()).hasSize(2);
    }

    @Test
    void sessionAndGranularitiesRoundTrip() throws Exception {
        config.lun("k", RAM_4K + "session: {mdts: 512KiB, in-capsule-data: 8KiB, io-queues: 2, queue-size: 64,"
                + " max-recv-data-segment-length: 8KiB, first-burst-length: 64KiB, max-burst-length: 100000,"
                + " queue-depth: 16}\nlimits: {npwg: 16KiB, npwa: 8KiB, npdg: 64KiB, npda: 32KiB, nows: 128KiB}\n");
        BlocktargetConfig before = config.load();
        LunConfig lun = before.luns().getFirst();
        LunFiles.prepare(tmp, lun, before.server()).commit();
        String text = Files.readString(tmp.resolve("luns.d/k.yaml"));
        assertThat(text).contains("session:\n  mdts: 512KiB\n  in-capsule-data: 8KiB\n  io-queues: 2\n"
                + "  queue-size: 64\n  max-recv-data-segment-length: 8KiB\n  first-burst-length: 64KiB\n"
                + "  max-burst-length: 100000\n  queue-depth: 16\n")
                .contains("limits:\n  npwg: 16KiB\n  npwa: 8KiB\n  npdg: 64KiB\n  npda: 32KiB\n  nows: 128KiB\n");
        assertThat(config.load().luns()).isEqualTo(before.luns());
    }
}
