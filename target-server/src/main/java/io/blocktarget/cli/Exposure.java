package io.blocktarget.cli;

import io.blocktarget.config.AccessConfig;
import io.blocktarget.config.BlocktargetConfig;
import io.blocktarget.config.ServerConfig;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The one warning {@code serve} gives when it is open to the network (issue 14 "safe defaults, stated"): a portal
 * on an address other than loopback while nothing asks anyone to authenticate — no {@code discovery-chap} and no LUN
 * with {@code access.chap}, {@code initiators}, {@code hosts} or {@code dhchap}. Then whoever reaches a port can
 * discover every target and write every LUN.
 */
final class Exposure {
    private Exposure() {
    }

    static Optional<String> warning(BlocktargetConfig config) {
        ServerConfig server = config.server();
        List<String> ports = new ArrayList<>();
        if (server.iscsiPort() != 0) {
            ports.add(Integer.toString(server.iscsiPort()));
        }
        if (server.nvmePort() != 0) {
            ports.add(Integer.toString(server.nvmePort()));
        }
        if (server.discoveryPort() != 0) {
            ports.add(Integer.toString(server.discoveryPort()));
        }
        if (ports.isEmpty() || loopback(server.bindAddress()) || server.discoveryChap().isPresent()
                || config.luns().stream().anyMatch(lun -> guarded(lun.access()))) {
            return Optional.empty();
        }
        return Optional.of("listening on " + server.bindAddress() + " (ports " + String.join(", ", ports)
                + ") with no authentication at all: anyone who reaches them can discover every target and read and"
                + " write every LUN; bind 127.0.0.1 for local tests, or set access (chap, initiators, hosts, dhchap)"
                + " and discovery-chap (docs/security.md)");
    }

    private static boolean guarded(AccessConfig access) {
        return access.chap().isPresent() || !access.initiators().isEmpty() || !access.hosts().isEmpty()
                || access.dhchap().isPresent() || access.tls().mode() == io.blocktarget.config.TlsMode.REQUIRED;
    }

    /** 127.0.0.0/8 and ::1 (IP literals only: the config refuses host names). */
    static boolean loopback(String address) {
        return address.startsWith("127.") || address.equals("::1") || address.equals("0:0:0:0:0:0:0:1");
    }
}
