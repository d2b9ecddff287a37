/**
 * The iSCSI target transport (RFC 7143) at ErrorRecoveryLevel 0 with MaxConnections 1.
 *
 * <p>Flow: {@link io.blocktarget.transport.iscsi.IscsiTransport#accept} puts an {@code IscsiFrameDecoder} in
 * front of Vert.x in the Netty pipeline (lengths capped before a frame is buffered) and hands every decoded
 * PDU to the connection, which owns it and releases it. {@code IscsiConnection} (state, session, StatSN, sending,
 * the fatal path) hands it to {@code LoginPhase} ({@code LoginExchange}: AuthMethod None / CHAP-MD5,
 * {@code KeyNegotiation} plus the cross-key rules), then to {@code FullFeaturePhase}: the CmdSN window
 * ({@code CommandWindow}), NOP, Text/SendTargets ({@code TextExchange}), task management ({@code TaskManagement}),
 * logout, Reject; the target's NOP-In pings are {@code NopInPinger}'s; SCSI commands go to
 * {@code TaskEngine} (immediate / unsolicited / R2T data-out into one composite buffer, execution on the
 * {@link io.blocktarget.scsi.ScsiTargetDevice}, Data-In and SCSI Response). Frames go out through
 * {@code PduWriter} as composites over the device's buffers: no copy of read data.
 *
 * <p>Threads: a connection, its session and its tasks live on the connection's event loop and take no
 * locks; device completions from other threads hop back through the channel's executor. Only the
 * {@code SessionRegistry} (TSIH, reinstatement) is shared between loops.
 *
 * <p>States: {@code ConnectionState}, {@code LoginState}, {@code SessionState} (checked, logged
 * transitions), {@code ScsiTask.State} per command. Errors: PDU-level problems answer Reject or a login
 * status; framing, header digest and sequence violations go through the connection's single
 * {@code fatal(reason)}, which logs once and closes; other sessions never notice.
 */
package io.blocktarget.transport.iscsi;
