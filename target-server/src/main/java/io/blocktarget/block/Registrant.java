package io.blocktarget.block;

import java.util.Objects;
import java.util.UUID;

/**
 * Who may register with and hold a device's reservation, whatever the protocol it comes over: SCSI keeps
 * persistent reservations per I_T nexus (SPC-5 §5.14.1), NVMe per host, identified by its Host Identifier
 * (NVMe Base 2.x §8.1.22 "Reservations"; over fabrics the HOSTID of Connect). One device's {@link Reservations}
 * holds registrants of both kinds side by side, so a SCSI initiator port and an NVMe host are registrants of
 * one reservation.
 */
public sealed interface Registrant {

    /** A stable text form for logs and the APTPL state file; {@link #parse} reverses it. */
    String persistentForm();

    /**
     * A SCSI I_T nexus (SAM-5 §4.7): the iSCSI initiator port name {@code <InitiatorName>,i,0x<ISID>} and the
     * target port it came in through.
     */
    record InitiatorPort(String initiatorPortName, String targetPortName, int relativeTargetPort)
            implements Registrant {
        public InitiatorPort {
            Objects.requireNonNull(initiatorPortName, "initiatorPortName");
            Objects.requireNonNull(targetPortName, "targetPortName");
        }

        @Override
        public String persistentForm() {
            return "scsi " + relativeTargetPort + " " + targetPortName + " " + initiatorPortName;
        }
    }

    /**
     * An NVMe host, by its 128-bit Host Identifier (a 64-bit one is its low 8 bytes with the high ones zero,
     * NVMe Base §5.27.1.25). Controllers of the same host share its registration.
     */
    record Host(UUID hostId) implements Registrant {
        public Host {
            Objects.requireNonNull(hostId, "hostId");
        }

        /** The 16 HOSTID bytes as they appear in Connect data (byte 0 first). */
        public static Host of(byte[] hostId) {
            if (hostId.length != 16) {
                throw new IllegalArgumentException("a Host Identifier is 16 bytes");
            }
            long high = 0;
            long low = 0;
            for (int i = 0; i < 8; i++) {
                high = high << 8 | (hostId[i] & 0xFF);
                low = low << 8 | (hostId[8 + i] & 0xFF);
            }
            return new Host(new UUID(high, low));
        }

        /** The 16 bytes, byte 0 first. */
        public byte[] bytes() {
            byte[] b = new byte[16];
            for (int i = 0; i < 8; i++) {
                b[i] = (byte) (hostId.getMostSignificantBits() >>> (56 - 8 * i));
                b[8 + i] = (byte) (hostId.getLeastSignificantBits() >>> (56 - 8 * i));
            }
            return b;
        }

        @Override
        public String persistentForm() {
            return "nvme " + hostId;
        }
    }

    /** The registrant {@link #persistentForm} wrote, or IllegalArgumentException. */
    static Registrant parse(String form) {
        String[] p = form.split(" ", 4);
        if (p.length == 2 && p[0].equals("nvme")) {
            return new Host(UUID.fromString(p[1]));
        }
        if (p.length == 4 && p[0].equals("scsi")) {
            return new InitiatorPort(p[3], p[2], Integer.parseInt(p[1]));
        }
        throw new IllegalArgumentException("not a registrant: " + form);
    }
}
