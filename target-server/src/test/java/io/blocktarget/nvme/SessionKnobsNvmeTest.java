package io.blocktarget.nvme;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.config.DeviceKnobs;
import io.blocktarget.config.DeviceKnobs.Limit;
import io.blocktarget.config.DeviceKnobs.Session;
import io.blocktarget.config.LunFeatures;
import io.blocktarget.nvme.TestSupport.Reply;
import io.blocktarget.nvme.TestSupport.TestConnection;
import io.blocktarget.protocol.nvme.ConnectCommand;
import io.blocktarget.protocol.nvme.ConnectResponse;
import io.blocktarget.protocol.nvme.ControllerRegister;
import io.blocktarget.protocol.nvme.FeatureCommand;
import io.blocktarget.protocol.nvme.FeatureId;
import io.blocktarget.protocol.nvme.NvmOpcode;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.ReadWriteCommand;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 11 {@code session:} knobs of an NVMe subsystem — MDTS (Identify Controller byte 77, enforced with Invalid Field
 * in Command, Base §5.17.2.1), IOCCSZ (bytes 1795:1792; in-capsule data beyond it is Data SGL Length Invalid), the
 * I/O queue count Set Features Number of Queues grants (Base §5.27.1.5) and the queue size (CAP.MQES, MAXCMD bytes
 * 515:514, Connect SQSIZE) — each at its limit and one past it; the NVMe-only NPWG / NPWA / NPDG / NPDA / NOWS
 * overrides; and the rule that a knob change reaches controllers created after it only.
 */
class SessionKnobsNvmeTest {
    private static final String NQN = "nqn.2026-11.io.blocktarget:session";
    private static final int LBS = 4096;

    private static NamespaceSpec spec(BlockDevice device, DeviceKnobs knobs) {
        return new NamespaceSpec(NQN, 1, device.name(), device, new LunState(device.name()), Optional.empty(),
                LunFeatures.NONE.withKnobs(knobs));
    }

    private static NvmeSubsystems target(BlockDevice device, DeviceKnobs knobs) {
        return NvmeSubsystems.of(List.of(spec(device, knobs)), List.of(), NvmeLimits.DEFAULT, new ManualClock(),
                Map.of());
    }

    private static DeviceKnobs session(Map<Session, Long> values) {
        return DeviceKnobs.DEFAULTS.withSession(values);
    }

    private static byte[] identifyController(TestHost host) {
        ByteBuf data = host.identifyData(1, 0);
        try {
            byte[] b = new byte[data.readableBytes()];
            data.getBytes(data.readerIndex(), b);
            return b;
        } finally {
            data.release();
        }
    }

    private static int u16(byte[] b, int i) {
        return b[i] & 0xFF | (b[i + 1] & 0xFF) << 8;
    }

    private static long u32(byte[] b, int i) {
        return u16(b, i) | (long) u16(b, i + 2) << 16;
    }

    private static Reply write(TestHost host, NvmeQueue io, int blocks) {
        return host.io(io, TestHost.rw(NvmOpcode.WRITE, host.nextCid(), 1, 0, blocks, LBS, false),
                Unpooled.wrappedBuffer(new byte[blocks * LBS]));
    }

    private static Reply inCapsuleWrite(TestHost host, NvmeQueue io, int bytes) {
        return host.io(io, new ReadWriteCommand(NvmOpcode.WRITE, host.nextCid(), 1, 0, bytes / LBS - 1, false, false,
                0, 0, SglDescriptor.inCapsule(0, bytes)).toSqe(), Unpooled.wrappedBuffer(new byte[bytes]));
    }

    @Test
    void defaultsAreTodaysValues() {
        TestHost host = TestHost.enabled(target(TestSupport.ram("d", LBS, LBS, 1024), DeviceKnobs.DEFAULTS), NQN);
        byte[] ctrl = identifyController(host);
        assertThat(ctrl[77]).isEqualTo((byte) 8);                    // MDTS: 2^8 × 4 KiB = 1 MiB
        assertThat(u32(ctrl, 1792)).isEqualTo(4 + 256 * 1024 / 16);  // IOCCSZ 16388
        assertThat(u16(ctrl, 514)).isEqualTo(1024);                  // MAXCMD
        assertThat(host.propertyGet(ControllerRegister.CAP) & 0xFFFF).isEqualTo(1023);   // CAP.MQES
        Reply queues = host.getFeature(FeatureId.NUMBER_OF_QUEUES, FeatureCommand.SEL_DEFAULT, 0);
        assertThat(queues.dw0()).isEqualTo(127 | 127 << 16);
        host.admin.close();
    }

