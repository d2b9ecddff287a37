package io.blocktarget.it.nvme;

import io.blocktarget.protocol.nvme.ConnectData;
import io.blocktarget.protocol.nvme.ControllerRegister;
import io.blocktarget.protocol.nvme.GetLogPageCommand;
import io.blocktarget.protocol.nvme.IdentifyCommand;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.protocol.nvme.Sqe;
import io.blocktarget.protocol.nvme.ZoneAppendCommand;
import io.blocktarget.protocol.nvme.ZoneDescriptor;
import io.blocktarget.protocol.nvme.ZoneManagementReceiveCommand;
import io.blocktarget.protocol.nvme.ZoneManagementReceiveCommand.ReportingOption;
import io.blocktarget.protocol.nvme.ZoneManagementSendCommand;
import io.blocktarget.protocol.nvme.ZoneState;
import io.blocktarget.protocol.nvme.ZnsIdentifyController;
import io.blocktarget.protocol.nvme.ZnsIdentifyNamespace;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.util.Arrays;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Zoned namespaces over NVMe/TCP through the Java host (DESIGN §8 tier 4): the selection Linux makes (CAP.CSS bit
 * 43, CC.CSS = 110b), the CSI 02h Identify structures and effects log, then writes at the write pointer, Zone Append
 * with in-capsule data and with R2T (its LBA in the CQE), zone management and Report Zones on the wire.
 */
@Tag("loopback")
class ZonedNvmeTcpLoopbackIT {
    private static final int CC_ALL_SETS = NvmeTcpTestHost.CC_ENABLE | 0b110 << 4;
    private static LoopbackNvmeServer server;

