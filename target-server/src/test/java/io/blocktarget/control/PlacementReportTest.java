package io.blocktarget.control;

import io.blocktarget.block.placement.Placement;
import io.blocktarget.block.placement.PlacementSpec;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code status.placement} and the {@code blocktarget_placement_*} families, from hand-written workloads. */
class PlacementReportTest {
    private static final int LBS = 4096;

    /** 1024 blocks, 64-block reclaim units, 2 handles and 3 streams (GROUP NUMBER 1..2). */
    private static Placement placement() {
        return Placement.create(new PlacementSpec(64L * LBS, 2, 3, 700), LBS, 1024, () -> 0);
    }

    @Test
    void jsonHasTotalsHandlesAndStreams() {
        Placement p = placement();
        p.writeHandle(1, 0, 10);
        p.writeGroup(2, 100, 4);
        p.writeGroup(0, 200, 2);                              // default placement: handle 0
        JsonObject json = PlacementReport.json(p);
        assertThat(json.getLong("reclaim-unit-bytes")).isEqualTo(64L * LBS);
        assertThat(json.getLong("mapping-unit-bytes")).isEqualTo(LBS);
        assertThat(json.getLong("model-bytes")).isEqualTo(p.geometry().tableBytes());
        assertThat(json.getJsonObject("total").getLong("host-bytes")).isEqualTo(16L * LBS);
        assertThat(json.getJsonObject("total").getLong("media-bytes")).isEqualTo(16L * LBS);
        assertThat(json.getJsonObject("total").getDouble("write-amplification")).isEqualTo(1.0);
        assertThat(json.getLong("units-reclaimed")).isZero();
        assertThat(json.getInteger("physical-units")).isEqualTo(p.geometry().physicalUnits());
        assertThat(json.getJsonArray("handles")).hasSize(2);
        assertThat(json.getJsonArray("handles").getJsonObject(0).getLong("host-bytes")).isEqualTo(2L * LBS);
        assertThat(json.getJsonArray("handles").getJsonObject(1).getInteger("handle")).isEqualTo(1);
        assertThat(json.getJsonArray("handles").getJsonObject(1).getLong("host-bytes")).isEqualTo(10L * LBS);
        // streams by GROUP NUMBER 1..streams-1
        assertThat(json.getJsonArray("streams")).hasSize(2);
        assertThat(json.getJsonArray("streams").getJsonObject(1).getInteger("group-number")).isEqualTo(2);
        assertThat(json.getJsonArray("streams").getJsonObject(1).getLong("host-bytes")).isEqualTo(4L * LBS);
        assertThat(json.getJsonArray("streams").getJsonObject(0).getDouble("write-amplification")).isZero();
    }

    @Test
    void metricFamiliesPerWriterAndLun() {
        Placement p = placement();
        p.writeHandle(0, 0, 8);
        p.writeGroup(1, 64, 2);
        PlacementReport.Families f = new PlacementReport.Families();
        f.add("lun-a", p);
        MetricSnapshots snapshots = f.build();
        assertThat(points(snapshots, "blocktarget_placement_host_bytes")).containsExactlyInAnyOrderEntriesOf(Map.of(
                "lun-a/handle-0", 8.0 * LBS, "lun-a/handle-1", 0.0, "lun-a/stream-1", 2.0 * LBS,
                "lun-a/stream-2", 0.0));
        assertThat(points(snapshots, "blocktarget_placement_write_amplification"))
                .containsExactlyInAnyOrderEntriesOf(Map.of("lun-a", 1.0));
        assertThat(points(snapshots, "blocktarget_placement_free_units"))
                .containsExactlyInAnyOrderEntriesOf(Map.of("lun-a", (double) p.stats().freeUnits()));
        assertThat(points(snapshots, "blocktarget_placement_units_reclaimed"))
                .containsExactlyInAnyOrderEntriesOf(Map.of("lun-a", 0.0));
    }

    /** Data points of one family as {lun[/writer] -> value}, in order. */
    private static Map<String, Double> points(MetricSnapshots snapshots, String name) {
        Map<String, Double> out = new LinkedHashMap<>();
        for (MetricSnapshot s : snapshots) {
            if (!s.getMetadata().getName().equals(name.replace("_total", ""))) {
                continue;
            }
            for (DataPointSnapshot d : s.getDataPoints()) {
                String key = d.getLabels().get("lun") + (d.getLabels().get("writer") == null ? ""
                        : "/" + d.getLabels().get("writer"));
                double value = d instanceof CounterSnapshot.CounterDataPointSnapshot c ? c.getValue()
                        : ((GaugeSnapshot.GaugeDataPointSnapshot) d).getValue();
                out.put(key, value);
            }
        }
        return out;
    }
}
