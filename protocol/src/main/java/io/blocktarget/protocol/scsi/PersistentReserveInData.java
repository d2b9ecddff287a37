package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/** PERSISTENT RESERVE IN parameter data, one record per service action (SPC-4 §6.15.2-6.15.5). */
public sealed interface PersistentReserveInData {

    void encode(ByteBuf out);

    /** READ KEYS (SPC-4 §6.15.2, Table 180): PRGENERATION, ADDITIONAL LENGTH, 8-byte keys. */
    record ReadKeys(int prGeneration, List<Long> reservationKeys) implements PersistentReserveInData {
        public ReadKeys {
            reservationKeys = List.copyOf(reservationKeys);
        }

        @Override
        public void encode(ByteBuf out) {
            out.writeInt(prGeneration);                 // 0-3
            out.writeInt(8 * reservationKeys.size());   // 4-7: ADDITIONAL LENGTH
            reservationKeys.forEach(out::writeLong);
        }
    }

    /** The reservation held, as READ RESERVATION and READ FULL STATUS report it. */
    record Reservation(long reservationKey, PrType type) {
    }

    /** READ RESERVATION (SPC-4 §6.15.3, Tables 181-182): 8 bytes, plus 16 when a reservation exists. */
    record ReadReservation(int prGeneration, Optional<Reservation> reservation) implements PersistentReserveInData {
        @Override
        public void encode(ByteBuf out) {
            out.writeInt(prGeneration);                          // 0-3
            out.writeInt(reservation.isPresent() ? 0x10 : 0);    // 4-7: ADDITIONAL LENGTH
            reservation.ifPresent(r -> {
                out.writeLong(r.reservationKey());               // 8-15
                out.writeInt(0);                                 // 16-19: obsolete
                out.writeByte(0);                                // 20: reserved
                out.writeByte(r.type().code());                  // 21: SCOPE = LU_SCOPE (0), TYPE
                out.writeShort(0);                               // 22-23: obsolete
            });
        }
    }

    /**
     * REPORT CAPABILITIES (SPC-4 §6.15.4, Table 184), 8 bytes.
     *
     * @param allowCommands 3-bit ALLOW COMMANDS
     * @param types         PERSISTENT RESERVATION TYPE MASK, valid when TMV
     */
    record ReportCapabilities(boolean rlrC, boolean crh, boolean sipC, boolean atpC, boolean ptplC, boolean tmv,
                              int allowCommands, boolean ptplA, Set<PrType> types) implements PersistentReserveInData {
        public ReportCapabilities {
            types = Set.copyOf(types);
            if ((allowCommands & ~0x7) != 0) {
                throw new IllegalArgumentException("ALLOW COMMANDS is 3 bits");
            }
        }

        @Override
        public void encode(ByteBuf out) {
            out.writeShort(8);                                                          // 0-1: LENGTH
            out.writeByte((rlrC ? 0x80 : 0) | (crh ? 0x10 : 0) | (sipC ? 0x08 : 0)      // 2
                    | (atpC ? 0x04 : 0) | (ptplC ? 0x01 : 0));
            out.writeByte((tmv ? 0x80 : 0) | allowCommands << 4 | (ptplA ? 0x01 : 0));  // 3
            out.writeByte(bit(PrType.WRITE_EXCLUSIVE_ALL_REGISTRANTS, 7)                // 4: type mask
                    | bit(PrType.EXCLUSIVE_ACCESS_REGISTRANTS_ONLY, 6)
                    | bit(PrType.WRITE_EXCLUSIVE_REGISTRANTS_ONLY, 5)
                    | bit(PrType.EXCLUSIVE_ACCESS, 3)
                    | bit(PrType.WRITE_EXCLUSIVE, 1));
            out.writeByte(bit(PrType.EXCLUSIVE_ACCESS_ALL_REGISTRANTS, 0));            // 5
            out.writeShort(0);                                                          // 6-7: reserved
        }

        private int bit(PrType type, int bit) {
            return types.contains(type) ? 1 << bit : 0;
        }
    }

    /**
     * One registration in READ FULL STATUS (SPC-4 §6.15.5, Table 186).
     *
     * @param reservation type of the reservation when this registrant holds it (R_HOLDER = 1)
     */
    record FullStatusDescriptor(long reservationKey, boolean allTgPt, Optional<PrType> reservation,
                                int relativeTargetPortId, IscsiTransportId transportId) {
        int length() {
            return 24 + transportId.length();
        }
    }

    /** READ FULL STATUS (SPC-4 §6.15.5, Table 185). */
    record ReadFullStatus(int prGeneration, List<FullStatusDescriptor> descriptors)
            implements PersistentReserveInData {
        public ReadFullStatus {
            descriptors = List.copyOf(descriptors);
        }

        @Override
        public void encode(ByteBuf out) {
            out.writeInt(prGeneration);                                                   // 0-3
            out.writeInt(descriptors.stream().mapToInt(FullStatusDescriptor::length).sum()); // 4-7
            for (FullStatusDescriptor d : descriptors) {
                out.writeLong(d.reservationKey());                                        // 0-7
                out.writeInt(0);                                                          // 8-11: reserved
                out.writeByte((d.allTgPt() ? 0x02 : 0) | (d.reservation().isPresent() ? 0x01 : 0)); // 12
                out.writeByte(d.reservation().map(PrType::code).orElse(0));              // 13: SCOPE, TYPE
                out.writeInt(0);                                                          // 14-17: reserved
                out.writeShort(d.relativeTargetPortId());                                 // 18-19
                out.writeInt(d.transportId().length());                                   // 20-23: ADDITIONAL DESCRIPTOR LENGTH
                d.transportId().encode(out);                                              // 24..n
            }
        }
    }
}
