package io.blocktarget.nvme;

import io.blocktarget.block.BlockDevice;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.config.DeviceKnobs;
import io.blocktarget.config.DeviceKnobs.Command;
import io.blocktarget.config.DeviceKnobs.Identity;
import io.blocktarget.config.DeviceKnobs.Limit;
import io.blocktarget.config.LunFeatures;
import io.blocktarget.nvme.TestSupport.Reply;
import io.blocktarget.protocol.nvme.AdminOpcode;
import io.blocktarget.protocol.nvme.FeatureId;
import io.blocktarget.protocol.nvme.IdentifyController;
import io.blocktarget.protocol.nvme.LbaRangeCommand;
import io.blocktarget.protocol.nvme.NvmOpcode;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 11 knobs on NVMe: ONCS bits and Invalid Command Opcode for switched-off commands (Base §5.17.2.1, NVM
 * Command Set §3), VWC, SN / MN / FR, NPWG / NPWA / NPDG / NPDA / NOWS (NVM Command Set Identify Namespace, bytes
 * 64-73), NGUID / EUI-64 (bytes 104-127 and the CNS 03h descriptors), rotational media (CNS 08h NSFEAT bit 4), and
 * a retune in place with a Namespace Attribute Changed notice. Offsets are written out from the specs.
 */
class KnobsNvmeTest {
    private static final String NQN = "nqn.2026-11.io.blocktarget:knobs";
    private static final int LBS = 4096;
    private static final int ONCS_OPTIONAL = IdentifyController.ONCS_COMPARE | IdentifyController.ONCS_DSM
            | IdentifyController.ONCS_WRITE_ZEROES | IdentifyController.ONCS_VERIFY | IdentifyController.ONCS_COPY;

    private static DeviceKnobs commandsOff() {
        Map<Command, Boolean> off = new EnumMap<>(Command.class);
        for (Command c : List.of(Command.COMPARE, Command.WRITE_ZEROES, Command.UNMAP, Command.VERIFY, Command.COPY)) {
            off.put(c, false);
        }
        return DeviceKnobs.DEFAULTS.withCommands(off);
    }

    private static NamespaceSpec spec(BlockDevice device, DeviceKnobs knobs) {
        return new NamespaceSpec(NQN, 1, device.name(), device, new LunState(device.name()), Optional.empty(),
                LunFeatures.NONE.withKnobs(knobs));
    }

    private static NvmeSubsystems target(BlockDevice device, DeviceKnobs knobs) {
        return NvmeSubsystems.of(List.of(spec(device, knobs)), List.of(), NvmeLimits.DEFAULT, new ManualClock(),
                Map.of());
    }

