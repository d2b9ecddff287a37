package io.blocktarget.block;

import io.blocktarget.block.Reservations.Access;
import io.blocktarget.block.Reservations.Outcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The protocol-neutral reservation state: the access table for every type, mixed SCSI / NVMe registrants. */
class ReservationsTest {
    static final Registrant HOLDER = new Registrant.InitiatorPort("iqn.2026-11.test:a,i,0x23d000000001", "t,t,0x1", 1);
    static final Registrant REGISTRANT = new Registrant.Host(new UUID(1, 2));
    static final Registrant STRANGER = new Registrant.InitiatorPort("iqn.2026-11.test:c,i,0x23d000000003", "t,t,0x1", 1);

    private final Reservations r = new Reservations();

    /**
     * SPC-5 §5.14.1 / SBC-4 §4.17 tables, the NVMe Base §8.1.22 figure: {read, write} allowed for
     * {holder, registrant, non-registrant}.
     */
    static boolean[][] table(ReservationType type) {
        return switch (type) {
            case WRITE_EXCLUSIVE -> new boolean[][] {{true, true}, {true, false}, {true, false}};
            case EXCLUSIVE_ACCESS -> new boolean[][] {{true, true}, {false, false}, {false, false}};
            case WRITE_EXCLUSIVE_REGISTRANTS_ONLY, WRITE_EXCLUSIVE_ALL_REGISTRANTS ->
                    new boolean[][] {{true, true}, {true, true}, {true, false}};
            case EXCLUSIVE_ACCESS_REGISTRANTS_ONLY, EXCLUSIVE_ACCESS_ALL_REGISTRANTS ->
                    new boolean[][] {{true, true}, {true, true}, {false, false}};
        };
    }

    @ParameterizedTest
    @EnumSource(ReservationType.class)
    void accessTable(ReservationType type) {
        assertThat(r.register(HOLDER, 0, 0xA, false)).isEqualTo(Outcome.OK);
        assertThat(r.registerNew(REGISTRANT, 0xB)).isEqualTo(Outcome.OK);
        assertThat(r.reserve(HOLDER, 0xA, type)).isEqualTo(Outcome.OK);
        Registrant[] who = {HOLDER, REGISTRANT, STRANGER};
        boolean[][] allowed = table(type);
        for (int i = 0; i < who.length; i++) {
            assertThat(r.conflicts(who[i], Access.READ)).as(type + " read by " + who[i]).isEqualTo(!allowed[i][0]);
            assertThat(r.conflicts(who[i], Access.WRITE)).as(type + " write by " + who[i]).isEqualTo(!allowed[i][1]);
        }
        assertThat(r.snapshot().registrations()).extracting(Reservations.Registration::holder)
                .containsExactly(true, type.allRegistrants());
    }

    @Test
    void quietUntilSomethingIsRegisteredOrReserved() {
        assertThat(r.quiet()).isTrue();
        assertThat(r.conflicts(STRANGER, Access.WRITE)).isFalse();
        r.registerNew(REGISTRANT, 5);
        assertThat(r.quiet()).isFalse();
        r.unregister(REGISTRANT, 5, false);
        assertThat(r.quiet()).isTrue();
        r.reserve6(HOLDER);
        assertThat(r.quiet()).isFalse();
        assertThat(r.conflicts(REGISTRANT, Access.READ)).isTrue();     // RESERVE(6) keeps NVMe hosts out too
        assertThat(r.conflicts(HOLDER, Access.WRITE)).isFalse();
        r.resetReserve6();
        assertThat(r.quiet()).isTrue();
    }

    @Test
    void nvmeRegisterUnregisterReplaceRules() {
        assertThat(r.registerNew(REGISTRANT, 7)).isEqualTo(Outcome.OK);
        assertThat(r.registerNew(REGISTRANT, 7)).isEqualTo(Outcome.OK);         // same key again
        assertThat(r.registerNew(REGISTRANT, 8)).isEqualTo(Outcome.CONFLICT);
        assertThat(r.replace(REGISTRANT, 6, 9, false)).isEqualTo(Outcome.CONFLICT);
        assertThat(r.replace(REGISTRANT, 6, 9, true)).isEqualTo(Outcome.OK);
        assertThat(r.key(REGISTRANT)).contains(9L);
        assertThat(r.unregister(REGISTRANT, 7, false)).isEqualTo(Outcome.CONFLICT);
        assertThat(r.unregister(REGISTRANT, 9, false)).isEqualTo(Outcome.OK);
        assertThat(r.unregister(REGISTRANT, 9, true)).isEqualTo(Outcome.CONFLICT);  // not registered
        assertThat(r.replace(REGISTRANT, 0, 3, false)).isEqualTo(Outcome.CONFLICT);
        assertThat(r.replace(REGISTRANT, 0, 3, true)).isEqualTo(Outcome.OK);
        assertThat(r.snapshot().generation()).isEqualTo(4);   // the no-op register did not count
    }

    @Test
    void noticesReachListenersForBothKindsOfRegistrant() {
        List<String> notices = new ArrayList<>();
        r.addListener((to, n) -> notices.add(to.persistentForm() + " " + n));
        r.register(HOLDER, 0, 0xA, false);
        r.registerNew(REGISTRANT, 0xB);
        r.reserve(HOLDER, 0xA, ReservationType.WRITE_EXCLUSIVE_REGISTRANTS_ONLY);
        r.release(HOLDER, 0xA, ReservationType.WRITE_EXCLUSIVE_REGISTRANTS_ONLY);
        assertThat(notices).containsExactly(REGISTRANT.persistentForm() + " RESERVATION_RELEASED");
        r.reserve(REGISTRANT, 0xB, ReservationType.WRITE_EXCLUSIVE);
        assertThat(r.preempt(HOLDER, 0xA, 0xB, ReservationType.EXCLUSIVE_ACCESS).outcome()).isEqualTo(Outcome.OK);
        assertThat(notices).last().isEqualTo(REGISTRANT.persistentForm() + " REGISTRATION_PREEMPTED");
        assertThat(r.snapshot().holder()).contains(new Reservations.Holder(HOLDER, ReservationType.EXCLUSIVE_ACCESS));
    }

    @Test
    void registrantsRoundTripTheirPersistentForm() {
        assertThat(Registrant.parse(HOLDER.persistentForm())).isEqualTo(HOLDER);
        assertThat(Registrant.parse(REGISTRANT.persistentForm())).isEqualTo(REGISTRANT);
        byte[] id = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
        assertThat(Registrant.Host.of(id).bytes()).isEqualTo(id);
        assertThat(Registrant.Host.of(id).hostId()).isEqualTo(UUID.fromString("01020304-0506-0708-090a-0b0c0d0e0f10"));
    }
}
