package io.blocktarget.scsi;

import io.blocktarget.block.BlockIoException;
import io.blocktarget.protocol.scsi.CopyResults;
import io.blocktarget.protocol.scsi.ExtendedCopyCdb;
import io.blocktarget.protocol.scsi.ExtendedCopyParameters;
import io.blocktarget.protocol.scsi.FieldPointer;
import io.blocktarget.protocol.scsi.Parsed;
import io.blocktarget.protocol.scsi.ReadCdb;
import io.blocktarget.protocol.scsi.ReceiveCopyResultsCdb;
import io.blocktarget.protocol.scsi.ScsiOpcode;
import io.blocktarget.protocol.scsi.SegmentPointer;
import io.blocktarget.protocol.scsi.SenseData;
import io.blocktarget.protocol.scsi.SenseKey;
import io.blocktarget.protocol.scsi.SenseReason;
import io.blocktarget.protocol.scsi.WriteCdb;
import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The copy manager of one logical unit: EXTENDED COPY (LID1, SPC-4 §6.4) with block device to block
 * device segments between logical units of this target, named by identification descriptor CSCDs
 * (E4h) carrying the NAA designator VPD 83h reports; RECEIVE COPY RESULTS COPY STATUS and OPERATING
 * PARAMETERS (§6.18). The limits are {@link UnitLimits#COPY_LIMITS}, reported and enforced alike.
 *
 * <p>Errors follow the two classes of the third-party copy model. Errors detected before segment
 * descriptor processing starts (SPC §5.17.7.3) — descriptors, the logical units named (except COPY
 * TARGET DEVICE NOT REACHABLE for an NAA this target does not serve, which Linux LIO also reports up
 * front so that initiators fall back to reads and writes), DISK BLOCK LENGTH against the unit's block
 * size (equal source and destination block sizes only: no PAD / CAT residue handling), MAXIMUM SEGMENT
 * LENGTH, write protection, the units' sanitize state (SBC-4 §4.11) and reservations (each segment is a READ of its source and a WRITE of its
 * destination for the sending nexus) — end the command with their own sense key and nothing is copied.
 * Then the segments run one after the other, each a read of the source and a write under the
 * destination's range lease. What is found while a segment is processed (§5.17.7.4) — a CSCD
 * descriptor ID naming no CSCD descriptor, blocks beyond the source's or destination's capacity, a
 * backend failure — stops the copy with COPY ABORTED, the number of that segment in COMMAND-SPECIFIC
 * INFORMATION and a segment pointer; the segments before it are done and RECEIVE COPY RESULTS says so.
 */
final class ExtendedCopy {
    /** How many finished copies' status each logical unit keeps for RECEIVE COPY RESULTS. */
    static final int HELD_RESULTS = 64;
    /**
     * TOTAL CONCURRENT COPIES and MAXIMUM CONCURRENT COPIES of OPERATING PARAMETERS (SPC-4 §6.18.4):
     * copies this copy manager runs at once; one more is ILLEGAL REQUEST, INSUFFICIENT RESOURCES.
     */
    static final int MAXIMUM_CONCURRENT_COPIES = 16;

    private record Key(ItNexus nexus, int listIdentifier) {
    }