    @Test
    void mdtsIsAdvertisedAndEnforcedAtTheLimitAndOnePast() {
        DeviceKnobs knobs = session(Map.of(Session.MDTS, 64L << 10));
        TestHost host = TestHost.enabled(target(TestSupport.ram("m", LBS, LBS, 1024), knobs), NQN);
        assertThat(identifyController(host)[77]).isEqualTo((byte) 4);   // 2^4 × 4 KiB = 64 KiB
        NvmeQueue io = host.connectIo(1);
        assertThat(write(host, io, 16).status()).isEqualTo(NvmeStatus.SUCCESS);                 // 64 KiB
        assertThat(write(host, io, 17).status()).isEqualTo(NvmeStatus.INVALID_FIELD);           // 68 KiB
        assertThat(host.read(io, 1, 0, 16, LBS).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.read(io, 1, 0, 17, LBS).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        host.admin.close();
    }

    @Test
    void mdtsAboveTheDefaultLetsLargerWritesThrough() {
        DeviceKnobs knobs = session(Map.of(Session.MDTS, 4L << 20));
        TestHost host = TestHost.enabled(target(TestSupport.ram("big", LBS, LBS, 2048), knobs), NQN);
        assertThat(identifyController(host)[77]).isEqualTo((byte) 10);  // 4 MiB
        NvmeQueue io = host.connectIo(1);
        assertThat(write(host, io, 1024).status()).isEqualTo(NvmeStatus.SUCCESS);   // 4 MiB, above today's 1 MiB
        assertThat(write(host, io, 1025).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        host.admin.close();
    }

    @Test
    void largestMdtsHoldsBlktestsLongestCommand() {
        // 128 MiB (the config's ceiling): MDTS 15; blktests nvme/029 reads 1025 blocks of 16 KiB (16.4 MiB) at once
        DeviceKnobs knobs = session(Map.of(Session.MDTS, 128L << 20));
        TestHost host = TestHost.enabled(target(TestSupport.ram("huge", 16384, 16384, 2048), knobs), NQN);
        assertThat(identifyController(host)[77]).isEqualTo((byte) 15);   // 2^15 × 4 KiB = 128 MiB
        NvmeQueue io = host.connectIo(1);
        TestSupport.Reply read = host.read(io, 1, 0, 1025, 16384);
        assertThat(read.status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(read.bytes()).hasSize(1025 * 16384);
        host.admin.close();
    }

    @Test
    void inCapsuleDataIsAdvertisedAndEnforced() {
        DeviceKnobs knobs = session(Map.of(Session.IN_CAPSULE_DATA, 8L << 10));
        TestHost host = TestHost.enabled(target(TestSupport.ram("c", LBS, LBS, 1024), knobs), NQN);
        assertThat(u32(identifyController(host), 1792)).isEqualTo(4 + 8192 / 16);   // IOCCSZ 516
        NvmeQueue io = host.connectIo(1);
        assertThat(inCapsuleWrite(host, io, 8192).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(inCapsuleWrite(host, io, 12288).status()).isEqualTo(NvmeStatus.DATA_SGL_LENGTH_INVALID);
        host.admin.close();
    }

    @Test
    void ioQueueCountIsTheGrantAtTheLimitAndOnePast() {
        DeviceKnobs knobs = session(Map.of(Session.IO_QUEUES, 2L));
        TestHost host = TestHost.enabled(target(TestSupport.ram("q", LBS, LBS, 64), knobs), NQN);
        assertThat(host.getFeature(FeatureId.NUMBER_OF_QUEUES, FeatureCommand.SEL_DEFAULT, 0).dw0())
                .isEqualTo(1 | 1 << 16);
        // the host asks for 8 and 8 (NSQR = NCQR = 7, 0's based): NSQA = NCQA = 1, i.e. two queues
        Reply granted = host.setFeature(FeatureId.NUMBER_OF_QUEUES, 7 | 7 << 16);
        assertThat(granted.status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(granted.dw0()).isEqualTo(1 | 1 << 16);
        host.connectIo(1);
        host.connectIo(2);
        ConnectResult third = host.tryConnectIo(3, 127, new TestConnection());
        assertThat(third.status()).isEqualTo(NvmeStatus.CONNECT_INVALID_PARAMETERS);
        assertThat(third.dw0()).isEqualTo(ConnectResponse.invalidParameter(false, ConnectCommand.OFFSET_QID));
        host.admin.close();
    }

    @Test
    void ioQueueCountWithoutSetFeaturesIsStillTheLimit() {
        DeviceKnobs knobs = session(Map.of(Session.IO_QUEUES, 1L));
        TestHost host = TestHost.enabled(target(TestSupport.ram("q1", LBS, LBS, 64), knobs), NQN);
        host.connectIo(1);
        assertThat(host.tryConnectIo(2, 127, new TestConnection()).status())
                .isEqualTo(NvmeStatus.CONNECT_INVALID_PARAMETERS);
        host.admin.close();
    }

    @Test
    void queueSizeIsMqesAndMaxcmdAndBoundsConnect() {
        DeviceKnobs knobs = session(Map.of(Session.QUEUE_SIZE, 64L));
        TestHost host = TestHost.enabled(target(TestSupport.ram("s", LBS, LBS, 64), knobs), NQN);
        assertThat(host.propertyGet(ControllerRegister.CAP) & 0xFFFF).isEqualTo(63);    // MQES, 0's based
        assertThat(u16(identifyController(host), 514)).isEqualTo(64);                  // MAXCMD
        ConnectResult atLimit = host.tryConnectIo(1, 63, new TestConnection());
        assertThat(atLimit.status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(atLimit.queue().entries()).isEqualTo(64);
        ConnectResult past = host.tryConnectIo(2, 64, new TestConnection());
        assertThat(past.status()).isEqualTo(NvmeStatus.CONNECT_INVALID_PARAMETERS);
        assertThat(past.dw0()).isEqualTo(ConnectResponse.invalidParameter(false, ConnectCommand.OFFSET_SQSIZE));
        host.admin.close();
    }

    @Test
    void smallQueueSizeLeavesTheAdminQueueAlone() {
        // CAP.MQES bounds the I/O submission queues of a fabrics host (Base §3.1.4.1); Linux's admin queue has 32
        DeviceKnobs knobs = session(Map.of(Session.QUEUE_SIZE, 2L));
        TestHost host = TestHost.enabled(target(TestSupport.ram("s2", LBS, LBS, 64), knobs), NQN);
        assertThat(host.tryConnectIo(1, 1, new TestConnection()).status()).isEqualTo(NvmeStatus.SUCCESS);
        host.admin.close();
    }

    @Test
    void nvmeGranularitiesOverrideTheSharedLimits() {
        DeviceKnobs knobs = DeviceKnobs.DEFAULTS.withLimits(Map.of(Limit.OPTIMAL_TRANSFER_GRANULARITY, 64L << 10,
                Limit.UNMAP_GRANULARITY, 1L << 20, Limit.OPTIMAL_TRANSFER, 256L << 10, Limit.NPWG, 16L << 10,
                Limit.NPWA, 8L << 10, Limit.NPDA, 32L << 10, Limit.NOWS, 512L << 10));
        TestHost host = TestHost.enabled(target(TestSupport.ram("g", LBS, LBS, 64), knobs), NQN);
        ByteBuf data = host.identifyData(0, 1);
        try {
            assertThat(data.getShortLE(64) & 0xFFFF).isEqualTo(3);      // NPWG 16 KiB (not 64 KiB)
            assertThat(data.getShortLE(66) & 0xFFFF).isEqualTo(1);      // NPWA 8 KiB
            assertThat(data.getShortLE(68) & 0xFFFF).isEqualTo(255);    // NPDG from unmap-granularity, 1 MiB
            assertThat(data.getShortLE(70) & 0xFFFF).isEqualTo(7);      // NPDA 32 KiB
            assertThat(data.getShortLE(72) & 0xFFFF).isEqualTo(127);    // NOWS 512 KiB (not 256 KiB)
        } finally {
            data.release();
        }
        host.admin.close();
    }

    /**
     * The rotational change LinuxKnobsIT saw only after a reconnect: the new NSFEAT bit 4 of CNS 08h is answered at
     * once after a retune, to the controller that was connected before it (Linux only ever sets the block feature).
     */
    @Test
    void rotationalIsInCns08AtOnceAfterARetune() {
        BlockDevice device = TestSupport.ram("rot", LBS, LBS, 64);
        NvmeSubsystems target = target(device, DeviceKnobs.DEFAULTS.withRotational(Optional.of(true)));
        TestHost host = TestHost.enabled(target, NQN);
        ByteBuf before = host.identifyData(8, 1);
        assertThat(before.getByte(0) & 0x10).isEqualTo(0x10);
        before.release();
        assertThat(target.retuneNamespace(spec(device, DeviceKnobs.DEFAULTS.withRotational(Optional.of(false)))))
                .isTrue();
        ByteBuf after = host.identifyData(8, 1);
        assertThat(after.getByte(0) & 0x10).isZero();
        after.release();
        host.admin.close();
    }

    @Test
    void aRetuneReachesNewControllersOnlyExistingOnesKeepWhatTheyRead() {
        BlockDevice device = TestSupport.ram("rt", LBS, LBS, 1024);
        NvmeSubsystems target = target(device, DeviceKnobs.DEFAULTS);
        TestHost before = TestHost.enabled(target, NQN);
        NvmeQueue oldIo = before.connectIo(1);

        assertThat(target.retuneNamespace(spec(device, session(Map.of(Session.MDTS, 64L << 10))))).isTrue();

        // the existing controller keeps its MDTS (Linux read it at connect and sized its requests by it)
        assertThat(identifyController(before)[77]).isEqualTo((byte) 8);
        assertThat(write(before, oldIo, 64).status()).isEqualTo(NvmeStatus.SUCCESS);   // 256 KiB
        TestHost after = TestHost.enabled(target, NQN);
        assertThat(identifyController(after)[77]).isEqualTo((byte) 4);
        NvmeQueue newIo = after.connectIo(1);
        assertThat(write(after, newIo, 17).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        before.admin.close();
        after.admin.close();
    }
}
