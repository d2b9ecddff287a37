package io.blocktarget.cli;

import io.blocktarget.block.IoKind;
import io.blocktarget.block.lun.LunState;
import io.blocktarget.block.trace.TraceRecord;
import io.blocktarget.block.trace.Tracer;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;


import static org.assertj.core.api.Assertions.assertThat;

/** {@code blocktarget trace} against a running ControlServer over a real Unix socket. */
class TraceCliTest extends ControlCliHarness {
    @Test
    void onPrintOffStats() {
        assertThat(run("trace", "ram-16k", "--on", "--ring", "1024")).as(err.toString()).isZero();
        assertThat(out.toString()).isEqualTo("trace of LUN ram-16k on (ring 1024 records)\n");
        Tracer tracer = plane.lunState("ram-16k").map(LunState::tracer).orElseThrow();
        long t0 = System.nanoTime();
        tracer.record(t0, TraceRecord.Protocol.NVME, "nqn.2014-08.org.nvmexpress:uuid:h", "cntlid 1", 2, 17, 0x01,
                "Write", IoKind.WRITE, 2048, 1, TraceRecord.FUA, 8, "SUCCESS", true, -1, -1, -1, 0, 0, false, 3);
        tracer.record(t0 + 1000, TraceRecord.Protocol.ISCSI, "iqn.2026-11.test:a,i,0x23d000000001",
                "iqn.t,t,0x0001", -1, 0x1f, 0x88, "READ(16)", IoKind.READ, 70000, 1, 0, 1, "CHECK CONDITION", false,
                3, 0x11, 0, -1, -1, false);

        assertThat(run("trace", "ram-16k")).as(err.toString()).isZero();
        String[] lines = out.toString().split("\n");
        assertThat(lines).hasSize(2);
        assertThat(lines[0]).matches("    0\\.000000000 nvme  nqn\\.2014-08\\.org\\.nvmexpress:uuid:h cntlid 1 q 2 cid 17"
                + "  W  Write\\s+2048\\+1\\s+16384 fua,pl=3 qd=8 \\s+\\S+  SUCCESS");
        assertThat(lines[1]).matches("    0\\.000001000 iscsi iqn\\.2026-11\\.test:a,i,0x23d000000001 itt 0x1f  R  READ\\(16\\)"
                + "\\s+70000\\+1\\s+16384 -    qd=1 \\s+\\S+  CHECK CONDITION MEDIUM ERROR 11h/00h");

        assertThat(run("trace", "ram-16k", "--json")).isZero();
        assertThat(out.toString().lines().map(JsonObject::new).map(j -> j.getString("op")))
                .containsExactly("Write", "READ(16)");
        // the write's placement identifier (issue 32); absent when the command carried none
        assertThat(out.toString().lines().map(JsonObject::new).map(j -> j.getInteger("placement")))
                .containsExactly(3, null);

        assertThat(run("trace", "ram-16k", "--stats")).isZero();
        assertThat(new JsonObject(out.toString()).getJsonObject("kinds").getJsonObject("read").getLong("failures"))
                .isEqualTo(1);

        assertThat(run("trace", "ram-16k", "--off")).isZero();
        assertThat(out.toString()).isEqualTo("trace of LUN ram-16k off (2 commands recorded)\n");
        assertThat(plane.lunState("ram-16k").orElseThrow().tracer()).isNull();
    }

    @Test
    void lastNPrintsOnlyTheNewestN() throws Exception {
        assertThat(run("trace", "ram-16k", "--on", "--ring", "16")).isZero();
        Tracer tracer = plane.lunState("ram-16k").map(LunState::tracer).orElseThrow();
        for (int i = 0; i < 20; i++) {   // the ring keeps the newest 16
            tracer.record(1000L * i, TraceRecord.Protocol.NVME, "h", "cntlid 1", 1, i, 0x02, "Read", IoKind.READ, i,
                    1, 0, 1, "SUCCESS", true, -1, -1, -1, 0, 0, false);
        }
        assertThat(run("trace", "ram-16k", "--last", "3", "--json")).as(err.toString()).isZero();
        assertThat(out.toString().lines().map(JsonObject::new).map(j -> j.getLong("tag"))).containsExactly(17L, 18L,
                19L);
        assertThat(run("trace", "ram-16k", "-n", "1")).isZero();
        assertThat(out.toString().lines()).singleElement().asString().contains("cid 19");
        assertThat(run("trace", "ram-16k", "--last", "0")).isZero();
        assertThat(out.toString()).isEmpty();
        assertThat(run("trace", "ram-16k", "--last", "1000", "--json")).isZero();
        assertThat(out.toString().lines()).hasSize(16);
        assertThat(run("trace", "ram-16k")).isZero();
        assertThat(out.toString().lines()).as("without --last: all the ring holds").hasSize(16);
        assertThat(run("trace", "ram-16k", "--last", "-1")).isEqualTo(2);
        assertThat(err.toString()).contains("--last -1: allowed: 0 or more commands");
        assertThat(run("trace", "ram-16k", "--last", "3", "--stats")).isEqualTo(2);
        var bad = fixture.client.get("/v1/luns/ram-16k/trace?last=x");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.json().getString("field")).isEqualTo("last");
    }

    @Test
    void refusalsAndUsage() {
        assertThat(run("trace", "nope")).isEqualTo(2);
        assertThat(err.toString()).contains("nope");
        assertThat(run("trace", "ram-4k")).isEqualTo(2);
        assertThat(err.toString()).contains("has not been traced");
        assertThat(run("trace", "ram-4k", "--on", "--ring", "1000")).isEqualTo(2);
        assertThat(err.toString()).contains("ring: 1000 is not a power of two");
        assertThat(run("trace", "ram-4k", "--on", "--off")).isEqualTo(2);
        assertThat(run("trace", "ram-4k", "--ring", "64")).isEqualTo(2);
        assertThat(run("trace", "ram-4k", "--on", "--follow")).isEqualTo(2);
    }

    @Test
    void lineFormats() {
        assertThat(TraceCommand.latency(850)).isEqualTo("850ns");
        assertThat(TraceCommand.latency(41_234)).isEqualTo("41.2us");
        assertThat(TraceCommand.latency(3_210_000)).isEqualTo("3.21ms");
        assertThat(TraceCommand.latency(1_500_000_000L)).isEqualTo("1.500s");
        JsonObject failed = new JsonObject().put("status", "LBA OUT OF RANGE").put("ok", false).put("sct", 0)
                .put("sc", 0x80).put("dnr", true);
        assertThat(TraceCommand.status(failed)).isEqualTo("LBA OUT OF RANGE sct=0 sc=0x80 dnr");
        assertThat(TraceCommand.kindLetter("unmap")).isEqualTo("D");
    }
}
