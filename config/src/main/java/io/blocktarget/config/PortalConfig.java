package io.blocktarget.config;

import java.util.Objects;

/**
 * One portal of {@code blocktarget.yaml}'s {@code portals:} list: an address with an iSCSI port and an NVMe/TCP port.
 * The server makes each one iSCSI target portal group (TPGT), one ALUA target port group and one NVMe port (PORTID),
 * numbered 1, 2, ... in list order. Without {@code portals:} there is one, {@link #DEFAULT_NAME}, from {@code bind},
 * {@code iscsi-port} and {@code nvme-port}.
 *
 * @param name      the portal's name in {@code paths:}, fault rules and the CLI
 * @param address   the IP address literal it listens on
 * @param iscsiPort the iSCSI port; 0 = no iSCSI on this portal
 * @param nvmePort  the NVMe/TCP port; 0 = no NVMe/TCP on this portal
 */
public record PortalConfig(String name, String address, int iscsiPort, int nvmePort) {
    /** The name of the one portal a configuration without {@code portals:} has. */
    public static final String DEFAULT_NAME = "default";

    public PortalConfig {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(address, "address");
        if (iscsiPort < 0 || iscsiPort > 65535 || nvmePort < 0 || nvmePort > 65535) {
            throw new IllegalArgumentException("portal " + name + ": port out of range");
        }
    }
}