    private static byte[] identify(TestHost host, int cns, int nsid) {
        ByteBuf data = host.identifyData(cns, nsid);
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

    private static String ascii(byte[] b, int from, int length) {
        return new String(b, from, length, StandardCharsets.US_ASCII);
    }

    @Test
    void switchedOffCommandsLeaveOncsAndAreInvalidOpcode() {
        BlockDevice device = TestSupport.ram("off", LBS, LBS, 64);
        TestHost host = TestHost.enabled(target(device, commandsOff()), NQN);
        int oncs = u16(identify(host, 1, 0), 520);
        assertThat(oncs & ONCS_OPTIONAL).isZero();
        assertThat(oncs & IdentifyController.ONCS_RESERVATIONS).isNotZero();
        NvmeQueue io = host.connectIo(1);
        assertThat(host.io(io, new LbaRangeCommand(NvmOpcode.WRITE_ZEROES, host.nextCid(), 1, 0, 0, false, false)
                .toSqe(), null).status()).isEqualTo(NvmeStatus.INVALID_OPCODE);
        assertThat(host.io(io, new LbaRangeCommand(NvmOpcode.VERIFY, host.nextCid(), 1, 0, 0, false, false)
                .toSqe(), null).status()).isEqualTo(NvmeStatus.INVALID_OPCODE);
        assertThat(host.io(io, TestHost.rw(NvmOpcode.COMPARE, host.nextCid(), 1, 0, 1, LBS, false),
                Unpooled.wrappedBuffer(new byte[LBS])).status()).isEqualTo(NvmeStatus.INVALID_OPCODE);
        assertThat(host.io(io, TestHost.dsm(host.nextCid(), 1, 0, false, false, true,
                SglDescriptor.inCapsule(0, 16)), Unpooled.wrappedBuffer(new byte[16])).status())
                .isEqualTo(NvmeStatus.INVALID_OPCODE);
        // what stays on still works
        assertThat(host.write(io, 1, 0, new byte[LBS], LBS, true).status()).isEqualTo(NvmeStatus.SUCCESS);
        host.admin.close();
    }

    @Test
    void byDefaultTheOptionalCommandsAreAdvertisedAndExecute() {
        BlockDevice device = TestSupport.ram("on", LBS, LBS, 64);
        TestHost host = TestHost.enabled(target(device, DeviceKnobs.DEFAULTS), NQN);
        assertThat(u16(identify(host, 1, 0), 520) & ONCS_OPTIONAL).isEqualTo(ONCS_OPTIONAL);
        NvmeQueue io = host.connectIo(1);
        assertThat(host.io(io, new LbaRangeCommand(NvmOpcode.WRITE_ZEROES, host.nextCid(), 1, 0, 0, false, false)
                .toSqe(), null).status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.io(io, new LbaRangeCommand(NvmOpcode.VERIFY, host.nextCid(), 1, 0, 0, false, false)
                .toSqe(), null).status()).isEqualTo(NvmeStatus.SUCCESS);
        host.admin.close();
    }

    @Test
    void commandsEffectsLogOmitsSwitchedOffCommands() {
        TestHost host = TestHost.enabled(target(TestSupport.ram("eff", LBS, LBS, 64), commandsOff()), NQN);
        Reply log = host.getLogPage(0x05, 0, 0, 4096, false);
        assertThat(log.status()).isEqualTo(NvmeStatus.SUCCESS);
        byte[] b = log.bytes();
        // I/O Command Supported and Effects: 256 dwords from byte 1024 (Base §5.16.1.6); bit 0 CSUPP
        assertThat(b[1024 + 4 * NvmOpcode.WRITE_ZEROES.code()] & 1).isZero();
        assertThat(b[1024 + 4 * NvmOpcode.COPY.code()] & 1).isZero();
        assertThat(b[1024 + 4 * NvmOpcode.WRITE.code()] & 1).isEqualTo(1);
        host.admin.close();
    }

    @Test
    void identityIsInIdentifyControllerAndNamespace() {
        DeviceKnobs knobs = DeviceKnobs.DEFAULTS.withIdentity(Map.of(Identity.SERIAL, "SN-42", Identity.PRODUCT,
                "Roadrunner", Identity.REVISION, "2.1", Identity.NGUID, "0123456789abcdef0011223344556677",
                Identity.EUI64, "a0a1a2a3a4a5a6a7"));
        TestHost host = TestHost.enabled(target(TestSupport.ram("id", LBS, LBS, 64), knobs), NQN);
        byte[] ctrl = identify(host, 1, 0);
        assertThat(ascii(ctrl, 4, 20)).isEqualTo("SN-42               ");       // SN, bytes 23:04
        assertThat(ascii(ctrl, 24, 40)).isEqualTo("Roadrunner" + " ".repeat(30)); // MN, bytes 63:24
        assertThat(ascii(ctrl, 64, 8)).isEqualTo("2.1     ");                  // FR, bytes 71:64
        byte[] ns = identify(host, 0, 1);
        assertThat(HexFormat.of().formatHex(ns, 104, 120)).isEqualTo("0123456789abcdef0011223344556677");
        assertThat(HexFormat.of().formatHex(ns, 120, 128)).isEqualTo("a0a1a2a3a4a5a6a7");
        byte[] descriptors = identify(host, 3, 1);
        // NIDT 1h EUI-64 (NIDL 8) first, then 2h NGUID (NIDL 16): Base §5.17.2.3
        assertThat(HexFormat.of().formatHex(descriptors, 0, 12)).isEqualTo("01080000a0a1a2a3a4a5a6a7");
        assertThat(HexFormat.of().formatHex(descriptors, 12, 32))
                .isEqualTo("021000000123456789abcdef0011223344556677");
        host.admin.close();
    }

    @Test
    void defaultIdentityIsDerived() {
        TestHost host = TestHost.enabled(target(TestSupport.ram("id", LBS, LBS, 64), DeviceKnobs.DEFAULTS), NQN);
        byte[] ctrl = identify(host, 1, 0);
        assertThat(ascii(ctrl, 24, 40).strip()).isEqualTo(ControllerConstants.MODEL);
        assertThat(ascii(ctrl, 4, 20)).matches("[0-9a-f]{20}");
        host.admin.close();
    }

    @Test
    void preferredGranularitiesFollowTheLimits() {
        DeviceKnobs knobs = DeviceKnobs.DEFAULTS.withLimits(Map.of(Limit.OPTIMAL_TRANSFER_GRANULARITY, 64L << 10,
                Limit.UNMAP_GRANULARITY, 1L << 20, Limit.OPTIMAL_TRANSFER, 256L << 10));
        TestHost host = TestHost.enabled(target(TestSupport.ram("g", LBS, LBS, 64), knobs), NQN);
        byte[] ns = identify(host, 0, 1);
        assertThat(ns[24] & 0x10).isEqualTo(0x10);            // NSFEAT bit 4 OPTPERF: the fields are valid
        assertThat(u16(ns, 64)).isEqualTo(15);                 // NPWG: 64 KiB / 4 KiB − 1
        assertThat(u16(ns, 66)).isEqualTo(15);                 // NPWA
        assertThat(u16(ns, 68)).isEqualTo(255);                // NPDG: 1 MiB / 4 KiB − 1
        assertThat(u16(ns, 70)).isEqualTo(255);                // NPDA
        assertThat(u16(ns, 72)).isEqualTo(63);                 // NOWS: 256 KiB / 4 KiB − 1
        host.admin.close();
    }

    @Test
    void preferredGranularitiesDefaultToThePhysicalBlock() {
        TestHost host = TestHost.enabled(target(TestSupport.ram("g", LBS, 4 * LBS, 64), DeviceKnobs.DEFAULTS), NQN);
        byte[] ns = identify(host, 0, 1);
        assertThat(Arrays.asList(u16(ns, 64), u16(ns, 66), u16(ns, 68), u16(ns, 70), u16(ns, 72)))
                .containsOnly(3);
        host.admin.close();
    }

    @Test
    void writeCacheAndRotationalKnobs() {
        DeviceKnobs knobs = DeviceKnobs.DEFAULTS.withCommands(Map.of(Command.WRITE_CACHE, true))
                .withRotational(Optional.of(true));
        TestHost host = TestHost.enabled(target(TestSupport.ram("c", LBS, LBS, 64), knobs), NQN);
        assertThat(identify(host, 1, 0)[525] & IdentifyController.VWC_PRESENT).isEqualTo(1); // RAM has no cache
        byte[] independent = identify(host, 8, 1);
        assertThat(independent[0] & 0x30).isEqualTo(0x10);     // NSFEAT: bit 4 rotational, bit 5 (no VWC) clear
        host.admin.close();

        TestHost plain = TestHost.enabled(target(TestSupport.ram("p", LBS, LBS, 64), DeviceKnobs.DEFAULTS), NQN);
        assertThat(identify(plain, 1, 0)[525] & IdentifyController.VWC_PRESENT).isZero();
        assertThat(identify(plain, 8, 1)[0] & 0x30).isEqualTo(0x20);
        plain.admin.close();
    }

    @Test
    void retuneReplacesTheNamespaceInPlaceWithANotice() {
        BlockDevice device = TestSupport.ram("rt", LBS, LBS, 64);
        NvmeSubsystems target = target(device, DeviceKnobs.DEFAULTS);
        TestHost host = TestHost.enabled(target, NQN);
        assertThat(host.setFeature(FeatureId.ASYNC_EVENT_CONFIGURATION, 1 << 8).status()).isEqualTo(NvmeStatus.SUCCESS);
        List<Integer> events = new CopyOnWriteArrayList<>();
        host.admin.submit(Sqe.of(AdminOpcode.ASYNC_EVENT_REQUEST.code(), host.nextCid(), 0,
                SglDescriptor.transportDataBlock(0)), null, (status, dw0, dw1, data) -> events.add(dw0));
        NvmeQueue io = host.connectIo(1);

        assertThat(target.retuneNamespace(spec(device, commandsOff()))).isTrue();

        assertThat(events).containsExactly(0x02 | 0x04 << 16);  // Notice, Namespace Attribute Changed, log 04h
        assertThat(host.io(io, new LbaRangeCommand(NvmOpcode.WRITE_ZEROES, host.nextCid(), 1, 0, 0, false, false)
                .toSqe(), null).status()).isEqualTo(NvmeStatus.INVALID_OPCODE);   // the same I/O queue, kept
        assertThat(u16(identify(host, 1, 0), 520) & ONCS_OPTIONAL).isZero();
        // another device under the same NSID is not a retune
        assertThat(target.retuneNamespace(spec(TestSupport.ram("rt", LBS, LBS, 64), DeviceKnobs.DEFAULTS))).isFalse();
        host.admin.close();
    }
}
