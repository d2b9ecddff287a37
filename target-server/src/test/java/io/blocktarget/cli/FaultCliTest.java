package io.blocktarget.cli;

import io.blocktarget.block.IoKind;
import io.blocktarget.block.fault.FaultCommand;
import io.blocktarget.config.ConfigLoader;
import io.blocktarget.control.ControlFixture;
import io.blocktarget.control.InMemoryControlPlane;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code blocktarget fault add|list|rm} against a running ControlServer: exit codes and what they print. */
class FaultCliTest {
    @TempDir
    Path tmp;
    private InMemoryControlPlane plane;
    private ControlFixture fixture;
    private StringWriter out;
    private StringWriter err;

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

    private int run(String... args) {
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

    @Test
    void makeARangeUnreadableListItAndClearIt() {
        assertThat(run("fault", "add", "ram-16k", "--ops", "read", "--lba", "1000-1099", "--action", "medium-error"))
                .as(err.toString()).isZero();
        assertThat(out.toString()).contains("added fault rule to LUN ram-16k: f1:", "lba=1000-1099", "-> medium-error");
        plane.faults("ram-16k").orElseThrow()
                .command(new FaultCommand(FaultCommand.Protocol.SCSI, IoKind.READ, 0x28, 1000, 4, "iqn.x", -1));
        assertThat(run("fault", "list", "ram-16k")).isZero();
        assertThat(out.toString()).contains("ID", "HITS", "f1").containsPattern("f1\\s+1\\s+1\\s+");
        assertThat(run("fault", "rm", "ram-16k", "f1")).isZero();
        assertThat(out.toString()).contains("removed fault rule f1 of LUN ram-16k");
        assertThat(plane.faults("ram-16k").orElseThrow().rules()).isEmpty();
    }

    @Test
    void setPassesAnyKeyAndRefusalsAreExit1() {
        assertThat(run("fault", "add", "ram-4k", "--action", "status", "--set", "sense=3/11/00",
                "--set", "nvme-status=2/81", "--trigger", "first", "--count", "2")).as(err.toString()).isZero();
        assertThat(run("fault", "add", "ram-4k", "--action", "status")).isEqualTo(1);
        assertThat(err.toString()).contains("status needs sense, nvme-status or both");
        assertThat(run("fault", "rm", "ram-4k", "nope")).isEqualTo(1);
        assertThat(run("fault", "add", "ram-4k")).as("no --action").isEqualTo(2);
        assertThat(run("fault")).isEqualTo(2);
    }
}
