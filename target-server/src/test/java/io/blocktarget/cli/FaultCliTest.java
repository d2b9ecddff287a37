package io.blocktarget.cli;

import io.blocktarget.block.IoKind;
import io.blocktarget.block.fault.FaultCommand;
import org.junit.jupiter.api.Test;


import static org.assertj.core.api.Assertions.assertThat;

/** {@code blocktarget fault add|list|rm} against a running ControlServer: exit codes and what they print. */
class FaultCliTest extends ControlCliHarness {
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
    void anNvmeStatusWithItsDnrAndCrdIsAddedAndListed() {
        assertThat(run("fault", "add", "ram-4k", "--lba", "100", "--action", "status", "--set", "nvme-status=3/02",
                "--set", "nvme-dnr=true", "--set", "nvme-crd=1")).as(err.toString()).isZero();
        assertThat(out.toString()).contains("nvme-status=3/02 nvme-dnr=true nvme-crd=1 -> status");
        assertThat(run("fault", "list", "ram-4k")).isZero();
        assertThat(out.toString()).contains("nvme-status=3/02 nvme-dnr=true nvme-crd=1 -> status");
        assertThat(run("fault", "add", "ram-4k", "--action", "status", "--set", "sense=3/11/00",
                "--set", "nvme-dnr=false")).isEqualTo(2);
        assertThat(err.toString()).contains("only with nvme-status");
    }

    @Test
    void setPassesAnyKeyAndRefusalsAreExit2() {
        assertThat(run("fault", "add", "ram-4k", "--action", "status", "--set", "sense=3/11/00",
                "--set", "nvme-status=2/81", "--trigger", "first", "--count", "2")).as(err.toString()).isZero();
        assertThat(run("fault", "add", "ram-4k", "--action", "status")).isEqualTo(2);
        assertThat(err.toString()).contains("status needs sense, nvme-status or both");
        assertThat(run("fault", "rm", "ram-4k", "nope")).isEqualTo(2);
        assertThat(run("fault", "add", "ram-4k")).as("no --action").isEqualTo(2);
        assertThat(run("fault")).isEqualTo(2);
    }

    @Test
    void portalSelectsOnePath() {
        assertThat(run("fault", "add", "ram-4k", "--portal", "default", "--action", "drop-connection"))
                .as(err.toString()).isZero();
        assertThat(out.toString()).contains("portal=default", "-> drop-connection");
        assertThat(run("fault", "add", "ram-4k", "--portal", "b", "--action", "drop-connection")).isEqualTo(2);
        assertThat(err.toString()).contains("b is not a portal of blocktarget.yaml; allowed: default");
    }
}
