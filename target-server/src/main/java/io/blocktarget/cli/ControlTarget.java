package io.blocktarget.cli;

import io.blocktarget.config.ControlConfig;
import io.blocktarget.control.ControlClient;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * {@code --control PATH|URL} and {@code --token-file FILE}: which server a client command talks to.
 *
 * <p>Without {@code --control} or {@code $BLOCKTARGET_CONTROL}, the CLI looks for a socket: root uses the system
 * server's {@link ControlConfig#ROOT_SOCKET}; anybody else first their own server's socket
 * ({@link ControlConfig#defaultSocket()}, under {@code $XDG_RUNTIME_DIR}), then the system server's — so a member of
 * the group the service runs as (the unit's {@code /run/blocktarget} is {@code 0750 blocktarget:blocktarget}, the
 * socket {@code 0660}) reaches it with no option. The first socket that exists is taken; when none does, the error
 * names every path tried and what was wrong with each.
 */
final class ControlTarget {
    @Option(names = "--control", paramLabel = "PATH|URL",
            description = "The server's control socket, or http://HOST:PORT of its control-listen. Default:"
                    + " $" + ControlClient.ENV_CONTROL + ", else for root /run/blocktarget/control.sock, for others"
                    + " $XDG_RUNTIME_DIR/blocktarget.sock if it exists, else /run/blocktarget/control.sock (the"
                    + " service's, for members of its group).")
    String control;

    @Option(names = "--token-file", paramLabel = "FILE",
            description = "File holding the bearer token of an http:// --control (the server's control-token-file).")
    Path tokenFile;

    /** What looking at one candidate socket found. */
    enum Found {
        /** A socket: use it. */
        SOCKET,
        /** Nothing at that path. */
        ABSENT,
        /** A directory on the way may not be entered by this user (not a member of the server's group). */
        DENIED,
        /** Something that is not a socket. */
        NOT_A_SOCKET
    }

    /** The socket path or URL to use; {@code tried} describes the candidates looked at (for error messages). */
    record Choice(String target, List<String> tried) {
        /** "tried A (absent), B (permission denied ...)": empty when the target was given explicitly. */
        String triedText() {
            return tried.isEmpty() ? "" : "tried " + String.join(", ", tried);
        }
    }

    /** The socket path or URL to use: the option, the environment variable, or the first default socket found. */
    Choice choose() {
        if (control != null) {
            return new Choice(control, List.of());
        }
        String env = System.getenv(ControlClient.ENV_CONTROL);
        if (env != null && !env.isBlank()) {
            return new Choice(env, List.of());
        }
        return choose(candidates(ControlConfig.defaultSocket()), ControlTarget::look);
    }

    /** The default sockets in the order they are tried: the user's own server first, then the system service's. */
    static List<Path> candidates(Path defaultSocket) {
        LinkedHashSet<Path> paths = new LinkedHashSet<>();
        paths.add(defaultSocket);
        paths.add(ControlConfig.ROOT_SOCKET);
        return List.copyOf(paths);
    }

    /** The first candidate {@code look} finds a socket at; else the first one, with what was found at each. */
    static Choice choose(List<Path> candidates, Function<Path, Found> look) {
        List<String> tried = new ArrayList<>();
        for (Path candidate : candidates) {
            Found found = look.apply(candidate);
            if (found == Found.SOCKET) {
                return new Choice(candidate.toString(), List.of());
            }
            tried.add(candidate + " (" + describe(candidate, found) + ")");
        }
        return new Choice(candidates.getFirst().toString(), List.copyOf(tried));
    }

    private static String describe(Path candidate, Found found) {
        return switch (found) {
            case SOCKET -> "a socket";
            case ABSENT -> "no such file";
            case DENIED -> "permission denied: " + deniedHint(candidate);
            case NOT_A_SOCKET -> "not a socket";
        };
    }

    /** Who may enter: "only members of group blocktarget may enter /run/blocktarget" when the group can be read. */
    private static String deniedHint(Path candidate) {
        Path dir = candidate.toAbsolutePath().getParent();
        if (dir != null) {
            try {
                PosixFileAttributes attributes = Files.readAttributes(dir, PosixFileAttributes.class);
                return "only members of group " + attributes.group().getName() + " may enter " + dir;
            } catch (IOException | UnsupportedOperationException e) {
                // fall through: say it without the group
            }
        }
        return "this user may not reach it";
    }

    /** What is at {@code path}, told apart the way the kernel tells this user. */
    static Found look(Path path) {
        try {
            // sockets (and FIFOs, devices) are "other"; connect(2) tells the rest
            return Files.readAttributes(path, PosixFileAttributes.class).isOther() ? Found.SOCKET : Found.NOT_A_SOCKET;
        } catch (AccessDeniedException e) {
            return Found.DENIED;
        } catch (NoSuchFileException e) {
            return Found.ABSENT;
        } catch (IOException | UnsupportedOperationException e) {
            return Found.ABSENT;
        }
    }

    Optional<String> token() throws IOException {
        return tokenFile == null ? Optional.empty() : Optional.of(ControlConfig.readToken(tokenFile));
    }
}
