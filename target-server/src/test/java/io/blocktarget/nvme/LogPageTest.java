package io.blocktarget.nvme;

import io.blocktarget.nvme.TestSupport.Reply;
import io.blocktarget.nvme.TestSupport.TestConnection;
import io.blocktarget.protocol.nvme.NvmeStatus;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Get Log Page (Base §5.16): pages, windows (offset / length), and the discovery log for 2 subsystems × 2 ports. */
class LogPageTest {
    private static final String A = "nqn.2026-11.io.blocktarget:a";
    private static final String B = "nqn.2026-11.io.blocktarget:b";
    private static final String DISCOVERY = "nqn.2014-08.org.nvmexpress.discovery";

    private final ManualClock clock = new ManualClock();
    private final NvmeTarget target = NvmeTargets.create(List.of(
                    new NamespaceSpec(A, 1, "a1", TestSupport.ram("a1", 512, 4096, 1024)),
                    new NamespaceSpec(A, 2, "a2", TestSupport.ram("a2", 4096, 4096, 1024)),
                    new NamespaceSpec(B, 1, "b1", TestSupport.ram("b1", 512, 512, 1024))),
            List.of(new NvmePort(1, "0.0.0.0", 4420), new NvmePort(2, "10.0.0.7", 8009)),
            NvmeLimits.DEFAULT, clock);

