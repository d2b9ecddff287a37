package io.blocktarget.nvme;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.ZoneCondition;
import io.blocktarget.block.ZoneLayout;
import io.blocktarget.block.Zones;
import io.blocktarget.block.zoned.ZonedBlockDevice;
import io.blocktarget.nvme.TestSupport.Reply;
import io.blocktarget.protocol.nvme.AdminOpcode;
import io.blocktarget.protocol.nvme.ControllerRegister;
import io.blocktarget.protocol.nvme.FeatureId;
import io.blocktarget.protocol.nvme.GetLogPageCommand;
import io.blocktarget.protocol.nvme.NvmOpcode;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.protocol.nvme.WriteZeroesCommand;
import io.blocktarget.protocol.nvme.ZoneAppendCommand;
import io.blocktarget.protocol.nvme.ZoneManagementReceiveCommand;
import io.blocktarget.protocol.nvme.ZoneManagementReceiveCommand.ReportingOption;
import io.blocktarget.protocol.nvme.ZoneManagementSendCommand;
import io.blocktarget.protocol.nvme.ZoneManagementSendCommand.Action;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A zoned namespace (Zoned Namespace Command Set 1.1) over the shared zone model: command set selection, the CSI 02h
 * Identify structures and effects log, every Zone Management action and status, Zone Append, and the Changed Zone
 * List with its notice. Zones of 16 blocks with a capacity of 12, 8 zones, unless a test says otherwise.
 */
class ZonedNamespaceTest {
    private static final String NQN = "nqn.2026-11.io.blocktarget:zns";
    /** CC as Linux writes it when CAP.CSS bit 6 is set: CSS = 110b. */
    private static final int CC_ALL_SETS = TestHost.CC_ENABLE | 0b110 << 4;
    private static final int ZSZE = 16;
    private static final int ZCAP = 12;
    private static final int ZONES = 8;

    private final ManualClock clock = new ManualClock();
    private Zones zones;
    private NvmeQueue io;

    static List<Integer> lbs() {
        return TestSupport.lbsMatrix();
    }

    private TestHost host(int lbs, ZoneLayout layout, int cc) {
        BlockDevice ram = TestSupport.ram("zns", lbs, lbs, (long) ZSZE * ZONES);
        ZonedBlockDevice zoned = new ZonedBlockDevice(ram, layout);
        zones = zoned.zones().orElseThrow();
        NvmeTarget target = NvmeTargets.create(List.of(new NamespaceSpec(NQN, 1, "zns", zoned),
                new NamespaceSpec(NQN, 2, "plain", TestSupport.ram("plain", lbs, lbs, 64))), List.of(),
                NvmeLimits.DEFAULT, clock);
        TestHost host = TestHost.connect(target, NQN, 0);
        assertThat(host.propertySet(ControllerRegister.CC, cc)).isEqualTo(NvmeStatus.SUCCESS);
        io = host.connectIo(1);
        return host;
    }

    private TestHost host(int lbs) {
        return host(lbs, ZoneLayout.of(ZSZE, ZCAP), CC_ALL_SETS);
    }

    private static byte[] data(int blocks, int lbs, int seed) {
        byte[] b = new byte[blocks * lbs];
        Arrays.fill(b, (byte) seed);
        return b;
    }

    private Reply write(TestHost host, long slba, int blocks, int lbs) {
        return host.write(io, 1, slba, data(blocks, lbs, (int) slba + 1), lbs, false);
    }

    private Reply append(TestHost host, long zslba, int blocks, int lbs) {
        Sqe sqe = new ZoneAppendCommand(host.nextCid(), 1, zslba, blocks - 1, false, false, false,
                SglDescriptor.transportDataBlock(blocks * lbs)).toSqe();
        return host.io(io, sqe, Unpooled.wrappedBuffer(data(blocks, lbs, 0x5A)));
    }

    private NvmeStatus send(TestHost host, long slba, Action action, boolean all) {
        return host.io(io, new ZoneManagementSendCommand(host.nextCid(), 1, slba, action, all, false,
                SglDescriptor.transportDataBlock(0)).toSqe(), null).status();
    }

    private Reply report(TestHost host, long slba, ReportingOption option, boolean partial, int bytes) {
        return host.io(io, new ZoneManagementReceiveCommand(host.nextCid(), 1, slba, bytes / 4 - 1,
                ZoneManagementReceiveCommand.Action.REPORT_ZONES, option, partial,
                SglDescriptor.transportDataBlock(bytes)).toSqe(), null);
    }

    /** One zone's state code (ZS) and write pointer as Report Zones gives them. */
    private record Reported(int zs, long zslba, long zcap, long wp) {
    }

    private List<Reported> reportAll(TestHost host) {
        Reply r = report(host, 0, ReportingOption.ALL, false, 64 + 64 * ZONES);
        assertThat(r.status()).isEqualTo(NvmeStatus.SUCCESS);
        ByteBuf b = r.data();
        List<Reported> out = new ArrayList<>();
        long nz = b.getLongLE(0);
        for (int k = 0; k < nz; k++) {
            int p = 64 + 64 * k;
            assertThat(b.getByte(p) & 0xF).isEqualTo(2); // ZT sequential write required
            out.add(new Reported(b.getUnsignedByte(p + 1) >>> 4, b.getLongLE(p + 16), b.getLongLE(p + 8),
                    b.getLongLE(p + 24)));
        }
        r.release();
        return out;
    }

