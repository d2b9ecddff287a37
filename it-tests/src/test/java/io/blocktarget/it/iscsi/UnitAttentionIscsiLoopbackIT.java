package io.blocktarget.it.iscsi;

import io.blocktarget.protocol.iscsi.Bhs;
import io.blocktarget.protocol.iscsi.TmfFunction;
import io.blocktarget.protocol.iscsi.TmfResponse;
import io.blocktarget.transport.iscsi.IscsiSettings;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;

import static io.blocktarget.it.iscsi.LoopbackTarget.targetName;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Unit attentions per I_T nexus over real iSCSI sessions (SAM-5 §5.14, issue 28 item 3): two sessions of the same
 * initiator name (two ISIDs: two I_T nexuses) and one of another initiator each learn of a LUN reset, a target reset,
 * a mode change and a reservation change made through one of them exactly as often as SAM-5 / SPC-5 say — once, or
 * not at all for the nexus that made the change.
 */
@Tag("loopback")
class UnitAttentionIscsiLoopbackIT {
    private static final String OTHER_INITIATOR = "iqn.2026-11.org.example:other-initiator";
    private static LoopbackTarget server;
    private static long nextIsid = 0x500000000001L;

    @BeforeAll
    static void start() throws Exception {
        server = new LoopbackTarget(IscsiSettings.defaults());
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    /** A logged-in session to the 4 KiB target past its POWER ON unit attention; {@code name} null: the default. */
    private static IscsiTestInitiator session(int lbs, String name) throws Exception {
        IscsiTestInitiator i;
        synchronized (UnitAttentionIscsiLoopbackIT.class) {
            i = IscsiTestInitiator.connect(server.address(), nextIsid++);
        }
        if (name != null) {
            i.as(name);
        }
        i.login(targetName(lbs), null);
        assertThat(tur(i)).containsExactly(0x6, 0x29, 0x00);    // a new I_T nexus: POWER ON, RESET ... OCCURRED
        assertThat(tur(i)).isEmpty();
        return i;
    }

    /** TEST UNIT READY: empty for GOOD, else sense key, ASC, ASCQ. */
    private static int[] tur(IscsiTestInitiator i) throws Exception {
        return sense(i.command(0, new byte[6], 0, null));
    }

    private static int[] sense(IscsiTestInitiator.Result r) {
        if (r.status() == 0) {
            return new int[0];
        }
        assertThat(r.status()).as("CHECK CONDITION").isEqualTo(2);
        byte[] s = r.sense();
        int off = s.length > 2 && (s[2] & 0x7F) >= 0x70 ? 2 : 0;   // the iSCSI sense carries its length first
        int code = s[off] & 0x7F;
        return code == 0x72 ? new int[] {s[off + 1] & 0xF, s[off + 2] & 0xFF, s[off + 3] & 0xFF}
                : new int[] {s[off + 2] & 0xF, s[off + 12] & 0xFF, s[off + 13] & 0xFF};
    }

    /** Exactly one unit attention {@code asc}/{@code ascq} (none when empty), then GOOD. */
    private static void once(IscsiTestInitiator i, int... ascAscq) throws Exception {
        if (ascAscq.length > 0) {
            assertThat(tur(i)).containsExactly(0x6, ascAscq[0], ascAscq[1]);
        }
        assertThat(tur(i)).isEmpty();
    }

    private static byte[] prOut(int serviceAction, int type, long key, long serviceActionKey) {
        return ByteBuffer.allocate(24).putLong(key).putLong(serviceActionKey).array();
    }

    private static byte[] prOutCdb(int serviceAction, int type) {
        return new byte[] {0x5F, (byte) serviceAction, (byte) type, 0, 0, 0, 0, 0, 24, 0};
    }

    private static void out(IscsiTestInitiator i, int serviceAction, int type, long key, long serviceActionKey)
            throws Exception {
        assertThat(i.command(0, prOutCdb(serviceAction, type), 0, prOut(serviceAction, type, key, serviceActionKey))
                .status()).isZero();
    }

    @Test
    void resetsReachEveryNexusOnceTheRequesterToo() throws Exception {
        try (IscsiTestInitiator a1 = session(4096, null); IscsiTestInitiator a2 = session(4096, null);
             IscsiTestInitiator b = session(4096, OTHER_INITIATOR)) {
            assertThat(a1.taskManagement(TmfFunction.LOGICAL_UNIT_RESET, 0, Bhs.RESERVED_TAG, 0))
                    .isEqualTo(TmfResponse.FUNCTION_COMPLETE);
            for (IscsiTestInitiator i : List.of(a1, a2, b)) {
                once(i, 0x29, 0x03);                        // BUS DEVICE RESET FUNCTION OCCURRED
            }
            assertThat(b.taskManagement(TmfFunction.TARGET_WARM_RESET, 0, Bhs.RESERVED_TAG, 0))
                    .isEqualTo(TmfResponse.FUNCTION_COMPLETE);
            for (IscsiTestInitiator i : List.of(a1, a2, b)) {
                once(i, 0x29, 0x00);                        // POWER ON, RESET, OR BUS DEVICE RESET OCCURRED
            }
            for (IscsiTestInitiator i : List.of(a1, a2, b)) {
                i.logout();
            }
        }
    }

    @Test
    void aChangeMadeThroughOneSessionReachesTheSameInitiatorsOtherSessionOnce() throws Exception {
        try (IscsiTestInitiator a1 = session(8192, null); IscsiTestInitiator a2 = session(8192, null);
             IscsiTestInitiator b = session(8192, OTHER_INITIATOR)) {
            // MODE SELECT(6): the Control mode page with D_SENSE changed (SPC-5 §6.9: others get MODE PARAMETERS CHANGED)
            byte[] list = {0, 0, 0, 0, 0x0A, 0x0A, 0x06, 0x10, 0, 0, 0, 0, 0, 0, 0, 0};
            assertThat(a1.command(0, new byte[] {0x15, 0x10, 0, 0, (byte) list.length, 0}, 0, list).status()).isZero();
            once(a1);
            once(a2, 0x2A, 0x01);
            once(b, 0x2A, 0x01);
            // reservations (SPC-5 §5.14.11): a2 holds Write Exclusive – Registrants Only; its release tells the other
            // registrants, b's preemption of a1's key tells a1 — not a2, the same initiator's other nexus
            out(a1, 0, 0, 0, 0xA1);                       // REGISTER
            out(a2, 0, 0, 0, 0xA2);
            out(b, 0, 0, 0, 0xB0);
            out(a2, 1, 5, 0xA2, 0);                       // RESERVE, WE_RO
            out(a2, 2, 5, 0xA2, 0);                       // RELEASE
            once(a1, 0x2A, 0x04);                         // RESERVATIONS RELEASED
            once(b, 0x2A, 0x04);
            once(a2);
            out(b, 4, 1, 0xB0, 0xA1);                     // PREEMPT a1's registration
            once(a1, 0x2A, 0x05);                         // REGISTRATIONS PREEMPTED
            once(a2);
            once(b);
            out(b, 3, 0, 0xB0, 0);                        // CLEAR: a2 is told its registration is gone
            once(a2, 0x2A, 0x03);                         // RESERVATIONS PREEMPTED
            once(a1);
            for (IscsiTestInitiator i : List.of(a1, a2, b)) {
                i.logout();
            }
        }
    }
}