    private final ScsiTarget target;
    private final AtomicInteger running = new AtomicInteger();
    private final Map<Key, CopyResults.CopyStatus> results = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, CopyResults.CopyStatus> eldest) {
            return size() > HELD_RESULTS;
        }
    };

    ExtendedCopy(ScsiTarget target) {
        this.target = target;
    }

    /** Offsets in a block to block segment descriptor (SPC §6.4.6.4, Table 151). */
    private static final int SOURCE_ID = 4, DESTINATION_ID = 6, SOURCE_LBA = 12, DESTINATION_LBA = 20;

    /**
     * One segment of the plan; {@code source} / {@code destination} null when the segment's CSCD
     * descriptor ID names no CSCD descriptor of the list.
     */
    private record Resolved(LogicalUnit source, LogicalUnit destination, ExtendedCopyParameters.Segment segment) {
    }

    /** Why a copy stopped: sense data for CHECK CONDITION, or a status-only reason (BUSY). */
    private record Failure(SenseReason statusOnly, SenseData sense) {
        static Failure of(SenseData sense) {
            return new Failure(null, sense);
        }

        void report(Task task) {
            if (sense != null) {
                task.fail(sense);
            } else {
                task.fail(statusOnly);
            }
        }
    }

    void execute(Task task, ExtendedCopyCdb cdb) {
        ExtendedCopyParameters.Limits limits = UnitLimits.COPY_LIMITS;
        long maximumList = ExtendedCopyParameters.HEADER_LENGTH + (long) limits.maximumDescriptorListLength();
        if (cdb.parameterListLength() > maximumList) {
            task.fail(SenseReason.PARAMETER_LIST_LENGTH_ERROR, ExtendedCopyCdb.PARAMETER_LIST_LENGTH_FIELD);
            return;
        }
        if (cdb.parameterListLength() == 0) {
            task.good(); // SPC-4 §6.4.1: zero length is not an error, nothing is copied
            return;
        }
        ByteBuf list = task.parameterList(cdb.parameterListLength(), ExtendedCopyCdb.PARAMETER_LIST_LENGTH_FIELD);
        if (list == null) {
            return;
        }
        Parsed<ExtendedCopyParameters> parsed = ExtendedCopyParameters.parse(list, limits);
        if (parsed instanceof Parsed.Invalid<ExtendedCopyParameters> invalid) {
            task.fail(invalid);
            return;
        }
        ExtendedCopyParameters p = ((Parsed.Ok<ExtendedCopyParameters>) parsed).value();
        List<LogicalUnit> units = new ArrayList<>();
        for (int i = 0; i < p.cscds().size(); i++) {
            ExtendedCopyParameters.Cscd cscd = p.cscds().get(i);
            LogicalUnit unit = find(cscd.naa());
            int at = ExtendedCopyParameters.HEADER_LENGTH + i * ExtendedCopyParameters.CSCD_LENGTH;
            if (unit == null) {
                task.fail(SenseReason.COPY_TARGET_DEVICE_NOT_REACHABLE, FieldPointer.parameter(at + 8, 7));
                return;
            }
            if (cscd.diskBlockLength() != unit.device().geometry().logicalBlockSize()) {
                task.fail(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, FieldPointer.parameter(at + 29, 7));
                return;
            }
            units.add(unit);
        }
        List<Resolved> plan = new ArrayList<>();
        for (ExtendedCopyParameters.Segment s : p.segments()) {
            // A CSCD descriptor ID past the end of the list: left for the segment's turn (see run).
            LogicalUnit source = s.source() < units.size() ? units.get(s.source()) : null;
            LogicalUnit destination = s.destination() < units.size() ? units.get(s.destination()) : null;
            if (source == null || destination == null) {
                plan.add(new Resolved(source, destination, s));
                continue;
            }
            int lbs = source.device().geometry().logicalBlockSize();
            if (destination.device().geometry().logicalBlockSize() != lbs) {
                task.fail(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, s.field(DESTINATION_ID));
                return;
            }
            if ((long) s.blocks() * lbs > limits.maximumSegmentLength()) {
                task.fail(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST, s.field(10));
                return;
            }
            if (destination.writeProtected()) {
                task.fail(SenseReason.WRITE_PROTECTED);
                return;
            }
            ReadCdb read = new ReadCdb(ScsiOpcode.READ_16, s.sourceLba(), s.blocks(), false, false);
            WriteCdb write = new WriteCdb(ScsiOpcode.WRITE_16, s.destinationLba(), s.blocks(), false, false);
            // a unit being sanitized (or failed to be) refuses the copy manager as it refuses everyone
            Optional<SenseData> sanitizing = source.sanitizeRefusal(read).or(() -> destination.sanitizeRefusal(write));
            if (sanitizing.isPresent()) {
                task.fail(sanitizing.get());
                return;
            }
            if (source.copyConflicts(task.nexus(), read) || destination.copyConflicts(task.nexus(), write)) {
                task.fail(SenseReason.RESERVATION_CONFLICT);
                return;
            }
            plan.add(new Resolved(source, destination, s));
        }
        if (running.incrementAndGet() > MAXIMUM_CONCURRENT_COPIES) {
            running.decrementAndGet();
            task.fail(SenseReason.INSUFFICIENT_RESOURCES);
            return;
        }
        Key key = p.listIdUsage() == ExtendedCopyParameters.LIST_ID_NOT_HELD ? null
                : new Key(task.nexus(), p.listIdentifier());
        if (key != null) {
            synchronized (results) {
                CopyResults.CopyStatus previous = results.get(key);
                if (previous != null && previous.status() == CopyResults.Status.IN_PROGRESS) {
                    running.decrementAndGet();
                    task.fail(SenseReason.OPERATION_IN_PROGRESS, FieldPointer.parameter(0, 7));
                    return;
                }
                results.put(key, new CopyResults.CopyStatus(CopyResults.Status.IN_PROGRESS, 0, 0));
            }
        }
        long transferred = cdb.parameterListLength();
        run(plan, 0, 0, (segments, bytes, failure) -> {
            running.decrementAndGet();
            if (key != null) {
                synchronized (results) {
                    results.put(key, new CopyResults.CopyStatus(failure == null
                            ? CopyResults.Status.COMPLETED_WITHOUT_ERRORS : CopyResults.Status.COMPLETED_WITH_ERRORS,
                            segments, bytes));
                }
            }
            if (failure == null) {
                task.good(transferred);
            } else {
                failure.report(task);
            }
        });
    }

    private interface Done {
        void finished(int segments, long bytes, Failure failure);
    }

    /** Segment {@code index} and the rest; at most {@code COPY_LIMITS.maximumSegments()} deep when inline. */
    private static void run(List<Resolved> plan, int index, long bytes, Done done) {
        if (index == plan.size()) {
            done.finished(index, bytes, null);
            return;
        }
        Resolved r = plan.get(index);
        ExtendedCopyParameters.Segment s = r.segment();
        // Found while processing segment `index` (SPC §5.17.7.4): COPY ABORTED, the segment number in
        // COMMAND-SPECIFIC INFORMATION (item b), nothing written for it so INFORMATION not valid (c), and
        // the byte in error as an offset in the segment descriptor, SD = 1 (g). §5.17.7.3 would equally
        // allow refusing these before any segment runs (ILLEGAL REQUEST); Linux LIO finds both while
        // copying and answers COPY ABORTED, which is what initiators meet, so the copy manager does too.
        if (r.source() == null || r.destination() == null) {
            // §6.4.6.1: a CSCD the SOURCE / DESTINATION CSCD DESCRIPTOR ID specifies is not accessible
            // (here: there is no such CSCD descriptor) -> COPY ABORTED, UNREACHABLE COPY TARGET.
            int field = r.source() == null ? SOURCE_ID : DESTINATION_ID;
            done.finished(index, bytes, Failure.of(SenseData.copyAborted(SenseReason.UNREACHABLE_COPY_TARGET, index,
                    SegmentPointer.inSegment(field, 7))));
            return;
        }
        // The ranges are checked against the capacities of now (a unit may have been resized meanwhile).
        if (!r.source().device().geometry().contains(s.sourceLba(), s.blocks())
                || !r.destination().device().geometry().contains(s.destinationLba(), s.blocks())) {
            int field = r.source().device().geometry().contains(s.sourceLba(), s.blocks())
                    ? DESTINATION_LBA : SOURCE_LBA;
            done.finished(index, bytes, Failure.of(SenseData.copyAborted(SenseReason.COPY_ABORTED_LBA_OUT_OF_RANGE,
                    index, SegmentPointer.inSegment(field, 7))));
            return;
        }
        if (s.blocks() == 0) {
            run(plan, index + 1, bytes, done);
            return;
        }
        r.source().device().read(s.sourceLba(), s.blocks(), (data, readFailure) -> {
            if (readFailure != null) {
                done.finished(index, bytes, copyAborted(readFailure, SenseReason.COPY_ABORTED_READ_ERROR, index,
                        s.source()));
                return;
            }
            int length = data.readableBytes();
            r.destination().rangeLock().acquireShared(s.destinationLba(), s.blocks(), lease ->
                    r.destination().device().write(s.destinationLba(), data, false, (ok, writeFailure) -> {
                        lease.release();
                        data.release();
                        if (writeFailure != null) {
                            done.finished(index, bytes, copyAborted(writeFailure, SenseReason.COPY_ABORTED_WRITE_ERROR,
                                    index, s.destination()));
                        } else {
                            run(plan, index + 1, bytes + length, done);
                        }
                    }));
        });
    }

    /**
     * A backend failure mid-copy: COPY ABORTED (SPC §5.17.7.4) for segment {@code segment}, the segment
     * pointer at the first byte of the CSCD descriptor of the failing unit (item f, SD = 0), except a
     * resource shortage (BUSY) or a unit going away, which keep their own status / sense.
     */
    private static Failure copyAborted(BlockIoException failure, SenseReason medium, int segment, int cscdId) {
        SenseReason reason = switch (failure.error()) {
            case INSUFFICIENT_RESOURCES, CLOSED -> BlockErrors.reason(failure.error());
            case WRITE_PROTECTED -> SenseReason.COPY_ABORTED_WRITE_PROTECTED;
            default -> medium;
        };
        if (reason.senseKey() != SenseKey.COPY_ABORTED) {
            return new Failure(reason, null);
        }
        int cscd = ExtendedCopyParameters.HEADER_LENGTH + cscdId * ExtendedCopyParameters.CSCD_LENGTH;
        return Failure.of(SenseData.copyAborted(reason, segment, SegmentPointer.inParameterList(cscd)));
    }

    private LogicalUnit find(byte[] naa) {
        for (long lun : target.luns()) {
            LogicalUnit unit = target.unit(lun);
            if (unit != null && Arrays.equals(unit.naaDesignator(), naa)) {
                return unit;
            }
        }
        return null;
    }

    /** RECEIVE COPY RESULTS (SPC-4 §6.18). COPY STATUS for a list identifier never seen: INVALID FIELD IN CDB. */
    void receiveCopyResults(Task task, ReceiveCopyResultsCdb cdb) {
        ByteBuf out = Task.allocate(64);
        if (cdb.operatingParameters()) {
            new CopyResults.OperatingParameters(UnitLimits.COPY_LIMITS, MAXIMUM_CONCURRENT_COPIES,
                    MAXIMUM_CONCURRENT_COPIES,
                    List.of(ExtendedCopyParameters.BLOCK_TO_BLOCK, ExtendedCopyParameters.IDENTIFICATION_CSCD))
                    .encode(out);
        } else {
            CopyResults.CopyStatus status;
            synchronized (results) {
                status = results.get(new Key(task.nexus(), cdb.listIdentifier()));
            }
            if (status == null) {
                out.release();
                task.fail(SenseReason.INVALID_FIELD_IN_CDB, FieldPointer.cdb(2, 7));
                return;
            }
            status.encode(out);
        }
        task.parameterData(out, cdb.allocationLength());
    }
}
