package io.blocktarget.scsi;

import io.blocktarget.protocol.scsi.IscsiTransportId;

import java.util.Optional;

/** The iSCSI TransportID of a nexus's initiator port, for READ FULL STATUS (SPC-4 §7.6.4.6). */
final class TransportIds {
    private static final String SEPARATOR = ",i,0x";

    private TransportIds() {
    }

    /**
     * {@code <InitiatorName>,i,0x<ISID>} becomes an initiator port TransportID (format 01b); a port
     * name without a well-formed ISID becomes the initiator device form (00b) of the name before the
     * first comma.
     */
    static IscsiTransportId of(ItNexus nexus) {
        String port = nexus.initiatorPortName();
        int at = port.indexOf(SEPARATOR);
        try {
            if (at > 0) {
                return new IscsiTransportId(port.substring(0, at), Optional.of(port.substring(at + SEPARATOR.length())));
            }
        } catch (IllegalArgumentException malformedIsid) {
            // fall back to the device form below
        }
        int comma = port.indexOf(',');
        String name = comma > 0 ? port.substring(0, comma) : port.isEmpty() ? "unknown" : port;
        return new IscsiTransportId(name, Optional.empty());
    }
}
