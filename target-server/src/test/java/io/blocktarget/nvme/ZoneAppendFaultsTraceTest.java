package io.blocktarget.nvme;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.IoKind;
import io.blocktarget.block.ZoneLayout;
import io.blocktarget.block.Zones;
import io.blocktarget.block.fault.FaultAction;
import io.blocktarget.block.fault.FaultBlockDevice;
import io.blocktarget.block.fault.FaultMatch;
import io.blocktarget.block.fault.FaultRule;
import io.blocktarget.block.fault.FaultStatus;
import io.blocktarget.block.fault.FaultTrigger;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.block.trace.TraceRecord;
import io.blocktarget.block.trace.TraceRing;
import io.blocktarget.block.trace.Tracer;
import io.blocktarget.block.zoned.ZonedBlockDevice;
import io.blocktarget.nvme.TestSupport.Reply;
import io.blocktarget.protocol.nvme.ControllerRegister;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.ZoneAppendCommand;
import io.blocktarget.protocol.nvme.ZoneManagementReceiveCommand;
import io.blocktarget.protocol.nvme.ZoneManagementReceiveCommand.ReportingOption;
import io.blocktarget.protocol.nvme.ZoneManagementSendCommand;
import io.blocktarget.protocol.nvme.ZoneManagementSendCommand.Action;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Zone Append (ZNS §3.4.1) and Zone Management Send / Receive as the LUN's trace and fault rules see them (issue 13):
 * a Zone Append is recorded as {@code zone-append} at the LBA its completion returned, the zone commands as
 * {@code zone-management}; rules of those kinds fail them, an LBA range selects an append by the blocks it names from
 * ZSLBA, and a torn-write rule of kind zone-append keeps a prefix (the write pointer moves past it). The namespace's
 * device is wrapped in {@link FaultBlockDevice} as the server does. Zones of 16 blocks, 8 zones, 4 KiB blocks.
 */
class ZoneAppendFaultsTraceTest {
    private static final String NQN = "nqn.2026-11.io.blocktarget:zns-faults";
    private static final int LBS = 4096;
    private static final int ZSZE = 16;
    private static final int CC_ALL_SETS = TestHost.CC_ENABLE | 0b110 << 4;

    private final LunState state = new LunState("zns");
    private final BlockDevice zoned = new ZonedBlockDevice(TestSupport.ram("zns", LBS, LBS, ZSZE * 8L),
            ZoneLayout.of(ZSZE, ZSZE));
    private final Zones zones = zoned.zones().orElseThrow();
    private final BlockDevice device = FaultBlockDevice.wrap(zoned, state.faults());
    private final TestHost host = TestHost.connect(NvmeTargets.create(List.of(new NamespaceSpec(NQN, 1, "zns", device,
            state)), List.of(), NvmeLimits.DEFAULT, new ManualClock()), NQN, 0);
    private final NvmeQueue io;

    ZoneAppendFaultsTraceTest() {
        assertThat(host.propertySet(ControllerRegister.CC, CC_ALL_SETS)).isEqualTo(NvmeStatus.SUCCESS);
        io = host.connectIo(1);
    }

    @AfterEach
    void close() {
        host.admin.close();
        device.close();
    }

