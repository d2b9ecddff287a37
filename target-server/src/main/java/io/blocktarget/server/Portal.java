package io.blocktarget.server;

/**
 * One listening socket of the server.
 *
 * @param service what it serves
 * @param host    the bind address
 * @param port    the port actually bound
 */
public record Portal(Service service, String host, int port) {

    /** The services a portal can offer. */
    public enum Service {
        ISCSI("iSCSI"),
        NVME_TCP("NVMe/TCP"),
        NVME_DISCOVERY("discovery");

        private final String label;

        Service(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /** {@code host:port}, with brackets for IPv6 literals. */
    public String address() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
