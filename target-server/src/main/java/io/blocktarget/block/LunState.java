package io.blocktarget.block;

import java.util.Objects;

/**
 * The per-device state both command sets share (DESIGN §10): one instance per LUN, created by the server beside the
 * LUN's {@link BlockDevice} and handed to the SCSI logical unit and the NVMe namespace that export it. What lives here
 * is what SCSI and NVMe must agree on about one device: LBA range locks (COMPARE AND WRITE, fused Compare and Write,
 * atomic writes), reservations, and the count of commands in flight with the DRAINING state used by TMF, resize and
 * removal.
 */
public final class LunState {
    private final String name;
    private final InFlight inFlight = new InFlight();

    public LunState(String name) {
        this.name = Objects.requireNonNull(name, "name");
    }

    /** Commands executing on this device (both protocols) and the DRAINING state removal waits on. */
    public InFlight inFlight() {
        return inFlight;
    }

    /** The LUN name, for logs. */
    public String name() {
        return name;
    }

    @Override
    public String toString() {
        return "LunState[" + name + "]";
    }
}
