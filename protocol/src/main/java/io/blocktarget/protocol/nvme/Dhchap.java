package io.blocktarget.protocol.nvme;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * NVMe in-band authentication on the wire (NVMe Base 2.2 §8.3.4 "DH-HMAC-CHAP", §6.2 / §6.3 Authentication Send /
 * Receive): the command fields and the message layouts, little-endian, as the Linux host ({@code struct
 * nvmf_auth_dhchap_*_data}) sends and expects them. Pure formats: no state, no crypto.
 */
public final class Dhchap {
    /** SECP of Authentication Send / Receive for NVMe-oF in-band authentication. */
    public static final int SECP = 0xE9;
    /** SPSP0 / SPSP1 for DH-HMAC-CHAP. */
    public static final int SPSP = 0x01;
    /** Connect response DW0 AUTHREQ bit 1 (ATR): an authentication transaction is required (bit 17 of DW0). */
    public static final int CONNECT_ATR = 1 << 17;

    /** AUTH_TYPE: common messages (negotiate, failure1/2) and DH-HMAC-CHAP messages. */
    public static final int TYPE_COMMON = 0x00;
    public static final int TYPE_DHCHAP = 0x01;
    /** AUTH_ID. */
    public static final int ID_NEGOTIATE = 0x00;
    public static final int ID_CHALLENGE = 0x01;
    public static final int ID_REPLY = 0x02;
    public static final int ID_SUCCESS1 = 0x03;
    public static final int ID_SUCCESS2 = 0x04;
    public static final int ID_FAILURE2 = 0xF0;
    public static final int ID_FAILURE1 = 0xF1;
    /** AUTHID of the DH-HMAC-CHAP protocol descriptor. */
    public static final int AUTHID_DHCHAP = 0x01;
    /** Failure REASON CODE: authentication failure; the explanation says which. */
    public static final int RESCODE_FAILED = 0x01;
    /** Size of a Negotiate header and of one protocol descriptor. */
    public static final int NEGOTIATE_HEADER = 8;
    public static final int DESCRIPTOR = 64;
    /** Challenge / Reply / Success1 / Success2 headers, Failure message. */
    public static final int HEADER = 16;
    public static final int FAILURE_SIZE = 8;

    /** Reason code explanations (Base 2.2 Figure "AUTH_Failure1/2 Reason Code Explanation"). */
    public enum Failure {
        FAILED(0x01), NOT_USABLE(0x02), CONCAT_MISMATCH(0x03), HASH_UNUSABLE(0x04), DHGROUP_UNUSABLE(0x05),
        INCORRECT_PAYLOAD(0x06), INCORRECT_MESSAGE(0x07);

        private final int code;

        Failure(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }

        public static Optional<Failure> of(int code) {
            return Arrays.stream(values()).filter(f -> f.code == code).findFirst();
        }
    }

    /** A message that cannot be used: the reason code explanation to answer with. */
    public static final class Invalid extends Exception {
        private final Failure failure;

        public Invalid(Failure failure, String message) {
            super(message, null, false, false);
            this.failure = failure;
        }

        public Failure failure() {
            return failure;
        }
    }

    private Dhchap() {
    }

    /** CDW10 of Authentication Send / Receive: SECP 31:24, SPSP1 23:16, SPSP0 15:8. */
    public static int secp(Sqe sqe) {
        return sqe.cdw10() >>> 24;
    }

    public static int spsp1(Sqe sqe) {
        return (sqe.cdw10() >>> 16) & 0xFF;
    }

    public static int spsp0(Sqe sqe) {
        return (sqe.cdw10() >>> 8) & 0xFF;
    }

    /** CDW11: TL (Send: transfer length) or AL (Receive: allocation length), bytes. */
    public static long length(Sqe sqe) {
        return Integer.toUnsignedLong(sqe.cdw11());
    }

    /** The CDW10 a host puts in Authentication Send / Receive for DH-HMAC-CHAP. */
    public static int cdw10() {
        return SECP << 24 | SPSP << 16 | SPSP << 8;
    }

    /** AUTH_Negotiate, the DH-HMAC-CHAP protocol descriptor's lists (HALEN hash IDs, DHLEN DH group IDs). */
    public record Negotiate(int tid, int scC, List<Integer> hashIds, List<Integer> dhGroupIds) {
        public Negotiate {
            hashIds = List.copyOf(hashIds);
            dhGroupIds = List.copyOf(dhGroupIds);
        }

