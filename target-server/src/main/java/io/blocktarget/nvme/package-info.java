/**
 * The NVMe layer (DESIGN.md §2): NVM subsystems and their namespaces over the block SPI, dynamic
 * controllers (admin + I/O queues, CNTLID allocation, keep-alive, AER), the NVM command set and the
 * discovery controller. It knows no TCP: each transport connection has one
 * {@link io.blocktarget.nvme.NvmeQueuePair} (one queue per connection), and the transport is its
 * {@link io.blocktarget.nvme.NvmeTransportOps}. Each command is one {@link io.blocktarget.nvme.NvmeRequest} (the
 * transport's own command object extends it), completed once through its one completion function.
 *
 * <p>Contract with the transport:
 * <ul>
 * <li>Each capsule takes an SQ entry ({@link io.blocktarget.nvme.NvmeQueuePair#admit}) and, once its data is
 *     here, goes to {@link io.blocktarget.nvme.NvmeQueuePair#submit}. The first must be a Fabrics Connect: the
 *     queue pair parses it (ConnectCommand / ConnectData from the protocol module) and calls
 *     {@link io.blocktarget.nvme.NvmeTarget#connect}; every later capsule goes to the bound queue, including other
 *     Fabrics commands (Property Get/Set, Disconnect).</li>
 * <li>Host-to-controller data (opcode bits 1:0 = 01b, length from the SGL) is gathered by the
 *     transport (in-capsule or R2T/H2CData) before submit; controller-to-host data comes back in the
 *     completion and the transport sends it as C2HData (length capped by the SGL).</li>
 * <li>The queue pair builds each CQE (CID, SQID, SQHD — advanced per capsule, FFFFh in the Connect response when
 *     the host disabled SQ flow control — status, DW0, DW1) and hands it with any data to
 *     {@link io.blocktarget.nvme.NvmeTransportOps#queueResponse} on the connection's thread; the transport frames
 *     it (C2HData, CapsuleResp).</li>
 * <li>Completions may run on any thread (file backends complete on worker threads, AERs when an
 *     event occurs); the request's completion function runs there, the response hops to the connection's
 *     thread ({@code NvmeTransportOps.execute}).</li>
 * <li>The NVMe layer may tear a controller down at any time (keep-alive expiry, CC.SHN); it then
 *     calls {@link io.blocktarget.nvme.NvmeHostConnection#terminate} on every connection of that
 *     controller.</li>
 * </ul>
 */
package io.blocktarget.nvme;
