package io.blocktarget.cli;

import io.blocktarget.config.ControlConfig;
import io.blocktarget.control.ControlClient;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;

/** {@code --control PATH|URL} and {@code --token-file FILE}: which server a client command talks to. */
final class ControlTarget {
    @Option(names = "--control", paramLabel = "PATH|URL",
            description = "The server's control socket, or http://HOST:PORT of its control-listen. Default: $"
                    + ControlClient.ENV_CONTROL + ", else /run/blocktarget/control.sock as root, else"
                    + " $XDG_RUNTIME_DIR/blocktarget.sock.")
    String control;

    @Option(names = "--token-file", paramLabel = "FILE",
            description = "File holding the bearer token of an http:// --control (the server's control-token-file).")
    Path tokenFile;

    /** The socket path or URL to use: the option, the environment variable, or the default socket. */
    String target() {
        if (control != null) {
            return control;
        }
        String env = System.getenv(ControlClient.ENV_CONTROL);
        return env != null && !env.isBlank() ? env : ControlConfig.defaultSocket().toString();
    }

    Optional<String> token() throws IOException {
        return tokenFile == null ? Optional.empty() : Optional.of(ControlConfig.readToken(tokenFile));
    }
}
