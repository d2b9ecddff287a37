/**
 * The NVMe/TCP transport (NVMe/TCP 1.0/1.1, DESIGN.md §2/§3): {@link io.blocktarget.transport.nvmetcp.NvmeTcpTransport}
 * takes each accepted Vert.x socket and installs three handlers in its Netty pipeline, in front of Vert.x's own:
 * flush consolidation, {@code NvmeTcpFrameDecoder} (frames from the 8-byte common header with the protocol
 * module's {@code NvmeTcpFraming}, caps before buffering, one PDU per decode so the framing can follow the
 * connection) and {@code NvmeTcpConnection} (one per connection, on its event loop, no locks).
 *
 * <p>Connection states AWAIT_ICREQ → AWAIT_CONNECT → LIVE → CLOSING; command states NEW → AWAITING_H2C_DATA →
 * EXECUTING → SENDING_C2H → DONE, both checked. Each capsule is one {@code Command} (an {@code NvmeRequest}) handed
 * to the connection's {@code NvmeQueuePair} — which parses the Fabrics Connect (1024 bytes in-capsule or by R2T)
 * and owns SQHD — once its host-to-controller data is gathered (in-capsule slice, or H2CData slices gathered zero-copy into a composite,
 * one R2T of at most MAXH2CDATA outstanding per command, TTAG = the command's slot). Controller-to-host data goes
 * out as C2HData of at most 128 KiB, header plus retained slices of the NVMe layer's buffer; with SQ flow control
 * disabled a successful read ends with the SUCCESS flag and no CapsuleResp. The CQE (CID, SQID, SQHD) comes from the
 * queue pair through {@code NvmeTransportOps.queueResponse}.
 *
 * <p>Errors: framing, header digest and sequence errors end the connection with one log line and a C2HTermReq
 * carrying the FES/FEI of {@code NvmeTcpProtocolException}; an H2CTermReq closes it. A data digest error is not
 * fatal (NVMe/TCP §3.6.2.x, unlike Linux nvmet, which drops the connection): the command completes with
 * Transient Transport Error after the rest of its R2T's data has been drained.
 */
package io.blocktarget.transport.nvmetcp;
