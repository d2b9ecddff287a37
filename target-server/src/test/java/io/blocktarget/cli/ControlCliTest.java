package io.blocktarget.cli;

import io.blocktarget.config.LunConfig;
import io.blocktarget.server.ControlPlane.SessionInfo;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The control clients (lun, sessions, reload, completion) against a running ControlServer over a real Unix socket:
 * exit codes 0 / 1 (unreachable, or the server failed) / 2 (usage, or refused with the server's detail) and what they
 * print.
 */
class ControlCliTest extends ControlCliHarness {
    @Test
    void lunAddResizeRm() {
        assertThat(run("lun", "add", "t16", "--backend", "ram", "--size", "1GiB", "--logical-block-size", "16KiB"))
                .as(err.toString()).isZero();
        assertThat(out.toString()).isEqualTo("added LUN t16: 1 GiB ram, 16 KiB blocks (physical 16 KiB); iSCSI"
                + " iqn.2026-11.io.blocktarget:t16 LUN 0; NVMe nqn.2026-11.io.blocktarget:t16 NSID 1\n"
                + "note: the server has no config dir; the LUN lives in memory only\n");
        LunConfig lun = plane.lunConfigs().getLast();
        assertThat(lun.logicalBlockSize()).isEqualTo(16384);

        assertThat(run("lun", "resize", "t16", "--size", "2GiB")).isZero();
        assertThat(out.toString()).isEqualTo("t16: size 1GiB -> 2GiB (resize)\nresized LUN t16 to 2 GiB\n");
        assertThat(plane.lunConfigs().getLast().size()).isEqualTo(2L << 30);

        assertThat(run("lun", "rm", "t16")).isZero();
        assertThat(out.toString()).isEqualTo("removed LUN t16\n");
        assertThat(plane.lunConfigs()).extracting(LunConfig::name).doesNotContain("t16");
    }

    @Test
    void setTakesAnyKeyDottedAndJsonValues() {
        assertThat(run("lun", "add", "s", "--backend", "null", "--size", "1GiB", "--physical-block-size", "4KiB",
                "--set", "export.nvme.nsid=9", "--set", "export.iscsi=false", "--set", "read-only=true",
                "--set", "export.nvme.uuid=91fdba0d-f87b-4c25-b80f-db7be1418b9e")).as(err.toString()).isZero();
        LunConfig lun = plane.lunConfigs().getLast();
        assertThat(lun.nvme().orElseThrow().nsid()).isEqualTo(9);
        assertThat(lun.nvme().orElseThrow().uuid()).isPresent();
        assertThat(lun.iscsi()).isEmpty();
        assertThat(lun.readOnly()).isTrue();
        assertThat(lun.physicalBlockSize()).isEqualTo(4096);
    }

    /** Issue 11: {@code lun set NAME key=value ...} patches knobs in place; null goes back to the default. */
    @Test
    void lunSetChangesKnobs() {
        assertThat(run("lun", "set", "ram-16k", "commands.write-same=true", "limits.max-transfer=1MiB",
                "identity.serial=SN-7", "rotational=true")).as(err.toString()).isZero();
        assertThat(out.toString().lines().toList()).containsExactly(
                "ram-16k: commands.write-same (none) -> true (in place)",
                "ram-16k: limits.max-transfer (none) -> 1MiB (in place)",
                "ram-16k: rotational (none) -> true (in place)",
                "ram-16k: identity.serial (none) -> SN-7 (in place)",
                "changed LUN ram-16k: 1 GiB ram, 16 KiB blocks (physical 16 KiB); iSCSI"
                        + " iqn.2026-11.io.blocktarget:ram-16k LUN 0; NVMe nqn.2026-11.io.blocktarget:ram-16k NSID 1");
        io.blocktarget.config.DeviceKnobs knobs = plane.lunConfigs().stream().filter(l -> l.name().equals("ram-16k"))
                .findFirst().orElseThrow().features().knobs();
        assertThat(knobs.command(io.blocktarget.config.DeviceKnobs.Command.WRITE_SAME)).contains(true);
        assertThat(knobs.limit(io.blocktarget.config.DeviceKnobs.Limit.MAX_TRANSFER)).contains(1L << 20);
        assertThat(knobs.identity(io.blocktarget.config.DeviceKnobs.Identity.SERIAL)).contains("SN-7");
        assertThat(knobs.rotational()).contains(true);

        assertThat(run("lun", "set", "ram-16k", "rotational=null")).as(err.toString()).isZero();
        assertThat(plane.lunConfigs().stream().filter(l -> l.name().equals("ram-16k")).findFirst().orElseThrow()
                .features().knobs().rotational()).isEmpty();
        assertThat(run("lun", "set", "ram-16k", "rotational=null")).isZero();
        assertThat(out.toString()).isEqualTo("ram-16k: no change\n");

        assertThat(run("lun", "set", "ram-16k", "limits.max-transfer=20KiB")).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("blocktarget lun set: limits.max-transfer: 20KiB is not a multiple of"
                + " the logical block size (16 KiB); allowed: a multiple of the logical block size up to 8 MiB\n");
        assertThat(run("lun", "set", "ram-16k")).isEqualTo(2);
        assertThat(run("lun", "set", "ram-16k", "novalue")).isEqualTo(2);
    }

    @Test
    void refusalIsExit2WithTheServersDetail() {
        int applies = plane.applies();
        assertThat(run("lun", "add", "bad", "--backend", "ram", "--size", "1GiB", "--logical-block-size", "3000"))
                .isEqualTo(2);
        assertThat(err.toString()).isEqualTo("blocktarget lun add: logical-block-size: 3000 is not a power of two;"
                + " allowed: a power of two from 512 B to 64 KiB\n");
        assertThat(run("lun", "add", "ram-4k", "--backend", "ram", "--size", "1GiB")).isEqualTo(2);
        assertThat(err.toString()).startsWith("blocktarget lun add: a LUN named ram-4k exists");
        assertThat(run("lun", "resize", "ram-16k", "--size", "20KiB")).isEqualTo(2);
        assertThat(err.toString()).startsWith("blocktarget lun resize: size: 20KiB is not a multiple of the physical"
                + " block size 16 KiB");
        assertThat(run("lun", "add", "z", "--backend", "ram", "--size", "512MiB", "--set", "zoned.zone-size=16MiB"))
                .as(err.toString()).isZero();
        applies = plane.applies();
        assertThat(run("lun", "resize", "z", "--size", "1GiB")).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("blocktarget lun resize: size: a zoned LUN cannot be resized (zoned: its"
                + " zone layout is fixed for the LUN's life); allowed: its present size 512 MiB, or remove the LUN and"
                + " add it with the new size\n");
        assertThat(run("lun", "rm", "nope")).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("blocktarget lun rm: no LUN named nope\n");
        assertThat(run("reload")).isEqualTo(2);
        assertThat(err.toString()).contains("started without --config");
        assertThat(plane.applies()).isEqualTo(applies);
    }

    @Test
    void severalProblemsArePrintedOnePerLine() {
        assertThat(run("lun", "add", "bad", "--backend", "tape", "--size", "big")).isEqualTo(2);
        assertThat(err.toString().lines().toList()).hasSize(3)
                .element(0).asString().startsWith("blocktarget lun add: 2 problems; the first: ");
    }

    @Test
    void usageErrorsAreExit2() {
        assertThat(run("lun", "add", "x", "--size", "1GiB")).isEqualTo(2);
        assertThat(err.toString()).contains("Missing required option: '--backend=ram|file|null'");
        assertThat(run("lun", "add", "x", "--backend", "ram", "--set", "novalue")).isEqualTo(2);
        assertThat(err.toString()).contains("--set novalue: allowed: KEY=VALUE");
        assertThat(run("lun", "resize", "x")).isEqualTo(2);
        assertThat(run("lun")).isEqualTo(2);
        assertThat(run("lun", "add", "x", "--backend", "ram", "--set", "name=y")).isEqualTo(2);
    }

    @Test
    void listSaysWhereChangesLive() {
        assertThat(run("lun", "list")).isZero();
        List<String> lines = out.toString().lines().toList();
        assertThat(lines.getFirst()).startsWith("LUN      BACKEND  SIZE   LOGICAL  PHYSICAL  ISCSI TARGET");
        assertThat(lines.getFirst()).endsWith("IN-FLIGHT  STATE");
        assertThat(lines).anyMatch(l -> l.matches("ram-16k +ram +1 GiB +16384 +16384 +iqn.2026-11.io.blocktarget:ram-16k"
                + " +0 +nqn.2026-11.io.blocktarget:ram-16k +1 +0 +active"));
        assertThat(lines.getLast()).isEqualTo("no config dir: changes live in memory only and are lost when the"
                + " server stops");
        assertThat(run("lun", "list", "--json")).isZero();
        assertThat(new JsonObject(out.toString()).getString("persistence")).isEqualTo("memory");
    }

    @Test
    void showPrintsTheLunsJson() {
        assertThat(run("lun", "show", "ram-64k")).isZero();
        JsonObject lun = new JsonObject(out.toString());
        assertThat(lun.getString("logical-block-size")).isEqualTo("64KiB");
        assertThat(run("lun", "show", "nope")).isEqualTo(2);
    }

    @Test
    void sessionsTableAndJson() {
        assertThat(run("sessions")).isZero();
        assertThat(out.toString()).isEqualTo("no sessions\n");
        plane.addSession(new SessionInfo("nvme:3", "nvme", "nqn.2014-08.org.nvmexpress:uuid:h", "", List.of("a -> b"),
                Map.of("KATO", "5000")));
        assertThat(run("sessions")).isZero();
        assertThat(out.toString().lines().toList()).containsExactly(
                "ID      PROTOCOL  INITIATOR                          TARGET       CONNECTIONS",
                "nvme:3  nvme      nqn.2014-08.org.nvmexpress:uuid:h  (discovery)  1");
        assertThat(run("sessions", "--json")).isZero();
        assertThat(new JsonObject(out.toString()).getJsonArray("sessions").getJsonObject(0)
                .getJsonObject("parameters").getString("KATO")).isEqualTo("5000");
    }

    @Test
    void unreachableServerIsExit1() {
        out = new StringWriter();
        err = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        assertThat(cl.execute("lun", "list", "--control", tmp.resolve("none.sock").toString())).isEqualTo(1);
        assertThat(err.toString()).startsWith("blocktarget lun list: no control socket at " + tmp.resolve("none.sock"));
    }

    @Test
    void bashCompletionCoversTheSubcommands() {
        StringWriter script = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setOut(new PrintWriter(script, true));
        assertThat(cl.execute("completion", "bash")).isZero();
        assertThat(script.toString()).contains("complete -F", "lun", "resize", "sessions", "reload", "--control");
        StringWriter errors = new StringWriter();
        cl.setErr(new PrintWriter(errors, true));
        assertThat(cl.execute("completion", "ksh")).isEqualTo(2);
        assertThat(errors.toString()).isEqualTo("blocktarget completion: ksh is not supported; allowed: bash, zsh, fish\n");
    }

    /**
     * Issue 25: a change that replaces a RAM LUN (its data) is refused, exit 2, saying what would be lost; --dry-run
     * prints the keys and steps and changes nothing; --force applies it and prints each key with its rule.
     */
    @Test
    void aReplaceNeedsForceAndSaysWhatIsLost() {
        int applies = plane.applies();
        assertThat(run("lun", "set", "ram-16k", "logical-block-size=4KiB")).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("blocktarget lun set: replaces LUN ram-16k: its 1 GiB RAM data (4 KiB"
                + " allocated) is lost; give --force\n");
        assertThat(out.toString()).isEmpty();
        assertThat(plane.applies()).isEqualTo(applies);

        assertThat(run("lun", "set", "ram-16k", "logical-block-size=4KiB", "--dry-run")).isZero();
        assertThat(out.toString().lines().toList()).containsExactly(
                "ram-16k: logical-block-size 16KiB -> 4KiB (replace)",
                "would open the ram backend of LUN ram-16k (1 GiB, 4096-byte blocks, physical 16384) for its replace",
                "would take LUN ram-16k out of iSCSI iqn.2026-11.io.blocktarget:ram-16k LUN 0 and NVMe"
                        + " nqn.2026-11.io.blocktarget:ram-16k NSID 1 for its replace (its old device drains and closes;"
                        + " its data is lost)",
                "would export LUN ram-16k as iSCSI iqn.2026-11.io.blocktarget:ram-16k LUN 0 and NVMe"
                        + " nqn.2026-11.io.blocktarget:ram-16k NSID 1 for its replace",
                "dry run: nothing changed");
        assertThat(err.toString()).isEqualTo("blocktarget lun set: warning: without --force this is refused: replaces"
                + " LUN ram-16k: its 1 GiB RAM data (4 KiB allocated) is lost; give --force\n");
        assertThat(plane.applies()).isEqualTo(applies);

        assertThat(run("lun", "set", "ram-16k", "logical-block-size=4KiB", "--force")).as(err.toString()).isZero();
        assertThat(out.toString().lines().toList()).containsExactly(
                "ram-16k: logical-block-size 16KiB -> 4KiB (replace)",
                "changed LUN ram-16k: 1 GiB ram, 4 KiB blocks (physical 16 KiB); iSCSI"
                        + " iqn.2026-11.io.blocktarget:ram-16k LUN 0; NVMe nqn.2026-11.io.blocktarget:ram-16k NSID 1");
        assertThat(plane.applies()).isEqualTo(applies + 1);
    }

    @Test
    void aShrinkNeedsForceAGrowDoesNot() {
        assertThat(run("lun", "resize", "ram-4k", "--size", "512MiB")).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("blocktarget lun resize: shrinks LUN ram-4k from 1 GiB to 512 MiB: the"
                + " data beyond 512 MiB is lost (4 KiB allocated on the LUN now); give --force\n");
        assertThat(run("lun", "resize", "ram-4k", "--size", "512MiB", "--force")).as(err.toString()).isZero();
        assertThat(out.toString()).isEqualTo("ram-4k: size 1GiB -> 512MiB (resize)\nresized LUN ram-4k to 512 MiB\n");
        assertThat(run("lun", "resize", "ram-4k", "--size", "1GiB")).isZero();
    }

    /** A warning of the apply goes to stderr with the command's name; the change is done (exit 0). */
    @Test
    void warningsArePrintedOnStderr() {
        assertThat(run("lun", "add", "huge", "--backend", "ram", "--size", "1TiB")).as(err.toString()).isZero();
        assertThat(err.toString()).startsWith("blocktarget lun add: warning: RAM disks declare ")
                .contains("more than the memory budget");
        assertThat(run("lun", "set", "ram-4k", "faults=[{\"lba\": 300000, \"action\": \"busy\"}]"))
                .as(err.toString()).isZero();
        assertThat(err.toString()).contains("blocktarget lun set: warning: LUN ram-4k: fault rule f1 covers LBAs"
                + " 300000..300000 but the LUN ends at LBA 262143");
    }

    /** The server failed (503: a backend that cannot be opened): exit 1, as when it cannot be reached. */
    @Test
    void aServerFailureIsExit1() {
        plane.refuseNext(new io.blocktarget.server.ControlPlane.ControlException(
                io.blocktarget.server.ControlPlane.ControlException.Kind.UNAVAILABLE, "x", "backend",
                "cannot open the file backend of LUN x: disk on fire; nothing changed"));
        assertThat(run("lun", "add", "x", "--backend", "ram", "--size", "1GiB")).isEqualTo(1);
        assertThat(err.toString()).isEqualTo("blocktarget lun add: LUN x: cannot open the file backend of LUN x: disk on"
                + " fire; nothing changed\n");
    }

    @Test
    void dryRunOfAnAddAndARemovalChangesNothing() {
        assertThat(run("lun", "add", "d", "--backend", "null", "--size", "1GiB", "--dry-run")).isZero();
        assertThat(out.toString().lines().toList()).containsExactly("d: added",
                "would open the null backend of LUN d (1 GiB, 512-byte blocks, physical 4096)",
                "would export LUN d as iSCSI iqn.2026-11.io.blocktarget:d LUN 0 and NVMe nqn.2026-11.io.blocktarget:d"
                        + " NSID 1",
                "dry run: nothing changed");
        assertThat(plane.lunConfigs()).extracting(LunConfig::name).doesNotContain("d");
        assertThat(run("lun", "rm", "ram-4k", "--dry-run")).isZero();
        assertThat(out.toString()).startsWith("ram-4k: removed\nwould take LUN ram-4k out of");
        assertThat(plane.lunConfigs()).extracting(LunConfig::name).contains("ram-4k");
    }
}
