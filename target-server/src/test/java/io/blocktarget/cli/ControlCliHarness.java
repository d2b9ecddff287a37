package io.blocktarget.cli;

import io.blocktarget.config.ConfigLoader;
import io.blocktarget.control.ControlFixture;
import io.blocktarget.control.InMemoryControlPlane;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * What the CLI tests of the control clients share: a ControlServer over a real Unix socket in front of an
 * {@link InMemoryControlPlane} holding the embedded default LUNs, and {@link #run} executing one command line against
 * it with what it printed in {@link #out} / {@link #err}.
 */
abstract class ControlCliHarness {
    @TempDir
    Path tmp;
    InMemoryControlPlane plane;
    ControlFixture fixture;
    StringWriter out;
    StringWriter err;

    @BeforeEach
    void start() throws Exception {
        plane = new InMemoryControlPlane(ConfigLoader.embeddedDefault().server(), Optional.empty(),
                ConfigLoader.embeddedDefault().luns());
        fixture = ControlFixture.start(plane, tmp);
    }

    @AfterEach
    void stop() throws Exception {
        fixture.close();
    }

    /** {@code args} plus {@code --control SOCKET}; the exit code. */
    int run(String... args) {
        out = new StringWriter();
        err = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        String[] withControl = new String[args.length + 2];
        System.arraycopy(args, 0, withControl, 0, args.length);
        withControl[args.length] = "--control";
        withControl[args.length + 1] = fixture.socket.toString();
        return cl.execute(withControl);
    }
}
