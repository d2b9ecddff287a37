package io.blocktarget.scsi;

import io.blocktarget.protocol.scsi.FieldPointer;
import io.blocktarget.protocol.scsi.IscsiTransportId;
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
 * no SPEC_I_PT, no ALL_TG_PT, PTPL_C when the LUN has a reservation state file (APTPL then persists the
 * state and the command completes after the write), every type; REGISTER AND MOVE to another I_T nexus of the same target port.
 */
final class PersistentReserveCommands {
    /** SPC-4 §6.16.3, Table 196: byte 20 holds SPEC_I_PT (bit 3), ALL_TG_PT (bit 2) and APTPL (bit 0). */
    private static final int FLAGS_BYTE = 20;

    /** Aborts the tasks of preempted I_T nexuses on this logical unit, then runs {@code done} (PREEMPT AND ABORT). */
    @FunctionalInterface
    interface Aborter {
        void abort(java.util.Set<ItNexus> nexuses, Runnable done);
    }

    private final Reservations reservations;
    private final Aborter aborter;

    PersistentReserveCommands(Reservations reservations, Aborter aborter) {
        this.reservations = reservations;
        this.aborter = aborter;
    }

    /** Without an aborter: PREEMPT AND ABORT preempts only (tests of the reservation table). */
    PersistentReserveCommands(Reservations reservations) {
        this(reservations, (nexuses, done) -> done.run());
    }

    void in(Task task, PersistentReserveInCdb cdb) {
        PersistentReserveInData data = switch (cdb.serviceAction()) {
            case READ_KEYS -> reservations.readKeys();
            case READ_RESERVATION -> reservations.readReservation();
            // PTPL_C: a state file exists for this LUN; PTPL_A: the last REGISTER asked for it (SPC-5 §6.16.4)
            case REPORT_CAPABILITIES -> new PersistentReserveInData.ReportCapabilities(false, true, false, false,
                    reservations.state().persistenceAvailable(), true, 0,
                    reservations.state().persistThroughPowerLoss(), EnumSet.allOf(PrType.class));
            case READ_FULL_STATUS -> reservations.readFullStatus();
        };
        ByteBuf out = Task.allocate(256);
        data.encode(out);
        task.parameterData(out, cdb.allocationLength());
    }

    void out(Task task, PersistentReserveOutCdb cdb) {
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
        if (cdb.serviceAction() == PrOutServiceAction.REGISTER_AND_MOVE) {
            registerAndMove(task, cdb, p);
            return;
        }
        // SPC-5 §6.17.3: a capability we report as absent (SIP_C, ATP_C = 0; PTPL_C without a state file)
        int unsupportedBit = p.specIPt() ? 3 : p.allTgPt() ? 2
                : p.aptpl() && !reservations.state().persistenceAvailable() ? 0 : -1;
        if (unsupportedBit >= 0) {
            task.fail(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, FieldPointer.parameter(FLAGS_BYTE, unsupportedBit));
            return;
        }
        ItNexus nexus = task.nexus();
        long key = p.reservationKey();
        long saKey = p.serviceActionReservationKey();
        if (cdb.serviceAction() == PrOutServiceAction.PREEMPT_AND_ABORT) {
            preemptAndAbort(task, cdb, nexus, key, saKey);
            return;
        }
        Parsed.Invalid<Void> outcome = switch (cdb.serviceAction()) {
            case REGISTER -> reservations.register(nexus, key, saKey, false);
            case REGISTER_AND_IGNORE_EXISTING_KEY -> reservations.register(nexus, key, saKey, true);
            case RESERVE -> reservations.reserve(nexus, key, cdb.type().orElseThrow());
            case RELEASE -> reservations.release(nexus, key, cdb.type().orElseThrow());
            case CLEAR -> reservations.clear(nexus, key);
            case PREEMPT -> reservations.preempt(nexus, key, saKey, cdb.type().orElseThrow());
            case PREEMPT_AND_ABORT -> throw new IllegalStateException("handled above");
            case REGISTER_AND_MOVE -> throw new IllegalStateException("handled above");
        };
        if (outcome != null) {
            task.fail(outcome);
            return;
        }
        if (cdb.serviceAction() == PrOutServiceAction.REGISTER
                || cdb.serviceAction() == PrOutServiceAction.REGISTER_AND_IGNORE_EXISTING_KEY) {
            // SPC-5 §5.14.5: the APTPL of the last successful REGISTER decides whether the state survives power loss
            reservations.state().persistThroughPowerLoss(p.aptpl());
        }
        goodWhenPersisted(task, cdb);
    }

