package io.blocktarget.scsi;

import java.util.Objects;

/**
 * An I_T nexus (SAM-5 §4.7): who sends a command to which target port. Unit attentions, RESERVE(6)
 * and persistent-reservation registrations are kept per nexus.
 *
 * @param initiatorPortName iSCSI initiator port name, {@code <InitiatorName>,i,0x<ISID>} (RFC 7143 §4.2.7.5)
 * @param targetPortName    iSCSI target port name, {@code <TargetName>,t,0x<TPGT>}
 * @param relativeTargetPort relative target port identifier (VPD 83h), ≥ 1
 */
public record ItNexus(String initiatorPortName, String targetPortName, int relativeTargetPort) {
    public ItNexus {
        Objects.requireNonNull(initiatorPortName, "initiatorPortName");
        Objects.requireNonNull(targetPortName, "targetPortName");
    }
}
