package io.blocktarget.protocol.scsi;

import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static io.blocktarget.protocol.scsi.SenseReason.INVALID_FIELD_IN_PARAMETER_LIST;
import static io.blocktarget.protocol.scsi.SenseReason.PARAMETER_LIST_LENGTH_ERROR;

/**
 * PERSISTENT RESERVE OUT parameter list (SPC-4 §6.16.3, Table 196; REGISTER AND MOVE §6.16.4,
 * Table 198).
 *
 * @param unreg                 REGISTER AND MOVE only
 * @param relativeTargetPortId  REGISTER AND MOVE only, else 0
 * @param transportIds          with SPEC_I_PT (REGISTER) or the one REGISTER AND MOVE destination
 */
public record PersistentReserveOutParameters(long reservationKey, long serviceActionReservationKey,
                                             boolean specIPt, boolean allTgPt, boolean aptpl, boolean unreg,
                                             int relativeTargetPortId, List<IscsiTransportId> transportIds) {
    public static final int BASIC_LENGTH = 24;

    public PersistentReserveOutParameters {
        transportIds = List.copyOf(transportIds);
    }

    /** Parses the readable bytes (PARAMETER LIST LENGTH bytes received) for {@code serviceAction}. */
    public static Parsed<PersistentReserveOutParameters> parse(ByteBuf list, PrOutServiceAction serviceAction) {
        int base = list.readerIndex();
        int length = list.readableBytes();
        if (length < BASIC_LENGTH) {
            return Parsed.invalid(PARAMETER_LIST_LENGTH_ERROR);
        }
        long key = list.getLong(base);
        long saKey = list.getLong(base + 8);
        if (serviceAction == PrOutServiceAction.REGISTER_AND_MOVE) {
            return registerAndMove(list, base, length, key, saKey);
        }
        int flags = list.getUnsignedByte(base + 20);
        if ((flags & 0xF2) != 0) {
            return Parsed.invalid(INVALID_FIELD_IN_PARAMETER_LIST,
                    FieldPointer.parameter(20, 31 - Integer.numberOfLeadingZeros(flags & 0xF2)));
        }
        boolean specIPt = (flags & 0x08) != 0;
        boolean allTgPt = (flags & 0x04) != 0;
        boolean aptpl = (flags & 0x01) != 0;
        if (!specIPt) {
            return length == BASIC_LENGTH
                    ? Parsed.ok(new PersistentReserveOutParameters(key, saKey, false, allTgPt, aptpl, false, 0, List.of()))
                    : Parsed.invalid(PARAMETER_LIST_LENGTH_ERROR);
        }
        // SPEC_I_PT is valid only for REGISTER (SPC-4 §6.16.3)
        if (serviceAction != PrOutServiceAction.REGISTER) {
            return Parsed.invalid(INVALID_FIELD_IN_PARAMETER_LIST, FieldPointer.parameter(20, 3));
        }
        if (length < BASIC_LENGTH + 4) {
            return Parsed.invalid(PARAMETER_LIST_LENGTH_ERROR);
        }
        long idsLength = list.getUnsignedInt(base + 24);
        if (BASIC_LENGTH + 4 + idsLength > length) {
            return Parsed.invalid(PARAMETER_LIST_LENGTH_ERROR);
        }
        List<IscsiTransportId> ids = new ArrayList<>();
        int at = base + BASIC_LENGTH + 4;
        int end = at + (int) idsLength;
        while (at < end) {
            Parsed<IscsiTransportId> id = IscsiTransportId.decode(list, at, end, base);
            if (!(id instanceof Parsed.Ok<IscsiTransportId>(IscsiTransportId value))) {
                return rethrow(id);
            }
            ids.add(value);
            at += value.length();
        }
        return Parsed.ok(new PersistentReserveOutParameters(key, saKey, true, allTgPt, aptpl, false, 0, ids));
    }

    private static Parsed<PersistentReserveOutParameters> registerAndMove(ByteBuf list, int base, int length,
                                                                         long key, long saKey) {
        if (list.getUnsignedByte(base + 16) != 0) {
            return Parsed.invalid(INVALID_FIELD_IN_PARAMETER_LIST, FieldPointer.parameter(16, 7));
        }
        int flags = list.getUnsignedByte(base + 17);
        if ((flags & 0xFC) != 0) {
            return Parsed.invalid(INVALID_FIELD_IN_PARAMETER_LIST,
                    FieldPointer.parameter(17, 31 - Integer.numberOfLeadingZeros(flags & 0xFC)));
        }
        int port = list.getUnsignedShort(base + 18);
        long idsLength = list.getUnsignedInt(base + 20);
        if (BASIC_LENGTH + idsLength > length) {
            return Parsed.invalid(PARAMETER_LIST_LENGTH_ERROR);
        }
        int at = base + BASIC_LENGTH;
        Parsed<IscsiTransportId> id = IscsiTransportId.decode(list, at, at + (int) idsLength, base);
        if (!(id instanceof Parsed.Ok<IscsiTransportId>(IscsiTransportId value))) {
            return rethrow(id);
        }
        return Parsed.ok(new PersistentReserveOutParameters(key, saKey, false, false, (flags & 0x01) != 0,
                (flags & 0x02) != 0, port, List.of(value)));
    }

    private static <T> Parsed<T> rethrow(Parsed<?> invalid) {
        Parsed.Invalid<?> i = (Parsed.Invalid<?>) invalid;
        return new Parsed.Invalid<>(i.reason(), i.fieldPointer());
    }
}
