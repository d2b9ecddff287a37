package io.blocktarget.scsi;

import io.blocktarget.protocol.scsi.FieldPointer;
import io.blocktarget.protocol.scsi.Parsed;
import io.blocktarget.protocol.scsi.PersistentReserveInCdb;
import io.blocktarget.protocol.scsi.PersistentReserveInData;
import io.blocktarget.protocol.scsi.PersistentReserveOutCdb;
import io.blocktarget.protocol.scsi.PersistentReserveOutParameters;
import io.blocktarget.protocol.scsi.PrOutServiceAction;
import io.blocktarget.protocol.scsi.PrType;
import io.blocktarget.protocol.scsi.SenseReason;
import io.netty.buffer.ByteBuf;

import java.util.EnumSet;

/**
 * PERSISTENT RESERVE IN / OUT (SPC-4 §6.15-6.16) over the logical unit's {@link Reservations}.
 * Capabilities (REPORT CAPABILITIES): CRH = 1 (RESERVE(6)/RELEASE(6) conflict with registrations),
 * no SPEC_I_PT, no ALL_TG_PT, no persistence through power loss (APTPL), every type; REGISTER AND
 * MOVE is not supported (INVALID FIELD IN CDB, and not listed by REPORT SUPPORTED OPERATION CODES).
 */
final class PersistentReserveCommands {
    /** SPC-4 §6.16.3, Table 196: byte 20 holds SPEC_I_PT (bit 3), ALL_TG_PT (bit 2) and APTPL (bit 0). */
    private static final int FLAGS_BYTE = 20;

    private final Reservations reservations;

    PersistentReserveCommands(Reservations reservations) {
        this.reservations = reservations;
    }

    void in(Task task, PersistentReserveInCdb cdb) {
        PersistentReserveInData data = switch (cdb.serviceAction()) {
            case READ_KEYS -> reservations.readKeys();
            case READ_RESERVATION -> reservations.readReservation();
            case REPORT_CAPABILITIES -> new PersistentReserveInData.ReportCapabilities(false, true, false, false,
                    false, true, 0, false, EnumSet.allOf(PrType.class));
            case READ_FULL_STATUS -> reservations.readFullStatus();
        };
        ByteBuf out = Task.allocate(256);
        data.encode(out);
        task.parameterData(out, cdb.allocationLength());
    }

    void out(Task task, PersistentReserveOutCdb cdb) {
        if (cdb.serviceAction() == PrOutServiceAction.REGISTER_AND_MOVE) {
            task.fail(SenseReason.INVALID_FIELD_IN_CDB, FieldPointer.cdb(1, 4));
            return;
        }
        ByteBuf list = task.parameterList(cdb.parameterListLength(), FieldPointer.cdb(5, 7));
        if (list == null) {
            return;
        }
        Parsed<PersistentReserveOutParameters> parsed = PersistentReserveOutParameters.parse(list, cdb.serviceAction());
        if (parsed instanceof Parsed.Invalid<PersistentReserveOutParameters> invalid) {
            task.fail(invalid);
            return;
        }
        PersistentReserveOutParameters p = ((Parsed.Ok<PersistentReserveOutParameters>) parsed).value();
        // SPC-4 §6.16.3: a capability we report as absent (SIP_C, ATP_C, PTPL_C = 0) requested anyway
        int unsupportedBit = p.specIPt() ? 3 : p.allTgPt() ? 2 : p.aptpl() ? 0 : -1;
        if (unsupportedBit >= 0) {
            task.fail(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, FieldPointer.parameter(FLAGS_BYTE, unsupportedBit));
            return;
        }
        ItNexus nexus = task.nexus();
        long key = p.reservationKey();
        long saKey = p.serviceActionReservationKey();
        Parsed.Invalid<Void> outcome = switch (cdb.serviceAction()) {
            case REGISTER -> reservations.register(nexus, key, saKey, false);
            case REGISTER_AND_IGNORE_EXISTING_KEY -> reservations.register(nexus, key, saKey, true);
            case RESERVE -> reservations.reserve(nexus, key, cdb.type().orElseThrow());
            case RELEASE -> reservations.release(nexus, key, cdb.type().orElseThrow());
            case CLEAR -> reservations.clear(nexus, key);
            case PREEMPT, PREEMPT_AND_ABORT -> reservations.preempt(nexus, key, saKey, cdb.type().orElseThrow());
            case REGISTER_AND_MOVE -> throw new IllegalStateException("handled above");
        };
        if (outcome != null) {
            task.fail(outcome);
        } else {
            task.good(cdb.parameterListLength());
        }
    }
}