        public static Negotiate parse(byte[] m) throws Invalid {
            if (m.length < NEGOTIATE_HEADER + DESCRIPTOR) {
                throw new Invalid(Failure.INCORRECT_PAYLOAD, "AUTH_Negotiate of " + m.length + " bytes");
            }
            ByteBuffer b = le(m);
            int tid = b.getShort(4) & 0xFFFF;
            int scC = m[6] & 0xFF;
            int napd = m[7] & 0xFF;
            if (napd == 0 || m.length < NEGOTIATE_HEADER + napd * DESCRIPTOR) {
                throw new Invalid(Failure.INCORRECT_PAYLOAD, "NAPD " + napd + " in " + m.length + " bytes");
            }
            for (int d = 0; d < napd; d++) {
                int at = NEGOTIATE_HEADER + d * DESCRIPTOR;
                if ((m[at] & 0xFF) != AUTHID_DHCHAP) {
                    continue;
                }
                int halen = m[at + 2] & 0xFF;
                int dhlen = m[at + 3] & 0xFF;
                if (halen > 30 || dhlen > 30) {
                    throw new Invalid(Failure.INCORRECT_PAYLOAD, "HALEN " + halen + ", DHLEN " + dhlen);
                }
                List<Integer> hashes = new ArrayList<>();
                for (int i = 0; i < halen; i++) {
                    hashes.add(m[at + 4 + i] & 0xFF);
                }
                List<Integer> groups = new ArrayList<>();
                for (int i = 0; i < dhlen; i++) {
                    groups.add(m[at + 4 + 30 + i] & 0xFF);
                }
                return new Negotiate(tid, scC, hashes, groups);
            }
            throw new Invalid(Failure.NOT_USABLE, "no DH-HMAC-CHAP protocol descriptor");
        }

        /** The host's message (tests and the Java host). */
        public byte[] encode() {
            byte[] m = new byte[NEGOTIATE_HEADER + DESCRIPTOR];
            m[0] = TYPE_COMMON;
            m[1] = ID_NEGOTIATE;
            le(m).putShort(4, (short) tid);
            m[6] = (byte) scC;
            m[7] = 1;
            m[8] = AUTHID_DHCHAP;
            m[10] = (byte) hashIds.size();
            m[11] = (byte) dhGroupIds.size();
            for (int i = 0; i < hashIds.size(); i++) {
                m[12 + i] = hashIds.get(i).byteValue();
            }
            for (int i = 0; i < dhGroupIds.size(); i++) {
                m[12 + 30 + i] = dhGroupIds.get(i).byteValue();
            }
            return m;
        }
    }

    /** DH-HMAC-CHAP_Challenge: C1 (HL bytes) then the controller's DH value (DHVLEN bytes). */
    public record Challenge(int tid, int hashId, int seqnum, int dhGroupId, byte[] c1, byte[] dhValue) {
        public byte[] encode() {
            byte[] m = new byte[HEADER + c1.length + dhValue.length];
            ByteBuffer b = le(m);
            m[0] = TYPE_DHCHAP;
            m[1] = ID_CHALLENGE;
            b.putShort(4, (short) tid);
            m[6] = (byte) c1.length;
            m[8] = (byte) hashId;
            m[9] = (byte) dhGroupId;
            b.putShort(10, (short) dhValue.length);
            b.putInt(12, seqnum);
            System.arraycopy(c1, 0, m, HEADER, c1.length);
            System.arraycopy(dhValue, 0, m, HEADER + c1.length, dhValue.length);
            return m;
        }

        public static Challenge parse(byte[] m) throws Invalid {
            header(m, TYPE_DHCHAP, ID_CHALLENGE);
            ByteBuffer b = le(m);
            int hl = m[6] & 0xFF;
            int dhvlen = b.getShort(10) & 0xFFFF;
            if (m.length < HEADER + hl + dhvlen) {
                throw new Invalid(Failure.INCORRECT_PAYLOAD, "challenge shorter than HL + DHVLEN");
            }
            return new Challenge(b.getShort(4) & 0xFFFF, m[8] & 0xFF, b.getInt(12), m[9] & 0xFF,
                    Arrays.copyOfRange(m, HEADER, HEADER + hl), Arrays.copyOfRange(m, HEADER + hl, HEADER + hl + dhvlen));
        }
    }

    /**
     * DH-HMAC-CHAP_Reply: R1 (HL bytes), C2 (HL bytes, meaningful when CVALID), the host's DH value (DHVLEN bytes);
     * SEQNUM is S2 (0: no bidirectional authentication).
     */
    public record Reply(int tid, boolean cvalid, int seqnum, byte[] r1, byte[] c2, byte[] dhValue) {
        public static Reply parse(byte[] m) throws Invalid {
            header(m, TYPE_DHCHAP, ID_REPLY);
            ByteBuffer b = le(m);
            int hl = m[6] & 0xFF;
            int dhvlen = b.getShort(10) & 0xFFFF;
            if (HEADER + 2L * hl + dhvlen > m.length) {
                throw new Invalid(Failure.INCORRECT_PAYLOAD, "reply shorter than 2 * HL + DHVLEN");
            }
            return new Reply(b.getShort(4) & 0xFFFF, (m[8] & 1) != 0, b.getInt(12),
                    Arrays.copyOfRange(m, HEADER, HEADER + hl), Arrays.copyOfRange(m, HEADER + hl, HEADER + 2 * hl),
                    Arrays.copyOfRange(m, HEADER + 2 * hl, HEADER + 2 * hl + dhvlen));
        }