    @Test
    void smartCountsCommandsAndDataUnits() {
        TestHost host = TestHost.enabled(target, A);
        NvmeQueue q = host.connectIo(1);
        for (int i = 0; i < 3; i++) {
            assertThat(host.write(q, 1, 0, new byte[512 * 100], 512, false).status()).isEqualTo(NvmeStatus.SUCCESS);
        }
        host.read(q, 1, 0, 1, 512).release();
        Reply smart = host.getLogPage(0x02, 0xFFFF_FFFF, 0, 512, false);
        ByteBuf b = smart.data();
        assertThat(b.getLongLE(32)).isEqualTo(1);   // Data Units Read: 512 B rounds up to 1 unit
        assertThat(b.getLongLE(48)).isEqualTo(1);   // Data Units Written: 300 x 512 B = 0.3 units -> 1
        assertThat(b.getLongLE(64)).isEqualTo(1);   // Host Read Commands
        assertThat(b.getLongLE(80)).isEqualTo(3);   // Host Write Commands
        assertThat((int) b.getUnsignedByte(3)).isEqualTo(100); // Available Spare
        smart.release();
        // per-namespace SMART is not offered (LPA bit 0 = 0)
        assertThat(host.getLogPage(0x02, 1, 0, 512, false).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        host.admin.close();
    }

    @Test
    void pagesAndPartialReads() {
        TestHost host = TestHost.enabled(target, A);
        Reply error = host.getLogPage(0x01, 0, 0, 64, false);
        assertThat(error.bytes()).hasSize(64).containsOnly(0);
        Reply firmware = host.getLogPage(0x03, 0, 0, 512, false);
        byte[] fw = firmware.bytes();
        assertThat(fw[0]).isEqualTo((byte) 1); // AFI: slot 1 active
        assertThat(new String(fw, 8, 8, StandardCharsets.US_ASCII)).isEqualTo("1.0     ");
        // a window: 8 bytes of Commands Supported and Effects at offset 1024 + 4 = IOCS Write
        Reply window = host.getLogPage(0x05, 0, 1028, 8, false);
        assertThat(window.bytes()).containsExactly(3, 0, 0, 0, 1, 0, 0, 0);
        // past the end of the page is zero filled; an offset beyond it is Invalid Field
        Reply tail = host.getLogPage(0x03, 0, 508, 16, false);
        assertThat(tail.bytes()).hasSize(16).containsOnly(0);
        Reply beyond = host.getLogPage(0x03, 0, 516, 4, false);
        assertThat(beyond.status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        assertThat(beyond.data()).isNull();
        // an offset that is not dword aligned, and a data pointer shorter than NUMD asks
        assertThat(host.getLogPage(0x05, 0, 2, 8, false).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        Reply shortSgl = host.admin(new io.blocktarget.protocol.nvme.GetLogPageCommand(1, 0, 0x05, 0, false, 1023,
                0, 0, false, 0, io.blocktarget.protocol.nvme.SglDescriptor.transportDataBlock(512)).toSqe());
        assertThat(shortSgl.status()).isEqualTo(NvmeStatus.DATA_SGL_LENGTH_INVALID);
        // more than MDTS (1 MiB) in one Get Log Page
        assertThat(host.getLogPage(0x05, 0, 0, 2 * 1024 * 1024, false).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        // unknown pages, and the discovery log on an NVM controller
        for (int lid : new int[] {0x06, 0x70, 0xC0}) {   // 0Ch is the ANA log (AnaTest)
            Reply r = host.getLogPage(lid, 0, 0, 512, false);
            assertThat(r.status()).as("LID %x", lid).isEqualTo(NvmeStatus.INVALID_LOG_PAGE);
            assertThat(r.status().dnr()).isTrue();
        }
        host.admin.close();
    }

    @Test
    void discoveryLogListsEverySubsystemOnEveryPort() {
        TestHost host = TestHost.connect(target, DISCOVERY, 0, new TestConnection("192.168.231.1", 8009));
        host.propertySet(io.blocktarget.protocol.nvme.ControllerRegister.CC, TestHost.CC_ENABLE);
        ByteBuf id = host.identifyData(0x01, 0);
        assertThat((int) id.getUnsignedByte(111)).isEqualTo(2);           // CNTRLTYPE discovery
        assertThat(id.getIntLE(516)).isZero();                             // NN
        assertThat(id.toString(768, DISCOVERY.length(), StandardCharsets.UTF_8)).isEqualTo(DISCOVERY);
        assertThat(id.getIntLE(92)).isEqualTo(1 << 31);                    // OAES discovery log change
        id.release();
        // a discovery controller offers Identify Controller only, and the discovery log only
        assertThat(host.identify(0x00, 1, 0).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        assertThat(host.getLogPage(0x02, 0, 0, 512, false).status()).isEqualTo(NvmeStatus.INVALID_LOG_PAGE);

        // the host reads the header first, then the whole page in chunks
        Reply header = host.getLogPage(0x70, 0, 0, 1024, false);
        ByteBuf h = header.data();
        long genctr = h.getLongLE(0);
        assertThat(h.getLongLE(8)).isEqualTo(4);      // NUMREC: 2 subsystems x 2 ports
        assertThat(h.getUnsignedShortLE(16)).isZero(); // RECFMT
        header.release();
        ByteBuf whole = Unpooled.buffer();
        for (int offset = 0; offset < 5 * 1024; offset += 2048) {
            Reply chunk = host.getLogPage(0x70, 0, offset, 2048, false);
            assertThat(chunk.status()).isEqualTo(NvmeStatus.SUCCESS);
            whole.writeBytes(chunk.bytes());
        }
        assertThat(whole.readableBytes()).isEqualTo(6144);
        assertThat(whole.getLongLE(0)).isEqualTo(genctr);
        String[][] expected = {
                {"192.168.231.1", "4420", "1", A}, {"192.168.231.1", "4420", "1", B},
                {"10.0.0.7", "8009", "2", A}, {"10.0.0.7", "8009", "2", B}};
        for (int k = 0; k < 4; k++) {
            int e = 1024 * (k + 1);
            assertThat((int) whole.getUnsignedByte(e)).isEqualTo(3);      // TRTYPE TCP
            assertThat((int) whole.getUnsignedByte(e + 1)).isEqualTo(1);  // ADRFAM IPv4
            assertThat((int) whole.getUnsignedByte(e + 2)).isEqualTo(2);  // SUBTYPE NVM subsystem
            assertThat(whole.getUnsignedShortLE(e + 4)).isEqualTo(Integer.parseInt(expected[k][2])); // PORTID
            assertThat(whole.getUnsignedShortLE(e + 6)).isEqualTo(0xFFFF); // CNTLID dynamic
            assertThat(whole.getUnsignedShortLE(e + 8)).isEqualTo(32);     // ASQSZ
            assertThat(whole.toString(e + 32, 32, StandardCharsets.US_ASCII).strip()).isEqualTo(expected[k][1]);
            assertThat(whole.toString(e + 256, expected[k][3].length(), StandardCharsets.UTF_8))
                    .isEqualTo(expected[k][3]);
            assertThat(whole.toString(e + 512, 256, StandardCharsets.US_ASCII).strip()).isEqualTo(expected[k][0]);
        }
        assertThat(Arrays.copyOfRange(bytesOf(whole), 5 * 1024, 6144)).containsOnly(0); // past the page: zeros
        whole.release();
        // an offset beyond the page
        assertThat(host.getLogPage(0x70, 0, 8192, 1024, false).status()).isEqualTo(NvmeStatus.INVALID_FIELD);
        assertThat(host.keepAlive().status()).isEqualTo(NvmeStatus.SUCCESS);
        host.admin.close();
    }

    private static byte[] bytesOf(ByteBuf b) {
        return io.netty.buffer.ByteBufUtil.getBytes(b);
    }

    @Test
    void discoveryLogShowsOnlySubsystemsTheHostMayUse() {
        NvmeTarget locked = NvmeSubsystems.of(List.of(
                        new NamespaceSpec(A, 1, "a1", TestSupport.ram("a1", 512, 512, 64)),
                        new NamespaceSpec(B, 1, "b1", TestSupport.ram("b1", 512, 512, 64))),
                List.of(new NvmePort(1, "::", 4420)), NvmeLimits.DEFAULT, clock,
                java.util.Map.of(B, java.util.Set.of("nqn.2026-11.org.example:someone-else")));
        TestHost host = TestHost.connect(locked, DISCOVERY, 0, new TestConnection("fd00::1", 4420));
        host.propertySet(io.blocktarget.protocol.nvme.ControllerRegister.CC, TestHost.CC_ENABLE);
        Reply page = host.getLogPage(0x70, 0, 0, 2048, false);
        ByteBuf p = page.data();
        assertThat(p.getLongLE(8)).isEqualTo(1);
        assertThat((int) p.getUnsignedByte(1024 + 1)).isEqualTo(2); // ADRFAM IPv6
        assertThat(p.toString(1024 + 512, 256, StandardCharsets.US_ASCII).strip()).isEqualTo("fd00::1");
        assertThat(p.toString(1024 + 256, A.length(), StandardCharsets.UTF_8)).isEqualTo(A);
        page.release();
        host.admin.close();
    }
}
