package io.blocktarget.it;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real Linux initiators (open-iscsi, nvme-cli in the initiator VM, kernel 7.x) reach every portal
 * of a blocktarget started in a network namespace of this test. Proves the chain the iSCSI and
 * NVMe/TCP end-to-end tests stand on: namespace, server bound to the tap address, guest, logs.
 */
class LinuxInitiatorReachIT {
    private static final String GUEST = "192.168.231.2";

    @Test
    void guestInitiatorsConnectToEveryPortal() throws Exception {
        InitiatorVm.assumeAvailable();
        Path script = Path.of(LinuxInitiatorReachIT.class.getResource("/vm/reach-portals.sh").toURI());
        try (InitiatorVm vm = InitiatorVm.create("reach");
             ServerProcess server = vm.startServer("serve", "--bind", InitiatorVm.TARGET_ADDR)) {
            server.awaitLine(false, l -> l.contains("serving 4 LUNs"), Duration.ofSeconds(60));

            InitiatorVm.Result guest = vm.runGuest(script, Map.of());

            assertThat(guest.exitCode()).as(guest.output()).isZero();
            assertThat(guest.output()).contains("iscsiadm discovery rc=", "nvme discover (discovery port) rc=");
            for (String service : new String[] {"iSCSI", "NVMe/TCP", "discovery"}) {
                server.awaitLine(false, l -> l.contains(service + " connection from ")
                        && l.contains(GUEST + ":") && l.contains(InitiatorVm.TARGET_ADDR + ":"), Duration.ofSeconds(10));
            }
            server.terminate();
            assertThat(server.awaitExit(Duration.ofSeconds(60))).isZero();
        }
    }
}
