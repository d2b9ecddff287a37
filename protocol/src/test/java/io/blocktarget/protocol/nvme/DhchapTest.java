package io.blocktarget.protocol.nvme;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * DH-HMAC-CHAP message layouts, byte-exact against NVMe Base 2.2 §8.3.4.5 figures and Linux include/linux/nvme.h
 * ({@code struct nvmf_auth_dhchap_negotiate_data}: 8-byte header then 64-byte descriptors with hash IDs at idlist[0]
 * and DH group IDs at idlist[30]; challenge / reply / success1 16-byte headers; failure 8 bytes).
 */
class DhchapTest {
    @Test
    void negotiateAsLinuxSendsIt() throws Dhchap.Invalid {
        // Linux host: T_ID, SC_C 0, NAPD 1, AUTHID 1, HALEN 3 (SHA-256/384/512), DHLEN 6 (null, ffdhe2048..8192).
        byte[] m = new Dhchap.Negotiate(0x0102, 0, List.of(1, 2, 3), List.of(0, 1, 2, 3, 4, 5)).encode();
        assertThat(m).hasSize(72);
        assertThat(Arrays.copyOf(m, 15)).containsExactly(0x00, 0x00, 0, 0, 0x02, 0x01, 0x00, 0x01, 0x01, 0x00, 0x03,
                0x06, 1, 2, 3);
        assertThat(Arrays.copyOfRange(m, 42, 48)).containsExactly(0, 1, 2, 3, 4, 5);
        assertThat(Dhchap.Negotiate.parse(m)).isEqualTo(new Dhchap.Negotiate(0x0102, 0, List.of(1, 2, 3),
                List.of(0, 1, 2, 3, 4, 5)));
    }

    @Test
    void negotiateProblems() {
        assertThatThrownBy(() -> Dhchap.Negotiate.parse(new byte[71])).isInstanceOfSatisfying(Dhchap.Invalid.class,
                e -> assertThat(e.failure()).isEqualTo(Dhchap.Failure.INCORRECT_PAYLOAD));
        byte[] noDhchap = new Dhchap.Negotiate(1, 0, List.of(1), List.of(0)).encode();
        noDhchap[8] = 2;
        assertThatThrownBy(() -> Dhchap.Negotiate.parse(noDhchap)).isInstanceOfSatisfying(Dhchap.Invalid.class,
                e -> assertThat(e.failure()).isEqualTo(Dhchap.Failure.NOT_USABLE));
        byte[] tooMany = new Dhchap.Negotiate(1, 0, List.of(1), List.of(0)).encode();
        tooMany[10] = 31;
        assertThatThrownBy(() -> Dhchap.Negotiate.parse(tooMany)).isInstanceOfSatisfying(Dhchap.Invalid.class,
                e -> assertThat(e.failure()).isEqualTo(Dhchap.Failure.INCORRECT_PAYLOAD));
    }

    @Test
    void challengeHeader() {
        byte[] c1 = new byte[32];
        Arrays.fill(c1, (byte) 0xC1);
        byte[] m = new Dhchap.Challenge(0x0A0B, 1, 0x01020304, 1, c1, new byte[256]).encode();
        assertThat(m).hasSize(16 + 32 + 256);
        // type 01h, id 01h, rsvd, T_ID, HL 32, rsvd, HASHID 1, DHGID 1, DHVLEN 256 LE, SEQNUM LE.
        assertThat(Arrays.copyOf(m, 17)).containsExactly(0x01, 0x01, 0, 0, 0x0B, 0x0A, 32, 0, 1, 1, 0x00, 0x01,
                0x04, 0x03, 0x02, 0x01, 0xC1);
    }

    @Test
    void replyFieldsAndTruncation() throws Dhchap.Invalid {
        byte[] r1 = new byte[48];
        Arrays.fill(r1, (byte) 0x11);
        byte[] c2 = new byte[48];
        Arrays.fill(c2, (byte) 0x22);
        byte[] m = new Dhchap.Reply(7, true, 0x10203040, r1, c2, new byte[0]).encode();
        assertThat(Arrays.copyOf(m, 16)).containsExactly(0x01, 0x02, 0, 0, 7, 0, 48, 0, 1, 0, 0, 0, 0x40, 0x30,
                0x20, 0x10);
        Dhchap.Reply r = Dhchap.Reply.parse(m);
        assertThat(r.cvalid()).isTrue();
        assertThat(r.r1()).isEqualTo(r1);
        assertThat(r.c2()).isEqualTo(c2);
        assertThatThrownBy(() -> Dhchap.Reply.parse(Arrays.copyOf(m, m.length - 1)))
                .isInstanceOfSatisfying(Dhchap.Invalid.class,
                        e -> assertThat(e.failure()).isEqualTo(Dhchap.Failure.INCORRECT_PAYLOAD));
        assertThatThrownBy(() -> Dhchap.Reply.parse(Dhchap.success2(7)))
                .isInstanceOfSatisfying(Dhchap.Invalid.class,
                        e -> assertThat(e.failure()).isEqualTo(Dhchap.Failure.INCORRECT_MESSAGE));
    }

    @Test
    void success1AndFailure() {
        byte[] r2 = new byte[32];
        Arrays.fill(r2, (byte) 0x33);
        byte[] m = new Dhchap.Success1(5, 32, Optional.of(r2)).encode();
        assertThat(Arrays.copyOf(m, 17)).containsExactly(0x01, 0x03, 0, 0, 5, 0, 32, 0, 1, 0, 0, 0, 0, 0, 0, 0,
                0x33);
        assertThat(new Dhchap.Success1(5, 32, Optional.empty()).encode()[8]).isZero();
        assertThat(new Dhchap.FailureMessage(Dhchap.ID_FAILURE1, 5, 1, 6).encode()).containsExactly(0x00, 0xF1, 0, 0,
                5, 0, 1, 6);
        assertThat(Dhchap.success2(0x0304)).containsExactly(0x01, 0x04, 0, 0, 4, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        assertThat(Dhchap.cdw10()).isEqualTo(0xE9010100);
    }
}
