package io.blocktarget.scsi;

import io.blocktarget.block.BlockError;
import io.blocktarget.block.Zone;
import io.blocktarget.block.ZoneCondition;
import io.blocktarget.block.ZoneType;
import io.blocktarget.block.Zones;
import io.blocktarget.protocol.scsi.FieldPointer;
import io.blocktarget.protocol.scsi.ReportZonesCdb;
import io.blocktarget.protocol.scsi.ReportZonesData;
import io.blocktarget.protocol.scsi.SenseReason;
import io.blocktarget.protocol.scsi.ZbcOutCdb;
import io.blocktarget.protocol.scsi.ZoneDescriptor;
import io.blocktarget.protocol.scsi.ZonedBlockDeviceCharacteristicsVpd;
import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * The ZBC-2 commands of a host-managed zoned logical unit over the shared zone model ({@link Zones}): REPORT ZONES,
 * the four ZBC OUT actions, and the Zoned Block Device Characteristics VPD page. Reads and writes need nothing here:
 * the device ({@link io.blocktarget.block.zoned.ZonedBlockDevice}) checks them and {@link BlockErrors} names the
 * sense.
 *
 * <p>The SCSI view of a zone whose capacity is smaller than its size is two zones (ZBC-2 §4.4.2.5): a sequential
 * write required zone of the capacity, then a gap zone of the rest; B6h then says ZONE ALIGNMENT METHOD 8h with the
 * zone size as ZONE STARTING LBA GRANULARITY, which is how Linux's sd_zbc accepts gap zones (it skips them and sees
 * zones of the granularity's length with the SWR zone's length as capacity).
 */
final class ZbcCommands {
    private final Zones zones;
    private final boolean gaps;

    ZbcCommands(Zones zones) {
        this.zones = zones;
        this.gaps = zones.layout().zoneCapacity() < zones.layout().zoneSize();
    }

    /** B6h (ZBC-2 §6.5.2): URSWRZ, the open-zone limit (FFFFFFFFh = none), the alignment method. */
    ZonedBlockDeviceCharacteristicsVpd characteristics() {
        int maxOpen = zones.layout().maxOpen();
        return new ZonedBlockDeviceCharacteristicsVpd(zones.layout().unrestrictedReads(),
                ZonedBlockDeviceCharacteristicsVpd.NOT_REPORTED, ZonedBlockDeviceCharacteristicsVpd.NOT_REPORTED,
                maxOpen == 0 ? ZonedBlockDeviceCharacteristicsVpd.NOT_REPORTED : maxOpen,
                gaps ? ZonedBlockDeviceCharacteristicsVpd.CONSTANT_ZONE_START_OFFSET
                        : ZonedBlockDeviceCharacteristicsVpd.CONSTANT_ZONE_LENGTH,
                gaps ? zones.zoneSize() : 0);
    }

    /**
     * REPORT ZONES (ZBC-2 §5.4): the zones from the one holding ZONE START LBA on that REPORTING OPTIONS selects, as
     * many descriptors as fit the allocation length; ZONE LIST LENGTH counts all that match, or with PARTIAL only those
     * returned. ZONE START LBA past the last LBA is LBA OUT OF RANGE.
     */
    void reportZones(Task task, ReportZonesCdb cdb) {
        if (cdb.zoneStartLba() < 0 || cdb.zoneStartLba() >= zones.blockCount()) {
            task.fail(SenseReason.LBA_OUT_OF_RANGE);
            return;
        }
        // descriptors the allocation length reaches into (the last perhaps cut: SPC-5 §4.2.5.6)
        long room = cdb.allocationLength() <= ReportZonesData.HEADER_LENGTH ? 0
                : (cdb.allocationLength() - ReportZonesData.HEADER_LENGTH + ZoneDescriptor.LENGTH - 1)
                / ZoneDescriptor.LENGTH;
        // at most one maximum transfer of data (8 MiB, 131071 descriptors, what Linux asks at most): a 4 GiB
        // allocation length must not make a 128 MiB buffer; the ZONE LIST LENGTH still counts what matches
        room = Math.min(room, (UnitLimits.MAXIMUM_TRANSFER_BYTES - ReportZonesData.HEADER_LENGTH) / ZoneDescriptor.LENGTH);
        List<ZoneDescriptor> reported = new ArrayList<>((int) Math.min(room, 1024));
        long matched = 0;
        int first = zones.zoneIndex(cdb.zoneStartLba());
        scan:
        for (int i = first; i < zones.zoneCount(); i++) {
            for (ZoneDescriptor d : scsiZones(zones.zone(i))) {
                if (d.start() + d.length() <= cdb.zoneStartLba()) {
                    continue;   // the SWR part before a gap that holds ZONE START LBA
                }
                if (!ReportZonesData.matches(cdb.reportingOptions(), d.zoneType(), d.condition())) {
                    continue;
                }
                if (reported.size() < room) {
                    reported.add(d);
                } else if (cdb.partial()) {
                    break scan;
                }
                matched++;
            }
        }
        int same = gaps ? ReportZonesData.SAME_DIFFERENT : zones.layout().conventionalZones() > 0
                ? ReportZonesData.SAME_LENGTH_TYPES_DIFFER : ReportZonesData.SAME_ALL;
        ReportZonesData header = new ReportZonesData(Math.min(0xFFFF_FFFFL, matched * ZoneDescriptor.LENGTH), same,
                zones.blockCount() - 1, gaps ? zones.zoneSize() : 0);
        ByteBuf out = Task.allocate(ReportZonesData.HEADER_LENGTH + reported.size() * ZoneDescriptor.LENGTH);
        header.encode(out);
        reported.forEach(d -> d.encode(out));
        task.parameterData(out, cdb.allocationLength());
    }