        public byte[] encode() {
            byte[] m = new byte[HEADER + 2 * r1.length + dhValue.length];
            ByteBuffer b = le(m);
            m[0] = TYPE_DHCHAP;
            m[1] = ID_REPLY;
            b.putShort(4, (short) tid);
            m[6] = (byte) r1.length;
            m[8] = (byte) (cvalid ? 1 : 0);
            b.putShort(10, (short) dhValue.length);
            b.putInt(12, seqnum);
            System.arraycopy(r1, 0, m, HEADER, r1.length);
            System.arraycopy(c2, 0, m, HEADER + r1.length, c2.length);
            System.arraycopy(dhValue, 0, m, HEADER + 2 * r1.length, dhValue.length);
            return m;
        }
    }

    /** DH-HMAC-CHAP_Success1: RVALID and R2 when the host asked the controller to authenticate itself. */
    public record Success1(int tid, int hl, Optional<byte[]> r2) {
        public byte[] encode() {
            byte[] m = new byte[HEADER + hl];
            m[0] = TYPE_DHCHAP;
            m[1] = ID_SUCCESS1;
            le(m).putShort(4, (short) tid);
            m[6] = (byte) hl;
            r2.ifPresent(r -> {
                m[8] = 1;
                System.arraycopy(r, 0, m, HEADER, r.length);
            });
            return m;
        }

        public static Success1 parse(byte[] m) throws Invalid {
            header(m, TYPE_DHCHAP, ID_SUCCESS1);
            int hl = m[6] & 0xFF;
            boolean rvalid = (m[8] & 1) != 0;
            if (rvalid && m.length < HEADER + hl) {
                throw new Invalid(Failure.INCORRECT_PAYLOAD, "success1 shorter than HL");
            }
            return new Success1(le(m).getShort(4) & 0xFFFF, hl, rvalid ? Optional.of(Arrays.copyOfRange(m,
                    HEADER, HEADER + hl)) : Optional.empty());
        }
    }

    /** DH-HMAC-CHAP_Success2 (host to controller): bidirectional authentication succeeded. */
    public static byte[] success2(int tid) {
        byte[] m = new byte[HEADER];
        m[0] = TYPE_DHCHAP;
        m[1] = ID_SUCCESS2;
        le(m).putShort(4, (short) tid);
        return m;
    }

    /** AUTH_Failure1 (controller to host) or AUTH_Failure2 (host to controller). */
    public record FailureMessage(int authId, int tid, int rescode, int explanation) {
        public byte[] encode() {
            byte[] m = new byte[FAILURE_SIZE];
            m[0] = TYPE_COMMON;
            m[1] = (byte) authId;
            le(m).putShort(4, (short) tid);
            m[6] = (byte) rescode;
            m[7] = (byte) explanation;
            return m;
        }

        public static FailureMessage parse(byte[] m) throws Invalid {
            if (m.length < FAILURE_SIZE || (m[0] & 0xFF) != TYPE_COMMON) {
                throw new Invalid(Failure.INCORRECT_PAYLOAD, "not a failure message");
            }
            return new FailureMessage(m[1] & 0xFF, le(m).getShort(4) & 0xFFFF, m[6] & 0xFF, m[7] & 0xFF);
        }
    }

    /** AUTH_TYPE and AUTH_ID of a message (the first two bytes); {@code -1}s when too short. */
    public static int type(byte[] m) {
        return m.length < 2 ? -1 : m[0] & 0xFF;
    }

    public static int id(byte[] m) {
        return m.length < 2 ? -1 : m[1] & 0xFF;
    }

    /** T_ID (bytes 5:4) of any message at least 6 bytes long. */
    public static int tid(byte[] m) {
        return m.length < 6 ? -1 : le(m).getShort(4) & 0xFFFF;
    }

    private static void header(byte[] m, int type, int id) throws Invalid {
        if (m.length < HEADER) {
            throw new Invalid(Failure.INCORRECT_PAYLOAD, "message of " + m.length + " bytes");
        }
        if ((m[0] & 0xFF) != type || (m[1] & 0xFF) != id) {
            throw new Invalid(Failure.INCORRECT_MESSAGE, "message " + (m[0] & 0xFF) + "/" + (m[1] & 0xFF));
        }
    }

    private static ByteBuffer le(byte[] m) {
        return ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN);
    }
}
