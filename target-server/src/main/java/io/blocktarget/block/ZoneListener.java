package io.blocktarget.block;

/**
 * Told of every zone condition change (not of write pointer moves within an open zone): what the NVMe Changed Zone
 * List log (ZNS §5.3.1, with its Zone Descriptor Changed AEN) and a trace are fed from.
 *
 * <p>Called on the thread that made the change while the device's resource lock is held: it must be quick, must not
 * block and must not call back into {@link Zones} (record the zone and schedule the AEN elsewhere).
 */
@FunctionalInterface
public interface ZoneListener {

    /** Who caused a change. */
    enum Cause {
        /** A command of an initiator / host: a write, open, close, finish, reset. */
        HOST,
        /** The device itself: closing an implicitly open zone to make room, or a fault rule (read-only, offline). */
        DEVICE
    }

    /**
     * @param zone the zone after the change
     * @param from its condition before
     */
    void zoneChanged(Zone zone, ZoneCondition from, Cause cause);
}