    /** A model zone as ZBC-2 sees it: one zone, or a sequential zone of the capacity and a gap zone. */
    private List<ZoneDescriptor> scsiZones(Zone z) {
        ZoneCondition c = z.condition();
        long invalid = ZoneDescriptor.INVALID_WRITE_POINTER;
        if (z.type() == ZoneType.CONVENTIONAL) {
            return List.of(new ZoneDescriptor(ZoneType.CONVENTIONAL.code(), c.code(), false, false, z.size(), z.start(),
                    invalid));
        }
        boolean valid = c != ZoneCondition.READ_ONLY && c != ZoneCondition.OFFLINE;
        ZoneDescriptor seq = new ZoneDescriptor(ZoneType.SEQUENTIAL_WRITE_REQUIRED.code(), c.code(), false, false,
                z.capacity(), z.start(), valid ? z.writePointer() : invalid);
        if (z.capacity() == z.size()) {
            return List.of(seq);
        }
        return List.of(seq, new ZoneDescriptor(ZoneType.GAP.code(), ZoneCondition.NOT_WRITE_POINTER.code(), false,
                false, z.size() - z.capacity(), z.capacityEnd(), invalid));
    }

    /**
     * ZBC OUT (ZBC-2 §5.2 CLOSE ZONE, §5.3 FINISH ZONE, §5.5 OPEN ZONE, §5.6 RESET WRITE POINTER). With ALL the zones
     * the action applies to; else ZONE COUNT zones from ZONE ID, which must be the start of a sequential write
     * required zone (LBA OUT OF RANGE past the end; INVALID FIELD IN CDB for other LBAs, conventional and gap zones —
     * Linux's sd expects that for conventional zones and stays quiet). A request the zone's condition makes
     * meaningless (open a FULL zone, close an EMPTY one) changes nothing and is GOOD; READ ONLY / OFFLINE zones and
     * exhausted resources are the ZBC sense codes. ZONE COUNT > 1 on a device with gap zones is refused (which zones
     * it counts would be ambiguous).
     */
    void zbcOut(Task task, ZbcOutCdb cdb) {
        IntFunction<BlockError> single = switch (cdb.action()) {
            case OPEN_ZONE -> zones::open;
            case CLOSE_ZONE -> zones::close;
            case FINISH_ZONE -> zones::finish;
            case RESET_WRITE_POINTER -> zones::reset;
        };
        if (cdb.all()) {
            finish(task, switch (cdb.action()) {
                case OPEN_ZONE -> zones.openAll();
                case CLOSE_ZONE -> zones.closeAll();
                case FINISH_ZONE -> zones.finishAll();
                case RESET_WRITE_POINTER -> zones.resetAll();
            });
            return;
        }
        if (cdb.zoneId() < 0 || cdb.zoneId() >= zones.blockCount()) {
            task.fail(SenseReason.LBA_OUT_OF_RANGE);
            return;
        }
        int first = zones.zoneIndex(cdb.zoneId());
        Zone zone = zones.zone(first);
        if (cdb.zoneId() != zone.start() || zone.type() != ZoneType.SEQUENTIAL_WRITE_REQUIRED) {
            task.fail(SenseReason.INVALID_FIELD_IN_CDB, FieldPointer.cdb(2, 7));   // ZONE ID
            return;
        }
        if (cdb.zones() > 1 && (gaps || (long) first + cdb.zones() > zones.zoneCount())) {
            task.fail(SenseReason.INVALID_FIELD_IN_CDB, FieldPointer.cdb(12, 7));  // ZONE COUNT
            return;
        }
        for (int i = first; i < first + cdb.zones(); i++) {
            BlockError error = single.apply(i);
            if (error != null && error != BlockError.ZONE_INVALID_STATE_TRANSITION) {
                finish(task, error);
                return;
            }
        }
        task.good();
    }

    private static void finish(Task task, BlockError error) {
        if (error == null || error == BlockError.ZONE_INVALID_STATE_TRANSITION) {
            task.good();   // ZBC-2: nothing to do for this zone's condition is not an error
        } else {
            task.fail(BlockErrors.reason(error));
        }
    }
}
