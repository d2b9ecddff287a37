package io.blocktarget.nvme;

import io.blocktarget.protocol.nvme.DiscoveryLog;

import java.util.ArrayList;
import java.util.List;

/**
 * The Discovery log page (Base §5.16.1.23, NVMe/TCP §3.x TRADDR / TRSVCID): one entry per NVM subsystem the
 * host may use, per port. A port bound to a wildcard address is reported with the address the host reached
 * the discovery controller on, so the host connects back the way it came.
 */
final class DiscoveryLogs {
    private DiscoveryLogs() {
    }

    /** One snapshot of the page for one host; partial reads cut windows out of it. */
    static DiscoveryLog build(long genctr, List<Subsystem> subsystems, List<NvmePort> ports, String hostNqn,
                      NvmeHostConnection connection) {
        List<DiscoveryLog.Entry> entries = new ArrayList<>();
        for (NvmePort port : ports) {
            String traddr = isWildcard(port.address()) ? connection.localAddress() : port.address();
            int adrfam = traddr.contains(":") ? DiscoveryLog.Entry.ADRFAM_IPV6 : DiscoveryLog.Entry.ADRFAM_IPV4;
            for (Subsystem subsystem : subsystems) {
                if (subsystem.kind() == Subsystem.Kind.NVM && subsystem.allows(hostNqn)) {
                    SecureChannel channel = subsystem.secureChannel();
                    entries.add(DiscoveryLog.Entry.tcp(DiscoveryLog.Entry.SUBTYPE_NVME, adrfam, port.portId(),
                            traddr, port.port(), subsystem.nqn(), ControllerConstants.ADMIN_QUEUE_ENTRIES,
                            channel.treq(), channel.sectype()));
                }
            }
        }
        return new DiscoveryLog(genctr, entries);
    }

    /** 0.0.0.0, ::, [::] or empty: the port listens on every address. */
    static boolean isWildcard(String address) {
        String a = address.strip();
        if (a.startsWith("[") && a.endsWith("]")) {
            a = a.substring(1, a.length() - 1);
        }
        return a.isEmpty() || a.equals("0.0.0.0") || a.matches("[0:]*::[0:]*") || a.equals("*");
    }
}
