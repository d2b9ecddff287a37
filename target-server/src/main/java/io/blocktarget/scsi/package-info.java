/**
 * The SCSI device server (DESIGN.md §2): SPC-4 / SBC-4 logical units over the block SPI, grouped into
 * SCSI target devices (one per iSCSI target name). It never sees a PDU: the iSCSI transport hands it
 * a {@link io.blocktarget.scsi.ScsiCommand} with the whole data-out already gathered and gets a
 * {@link io.blocktarget.scsi.ScsiResponse} back.
 *
 * <p>Contract with the transport:
 * <ul>
 * <li>Data-out: the transport gathers what the initiator sends for the command (immediate data,
 *     unsolicited Data-Out, R2T'd Data-Out: at most EDTL bytes) into one buffer (a composite of
 *     received slices is fine) and calls {@link io.blocktarget.scsi.ScsiTargetDevice#execute}; it
 *     keeps that buffer alive until the completion and releases it afterwards.</li>
 * <li>Data-in: the response's data buffer is owned by the transport; the device server returns what
 *     the CDB asks for (allocation length / transfer length); the transport sends at most EDTL bytes
 *     and computes residuals from {@link io.blocktarget.scsi.ScsiResponse#transferLength()}.</li>
 * <li>Completions run on any thread (file backends complete on worker threads); the transport hops
 *     back to its connection's event loop. State shared between sessions (reservations, unit
 *     attentions, mode pages) is thread-safe inside this package.</li>
 * <li>Task management: the transport finds and aborts its own tasks (ABORT TASK / TASK SET, CLEAR
 *     TASK SET); it tells the device server about LUN and target resets and about I_T nexus loss,
 *     which change device state (reservations, unit attentions).</li>
 * </ul>
 */
package io.blocktarget.scsi;
