package io.blocktarget.server;

/** The server could not start (a port in use, a backend that cannot be opened); the message is for the operator. */
public final class ServerStartException extends Exception {
    public ServerStartException(String message, Throwable cause) {
        super(message, cause, false, false);
    }
}
