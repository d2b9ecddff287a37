/**
 * The NVMe layer (DESIGN.md §2): NVM subsystems and their namespaces over the block SPI, dynamic
 * controllers (admin + I/O queues, CNTLID allocation, keep-alive, AER), the NVM command set and the
 * discovery controller. It knows no TCP: the NVMe/TCP transport hands it one queue per connection
 * through {@link io.blocktarget.nvme.NvmeTarget} and {@link io.blocktarget.nvme.NvmeQueue}.
 *
 * <p>Contract with the transport:
 * <ul>
 * <li>The first capsule on a connection is a Fabrics Connect; the transport parses it
 *     (ConnectCommand / ConnectData from the protocol module, in-capsule data) and calls
 *     {@link io.blocktarget.nvme.NvmeTarget#connect}. Every later capsule goes to the queue's
 *     {@link io.blocktarget.nvme.NvmeQueue#submit}, including other Fabrics commands (Property
 *     Get/Set, Disconnect).</li>
 * <li>Host-to-controller data (opcode bits 1:0 = 01b, length from the SGL) is gathered by the
 *     transport (in-capsule or R2T/H2CData) before submit; controller-to-host data comes back in the
 *     completion and the transport sends it as C2HData (length capped by the SGL).</li>
 * <li>The transport owns the CQE framing: CID, SQID, SQHD (SQ flow control) and CapsuleResp; the
 *     NVMe layer returns status, DW0, DW1 and data.</li>
 * <li>Completions may run on any thread (file backends complete on worker threads, AERs when an
 *     event occurs); the transport hops back to its connection's event loop.</li>
 * <li>The NVMe layer may tear a controller down at any time (keep-alive expiry, CC.SHN); it then
 *     calls {@link io.blocktarget.nvme.NvmeHostConnection#terminate} on every connection of that
 *     controller.</li>
 * </ul>
 */
package io.blocktarget.nvme;
