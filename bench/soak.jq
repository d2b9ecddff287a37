# Summarises the soak's JFR recording (jfr print --json: GCHeapSummary, GarbageCollection,
# DirectBufferStatistics) and RSS samples ($rss[0], KiB every 5 s) into raw/soak.json for report.json.
# Growth = last sample minus the first one at least 10 s into the recording.
def t: .startTime | sub("\\.[0-9]+"; "") | fromdateiso8601;
def mib: . / 1048576 | . * 10 | round / 10;
.recording.events as $ev
| ($ev | map(select(.type == "jdk.GCHeapSummary" and .values.when == "After GC") | {t: (.values | t), used: .values.heapUsed})) as $heap
| ($ev | map(select(.type == "jdk.DirectBufferStatistics") | {t: (.values | t), used: .values.memoryUsed})) as $direct
# longestPause is an ISO 8601 duration, e.g. PT0.001746389S; in ms:
| ($ev | map(select(.type == "jdk.GarbageCollection") | .values.longestPause
    | capture("^PT((?<m>[0-9]+)M)?(?<s>[0-9.]+)S$") | ((.m // "0" | tonumber) * 60 + (.s | tonumber)) * 1000)) as $pauses
| ([$heap[], $direct[]] | map(.t) | min) as $t0
| def settled($xs): $xs | map(select(.t >= $t0 + 10));
  def growth($xs): settled($xs) as $s | if ($s | length) < 2 then null else ($s[-1].used - $s[0].used) end;
{seconds: $secs, iscsi: $iscsi, nvme: $nvme,
 heap_after_gc_mib: {first: (settled($heap)[0].used // null | if . == null then null else mib end),
                     last: (settled($heap)[-1].used // null | if . == null then null else mib end),
                     growth: (growth($heap) | if . == null then null else mib end), samples: ($heap | length)},
 direct_mib: {first: (settled($direct)[0].used // null | if . == null then null else mib end),
              last: (settled($direct)[-1].used // null | if . == null then null else mib end),
              growth: (growth($direct) | if . == null then null else mib end), samples: ($direct | length)},
 rss_mib: {first: ($rss[0][2] // null | if . == null then null else . / 1024 | round end),
           last: ($rss[0][-1] // null | if . == null then null else . / 1024 | round end),
           growth: (if ($rss[0] | length) > 3 then ($rss[0][-1] - $rss[0][2]) / 1024 | round else null end),
           samples_kib: $rss[0]},
 gc: {pauses: ($pauses | length), max_pause_ms: ($pauses | max // null | if . == null then null else . * 1000 | round / 1000 end)}}