package io.blocktarget.nvme;

import io.blocktarget.state.StateMachine;

/**
 * Life of a controller (Base §3.6 "Controller Initialization", §3.6.2 shutdown): created by Connect with
 * CC.EN = 0, ENABLED once the host sets CC.EN = 1 (CSTS.RDY = 1), SHUTDOWN after CC.SHN (CSTS.SHST =
 * complete), back to CONNECTED on CC.EN = 0 (a controller reset), TORN_DOWN for good when the admin queue
 * goes away or the keep-alive timer expires.
 */
enum ControllerState {
    CONNECTED, ENABLED, SHUTDOWN, TORN_DOWN;

    static final StateMachine<ControllerState> MACHINE = StateMachine.of("NVMe controller", ControllerState.class,
                    CONNECTED)
            .allow(CONNECTED, ENABLED, SHUTDOWN, TORN_DOWN)
            .allow(ENABLED, CONNECTED, SHUTDOWN, TORN_DOWN)
            // EN 0 -> 1 after a shutdown requested while disabled is a fresh enable
            .allow(SHUTDOWN, CONNECTED, ENABLED, TORN_DOWN)
            .terminal(TORN_DOWN)
            .build();
}
