package io.blocktarget.control;

import io.blocktarget.block.lun.LunState;
import io.blocktarget.block.placement.Placement;
import io.blocktarget.block.placement.PlacementStats;
import io.blocktarget.block.placement.WriterStats;
import io.blocktarget.server.ControlPlane;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * What a LUN's data placement did (issue 32), for {@code lun show} / {@code GET /v1/luns/NAME} ({@code
 * status.placement}) and {@code /metrics}: per NVMe placement handle and per SCSI stream (GROUP NUMBER 1..streams-1;
 * GROUP NUMBER 0 is the default placement, counted on handle 0) the host bytes, media bytes, bytes moved by reclaim and
 * write amplification, and the LUN's totals and reclaim counters, since the last reset.
 *
 * <p>Metric families, read at scrape time: {@code blocktarget_placement_host_bytes_total{lun,writer}},
 * {@code blocktarget_placement_media_bytes_total{lun,writer}}, {@code blocktarget_placement_moved_bytes_total{lun,writer}}
 * (writer = {@code handle-N} or {@code stream-N}), {@code blocktarget_placement_write_amplification{lun}},
 * {@code blocktarget_placement_units_reclaimed_total{lun}}, {@code blocktarget_placement_media_erased_bytes_total{lun}}
 * and {@code blocktarget_placement_free_units{lun}}. A LUN without placement has none of them.
 */
final class PlacementReport {
    private PlacementReport() {
    }

    /** {@code status.placement} of a LUN: its configuration, totals, reclaim counters, handles and streams. */
    static JsonObject json(Placement placement) {
        PlacementStats stats = placement.stats();
        JsonArray handles = new JsonArray();
        for (int h = 0; h < placement.handles(); h++) {
            handles.add(writer(stats.handles().get(h)).put("handle", h));
        }
        JsonArray streams = new JsonArray();
        for (int g = 1; g < placement.streams(); g++) {
            streams.add(writer(stats.stream(g)).put("group-number", g));
        }
        return new JsonObject()
                .put("reclaim-unit-bytes", placement.geometry().reclaimUnitBytes())
                .put("mapping-unit-bytes", placement.geometry().mappingUnitBytes())
                .put("model-bytes", placement.geometry().tableBytes())
                .put("total", writer(stats.total()))
                .put("units-reclaimed", stats.unitsReclaimed())
                .put("media-erased-bytes", stats.mediaBytesErased())
                .put("free-units", stats.freeUnits())
                .put("physical-units", stats.physicalUnits())
                .put("handles", handles)
                .put("streams", streams);
    }

    private static JsonObject writer(WriterStats s) {
        return new JsonObject().put("host-bytes", s.hostBytes()).put("media-bytes", s.mediaBytes())
                .put("moved-bytes", s.movedBytes()).put("write-amplification", s.writeAmplification())
                .put("rollovers", s.rollovers()).put("units-closed-early", s.unitsClosedEarly());
    }

    /** The placement families over every LUN of {@code plane} that has a placement. */
    static MetricSnapshots snapshots(ControlPlane plane) {
        Families f = new Families();
        for (ControlPlane.LunStatus status : plane.luns()) {
            String lun = status.config().name();
            Placement placement = plane.lunState(lun).map(LunState::placement).orElse(null);
            if (placement != null) {
                f.add(lun, placement);
            }
        }
        return f.build();
    }

    /** The builders of every family; {@link #add} one LUN's data points. */
    static final class Families {
        private final CounterSnapshot.Builder host = CounterSnapshot.builder().name("blocktarget_placement_host_bytes")
                .help("bytes the hosts wrote, by LUN and placement handle / stream");
        private final CounterSnapshot.Builder media = CounterSnapshot.builder().name("blocktarget_placement_media_bytes")
                .help("bytes the modelled medium wrote for them, reclaim moves included");
        private final CounterSnapshot.Builder moved = CounterSnapshot.builder().name("blocktarget_placement_moved_bytes")
                .help("of the media bytes, those reclaim moved");
        private final GaugeSnapshot.Builder amplification = GaugeSnapshot.builder()
                .name("blocktarget_placement_write_amplification")
                .help("media bytes per host byte of the LUN since the last reset (0 before any write)");
        private final CounterSnapshot.Builder reclaimed = CounterSnapshot.builder()
                .name("blocktarget_placement_units_reclaimed").help("reclaim units erased by reclaim");
        private final CounterSnapshot.Builder erased = CounterSnapshot.builder()
                .name("blocktarget_placement_media_erased_bytes").help("bytes of the reclaim units erased");
        private final GaugeSnapshot.Builder free = GaugeSnapshot.builder().name("blocktarget_placement_free_units")
                .help("reclaim units free now");

        void add(String lun, Placement placement) {
            PlacementStats stats = placement.stats();
            for (int h = 0; h < placement.handles(); h++) {
                writer(lun, "handle-" + h, stats.handles().get(h));
            }
            for (int g = 1; g < placement.streams(); g++) {
                writer(lun, "stream-" + g, stats.stream(g));
            }
            Labels labels = Labels.of("lun", lun);
            amplification.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(labels)
                    .value(stats.total().writeAmplification()).build());
            reclaimed.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().labels(labels)
                    .value(stats.unitsReclaimed()).build());
            erased.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().labels(labels)
                    .value(stats.mediaBytesErased()).build());
            free.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(labels)
                    .value(stats.freeUnits()).build());
        }

        private void writer(String lun, String writer, WriterStats s) {
            Labels labels = Labels.of("lun", lun, "writer", writer);
            host.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().labels(labels).value(s.hostBytes())
                    .build());
            media.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().labels(labels).value(s.mediaBytes())
                    .build());
            moved.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().labels(labels).value(s.movedBytes())
                    .build());
        }

        MetricSnapshots build() {
            return MetricSnapshots.of(host.build(), media.build(), moved.build(), amplification.build(),
                    reclaimed.build(), erased.build(), free.build());
        }
    }
}