    private static byte[] data(int blocks, int seed) {
        byte[] b = new byte[blocks * LBS];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) (seed + i / LBS);
        }
        return b;
    }

    private Reply append(long zslba, int blocks, int seed) {
        return host.io(io, new ZoneAppendCommand(host.nextCid(), 1, zslba, blocks - 1, false, false, false,
                SglDescriptor.transportDataBlock(blocks * LBS)).toSqe(), Unpooled.wrappedBuffer(data(blocks, seed)));
    }

    private static long assignedLba(Reply r) {
        return Integer.toUnsignedLong(r.dw0()) | (long) r.dw1() << 32;
    }

    private NvmeStatus send(long slba, Action action) {
        return host.io(io, new ZoneManagementSendCommand(host.nextCid(), 1, slba, action, false, false,
                SglDescriptor.transportDataBlock(0)).toSqe(), null).status();
    }

    private void rule(String id, FaultMatch match, FaultAction action) {
        state.faults().add(new FaultRule(id, match, new FaultTrigger.Always(), action));
    }

    private static List<TraceRecord> read(Tracer tracer) {
        List<TraceRecord> records = new ArrayList<>();
        tracer.ring().reader().poll(1000, new TraceRing.Sink() {
            @Override
            public void record(TraceRecord record) {
                records.add(record);
            }

            @Override
            public void dropped(long count) {
                throw new AssertionError("dropped " + count);
            }
        });
        return records;
    }

    @Test
    void zoneAppendIsTracedAtTheLbaItWroteAndZoneCommandsAsZoneManagement() {
        Tracer tracer = new Tracer(64, LBS, LBS, 1 << 20, state.clock());
        state.startTrace(tracer);
        Reply first = append(2 * ZSZE, 3, 1);
        Reply second = append(2 * ZSZE, 2, 4);
        assertThat(List.of(first.status(), second.status())).containsOnly(NvmeStatus.SUCCESS);
        assertThat(assignedLba(second)).isEqualTo(2 * ZSZE + 3);
        assertThat(append(2 * ZSZE + 1, 1, 9).status()).isEqualTo(NvmeStatus.INVALID_FIELD);   // ZSLBA not a zone start
        assertThat(send(2 * ZSZE, Action.FINISH)).isEqualTo(NvmeStatus.SUCCESS);
        Reply report = host.io(io, new ZoneManagementReceiveCommand(host.nextCid(), 1, 3 * ZSZE, 128 / 4 - 1,
                ZoneManagementReceiveCommand.Action.REPORT_ZONES, ReportingOption.ALL, false,
                SglDescriptor.transportDataBlock(128)).toSqe(), null);
        assertThat(report.status()).isEqualTo(NvmeStatus.SUCCESS);
        report.release();
        state.stopTrace();

        List<TraceRecord> records = read(tracer);
        assertThat(records).extracting(TraceRecord::op).containsExactly("Zone Append", "Zone Append", "Zone Append",
                "Zone Management Send", "Zone Management Receive");
        assertThat(records).extracting(TraceRecord::kind).containsExactly(IoKind.ZONE_APPEND, IoKind.ZONE_APPEND,
                IoKind.ZONE_APPEND, IoKind.ZONE_MANAGEMENT, IoKind.ZONE_MANAGEMENT);
        assertThat(records).extracting(TraceRecord::opcode).containsExactly(0x7D, 0x7D, 0x7D, 0x79, 0x7A);
        // where the blocks went (DW0 / DW1), not the ZSLBA the command named; a failed one keeps its ZSLBA
        assertThat(records).extracting(TraceRecord::lba).containsExactly((long) 2 * ZSZE, (long) 2 * ZSZE + 3,
                (long) 2 * ZSZE + 1, (long) 2 * ZSZE, (long) 3 * ZSZE);
        assertThat(records).extracting(TraceRecord::blocks).containsExactly(3L, 2L, 1L, 0L, 0L);
        assertThat(records.get(0).bytes()).isEqualTo(3L * LBS);
        assertThat(records).extracting(TraceRecord::ok).containsExactly(true, true, false, true, true);
        assertThat(records.get(2).status()).isEqualTo("INVALID FIELD");
    }

    @Test
    void rulesOfKindZoneAppendFailAppendsOnlyAndTheirRangeSelectsByZslba() {
        rule("append-zone-3", FaultMatch.ANY.withKinds(EnumSet.of(IoKind.ZONE_APPEND)).withLbas(3 * ZSZE, 4 * ZSZE - 1),
                new FaultAction.Fail(FaultStatus.of(FaultStatus.Condition.MEDIUM_ERROR)));
        assertThat(append(3 * ZSZE, 1, 1).status()).isEqualTo(NvmeStatus.WRITE_FAULT);
        assertThat(zones.zone(3).writePointer()).as("nothing appended").isEqualTo(3 * ZSZE);
        assertThat(append(2 * ZSZE, 1, 1).status()).as("another zone").isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.write(io, 1, 3 * ZSZE, data(1, 1), LBS, false).status()).as("a write").isEqualTo(
                NvmeStatus.SUCCESS);
        ByteBuf log = host.getLogPage(1, 0, 0, 64, false).data();
        assertThat(log.getLongLE(16)).as("Error Information LBA: first in the rule's range").isEqualTo(3 * ZSZE);
        log.release();

        rule("zone-mgmt", FaultMatch.ANY.withKinds(EnumSet.of(IoKind.ZONE_MANAGEMENT)),
                new FaultAction.Fail(FaultStatus.of(FaultStatus.Condition.NOT_READY)));
        assertThat(send(2 * ZSZE, Action.RESET)).isEqualTo(NvmeStatus.NAMESPACE_NOT_READY);
        assertThat(zones.zone(2).writePointer()).as("not reset").isEqualTo(2 * ZSZE + 1);
    }

    @Test
    void aTornWriteRuleOfKindZoneAppendKeepsAPrefixAndMovesTheWritePointerPastIt() {
        rule("torn", FaultMatch.ANY.withKinds(EnumSet.of(IoKind.ZONE_APPEND)), new FaultAction.TornWrite(3));
        assertThat(append(ZSZE, 4, 0x10).status()).isEqualTo(NvmeStatus.WRITE_FAULT);
        assertThat(zones.zone(1).writePointer()).isEqualTo(ZSZE + 3);
        Reply back = host.read(io, 1, ZSZE, 3, LBS);
        byte[] got = new byte[3 * LBS];
        back.data().getBytes(back.data().readerIndex(), got);
        back.release();
        assertThat(got).isEqualTo(Arrays.copyOf(data(4, 0x10), 3 * LBS));
        assertThat(append(ZSZE, 1, 0x20).status()).as("one block: nothing persists").isEqualTo(NvmeStatus.WRITE_FAULT);
        assertThat(zones.zone(1).writePointer()).isEqualTo(ZSZE + 3);
        // a plain write is no zone append: the rule leaves it alone
        assertThat(host.write(io, 1, ZSZE + 3, data(2, 0x30), LBS, false).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(zones.zone(1).writePointer()).isEqualTo(ZSZE + 5);
    }
}