    /**
     * PREEMPT AND ABORT (SPC-5 §5.14.11.2.6): the preemption of PREEMPT, then every task of the I_T nexuses whose
     * registrations it removed is aborted on this logical unit — in the device server and in their transports, as
     * ABORT TASK SET from each of them would (TAS = 0: no status for them; those that lost a task meet COMMANDS
     * CLEARED BY ANOTHER INITIATOR after REGISTRATIONS PREEMPTED) — and GOOD comes only once they are all gone, so no
     * write of a preempted initiator lands after it.
     */
    private void preemptAndAbort(Task task, PersistentReserveOutCdb cdb, ItNexus nexus, long key, long saKey) {
        Reservations.Preempted preempted = reservations.preemptNexuses(nexus, key, saKey, cdb.type().orElseThrow());
        if (preempted.outcome() != null) {
            task.fail(preempted.outcome());
            return;
        }
        if (preempted.nexuses().isEmpty()) {
            goodWhenPersisted(task, cdb);
            return;
        }
        aborter.abort(preempted.nexuses(), () -> goodWhenPersisted(task, cdb));
    }

    /** GOOD once the changed state is on disk (APTPL), else at once; a failed write is a hardware error. */
    private void goodWhenPersisted(Task task, PersistentReserveOutCdb cdb) {
        reservations.state().persist().whenComplete((ok, failure) -> {
            if (failure != null) {
                task.fail(SenseReason.INTERNAL_TARGET_FAILURE);
            } else {
                task.good(cdb.parameterListLength());
            }
        });
    }

    /** REGISTER AND MOVE parameter list (SPC-5 §6.17.4, Table "REGISTER AND MOVE service action parameter list"). */
    private static final int MOVE_FLAGS_BYTE = 17;
    private static final int MOVE_PORT_BYTE = 18;
    private static final int MOVE_TRANSPORT_ID_BYTE = 24;

    /**
     * REGISTER AND MOVE (SPC-5 §5.14.8, §6.17.4): the holder registers the I_T nexus named by the TransportID and
     * RELATIVE TARGET PORT IDENTIFIER with the SERVICE ACTION RESERVATION KEY, moves the reservation to it with
     * the CDB's TYPE and, with UNREG, unregisters itself. In order: an unregistered sender or a wrong key is
     * RESERVATION CONFLICT; SERVICE ACTION RESERVATION KEY 0 is INVALID FIELD IN PARAMETER LIST (bytes 8..15); APTPL
     * without persistence likewise (byte 17 bit 0); a relative target port that is not the one of this target
     * (bytes 18..19) and an initiator device TransportID (format 00b names no port, so no I_T nexus) likewise;
     * no reservation, another holder or an all-registrants type is RESERVATION CONFLICT; the sender's own nexus as
     * destination is INVALID FIELD IN PARAMETER LIST at the TransportID.
     */
    private void registerAndMove(Task task, PersistentReserveOutCdb cdb, PersistentReserveOutParameters p) {
        ItNexus nexus = task.nexus();
        if (reservations.state().key(Reservations.registrant(nexus)).filter(k -> k == p.reservationKey()).isEmpty()) {
            task.fail(SenseReason.RESERVATION_CONFLICT);
            return;
        }
        if (p.serviceActionReservationKey() == 0) {
            task.fail(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, FieldPointer.parameter(8, 7));
            return;
        }
        if (p.aptpl() && !reservations.state().persistenceAvailable()) {
            task.fail(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, FieldPointer.parameter(MOVE_FLAGS_BYTE, 0));
            return;
        }
        if (p.relativeTargetPortId() != nexus.relativeTargetPort()) {
            task.fail(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, FieldPointer.parameter(MOVE_PORT_BYTE, 7));
            return;
        }
        IscsiTransportId id = p.transportIds().getFirst();
        if (id.isid().isEmpty()) {
            task.fail(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, FieldPointer.parameter(MOVE_TRANSPORT_ID_BYTE, 7));
            return;
        }
        // the same target port: this target has one per portal group, the sender's
        ItNexus destination = new ItNexus(id.name() + ",i,0x" + id.isid().get().toLowerCase(java.util.Locale.ROOT),
                nexus.targetPortName(), nexus.relativeTargetPort());
        Reservations.Move outcome = reservations.registerAndMove(nexus, p.reservationKey(),
                p.serviceActionReservationKey(), destination, cdb.type().orElseThrow(), p.unreg());
        switch (outcome) {
            case OK -> {
                reservations.state().persistThroughPowerLoss(p.aptpl());
                goodWhenPersisted(task, cdb);
            }
            case CONFLICT -> task.fail(SenseReason.RESERVATION_CONFLICT);
            case SAME_NEXUS -> task.fail(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST,
                    FieldPointer.parameter(MOVE_TRANSPORT_ID_BYTE, 7));
        }
    }
}
