package io.blocktarget.nvme;

import static org.assertj.core.api.Assertions.assertThat;

import io.blocktarget.nvme.TestSupport.Reply;
import io.blocktarget.nvme.TestSupport.TestConnection;
import io.blocktarget.protocol.nvme.ControllerRegister;
import io.blocktarget.protocol.nvme.DiscoveryLog;
import io.blocktarget.time.ManualClock;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * issue 29: the discovery log lists a subsystem once per NVMe port (each portal of {@code portals:} with NVMe/TCP), with
 * that port's PORTID, TRADDR and TRSVCID (NVMe Base 2.x §5.16.1.23, Figure "Discovery Log Page Entry"; NVMe/TCP
 * §3.3: TRSVCID is the port number as ASCII), so a host connects through every path. A wildcard port is reported with
 * the address the host reached the discovery controller on.
 */
class DiscoveryPortsTest {
    private static final String NQN = "nqn.2026-11.io.blocktarget:mp";

    private final NvmeSubsystems target = NvmeSubsystems.of(List.of(
                    new NamespaceSpec(NQN, 1, "mp", TestSupport.ram("mp", 512, 512, 64))),
            List.of(new NvmePort(1, "127.0.0.1", 4420), new NvmePort(2, "0.0.0.0", 4421)), NvmeLimits.DEFAULT,
            new ManualClock(), Map.of());

    @Test
    void everyPortListsTheSubsystemWithItsPortid() {
        TestHost host = TestHost.connect(target, DiscoveryLog.DISCOVERY_NQN, 0,
                new TestConnection("127.0.0.2", 8009));
        host.propertySet(ControllerRegister.CC, TestHost.CC_ENABLE);
        Reply page = host.getLogPage(0x70, 0, 0, 3 * 1024, false);
        ByteBuf p = page.data();
        try {
            check(p);
        } finally {
            page.release();
            host.admin.close();
        }
    }

    private static void check(ByteBuf p) {
        assertThat(p.getLongLE(8)).as("NUMREC").isEqualTo(2);
        assertThat(p.getShortLE(16)).as("RECFMT").isZero();
        for (int k = 0; k < 2; k++) {
            int e = 1024 * (k + 1);
            assertThat((int) p.getUnsignedByte(e)).as("TRTYPE TCP").isEqualTo(3);
            assertThat((int) p.getUnsignedByte(e + 1)).as("ADRFAM IPv4").isEqualTo(1);
            assertThat((int) p.getUnsignedByte(e + 2)).as("SUBTYPE NVM subsystem").isEqualTo(2);
            assertThat(p.getUnsignedShortLE(e + 4)).as("PORTID").isEqualTo(k + 1);
            assertThat(p.getUnsignedShortLE(e + 6)).as("CNTLID dynamic").isEqualTo(0xFFFF);
            assertThat(p.toString(e + 256, 256, StandardCharsets.US_ASCII).replace("\0", "")).isEqualTo(NQN);
        }
        assertThat(p.toString(1024 + 32, 32, StandardCharsets.US_ASCII)).isEqualTo(pad("4420", 32));
        assertThat(p.toString(1024 + 512, 256, StandardCharsets.US_ASCII)).isEqualTo(pad("127.0.0.1", 256));
        assertThat(p.toString(2048 + 32, 32, StandardCharsets.US_ASCII)).isEqualTo(pad("4421", 32));
        assertThat(p.toString(2048 + 512, 256, StandardCharsets.US_ASCII))
                .as("the wildcard port: the address the host came to").isEqualTo(pad("127.0.0.2", 256));
    }

    private static String pad(String text, int width) {
        return text + " ".repeat(width - text.length());
    }
}
