package io.blocktarget.block.fault;

/**
 * The connection a command came on, as fault rules see it: the command sets hand a hit's
 * {@link FaultAction.ConnectionFault} to it and each transport applies it to its socket (DESIGN §10). Implemented by
 * the transports; a command without a connection (unit tests, internal commands) has {@link #NONE}.
 */
public interface FaultConnection {
    /** No connection: nothing applies. */
    FaultConnection NONE = (fault, rule) -> false;

    /**
     * Applies {@code fault}, hit by {@code rule}, to this connection from now on. Callable from any thread; the
     * transport moves it onto the connection's event loop.
     *
     * @return false when it does not apply to this connection (another protocol's fault, a digest that was not
     * negotiated): the command then goes on as if nothing had hit it, and the rule counts it as not applicable
     */
    boolean applyFault(FaultAction.ConnectionFault fault, ActiveRule rule);
}