    @BeforeAll
    static void start() throws Exception {
        server = new LoopbackNvmeServer();
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    private static NvmeTcpTestHost admin(String nqn) throws IOException {
        NvmeTcpTestHost host = NvmeTcpTestHost.open(server.ioPort, false, false);
        NvmeTcpTestHost.require(host.connect(nqn, 0, 31, ConnectData.CNTLID_DYNAMIC, 0, 0), "admin Connect");
        long cap = host.propertyGet(ControllerRegister.CAP);
        assertThat(cap >>> 43 & 1).as("CAP.CSS bit 43: I/O Command Sets").isEqualTo(1);
        host.propertySet(ControllerRegister.CC, CC_ALL_SETS);
        assertThat(host.propertyGet(ControllerRegister.CSTS) & 0b11).isEqualTo(1);
        return host;
    }

    private static NvmeTcpTestHost io(String nqn, int cntlid) throws IOException {
        NvmeTcpTestHost host = NvmeTcpTestHost.open(server.ioPort, false, false);
        NvmeTcpTestHost.require(host.connect(nqn, 1, 127, cntlid, 0, 0), "I/O Connect");
        host.inCapsuleLimit = 16 * 1024;
        return host;
    }

    private static byte[] pattern(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static NvmeTcpTestHost.Reply identify(NvmeTcpTestHost host, int cns, int nsid, int csi) throws IOException {
        return host.execute(new IdentifyCommand(0, nsid, cns, 0, 0, csi, 0, null).toSqe(), null,
                IdentifyCommand.DATA_SIZE);
    }

    private static NvmeTcpTestHost.Reply append(NvmeTcpTestHost host, long zslba, byte[] data, int lbs)
            throws IOException {
        return host.execute(new ZoneAppendCommand(0, 1, zslba, data.length / lbs - 1, false, false, false, null)
                .toSqe(), data, 0);
    }

    private static NvmeStatus send(NvmeTcpTestHost host, long slba, ZoneManagementSendCommand.Action action,
                                   boolean all) throws IOException {
        NvmeTcpTestHost.Reply r = host.execute(new ZoneManagementSendCommand(0, 1, slba, action, all, false, null)
                .toSqe(), null, 0);
        return NvmeStatus.of(r.cqe().status().sct(), r.cqe().status().sc());
    }

    private static ByteBuf report(NvmeTcpTestHost host, long slba, boolean partial, int bytes) throws IOException {
        NvmeTcpTestHost.Reply r = host.execute(new ZoneManagementReceiveCommand(0, 1, slba, bytes / 4 - 1,
                ZoneManagementReceiveCommand.Action.REPORT_ZONES, ReportingOption.ALL, partial, null).toSqe(), null,
                bytes);
        NvmeTcpTestHost.require(r, "Report Zones");
        assertThat(r.data()).hasSize(bytes);
        return Unpooled.wrappedBuffer(r.data());
    }

    @ParameterizedTest
    @ValueSource(ints = {4096, 16384})
    void zonedNamespaceOverTcp(int lbs) throws IOException {
        String nqn = LoopbackNvmeServer.zonedNqn(lbs);
        long zsze = LoopbackNvmeServer.ZONE_BYTES / lbs;
        long zcap = LoopbackNvmeServer.ZONE_CAPACITY_BYTES / lbs;
        try (NvmeTcpTestHost admin = admin(nqn)) {
            // what Linux reads before it accepts the namespace
            NvmeTcpTestHost.Reply iocs = identify(admin, IdentifyCommand.CNS_IO_COMMAND_SET, 0, 0);
            NvmeTcpTestHost.require(iocs, "Identify CNS 1Ch");
            assertThat(Unpooled.wrappedBuffer(iocs.data()).getLongLE(0)).isEqualTo(0b101);
            NvmeTcpTestHost.Reply ctrl = identify(admin, IdentifyCommand.CNS_CS_CONTROLLER, 0, IdentifyCommand.CSI_ZNS);
            NvmeTcpTestHost.require(ctrl, "Identify CNS 06h CSI 02h");
            // ZASL: 64 KiB = 2^4 × 4 KiB
            assertThat(ZnsIdentifyController.get(Unpooled.wrappedBuffer(ctrl.data())).zasl()).isEqualTo(4);
            NvmeTcpTestHost.Reply ns = identify(admin, IdentifyCommand.CNS_CS_NAMESPACE, 1, IdentifyCommand.CSI_ZNS);
            NvmeTcpTestHost.require(ns, "Identify CNS 05h CSI 02h");
            ZnsIdentifyNamespace zns = ZnsIdentifyNamespace.get(Unpooled.wrappedBuffer(ns.data()), 1);
            assertThat(zns.zoc()).isZero();
            assertThat(zns.mor()).isEqualTo(LoopbackNvmeServer.ZONED_MAX_OPEN - 1);
            assertThat(zns.mar()).isEqualTo(LoopbackNvmeServer.ZONED_MAX_ACTIVE - 1);
            assertThat(zns.lbafe().getFirst().zsze()).isEqualTo(zsze);
            NvmeTcpTestHost.Reply effects = admin.execute(new GetLogPageCommand(0, 0,
                    GetLogPageCommand.LID_COMMANDS_SUPPORTED_AND_EFFECTS, 0, false, 1023, 0, 0, false,
                    IdentifyCommand.CSI_ZNS, null).toSqe(), null, 4096);
            NvmeTcpTestHost.require(effects, "effects log CSI 02h");
            assertThat(Unpooled.wrappedBuffer(effects.data()).getIntLE(1024 + 4 * 0x7D) & 1).isEqualTo(1);
            int cntlid = admin.identifyController().cntlid();
            try (NvmeTcpTestHost io = io(nqn, cntlid)) {
                // a write at the write pointer, then one that is not
                byte[] first = pattern(2 * lbs, lbs);
                NvmeTcpTestHost.require(io.write(1, 0, 2, first), "write at the write pointer");
                assertThat(io.write(1, 3, 1, pattern(lbs, 1)).is(NvmeStatus.ZONE_INVALID_WRITE)).isTrue();
                // Zone Append in-capsule (one block) and through R2T (64 KiB = ZASL, more than in-capsule at 4 KiB
                // and 16 KiB alike); each returns the LBA it wrote in DW0 / DW1
                byte[] small = pattern(lbs, 2);
                NvmeTcpTestHost.Reply a1 = append(io, zsze, small, lbs);
                NvmeTcpTestHost.require(a1, "Zone Append in-capsule");
                assertThat(Integer.toUnsignedLong(a1.cqe().dw0()) | (long) a1.cqe().dw1() << 32).isEqualTo(zsze);
                byte[] big = pattern(LoopbackNvmeServer.ZONE_APPEND_MAX_BYTES, 3);
                io.inCapsuleLimit = 0; // force R2T
                NvmeTcpTestHost.Reply a2 = append(io, zsze, big, lbs);
                NvmeTcpTestHost.require(a2, "Zone Append by R2T");
                assertThat(Integer.toUnsignedLong(a2.cqe().dw0())).isEqualTo(zsze + 1);
                io.inCapsuleLimit = 16 * 1024;
                NvmeTcpTestHost.Reply back = io.read(1, zsze + 1, big.length / lbs, big.length);
                NvmeTcpTestHost.require(back, "read appended blocks");
                assertThat(back.data()).isEqualTo(big);
                // ZASL + 1 block is Invalid Field
                assertThat(append(io, zsze, pattern(LoopbackNvmeServer.ZONE_APPEND_MAX_BYTES + lbs, 4), lbs)
                        .is(NvmeStatus.INVALID_FIELD)).isTrue();
                // Report Zones, partial, room for two: zone 0 implicitly opened at WP 2, zone 1 at WP 1 + 64 KiB
                ByteBuf rep = report(io, 0, true, 64 + 128);
                assertThat(rep.getLongLE(0)).isEqualTo(2);
                ZoneDescriptor z0 = ZoneDescriptor.get(rep, 64);
                ZoneDescriptor z1 = ZoneDescriptor.get(rep, 128);
                assertThat(z0).isEqualTo(ZoneDescriptor.of(ZoneState.IMPLICITLY_OPENED, 0, zcap, 0, 2));
                assertThat(z1.wp()).isEqualTo(zsze + 1 + big.length / lbs);
                // finish zone 0, reset all: every zone empty again, the data gone
                assertThat(send(io, 0, ZoneManagementSendCommand.Action.FINISH, false)).isEqualTo(NvmeStatus.SUCCESS);
                assertThat(io.write(1, 2, 1, pattern(lbs, 5)).is(NvmeStatus.ZONE_IS_FULL)).isTrue();
                assertThat(send(io, 0, ZoneManagementSendCommand.Action.RESET, true)).isEqualTo(NvmeStatus.SUCCESS);
                ByteBuf all = report(io, 0, false, 4096);
                long zones = LoopbackNvmeServer.NAMESPACE_BYTES / LoopbackNvmeServer.ZONE_BYTES;
                assertThat(all.getLongLE(0)).isEqualTo(zones);
                for (int k = 0; k < zones; k++) {
                    assertThat(ZoneDescriptor.get(all, 64 + 64 * k).zs()).isEqualTo(ZoneState.EMPTY);
                }
                NvmeTcpTestHost.Reply zero = io.read(1, 0, 2, 2 * lbs);
                assertThat(zero.data()).isEqualTo(new byte[2 * lbs]);
                assertThat(Arrays.equals(zero.data(), first)).isFalse();
            }
        }
    }
}
