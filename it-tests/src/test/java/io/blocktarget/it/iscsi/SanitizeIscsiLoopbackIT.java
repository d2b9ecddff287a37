package io.blocktarget.it.iscsi;

import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.block.ram.MemoryBudget;
import io.blocktarget.block.ram.RamBlockDevice;
import io.blocktarget.config.DeviceKnobs;
import io.blocktarget.config.LunFeatures;
import io.blocktarget.protocol.iscsi.Bhs;
import io.blocktarget.protocol.iscsi.TmfFunction;
import io.blocktarget.protocol.iscsi.TmfResponse;
import io.blocktarget.scsi.LogicalUnitSpec;
import io.blocktarget.transport.iscsi.IscsiSettings;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SANITIZE over the iSCSI transport (SBC-4 §4.11, issue 28 item 1) on a LUN with {@code sanitize-duration: 60s}: the
 * session that started it is dropped and comes back (same initiator name and ISID), the LUN is reset, a second
 * session asks — each time the unit is NOT READY, SANITIZE IN PROGRESS with a progress indication, after the unit
 * attention each nexus is owed. The operation outlives all of it; the test does not wait the minute for its end (the
 * unit tests do, on a manual clock).
 */
@Tag("loopback")
class SanitizeIscsiLoopbackIT {
    private static final String TARGET = "iqn.2026-11.io.blocktarget:sanitize-60s";
    private static final long ISID = 0x700000000001L;
    private static LoopbackTarget server;

    @BeforeAll
    static void start() throws Exception {
        RamBlockDevice device = new RamBlockDevice("sanitize-60s", new BlockGeometry(4096, 16384, 4096), false,
                new MemoryBudget(64L << 20));
        server = new LoopbackTarget(IscsiSettings.defaults(), List.of(new LogicalUnitSpec(TARGET, 0, "sanitize-60s",
                device, new LunState("sanitize-60s"), LunFeatures.NONE.withKnobs(DeviceKnobs.DEFAULTS
                        .withSanitizeDurationNanos(Optional.of(60_000_000_000L))))));
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    private static IscsiTestInitiator session(long isid) throws Exception {
        IscsiTestInitiator i = IscsiTestInitiator.connect(server.address(), isid);
        i.login(TARGET, null);
        return i;
    }

    /** Sense key, ASC, ASCQ and the SENSE KEY SPECIFIC bytes (SKSV and progress) of a fixed-format sense; GOOD: empty. */
    private static int[] sense(IscsiTestInitiator.Result r) {
        if (r.status() == 0) {
            return new int[0];
        }
        byte[] s = r.sense();
        int off = s.length > 2 && (s[2] & 0x7F) >= 0x70 ? 2 : 0;
        return new int[] {s[off + 2] & 0xF, s[off + 12] & 0xFF, s[off + 13] & 0xFF, s[off + 15] & 0x80};
    }

    private static int[] tur(IscsiTestInitiator i) throws Exception {
        return sense(i.command(0, new byte[6], 0, null));
    }

    /** NOT READY, SANITIZE IN PROGRESS with SKSV (a progress indication), after at most one unit attention. */
    private static void sanitizing(IscsiTestInitiator i, int... unitAttention) throws Exception {
        if (unitAttention.length > 0) {
            assertThat(tur(i)).containsExactly(0x6, unitAttention[0], unitAttention[1], 0);
        }
        assertThat(tur(i)).containsExactly(0x2, 0x04, 0x1B, 0x80);
    }

    @Test
    void theOperationOutlivesItsSessionAndAResetAndEveryNexusIsToldItIsNotReady() throws Exception {
        IscsiTestInitiator first = session(ISID);
        first.clearUnitAttention();
        // SANITIZE BLOCK ERASE with IMMED: GOOD at once, the operation runs for a minute
        assertThat(first.command(0, new byte[] {0x48, (byte) 0x82, 0, 0, 0, 0, 0, 0, 0, 0}, 0, null).status()).isZero();
        sanitizing(first);
        assertThat(sense(first.command(0, new byte[] {0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0}, 4096, null)))
                .containsExactly(0x2, 0x04, 0x1B, 0x80);                           // READ(10)
        assertThat(first.command(0, new byte[] {0x12, 0, 0, 0, 96, 0}, 96, null).status()).isZero(); // INQUIRY runs
        first.logout();
        first.close();
        // the same initiator name and ISID again: the nexus was lost, the operation was not
        try (IscsiTestInitiator again = session(ISID); IscsiTestInitiator other = session(ISID + 1)) {
            int[] ua = tur(again);
            if (ua.length == 4 && ua[0] == 0x6) {
                assertThat(ua).containsExactly(0x6, 0x29, 0x07, 0);               // I_T NEXUS LOSS OCCURRED
                sanitizing(again);
            } else {
                // the server had not yet processed the old connection's close when this command arrived
                assertThat(ua).containsExactly(0x2, 0x04, 0x1B, 0x80);
            }
            sanitizing(other, 0x29, 0x00);                                         // a new nexus: POWER ON first
            assertThat(other.taskManagement(TmfFunction.LOGICAL_UNIT_RESET, 0, Bhs.RESERVED_TAG, 0))
                    .isEqualTo(TmfResponse.FUNCTION_COMPLETE);
            sanitizing(other, 0x29, 0x03);
            // the reset's unit attention, unless a late nexus loss condition was queued first and replaced by it
            int[] next = tur(again);
            assertThat(next[0]).isIn(0x6, 0x2);
            if (next[0] == 0x6) {
                assertThat(next[1]).isEqualTo(0x29);
                sanitizing(again);
            }
            again.logout();
            other.logout();
        }
    }
}