    private int zs(TestHost host, int zone) {
        return reportAll(host).get(zone).zs();
    }

    // ------------------------------------------------------------------------------------- command set selection

    @Test
    void capAdvertisesIoCommandSetsAndCcSelectsThem() {
        TestHost host = TestHost.connect(NvmeTargets.create(List.of(new NamespaceSpec(NQN, 1, "p",
                TestSupport.ram("p", 512, 512, 64))), List.of(), NvmeLimits.DEFAULT, clock), NQN, 0);
        ControllerRegister.Cap cap = ControllerRegister.Cap.decode(host.propertyGet(ControllerRegister.CAP));
        assertThat(cap.css()).isEqualTo(0b0100_0001); // bit 37 NVM, bit 43 I/O Command Sets; not bit 44 admin only
        assertThat(host.propertySet(ControllerRegister.CC, CC_ALL_SETS)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.propertyGet(ControllerRegister.CSTS) & 0b11).isEqualTo(1); // RDY, no CFS
        for (int css : new int[] {0b001, 0b010, 0b101, 0b111}) {
            TestHost other = TestHost.connect(host.target, NQN, 0);
            assertThat(other.propertySet(ControllerRegister.CC, TestHost.CC_ENABLE | css << 4))
                    .isEqualTo(NvmeStatus.SUCCESS);
            assertThat(other.propertyGet(ControllerRegister.CSTS) & 0b11).as("CSS %s", css).isEqualTo(0b10); // CFS
        }
    }

    @Test
    void identifyIoCommandSetCombinations() {
        TestHost host = host(4096);
        Reply r = host.identify(0x1C, 0, 0);
        assertThat(r.status()).isEqualTo(NvmeStatus.SUCCESS);
        ByteBuf b = r.data();
        assertThat(b.getLongLE(0)).isEqualTo(0b101); // NVM + Zoned Namespace
        assertThat(b.getLongLE(8)).isZero();
        r.release();
    }

