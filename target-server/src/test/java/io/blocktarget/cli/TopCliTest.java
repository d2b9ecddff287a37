package io.blocktarget.cli;

import io.blocktarget.block.lun.CommandStats;
import io.blocktarget.server.ControlPlane.SessionInfo;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code blocktarget top} and {@code GET /v1/stats} against a control server over a real socket: the counters a LUN's
 * state holds come out per LUN, with its sessions and fault hits; usage errors exit 2.
 */
@Tag("loopback")
class TopCliTest extends ControlCliHarness {

    @Test
    void statsListEveryLunWithItsCountersSessionsAndBounds() throws Exception {
        CommandStats stats = plane.lunState("ram-4k").orElseThrow().commandStats();
        stats.record(CommandStats.Protocol.NVME, CommandStats.OpClass.WRITE, 5_000, 4096, true);
        stats.record(CommandStats.Protocol.ISCSI, CommandStats.OpClass.UNMAP, 5_000, 0, false);
        String subsystem = plane.lunConfigs().stream().filter(c -> c.name().equals("ram-4k")).findFirst()
                .orElseThrow().nvme().orElseThrow().subsystem();
        plane.addSession(new SessionInfo("nvme:1@" + subsystem, "nvme", "nqn.h", subsystem, List.of("c"), Map.of()));
        plane.addSession(new SessionInfo("nvme:2@x", "nvme", "nqn.h", "nqn.other", List.of("c"), Map.of()));
        JsonObject body = fixture.get("/v1/stats").json();
        assertThat(body.getJsonArray("latency-bounds-ns")).hasSize(CommandStats.BOUNDS);
        assertThat(body.getJsonArray("latency-bounds-ns").getLong(0)).isEqualTo(1000L);
        JsonArray luns = body.getJsonArray("luns");
        assertThat(luns.stream().map(o -> ((JsonObject) o).getString("name")).toList())
                .containsExactlyElementsOf(plane.lunConfigs().stream().map(c -> c.name()).toList());
        JsonObject lun = luns.stream().map(JsonObject.class::cast).filter(o -> o.getString("name").equals("ram-4k"))
                .findFirst().orElseThrow();
        assertThat(lun.getLong("sessions")).isEqualTo(1);
        JsonObject nvme = lun.getJsonObject("protocols").getJsonObject("nvme");
        assertThat(nvme.getJsonObject("commands").getLong("write")).isEqualTo(1);
        assertThat(nvme.getLong("bytes-written")).isEqualTo(4096);
        assertThat(nvme.getLong("latency-sum-ns")).isEqualTo(5000);
        assertThat(nvme.getJsonArray("latency-buckets")).hasSize(CommandStats.BOUNDS + 1);
        assertThat(nvme.getJsonArray("latency-buckets").getLong(CommandStats.bucket(5_000))).isEqualTo(1);
        JsonObject iscsi = lun.getJsonObject("protocols").getJsonObject("iscsi");
        assertThat(iscsi.getJsonObject("errors").getLong("unmap")).isEqualTo(1);
        assertThat(iscsi.getJsonObject("commands").getLong("unmap")).isEqualTo(1);
    }

    @Test
    void onceJsonIsOneIntervalOfEveryLun() {
        assertThat(run("top", "--once", "--interval", "0.05", "--json")).as(err.toString()).isZero();
        JsonObject result = new JsonObject(out.toString());
        assertThat(result.getDouble("interval-seconds")).isGreaterThanOrEqualTo(0.05);
        assertThat(result.getJsonArray("luns")).hasSize(plane.lunConfigs().size());
        JsonObject first = result.getJsonArray("luns").getJsonObject(0);
        assertThat(first.fieldNames()).contains("reads-per-second", "writes-per-second", "read-bytes-per-second",
                "write-bytes-per-second", "latency-p50-us", "latency-p99-us", "queue-depth", "in-flight", "errors",
                "fault-hits", "sessions", "commands");
    }

    @Test
    void onceTextIsAHeaderAndTheTableOfTheNamedLuns() {
        assertThat(run("top", "--once", "-i", "0.02", "ram-16k", "ram-4k")).as(err.toString()).isZero();
        List<String> lines = out.toString().lines().toList();
        assertThat(lines).hasSize(4);
        assertThat(lines.get(0)).startsWith("blocktarget top  ").endsWith(" UTC  interval " + lines.get(0)
                .replaceAll(".*interval (\\S+) s.*", "$1") + " s  2 LUNs");
        assertThat(lines.get(1)).startsWith("LUN").contains("r/s", "wMiB/s", "p99us", "fhit", "sess");
        assertThat(lines.get(2)).startsWith("ram-4k ");   // config order, whatever the order named
        assertThat(lines.get(3)).startsWith("ram-16k ");
    }

    @Test
    void anUnknownLunOrABadIntervalIsAUsageError() {
        assertThat(run("top", "--once", "nope")).isEqualTo(2);
        assertThat(err.toString()).startsWith("blocktarget top: no LUN nope; the server has ");
        assertThat(run("top", "--once", "--interval", "0")).isEqualTo(2);
        assertThat(err.toString()).contains("--interval 0.0: allowed 0.01 to 3600 seconds");
        assertThat(run("top", "--once", "--interval", "3600.5", "--json")).isEqualTo(2);
        assertThat(new JsonObject(err.toString().strip()).getString("type")).isEqualTo("urn:blocktarget:problem:usage");
        assertThat(run("top", "--once", "--interval", "0.01", "--json")).as(err.toString()).isZero();   // the limit
    }
}
