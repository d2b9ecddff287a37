package io.blocktarget.nvme;

import io.blocktarget.block.BlockGeometry;
import io.blocktarget.block.nil.NullBlockDevice;
import io.blocktarget.nvme.TestSupport.Reply;
import io.blocktarget.protocol.nvme.AdminOpcode;
import io.blocktarget.protocol.nvme.ControllerRegister;
import io.blocktarget.protocol.nvme.FabricsCommandType;
import io.blocktarget.protocol.nvme.FeatureId;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.SglDescriptor;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.ByteBuf;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The admin start-up sequence of the Linux host (captured order), then the register state machine. */
class AdminStartupTest {
    static final String NQN = "nqn.2026-11.io.blocktarget:ram-4k";

    private final ManualClock clock = new ManualClock();
    private final NvmeTarget target = NvmeTargets.create(
            List.of(new NamespaceSpec(NQN, 1, "ram-4k", TestSupport.ram("ram-4k", 4096, 4096, 2048))),
            List.of(new NvmePort(1, "0.0.0.0", 4420)), NvmeLimits.DEFAULT, clock);

    @Test
    void linuxAdminStartupSequence() {
        TestHost host = TestHost.connect(target, NQN, 5000);
        assertThat(host.cntlid).isBetween(1, 0xFFEF);

        // Property Get CAP (8 bytes): MQES 3FFh (bits 15:0), CQR bit 16, TO 15 (bits 31:24), CSS NVM (bit 37) and
        // I/O Command Sets (bit 43, for zoned namespaces), MPSMIN 0
        long cap = host.propertyGet(ControllerRegister.CAP);
        assertThat(cap).isEqualTo(0x3FFL | 1L << 16 | 15L << 24 | 1L << 37 | 1L << 43);
        assertThat(host.propertyGet(ControllerRegister.CSTS)).isZero();
        // Property Set CC: EN, IOSQES 6, IOCQES 4
        assertThat(host.propertySet(ControllerRegister.CC, TestHost.CC_ENABLE)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.propertyGet(ControllerRegister.CSTS)).isEqualTo(1); // RDY
        assertThat(host.propertyGet(ControllerRegister.CC)).isEqualTo(TestHost.CC_ENABLE);
        assertThat(host.propertyGet(ControllerRegister.VS)).isEqualTo(0x0002_0000L); // 2.0.0

        ByteBuf id = host.identifyData(0x01, 0);
        try {
            assertThat(id.getUnsignedShortLE(78)).isEqualTo(host.cntlid);       // CNTLID
            assertThat(id.getIntLE(80)).isEqualTo(0x0002_0000);                 // VER
            assertThat((int) id.getUnsignedByte(111)).isEqualTo(1);                   // CNTRLTYPE I/O
            assertThat((int) id.getUnsignedByte(77)).isEqualTo(8);                    // MDTS: 1 MiB / 4 KiB = 2^8
            assertThat(id.getUnsignedShortLE(320)).isEqualTo(1);                // KAS 100 ms
            assertThat(id.getUnsignedShortLE(514)).isEqualTo(1024);             // MAXCMD
            assertThat(id.getIntLE(516)).isEqualTo(64);                         // NN: at least MNAN (ANA)
            // ONCS compare, DSM, write zeroes, reservations (bit 5), verify (bit 7), copy (bit 8); no write
            // uncorrectable: the test's RAM disk keeps no uncorrectable-block set
            assertThat(id.getUnsignedShortLE(520)).isEqualTo(0b1_1010_1101);
            assertThat(id.getUnsignedShortLE(534)).isEqualTo(1);                // OCFS: copy format 0h
            assertThat((int) id.getUnsignedByte(525)).isZero();                       // VWC: RAM has none
            assertThat(id.getIntLE(536)).isEqualTo(1 | 1 << 20);                // SGLS supported + offsets
            assertThat((int) id.getUnsignedByte(512)).isEqualTo(0x66);                // SQES
            assertThat((int) id.getUnsignedByte(513)).isEqualTo(0x44);                // CQES
            assertThat((int) id.getUnsignedByte(258)).isEqualTo(3);                   // ACL
            assertThat((int) id.getUnsignedByte(259)).isEqualTo(3);                   // AERL
            assertThat((int) id.getUnsignedByte(261)).isEqualTo(0b110);               // LPA effects + extended data
            assertThat(id.getIntLE(92)).isEqualTo(1 << 8 | 1 << 11 | 1 << 27);  // OAES namespace attribute, ANA change, zone descriptor changed notices
            assertThat(id.getIntLE(96)).isEqualTo(1);                           // CTRATT 128-bit host id
            assertThat(id.getUnsignedShortLE(528)).isZero();                    // AWUPF stays 0
            assertThat(id.toString(768, NQN.length(), StandardCharsets.UTF_8)).isEqualTo(NQN);
            assertThat(id.getByte(768 + NQN.length())).isZero();
            assertThat(id.getIntLE(1792)).isEqualTo(4 + 256 * 1024 / 16);       // IOCCSZ: 256 KiB in-capsule
            assertThat(id.getIntLE(1796)).isEqualTo(1);                         // IORCSZ
            assertThat(id.getUnsignedShortLE(1800)).isZero();                   // ICDOFF
            assertThat((int) id.getUnsignedByte(1803)).isEqualTo(1);                  // MSDBD
            assertThat(id.toString(24, 11, StandardCharsets.US_ASCII)).isEqualTo("blocktarget");
            assertThat(id.toString(4, 20, StandardCharsets.US_ASCII)).matches("[0-9a-f]{20}");
        } finally {
            id.release();
        }

        Reply effects = host.getLogPage(0x05, 0, 0, 4096, false);
        assertThat(effects.status()).isEqualTo(NvmeStatus.SUCCESS);
        byte[] e = effects.bytes();
        assertThat(e).hasSize(4096);
        assertThat(e[4 * 0x06]).isEqualTo((byte) 1);              // ACS Identify: CSUPP
        assertThat(e[1024 + 4 * 0x01]).isEqualTo((byte) 0b11);    // IOCS Write: CSUPP + LBCC
        assertThat(e[1024 + 4 * 0x02]).isEqualTo((byte) 1);       // IOCS Read

        Reply smart = host.getLogPage(0x02, 0xFFFF_FFFF, 0, 512, false);
        assertThat(smart.status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(smart.bytes()).hasSize(512);

        Reply queues = host.setFeature(FeatureId.NUMBER_OF_QUEUES, 7 | 7 << 16);
        assertThat(queues.status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(queues.dw0()).isEqualTo(7 | 7 << 16);

        Reply nvmCtrl = host.identify(0x06, 0, 0);
        assertThat(nvmCtrl.status()).isEqualTo(NvmeStatus.SUCCESS);
        byte[] nvm = nvmCtrl.bytes();
        assertThat(nvm).hasSize(4096);
        assertThat(nvm[0]).as("VSL = MDTS: 2^8 x 4 KiB").isEqualTo((byte) 8);
        assertThat(java.util.Arrays.copyOfRange(nvm, 1, 4096)).containsOnly(0);

        ByteBuf list = host.identifyData(0x02, 0);
        assertThat(list.getIntLE(0)).isEqualTo(1);
        assertThat(list.getIntLE(4)).isZero();
        list.release();

        ByteBuf descs = host.identifyData(0x03, 1);
        assertThat((int) descs.getUnsignedByte(0)).isEqualTo(1);  // NIDT EUI-64
        assertThat((int) descs.getUnsignedByte(1)).isEqualTo(8);
        assertThat((int) descs.getUnsignedByte(12)).isEqualTo(2); // NIDT NGUID
        assertThat((int) descs.getUnsignedByte(13)).isEqualTo(16);
        assertThat((int) descs.getUnsignedByte(32)).isEqualTo(3); // NIDT UUID
        assertThat((int) descs.getUnsignedByte(52)).isEqualTo(4); // NIDT CSI
        assertThat((int) descs.getUnsignedByte(56)).isZero();     // CSI NVM
        descs.release();

        ByteBuf csi = host.identifyData(0x08, 1);
        assertThat((int) csi.getUnsignedByte(14)).isEqualTo(1); // NSTAT ready
        csi.release();
        Reply nvmNs = host.identify(0x05, 1, 0);
        assertThat(nvmNs.status()).isEqualTo(NvmeStatus.SUCCESS);
        nvmNs.release();

        ByteBuf ns = host.identifyData(0x00, 1);
        assertThat(ns.getLongLE(0)).isEqualTo(2048);                 // NSZE
        assertThat((int) ns.getUnsignedByte(128 + 2)).isEqualTo(12);       // LBAF0 LBADS
        ns.release();

        assertThat(host.keepAlive().status()).isEqualTo(NvmeStatus.SUCCESS);
        host.admin.close();
    }

    @Test
    void onlyFabricsCommandsBeforeEnable() {
        TestHost host = TestHost.connect(target, NQN, 0);
        Reply r = host.identify(0x01, 0, 0);
        assertThat(r.status()).isEqualTo(NvmeStatus.COMMAND_SEQUENCE_ERROR);
        assertThat(r.status().dnr()).isTrue();
        assertThat(host.keepAlive().status()).isEqualTo(NvmeStatus.COMMAND_SEQUENCE_ERROR);
        // an I/O queue needs an enabled controller
        assertThat(host.tryConnectIo(1, 31, new TestSupport.TestConnection()).status())
                .isEqualTo(NvmeStatus.COMMAND_SEQUENCE_ERROR);
        host.admin.close();
    }

    @Test
    void shutdownReportsCompleteAndResetReturnsToDisabled() {
        TestHost host = TestHost.enabled(target, NQN);
        assertThat(host.propertySet(ControllerRegister.CC, TestHost.CC_ENABLE | 1 << 14)).isEqualTo(NvmeStatus.SUCCESS);
        // CSTS: SHST = 10b complete (bits 3:2), RDY = 0
        assertThat(host.propertyGet(ControllerRegister.CSTS)).isEqualTo(0b1000);
        assertThat(host.identify(0x01, 0, 0).status()).isEqualTo(NvmeStatus.COMMAND_SEQUENCE_ERROR);
        assertThat(host.adminConnection.terminations).isEmpty();
        // CC.EN = 0: back to CONNECTED, then enable again
        assertThat(host.propertySet(ControllerRegister.CC, 0)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.propertyGet(ControllerRegister.CSTS)).isZero();
        assertThat(host.propertySet(ControllerRegister.CC, TestHost.CC_ENABLE)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.propertyGet(ControllerRegister.CSTS)).isEqualTo(1);
        // EN 1 -> 0 (controller reset)
        assertThat(host.propertySet(ControllerRegister.CC, TestHost.CC_ENABLE & ~1)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.propertyGet(ControllerRegister.CSTS)).isZero();
        host.admin.close();
    }

    @Test
    void shutdownWhileDisabledThenEnable() {
        TestHost host = TestHost.connect(target, NQN, 0);
        assertThat(host.propertySet(ControllerRegister.CC, 2 << 14)).isEqualTo(NvmeStatus.SUCCESS); // abrupt
        assertThat(host.propertyGet(ControllerRegister.CSTS)).isEqualTo(0b1000);
        assertThat(host.propertySet(ControllerRegister.CC, TestHost.CC_ENABLE)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.propertyGet(ControllerRegister.CSTS)).isEqualTo(1);
        host.admin.close();
        // the queue is gone with its controller
        assertThat(host.propertySet(ControllerRegister.CC, 0)).isEqualTo(NvmeStatus.COMMAND_SEQUENCE_ERROR);
    }

    @Test
    void unsupportedControllerConfigurationSetsFatalStatus() {
        TestHost host = TestHost.connect(target, NQN, 0);
        int ccWith128ByteSqes = 1 | 7 << 16 | 4 << 20;
        assertThat(host.propertySet(ControllerRegister.CC, ccWith128ByteSqes)).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(host.propertyGet(ControllerRegister.CSTS)).isEqualTo(0b10); // CFS, not RDY
        host.admin.close();
    }

    @Test
    void propertyErrors() {
        TestHost host = TestHost.connect(target, NQN, 0);
        // read-only registers
        assertThat(host.propertySet(ControllerRegister.CAP, 0)).isEqualTo(NvmeStatus.INVALID_FIELD);
        assertThat(host.propertySet(ControllerRegister.CSTS, 0)).isEqualTo(NvmeStatus.INVALID_FIELD);
        // an offset that is no property (AQA, 24h) is Invalid Field with DNR
        Reply r = host.admin(new Sqe(Sqe.OPCODE_FABRICS, 0, 1, 9, FabricsCommandType.PROPERTY_GET.code(), 0, 0, 0,
                SglDescriptor.transportDataBlock(0), 0, 0x24, 0, 0, 0, 0));
        assertThat(r.status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        assertThat(r.status().dnr()).isTrue();
        // a second Connect on a connected queue
        Reply again = host.admin(new Sqe(Sqe.OPCODE_FABRICS, 0, 1, 10, FabricsCommandType.CONNECT.code(), 0, 0, 0,
                SglDescriptor.inCapsule(0, 1024), 0, 31, 0, 0, 0, 0));
        assertThat(again.status()).isEqualTo(NvmeStatus.COMMAND_SEQUENCE_ERROR);
        // unknown fabrics type, and authentication (not offered)
        Reply unknown = host.admin(new Sqe(Sqe.OPCODE_FABRICS, 0, 1, 11, 0x7E, 0, 0, 0,
                SglDescriptor.transportDataBlock(0), 0, 0, 0, 0, 0, 0));
        assertThat(unknown.status()).isEqualTo(NvmeStatus.INVALID_OPCODE);
        Reply auth = host.admin(new Sqe(Sqe.OPCODE_FABRICS, 0, 1, 12, FabricsCommandType.AUTHENTICATION_RECEIVE.code(),
                0, 0, 0, SglDescriptor.transportDataBlock(0), 0, 0, 0, 0, 0, 0));
        assertThat(auth.status()).isEqualTo(NvmeStatus.INVALID_OPCODE);
        // Disconnect belongs to I/O queues
        assertThat(host.disconnect(host.admin).status()).isEqualTo(NvmeStatus.INVALID_QUEUE_TYPE);
        host.admin.close();
    }

    @Test
    void adminErrors() {
        TestHost host = TestHost.enabled(target, NQN);
        // an unknown admin opcode, an optional one we do not offer (Format NVM), a fused command
        assertThat(host.admin(Sqe.of(0x7E, 1, 0, SglDescriptor.transportDataBlock(0))).status())
                .isEqualTo(NvmeStatus.INVALID_OPCODE);
        assertThat(host.admin(Sqe.of(AdminOpcode.FORMAT_NVM.code(), 2, 1, SglDescriptor.transportDataBlock(0)))
                .status()).isEqualTo(NvmeStatus.INVALID_OPCODE);
        Sqe fused = new Sqe(AdminOpcode.KEEP_ALIVE.code(), 1, 1, 3, 0, 0, 0, 0, SglDescriptor.transportDataBlock(0),
                0, 0, 0, 0, 0, 0);
        assertThat(host.admin(fused).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        // Abort: legal, reports "not aborted"
        Reply abort = host.admin(Sqe.of(AdminOpcode.ABORT.code(), 4, 0, SglDescriptor.transportDataBlock(0),
                1 | 99 << 16));
        assertThat(abort.status()).isEqualTo(NvmeStatus.SUCCESS);
        assertThat(abort.dw0() & 1).isEqualTo(1);
        // the NVM opcode Read on the admin queue is Get Log Page's neighbour 02h... use Write (01h = Create I/O SQ)
        assertThat(host.admin(Sqe.of(AdminOpcode.CREATE_IO_SQ.code(), 5, 0, SglDescriptor.transportDataBlock(0)))
                .status()).isEqualTo(NvmeStatus.INVALID_OPCODE);
        host.admin.close();
    }

    @Test
    void nullBackendServesTheSameSequence() {
        NvmeTarget nul = NvmeTargets.create(List.of(new NamespaceSpec(NQN, 5, "null0",
                        new NullBlockDevice("null0", new BlockGeometry(512, 4096, 1 << 20), false))),
                List.of(), NvmeLimits.DEFAULT, clock);
        TestHost host = TestHost.enabled(nul, NQN);
        ByteBuf id = host.identifyData(0x01, 0);
        assertThat(id.getIntLE(516)).isEqualTo(64); // NN = highest NSID (5), but at least MNAN = 64
        id.release();
        ByteBuf ns = host.identifyData(0x00, 5);
        assertThat(ns.getLongLE(0)).isEqualTo(1 << 20);
        assertThat(ns.getUnsignedShortLE(64)).isEqualTo(7); // NPWG: 4096 / 512 - 1
        ns.release();
        host.admin.close();
    }
}
