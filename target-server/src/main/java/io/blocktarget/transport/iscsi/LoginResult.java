package io.blocktarget.transport.iscsi;

import io.blocktarget.protocol.iscsi.SessionType;
import io.blocktarget.scsi.ScsiTargetDevice;

import java.util.Optional;

/**
 * Who logged in to what, with the negotiated parameters.
 *
 * @param target empty for a discovery session
 */
record LoginResult(SessionType sessionType, String initiatorName, Optional<ScsiTargetDevice> target, long isid,
                   int cid, OperationalParameters parameters) {
}
