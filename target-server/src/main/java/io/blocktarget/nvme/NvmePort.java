package io.blocktarget.nvme;

/**
 * An NVMe/TCP port of the server, for discovery log entries (TRADDR / TRSVCID / PORTID).
 *
 * @param portId  PORTID
 * @param address bind address; a wildcard (0.0.0.0 / ::) means "the address the host connected to"
 * @param port    TCP port
 */
public record NvmePort(int portId, String address, int port) {
}