    @Test
    void ioCommandSetProfileFeatureSelectsCombinationZeroOnly() {
        TestHost host = host(4096);
        assertThat(host.setFeature(FeatureId.IO_COMMAND_SET_PROFILE, 0).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.setFeature(FeatureId.IO_COMMAND_SET_PROFILE, 1).status())
                .isEqualTo(NvmeStatus.IO_COMMAND_SET_COMBINATION_REJECTED);
        assertThat(host.setFeature(FeatureId.IO_COMMAND_SET_PROFILE, 0x1FF).status())
                .isEqualTo(NvmeStatus.IO_COMMAND_SET_COMBINATION_REJECTED);
        Reply current = host.getFeature(FeatureId.IO_COMMAND_SET_PROFILE, 0, 0);
        assertThat(current.status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(current.dw0()).isZero();
    }

    @Test
    void zoneCommandsNeedTheCommandSetEnabled() {
        TestHost host = host(4096, ZoneLayout.of(ZSZE, ZCAP), TestHost.CC_ENABLE); // CC.CSS = 000b: NVM only
        assertThat(send(host, 0, Action.OPEN, false)).isEqualTo(NvmeStatus.INVALID_OPCODE);
        assertThat(report(host, 0, ReportingOption.ALL, true, 4096).status()).isEqualTo(NvmeStatus.INVALID_OPCODE);
        assertThat(append(host, 0, 1, 4096).status()).isEqualTo(NvmeStatus.INVALID_OPCODE);
        // the zone rules still hold for NVM writes
        assertThat(write(host, 4, 1, 4096).status()).isEqualTo(NvmeStatus.ZONE_INVALID_WRITE);
    }

    @Test
    void zoneCommandsOnANamespaceThatIsNotZonedAreInvalidOpcode() {
        TestHost host = host(4096);
        assertThat(host.io(io, new ZoneManagementSendCommand(host.nextCid(), 2, 0, Action.OPEN, false, false,
                SglDescriptor.transportDataBlock(0)).toSqe(), null).status()).isEqualTo(NvmeStatus.INVALID_OPCODE);
        assertThat(host.io(io, new ZoneAppendCommand(host.nextCid(), 2, 0, 0, false, false, false,
                SglDescriptor.transportDataBlock(4096)).toSqe(), Unpooled.wrappedBuffer(new byte[4096])).status())
                .isEqualTo(NvmeStatus.INVALID_OPCODE);
    }

    // ---------------------------------------------------------------------------------------------- Identify

    @Test
    void identifyZnsNamespaceAndController() {
        ZoneLayout layout = ZoneLayout.of(ZSZE, ZCAP).withLimits(3, 5).withZoneAppendMaxBlocks(32);
        TestHost host = host(4096, layout, CC_ALL_SETS);
        Reply ns = host.identify(0x05, 1, 2);
        assertThat(ns.status()).isEqualTo(NvmeStatus.SUCCESS);
        ByteBuf b = ns.data();
        assertThat(b.getUnsignedShortLE(0)).isZero();          // ZOC: Linux accepts no characteristics
        assertThat(b.getUnsignedShortLE(2)).isEqualTo(1);      // OZCS: RAZB (unrestricted reads)
        assertThat(b.getUnsignedIntLE(4)).isEqualTo(4);        // MAR: 5 active, 0's based
        assertThat(b.getUnsignedIntLE(8)).isEqualTo(2);        // MOR: 3 open
        assertThat(b.getLongLE(2816)).isEqualTo(ZSZE);         // LBAFE0 ZSZE
        assertThat(b.getUnsignedByte(2824)).isEqualTo((short) 0); // ZDES: no extensions
        ns.release();
        Reply ctrl = host.identify(0x06, 0, 2);
        assertThat(ctrl.status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(ctrl.data().getUnsignedByte(0)).isEqualTo((short) 5); // ZASL: 32 × 4 KiB = 2^5 × 4 KiB
        ctrl.release();
        // the NVM namespace has no ZNS structure; the zoned one keeps its NVM one (CNS 05h CSI 00h)
        assertThat(host.identify(0x05, 2, 2).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        Reply nvm = host.identify(0x05, 1, 0);
        assertThat(nvm.status()).isEqualTo(NvmeStatus.SUCCESS);
        nvm.release();
        // an inactive NSID up to NN (64: at least MNAN) is zeros; above NN it is Invalid Namespace
        Reply inactive = host.identify(0x05, 3, 2);
        assertThat(inactive.status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(inactive.bytes()).hasSize(4096).containsOnly(0);
        inactive.release();
        assertThat(host.identify(0x05, 65, 2).status()).isEqualTo(NvmeStatus.INVALID_NAMESPACE_OR_FORMAT);
        assertThat(host.identify(0x05, 1, 1).status()).isEqualTo(NvmeStatus.INVALID_FIELD); // KV: not supported
    }

    @Test
    void unlimitedResourcesAreAllOnes() {
        TestHost host = host(4096);
        Reply ns = host.identify(0x05, 1, 2);
        assertThat(ns.data().getUnsignedIntLE(4)).isEqualTo(0xFFFF_FFFFL);
        assertThat(ns.data().getUnsignedIntLE(8)).isEqualTo(0xFFFF_FFFFL);
        ns.release();
        Reply ctrl = host.identify(0x06, 0, 2);
        assertThat(ctrl.data().getUnsignedByte(0)).isEqualTo((short) 8); // no limit: ZASL = MDTS (1 MiB)
        ctrl.release();
    }

    @Test
    void descriptorListNamesTheCommandSet() {
        TestHost host = host(4096);
        assertThat(csi(host, 1)).isEqualTo(2);
        assertThat(csi(host, 2)).isZero();
    }

    private static int csi(TestHost host, int nsid) {
        ByteBuf b = host.identifyData(0x03, nsid);
        try {
            for (int p = 0; p < 4096 && b.getByte(p) != 0; p += 4 + b.getUnsignedByte(p + 1)) {
                if (b.getByte(p) == 4) {
                    assertThat(b.getUnsignedByte(p + 1)).isEqualTo((short) 1);
                    return b.getUnsignedByte(p + 4);
                }
            }
            throw new AssertionError("no CSI descriptor");
        } finally {
            b.release();
        }
    }

    @Test
    void commandsSupportedAndEffectsPerCommandSet() {
        TestHost host = host(4096);
        ByteBuf zns = effects(host, 2);
        assertThat(zns.getIntLE(1024 + 4 * 0x79)).isEqualTo(0b11); // CSUPP + LBCC
        assertThat(zns.getIntLE(1024 + 4 * 0x7A)).isEqualTo(0b01);
        assertThat(zns.getIntLE(1024 + 4 * 0x7D)).isEqualTo(0b11); // Linux makes the namespace read-only without it
        assertThat(zns.getIntLE(1024 + 4 * 0x01)).isEqualTo(0b11); // Write
        assertThat(zns.getIntLE(4 * 0x06)).isEqualTo(1);           // admin: Identify
        zns.release();
        ByteBuf nvm = effects(host, 0);
        assertThat(nvm.getIntLE(1024 + 4 * 0x7D)).isZero();
        assertThat(nvm.getIntLE(1024 + 4 * 0x79)).isZero();
        nvm.release();
        Reply kv = host.admin(new GetLogPageCommand(host.nextCid(), 0, 5, 0, false, 1023, 0, 0, false, 1,
                SglDescriptor.transportDataBlock(4096)).toSqe());
        assertThat(kv.status()).isEqualTo(NvmeStatus.INVALID_FIELD);
    }

    private static ByteBuf effects(TestHost host, int csi) {
        Reply r = host.admin(new GetLogPageCommand(host.nextCid(), 0, 5, 0, false, 1023, 0, 0, false, csi,
                SglDescriptor.transportDataBlock(4096)).toSqe());
        assertThat(r.status()).isEqualTo(NvmeStatus.SUCCESS);
        return r.data();
    }

    // -------------------------------------------------------------------------------------- write pointer rules

    @ParameterizedTest
    @MethodSource("lbs")
    void writesFollowTheWritePointerAtEveryBlockSize(int lbs) {
        TestHost host = host(lbs);
        assertThat(write(host, 0, 4, lbs).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(zs(host, 0)).isEqualTo(0x2); // implicitly opened
        assertThat(reportAll(host).get(0).wp()).isEqualTo(4);
        // not at the write pointer: ahead and behind
        assertThat(write(host, 5, 1, lbs).status()).isEqualTo(NvmeStatus.ZONE_INVALID_WRITE);
        assertThat(write(host, 3, 1, lbs).status()).isEqualTo(NvmeStatus.ZONE_INVALID_WRITE);
        // up to the capacity (12) is fine, one block more crosses it
        assertThat(write(host, 4, 9, lbs).status()).isEqualTo(NvmeStatus.ZONE_BOUNDARY_ERROR);
        assertThat(write(host, 4, 8, lbs).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(zs(host, 0)).isEqualTo(0xE); // full
        assertThat(write(host, 12, 1, lbs).status()).isEqualTo(NvmeStatus.ZONE_BOUNDARY_ERROR); // into the gap
        // the data reads back; the part past the capacity is a boundary error
        Reply read = host.read(io, 1, 4, 8, lbs);
        assertThat(read.status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(read.bytes()).isEqualTo(data(8, lbs, 5));
        assertThat(host.read(io, 1, 8, 8, lbs).status()).isEqualTo(NvmeStatus.ZONE_BOUNDARY_ERROR);
        // Write Zeroes is a write like any other
        Sqe wz = new WriteZeroesCommand(host.nextCid(), 1, ZSZE + 1, 0, false, false, false).toSqe();
        assertThat(host.io(io, wz, null).status()).isEqualTo(NvmeStatus.ZONE_INVALID_WRITE);
        Sqe wzAt = new WriteZeroesCommand(host.nextCid(), 1, ZSZE, 1, false, false, false).toSqe();
        assertThat(host.io(io, wzAt, null).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(reportAll(host).get(1).wp()).isEqualTo(ZSZE + 2);
    }

    @Test
    void writeToAFullZoneIsZoneIsFull() {
        TestHost host = host(4096);
        assertThat(send(host, 0, Action.FINISH, false)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(write(host, 0, 1, 4096).status()).isEqualTo(NvmeStatus.ZONE_IS_FULL);
        assertThat(append(host, 0, 1, 4096).status()).isEqualTo(NvmeStatus.ZONE_IS_FULL);
    }

    // ------------------------------------------------------------------------------------------------ Zone Append

    @ParameterizedTest
    @MethodSource("lbs")
    void zoneAppendReturnsTheLbaItWrote(int lbs) {
        TestHost host = host(lbs);
        long zone2 = 2L * ZSZE;
        Reply first = append(host, zone2, 3, lbs);
        assertThat(first.status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(first.dw0()).isEqualTo((int) zone2);
        assertThat(first.dw1()).isZero();
        Reply second = append(host, zone2, 2, lbs);
        assertThat(second.status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(second.dw0()).isEqualTo((int) zone2 + 3);
        assertThat(reportAll(host).get(2).wp()).isEqualTo(zone2 + 5);
        Reply read = host.read(io, 1, zone2 + 3, 2, lbs);
        assertThat(read.bytes()).isEqualTo(data(2, lbs, 0x5A));
        // not the zone's start LBA; more than the zone has left
        assertThat(append(host, zone2 + 1, 1, lbs).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        assertThat(append(host, zone2, 8, lbs).status()).isEqualTo(NvmeStatus.ZONE_BOUNDARY_ERROR);
        assertThat(append(host, (long) ZSZE * ZONES, 1, lbs).status()).isEqualTo(NvmeStatus.LBA_OUT_OF_RANGE);
    }

    @Test
    void zoneAppendSizeLimitAtTheLimitAndOneBlockOver() {
        // 8 blocks of 4 KiB = 32 KiB: ZASL 3
        TestHost host = host(4096, ZoneLayout.of(ZSZE, ZSZE).withZoneAppendMaxBlocks(8), CC_ALL_SETS);
        Reply ctrl = host.identify(0x06, 0, 2);
        assertThat(ctrl.data().getUnsignedByte(0)).isEqualTo((short) 3);
        ctrl.release();
        assertThat(append(host, 0, 8, 4096).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(append(host, 0, 9, 4096).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
    }

    @Test
    void zoneAppendLimitIsAPowerOfTwoOfAtLeastEightKibAndOneBlock() {
        // 12 × 512 B = 6 KiB: rounded down to 4 KiB, then up to the smallest ZASL can state, 8 KiB (ZASL 1)
        TestHost host = host(512, ZoneLayout.of(ZSZE, ZSZE).withZoneAppendMaxBlocks(12), CC_ALL_SETS);
        Reply ctrl = host.identify(0x06, 0, 2);
        assertThat(ctrl.data().getUnsignedByte(0)).isEqualTo((short) 1);
        ctrl.release();
        assertThat(append(host, 0, 16, 512).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(append(host, ZSZE, 17, 512).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        // 64 KiB blocks with a one-block limit: ZASL covers the block (2^4 × 4 KiB)
        TestHost big = host(65536, ZoneLayout.of(ZSZE, ZSZE).withZoneAppendMaxBlocks(1), CC_ALL_SETS);
        Reply id = big.identify(0x06, 0, 2);
        assertThat(id.data().getUnsignedByte(0)).isEqualTo((short) 4);
        id.release();
        assertThat(append(big, 0, 1, 65536).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(append(big, 0, 2, 65536).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
    }

    // --------------------------------------------------------------------------------- Zone Management Send

    @Test
    void zoneStateTransitionsThroughZoneManagementSend() {
        TestHost host = host(4096);
        assertThat(send(host, 0, Action.OPEN, false)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(zs(host, 0)).isEqualTo(0x3); // explicitly opened
        assertThat(send(host, 0, Action.OPEN, false)).isEqualTo(NvmeStatus.SUCCESS); // already open
        assertThat(write(host, 0, 2, 4096).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(zs(host, 0)).isEqualTo(0x3); // a write keeps it explicitly opened
        assertThat(send(host, 0, Action.CLOSE, false)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(zs(host, 0)).isEqualTo(0x4); // closed
        assertThat(send(host, 0, Action.CLOSE, false)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(write(host, 2, 1, 4096).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(zs(host, 0)).isEqualTo(0x2); // a write opens a closed zone implicitly
        assertThat(send(host, 0, Action.FINISH, false)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(zs(host, 0)).isEqualTo(0xE);
        assertThat(send(host, 0, Action.OPEN, false)).isEqualTo(NvmeStatus.INVALID_ZONE_STATE_TRANSITION);
        assertThat(send(host, 0, Action.CLOSE, false)).isEqualTo(NvmeStatus.INVALID_ZONE_STATE_TRANSITION);
        assertThat(send(host, 0, Action.RESET, false)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(reportAll(host).get(0)).isEqualTo(new Reported(0x1, 0, ZCAP, 0));
        assertThat(send(host, 0, Action.RESET, false)).isEqualTo(NvmeStatus.SUCCESS); // empty stays empty
        assertThat(send(host, 0, Action.CLOSE, false)).isEqualTo(NvmeStatus.INVALID_ZONE_STATE_TRANSITION);
        assertThat(send(host, 0, Action.FINISH, false)).isEqualTo(NvmeStatus.SUCCESS); // empty → full
        assertThat(zs(host, 0)).isEqualTo(0xE);
        // reset deallocates: the blocks read as zeros
        assertThat(send(host, 0, Action.RESET, false)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.read(io, 1, 0, 2, 4096).bytes()).isEqualTo(new byte[8192]);
    }

    @Test
    void zoneManagementSendChecksSlbaAndAction() {
        TestHost host = host(4096);
        assertThat(send(host, 1, Action.OPEN, false)).isEqualTo(NvmeStatus.INVALID_FIELD);  // not a zone start
        assertThat(send(host, (long) ZSZE * ZONES, Action.OPEN, false)).isEqualTo(NvmeStatus.LBA_OUT_OF_RANGE);
        assertThat(send(host, 0, Action.SET_ZONE_DESCRIPTOR_EXTENSION, false)).isEqualTo(NvmeStatus.INVALID_FIELD);
        assertThat(send(host, 0, Action.FLUSH_EXPLICIT_ZRWA_RANGE, false)).isEqualTo(NvmeStatus.INVALID_FIELD);
        assertThat(host.io(io, Sqe.of(NvmOpcode.ZONE_MANAGEMENT_SEND.code(), host.nextCid(), 1,
                SglDescriptor.transportDataBlock(0), 0, 0, 0, 0x06), null).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        // Offline: only a read-only zone
        assertThat(send(host, 0, Action.OFFLINE, false)).isEqualTo(NvmeStatus.INVALID_ZONE_STATE_TRANSITION);
    }

    @Test
    void readOnlyAndOfflineZones() {
        TestHost host = host(4096);
        assertThat(write(host, ZSZE, 2, 4096).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(zones.setReadOnly(1)).isNull();
        assertThat(zs(host, 1)).isEqualTo(0xD);
        assertThat(write(host, ZSZE + 2, 1, 4096).status()).isEqualTo(NvmeStatus.ZONE_IS_READ_ONLY);
        assertThat(send(host, ZSZE, Action.RESET, false)).isEqualTo(NvmeStatus.ZONE_IS_READ_ONLY);
        assertThat(host.read(io, 1, ZSZE, 2, 4096).status()).isEqualTo(NvmeStatus.SUCCESS); // still readable
        assertThat(send(host, ZSZE, Action.OFFLINE, false)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(zs(host, 1)).isEqualTo(0xF);
        assertThat(send(host, ZSZE, Action.OFFLINE, false)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.read(io, 1, ZSZE, 1, 4096).status()).isEqualTo(NvmeStatus.ZONE_IS_OFFLINE);
        assertThat(write(host, ZSZE, 1, 4096).status()).isEqualTo(NvmeStatus.ZONE_IS_OFFLINE);
        assertThat(send(host, ZSZE, Action.OPEN, false)).isEqualTo(NvmeStatus.ZONE_IS_OFFLINE);
        // Select All Offline takes every read-only zone and no other
        assertThat(zones.setReadOnly(3)).isNull();
        assertThat(zones.setReadOnly(5)).isNull();
        assertThat(send(host, 0, Action.OFFLINE, true)).isEqualTo(NvmeStatus.SUCCESS);
        List<Reported> all = reportAll(host);
        assertThat(all.get(3).zs()).isEqualTo(0xF);
        assertThat(all.get(5).zs()).isEqualTo(0xF);
        assertThat(all.get(4).zs()).isEqualTo(0x1);
        assertThat(all.get(3).wp()).isEqualTo(-1L); // no write pointer in these states
    }

    @Test
    void selectAllAppliesToTheSourceStatesOfEachAction() {
        TestHost host = host(4096);
        assertThat(write(host, 0, 1, 4096).status()).isEqualTo(NvmeStatus.SUCCESS);          // zone 0 IO
        assertThat(send(host, ZSZE, Action.OPEN, false)).isEqualTo(NvmeStatus.SUCCESS);     // zone 1 EO
        assertThat(write(host, 2 * ZSZE, 1, 4096).status()).isEqualTo(NvmeStatus.SUCCESS);  // zone 2 → closed
        assertThat(send(host, 2 * ZSZE, Action.CLOSE, false)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(send(host, 3 * ZSZE, Action.FINISH, false)).isEqualTo(NvmeStatus.SUCCESS); // zone 3 full
        // SLBA is ignored with Select All (even one that is no zone start)
        assertThat(send(host, 5, Action.CLOSE, true)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(reportAll(host).stream().map(Reported::zs).toList())
                .containsExactly(0x4, 0x1, 0x4, 0xE, 0x1, 0x1, 0x1, 0x1); // zone 1 had nothing written: empty
        assertThat(send(host, 0, Action.OPEN, true)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(reportAll(host).stream().map(Reported::zs).toList())
                .containsExactly(0x3, 0x1, 0x3, 0xE, 0x1, 0x1, 0x1, 0x1);
        assertThat(send(host, 0, Action.FINISH, true)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(reportAll(host).stream().map(Reported::zs).toList())
                .containsExactly(0xE, 0x1, 0xE, 0xE, 0x1, 0x1, 0x1, 0x1);
        assertThat(send(host, 0, Action.RESET, true)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(reportAll(host).stream().map(Reported::zs).toList()).containsOnly(0x1);
    }

    @Test
    void openAndActiveResourcesAtTheLimitAndOneOver() {
        TestHost host = host(4096, ZoneLayout.of(ZSZE, ZCAP).withLimits(2, 3), CC_ALL_SETS);
        assertThat(send(host, 0, Action.OPEN, false)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(send(host, ZSZE, Action.OPEN, false)).isEqualTo(NvmeStatus.SUCCESS);
        // two explicitly open zones = MOR + 1: a third cannot open, explicitly or by a write
        assertThat(send(host, 2 * ZSZE, Action.OPEN, false)).isEqualTo(NvmeStatus.TOO_MANY_OPEN_ZONES);
        assertThat(write(host, 2 * ZSZE, 1, 4096).status()).isEqualTo(NvmeStatus.TOO_MANY_OPEN_ZONES);
        assertThat(append(host, 2 * ZSZE, 1, 4096).status()).isEqualTo(NvmeStatus.TOO_MANY_OPEN_ZONES);
        // close one (written: it stays active), write a third: three active = the limit
        assertThat(write(host, 0, 1, 4096).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(send(host, 0, Action.CLOSE, false)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(write(host, 2 * ZSZE, 1, 4096).status()).isEqualTo(NvmeStatus.SUCCESS);
        // a fourth active zone is one over (zone 1 gets a block: closing an unwritten zone would empty it)
        assertThat(write(host, ZSZE, 1, 4096).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(send(host, 0, Action.CLOSE, true)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(write(host, 3 * ZSZE, 1, 4096).status()).isEqualTo(NvmeStatus.TOO_MANY_ACTIVE_ZONES);
        assertThat(send(host, 3 * ZSZE, Action.OPEN, false)).isEqualTo(NvmeStatus.TOO_MANY_ACTIVE_ZONES);
        assertThat(send(host, 3 * ZSZE, Action.FINISH, false)).isEqualTo(NvmeStatus.TOO_MANY_ACTIVE_ZONES);
        // a full zone frees its active resource
        assertThat(send(host, 0, Action.FINISH, false)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(write(host, 3 * ZSZE, 1, 4096).status()).isEqualTo(NvmeStatus.SUCCESS);
    }

    // ------------------------------------------------------------------------------ Zone Management Receive

    @Test
    void reportZonesFromTheZoneContainingSlba() {
        TestHost host = host(4096);
        List<Reported> all = reportAll(host);
        assertThat(all).hasSize(ZONES);
        for (int k = 0; k < ZONES; k++) {
            assertThat(all.get(k)).isEqualTo(new Reported(0x1, (long) k * ZSZE, ZCAP, (long) k * ZSZE));
        }
        Reply mid = report(host, 3 * ZSZE + 5, ReportingOption.ALL, false, 4096);
        assertThat(mid.data().getLongLE(0)).isEqualTo(ZONES - 3);
        assertThat(mid.data().getLongLE(64 + 16)).isEqualTo(3L * ZSZE);
        mid.release();
        assertThat(report(host, (long) ZSZE * ZONES, ReportingOption.ALL, false, 4096).status())
                .isEqualTo(NvmeStatus.LBA_OUT_OF_RANGE);
    }

    @Test
    void partialReportCountsWhatFitsOtherwiseEverythingThatMatches() {
        TestHost host = host(4096);
        // room for two descriptors
        Reply partial = report(host, 0, ReportingOption.ALL, true, 64 + 128);
        assertThat(partial.data().getLongLE(0)).isEqualTo(2);
        assertThat(partial.data().getLongLE(64 + 64 + 16)).isEqualTo(ZSZE);
        partial.release();
        Reply whole = report(host, 0, ReportingOption.ALL, false, 64 + 128);
        assertThat(whole.data().readableBytes()).isEqualTo(192);
        assertThat(whole.data().getLongLE(0)).isEqualTo(ZONES);
        whole.release();
        // a buffer holding only the header
        Reply header = report(host, 0, ReportingOption.ALL, true, 64);
        assertThat(header.data().getLongLE(0)).isZero();
        header.release();
    }

    @Test
    void reportingOptionsSelectZonesByState() {
        TestHost host = host(4096);
        assertThat(write(host, 0, 1, 4096).status()).isEqualTo(NvmeStatus.SUCCESS);          // IO
        assertThat(send(host, ZSZE, Action.OPEN, false)).isEqualTo(NvmeStatus.SUCCESS);     // EO
        assertThat(write(host, 2 * ZSZE, 1, 4096).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(send(host, 2 * ZSZE, Action.CLOSE, false)).isEqualTo(NvmeStatus.SUCCESS); // C
        assertThat(send(host, 3 * ZSZE, Action.FINISH, false)).isEqualTo(NvmeStatus.SUCCESS); // F
        assertThat(zones.setReadOnly(4)).isNull();                                          // RO
        assertThat(zones.setOffline(5)).isNull();                                           // O
        assertThat(listed(host, ReportingOption.EMPTY)).containsExactly(6L * ZSZE, 7L * ZSZE);
        assertThat(listed(host, ReportingOption.IMPLICITLY_OPENED)).containsExactly(0L);
        assertThat(listed(host, ReportingOption.EXPLICITLY_OPENED)).containsExactly((long) ZSZE);
        assertThat(listed(host, ReportingOption.CLOSED)).containsExactly(2L * ZSZE);
        assertThat(listed(host, ReportingOption.FULL)).containsExactly(3L * ZSZE);
        assertThat(listed(host, ReportingOption.READ_ONLY)).containsExactly(4L * ZSZE);
        assertThat(listed(host, ReportingOption.OFFLINE)).containsExactly(5L * ZSZE);
        assertThat(listed(host, ReportingOption.ALL)).hasSize(ZONES);
    }

    private List<Long> listed(TestHost host, ReportingOption option) {
        Reply r = report(host, 0, option, false, 4096);
        assertThat(r.status()).isEqualTo(NvmeStatus.SUCCESS);
        List<Long> out = new ArrayList<>();
        for (int k = 0; k < r.data().getLongLE(0); k++) {
            int state = r.data().getUnsignedByte(64 + 64 * k + 1) >>> 4;
            int expected = switch (option) {
                case ALL -> state;
                case EMPTY -> 0x1;
                case IMPLICITLY_OPENED -> 0x2;
                case EXPLICITLY_OPENED -> 0x3;
                case CLOSED -> 0x4;
                case FULL -> 0xE;
                case READ_ONLY -> 0xD;
                case OFFLINE -> 0xF;
            };
            assertThat(state).isEqualTo(expected);
            out.add(r.data().getLongLE(64 + 64 * k + 16));
        }
        r.release();
        return out;
    }

    @Test
    void extendedReportAndOversizedBuffersAreInvalidField() {
        TestHost host = host(4096);
        assertThat(host.io(io, new ZoneManagementReceiveCommand(host.nextCid(), 1, 0, 1023,
                ZoneManagementReceiveCommand.Action.EXTENDED_REPORT_ZONES, ReportingOption.ALL, false,
                SglDescriptor.transportDataBlock(4096)).toSqe(), null).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        // MDTS (1 MiB) at the limit passes, one dword more does not
        Reply max = report(host, 0, ReportingOption.ALL, true, 1 << 20);
        assertThat(max.status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(max.data().getLongLE(0)).isEqualTo(ZONES);
        max.release();
        assertThat(host.io(io, new ZoneManagementReceiveCommand(host.nextCid(), 1, 0, (1 << 18),
                ZoneManagementReceiveCommand.Action.REPORT_ZONES, ReportingOption.ALL, false,
                SglDescriptor.transportDataBlock((1 << 20) + 4)).toSqe(), null).status())
                .isEqualTo(NvmeStatus.INVALID_FIELD);
    }

    // ------------------------------------------------------------------------------------- Changed Zone List

    @Test
    void zoneMadeReadOnlyByTheDeviceIsListedAndNotified() {
        TestHost host = host(4096);
        List<Integer> events = new CopyOnWriteArrayList<>();
        // Async Event Configuration bit 27: Zone Descriptor Changed Notices
        assertThat(host.setFeature(FeatureId.ASYNC_EVENT_CONFIGURATION, 1 << 27).status()).isEqualTo(NvmeStatus.SUCCESS);
        aer(host, events);
        // the host's own transitions are not listed
        assertThat(send(host, 0, Action.FINISH, false)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(events).isEmpty();
        assertThat(zones.setReadOnly(2)).isNull();
        assertThat(zones.setOffline(3)).isNull();
        // AET 2h notice, AEI EFh zone descriptor changed, log page BFh; one notice for the burst
        assertThat(events).containsExactly(0x02 | 0xEF << 8 | 0xBF << 16);
        assertThat(changedZones(host, true)).containsExactly(2L * ZSZE, 3L * ZSZE);
        assertThat(changedZones(host, false)).containsExactly(2L * ZSZE, 3L * ZSZE);
        assertThat(changedZones(host, false)).isEmpty();
        // re-armed by the read without RAE
        aer(host, events);
        assertThat(zones.setOffline(2)).isNull();
        assertThat(events).hasSize(2);
        assertThat(changedZones(host, false)).containsExactly(2L * ZSZE);
        // the page is namespace scoped: a namespace that is not zoned has none
        assertThat(host.getLogPage(0xBF, 2, 0, 4096, false).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
    }

    @Test
    void withoutTheNoticeEnabledZonesAreListedButNotNotified() {
        TestHost host = host(4096);
        List<Integer> events = new CopyOnWriteArrayList<>();
        aer(host, events);
        assertThat(zones.setReadOnly(1)).isNull();
        assertThat(events).isEmpty();
        assertThat(changedZones(host, false)).containsExactly((long) ZSZE);
        ByteBuf id = host.identifyData(0x01, 0);
        assertThat(id.getIntLE(92) & 1 << 27).isNotZero(); // OAES: Zone Descriptor Changed Notices
        id.release();
    }

    @Test
    void moreThanFiveHundredElevenChangedZonesOverflow() {
        BlockDevice ram = TestSupport.ram("many", 512, 512, 600L * 4);
        ZonedBlockDevice zoned = new ZonedBlockDevice(ram, ZoneLayout.of(4, 4));
        zones = zoned.zones().orElseThrow();
        TestHost host = TestHost.connect(NvmeTargets.create(List.of(new NamespaceSpec(NQN, 1, "many", zoned)),
                List.of(), NvmeLimits.DEFAULT, clock), NQN, 0);
        assertThat(host.propertySet(ControllerRegister.CC, CC_ALL_SETS)).isEqualTo(NvmeStatus.SUCCESS);
        for (int k = 0; k < 511; k++) {
            assertThat(zones.setReadOnly(k)).isNull();
        }
        Reply r = host.getLogPage(0xBF, 1, 0, 4096, true);
        assertThat(r.data().getUnsignedShortLE(0)).isEqualTo(511);
        r.release();
        assertThat(zones.setReadOnly(511)).isNull();
        Reply over = host.getLogPage(0xBF, 1, 0, 4096, false);
        assertThat(over.data().getUnsignedShortLE(0)).isEqualTo(0xFFFF);
        over.release();
    }

    private static void aer(TestHost host, List<Integer> events) {
        host.admin.submit(Sqe.of(AdminOpcode.ASYNC_EVENT_REQUEST.code(), host.nextCid(), 0,
                SglDescriptor.transportDataBlock(0)), null, (status, dw0, dw1, data) -> {
                    assertThat(status).isEqualTo(NvmeStatus.SUCCESS);
                    events.add(dw0);
                });
    }

    private static List<Long> changedZones(TestHost host, boolean rae) {
        Reply r = host.getLogPage(0xBF, 1, 0, 4096, rae);
        assertThat(r.status()).isEqualTo(NvmeStatus.SUCCESS);
        ByteBuf b = r.data();
        List<Long> out = new ArrayList<>();
        for (int k = 0; k < b.getUnsignedShortLE(0); k++) {
            out.add(b.getLongLE(8 + 8 * k));
        }
        r.release();
        return out;
    }

    @Test
    void conventionalZonesCannotBeAZonedNamespace() {
        BlockDevice ram = TestSupport.ram("conv", 4096, 4096, 64);
        ZonedBlockDevice zoned = new ZonedBlockDevice(ram, ZoneLayout.of(16, 16).withConventionalZones(1));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> NvmeTargets.create(
                        List.of(new NamespaceSpec(NQN, 1, "conv", zoned)), List.of(), NvmeLimits.DEFAULT, clock))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("conventional zones");
    }
}
