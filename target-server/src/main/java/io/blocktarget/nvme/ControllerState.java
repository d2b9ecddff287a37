package io.blocktarget.nvme;

import java.util.Set;

/**
 * Life of a controller (Base §3.6 "Controller Initialization", §3.6.2 shutdown): created by Connect with
 * CC.EN = 0, ENABLED once the host sets CC.EN = 1 (CSTS.RDY = 1), SHUTDOWN after CC.SHN (CSTS.SHST =
 * complete), back to CONNECTED on CC.EN = 0 (a controller reset), TORN_DOWN for good when the admin queue
 * goes away or the keep-alive timer expires.
 */
enum ControllerState {
    CONNECTED, ENABLED, SHUTDOWN, TORN_DOWN;

    Set<ControllerState> next() {
        return switch (this) {
            case CONNECTED -> Set.of(ENABLED, SHUTDOWN, TORN_DOWN);
            case ENABLED -> Set.of(CONNECTED, SHUTDOWN, TORN_DOWN);
            // EN 0 -> 1 after a shutdown requested while disabled is a fresh enable
            case SHUTDOWN -> Set.of(CONNECTED, ENABLED, TORN_DOWN);
            case TORN_DOWN -> Set.of();
        };
    }

    boolean canMoveTo(ControllerState target) {
        return next().contains(target);
    }
}
