package io.blocktarget.scsi;

import io.blocktarget.block.Registrant;
import io.blocktarget.protocol.scsi.IscsiTransportId;

import java.util.Optional;

/** The iSCSI TransportID of a registrant, for READ FULL STATUS (SPC-5 §7.6.4.6). */
final class TransportIds {
    private static final String SEPARATOR = ",i,0x";

    private TransportIds() {
    }

    static IscsiTransportId of(ItNexus nexus) {
        return of(nexus.initiatorPortName());
    }

    /**
     * An NVMe host has no SCSI TransportID (SPC-5 defines no protocol identifier for NVMe over Fabrics): it is
     * reported in the iSCSI initiator device form with the NVMe UUID host NQN of its Host Identifier
     * ({@code nqn.2014-08.org.nvmexpress:uuid:<hostid>}, NVMe Base §4.7), so a SCSI initiator sees who it is.
     */
    static IscsiTransportId of(Registrant registrant) {
        return switch (registrant) {
            case Registrant.InitiatorPort p -> of(p.initiatorPortName());
            case Registrant.Host h -> new IscsiTransportId("nqn.2014-08.org.nvmexpress:uuid:" + h.hostId(),
                    Optional.empty());
        };
    }

    /**
     * {@code <InitiatorName>,i,0x<ISID>} becomes an initiator port TransportID (format 01b); a port
     * name without a well-formed ISID becomes the initiator device form (00b) of the name before the
     * first comma.
     */
    private static IscsiTransportId of(String port) {
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
