# Aggregates bench/run's raw measurements (one object per run, slurped with -s) into report.json:
# medians and min..max per row, ratios blocktarget / tgtd (stock and tuned limits; null LUN / tgtd null LUN),
# poll mode / default mode (never poll / tgtd: a spinning core against a sleeping tgtd says little),
# NVMe / iSCSI, NVMe/TCP with TLS / in clear, the negotiated keys of every run's connections, fraction of the loopback
# TCP limit, and the goals of issue 5 evaluated from the figures. $meta[0] is raw/meta.json.
def median: sort | length as $n | if $n == 0 then null
  elif $n % 2 == 1 then .[($n - 1) / 2] else (.[$n / 2 - 1] + .[$n / 2]) / 2 end;
def stats: map(select(. != null)) | if length == 0 then null else {median: median, min: min, max: max} end;
def r2: if . == null then null else . * 100 | round / 100 end;
def key: [.target, .client, .proto, .lun, .workload, .jobs, .placement];

$meta[0] as $m
| (group_by(key) | map(
    . as $runs | ($runs | map(select(.ok))) as $ok | $runs[0] as $f
    | {target: $f.target, client: $f.client, proto: $f.proto, lun: $f.lun, lbs: $f.lbs, workload: $f.workload,
       rw: $f.rw, bs: $f.bs, qd: $f.qd, jobs: $f.jobs, placement: $f.placement,
       runs_ok: ($ok | length), runs_failed: ([$runs[] | select(.ok | not)] | length),
       errors: ([$runs[] | .error | select(. != null)] | unique),
       iops: ($ok | map(.iops) | stats), mibps: ($ok | map(.mibps) | stats),
       p50us: ($ok | map(.p50us) | stats), p99us: ($ok | map(.p99us) | stats), p999us: ($ok | map(.p999us) | stats),
       # Little's law: requests in flight / IOPS; the only latency iscsi-perf gives
       mean_lat_us: ($ok | map(1e6 * $f.qd * $f.jobs / .iops) | stats),
       cpu_us_per_io: ($ok | map(.cpu_us_per_io) | stats),
       negotiated: ($runs | map(.negotiated // null)),
       client_cpu_us_per_io: ($ok | map(.client_cpu_us_per_io) | stats)}
    | .loopback_fraction = (if .bs >= 131072 and .mibps != null then
        ($m.limits.iperf3_gbps[.placement]) as $g
        | if ($g // 0) > 0 then (.mibps.median * 1048576 * 8 / 1e9 / $g | . * 1000 | round / 1000) else null end
      else null end)
  )) as $rows
| ($rows | map(
    . as $r
    | def vs($t; $l): ([$rows[] | select(.target == $t and .lun == $l and .client == $r.client and .workload == $r.workload
            and .jobs == $r.jobs and .placement == $r.placement)][0]) as $o
        | if $o == null or $o.iops == null or $r.iops == null then null else ($r.iops.median / $o.iops.median | r2) end;
      .ratio_vs_tgtd = (if $r.target == "blocktarget" and $r.proto == "iscsi" and $r.lun == "ram-4k" then vs("tgtd"; "tgtd-4k")
        else null end)
    | .ratio_vs_tuned_tgtd = (if $r.target == "blocktarget" and $r.proto == "iscsi" and $r.lun == "ram-4k" then vs("tgtd-tuned"; "tgtd-4k")
        elif $r.target == "blocktarget" and $r.proto == "iscsi" and $r.lun == "null-4k" then vs("tgtd-tuned"; "tgtd-null")
        else null end)
    | .ratio_poll_vs_default = (if $r.target == "blocktarget-poll" then
        ([$rows[] | select(.target == "blocktarget" and .proto == $r.proto and .lun == $r.lun and .client == $r.client
            and .workload == $r.workload and .jobs == $r.jobs and .placement == $r.placement)][0]) as $d
        | if $d == null or $d.iops == null or $r.iops == null then null else ($r.iops.median / $d.iops.median | r2) end
      else null end)
    # O_DIRECT file LUN (issue 15): blocktarget over the network / fio's io_uring engine on the same file
    | .ratio_vs_fio = (if ($r.target | startswith("blocktarget-direct")) then
        ([$rows[] | select(.target == "fio-io_uring" and .workload == $r.workload)][0]) as $f
        | if $f == null or $f.iops == null or $r.iops == null then null else ($r.iops.median / $f.iops.median | r2) end
      else null end)
    | .ratio_nvme_vs_iscsi = (if $r.proto == "nvme" then
        ([$rows[] | select(.target == $r.target and .proto == "iscsi" and .client == $r.client and .lun == $r.lun
            and .workload == $r.workload and .jobs == $r.jobs and .placement == $r.placement)][0]) as $i
        | if $i == null or $i.iops == null or $r.iops == null then null else ($r.iops.median / $i.iops.median | r2) end
      else null end)
    # file LUNs (issue 15): IOPS as a fraction of the RAM LUN's, same client, protocol, workload and placement
    | .ratio_vs_ram = (if ($r.lun | startswith("file-")) then
        ([$rows[] | select(.target == $r.target and .lun == "ram-4k" and .client == $r.client and .proto == $r.proto
            and .workload == $r.workload and .jobs == $r.jobs and .placement == $r.placement)][0]) as $m
        | if $m == null or $m.iops == null or $r.iops == null then null else ($r.iops.median / $m.iops.median | r2) end
      else null end)
    # NVMe/TCP TLS 1.3 (issue 14): the TLS LUN against ram-4k in clear, same client, workload, connections and
    # placement — IOPS on / off, and both sides' CPU per I/O on / off
    | .tls_vs_plain = (if $r.lun == "tls-4k" then
        ([$rows[] | select(.target == $r.target and .lun == "ram-4k" and .client == $r.client and .proto == $r.proto
            and .workload == $r.workload and .jobs == $r.jobs and .placement == $r.placement)][0]) as $p
        | def q($a; $b): if $a == null or $b == null or $b == 0 then null else ($a / $b | r2) end;
          if $p == null then null else
            {iops: q($r.iops.median?; $p.iops.median?), mibps: q($r.mibps.median?; $p.mibps.median?),
             cpu_us_per_io: q($r.cpu_us_per_io.median?; $p.cpu_us_per_io.median?),
             client_cpu_us_per_io: q($r.client_cpu_us_per_io.median?; $p.client_cpu_us_per_io.median?)} end
      else null end)
  )) as $rows
| def rowname: "\(.client) \(.proto) \(.workload) \(.jobs)c \(.placement)";
  def allmet($xs; f): if ($xs | length) == 0 then null else ($xs | all(f)) end;
  def bt: map(select(.target == "blocktarget"));
  def poll: map(select(.target == "blocktarget-poll"));
  # default mode decides; poll mode (blocktarget-poll: one spinning event loop on CPU 0) is shown beside it
  def verdict($d; $p): if $d == true then true elif $p == true then "poll mode only" else $d end;
  def figs($xs; f): ($xs | bt | map(f)) + ($xs | poll | map("poll: " + f));
  ($rows | map(select(.ratio_vs_tgtd != null))) as $vs
| ($rows | map(select(.ratio_nvme_vs_iscsi != null))) as $nv
| ($m.soak // null) as $soak
| [
    ($vs | map(select(.workload | test("^4k-rand.*-qd32$")))) as $x
    | {goal: "iSCSI 4 KiB QD32: >= 3x tgtd IOPS (same client, same placement)",
       figures: figs($x; "\(rowname): \(.ratio_vs_tgtd)x"),
       met: verdict(allmet($x | bt; .ratio_vs_tgtd >= 3); allmet($x | poll; .ratio_vs_tgtd >= 3))},
    ($vs | map(select(.workload | test("^128k-")))) as $x
    | {goal: "iSCSI 128 KiB: >= 5x tgtd IOPS (same client, same placement)",
       figures: figs($x; "\(rowname): \(.ratio_vs_tgtd)x"),
       met: verdict(allmet($x | bt; .ratio_vs_tgtd >= 5); allmet($x | poll; .ratio_vs_tgtd >= 5))},
    ($rows | map(select((.target | startswith("blocktarget")) and .proto == "iscsi" and .lun == "ram-4k" and .workload == "4k-randread-qd1" and .iops != null))) as $x
    | {goal: "iSCSI QD1 latency <= 30 us (p50 of loadgen; mean from IOPS for iscsi-perf)",
       figures: figs($x; "\(rowname): \((.p50us.median // .mean_lat_us.median) | r2) us"),
       met: verdict(allmet($x | bt; (.p50us.median // .mean_lat_us.median) <= 30);
                    allmet($x | poll; (.p50us.median // .mean_lat_us.median) <= 30))},
    {goal: "iSCSI >= tgtd on every workload (same client, same placement)",
     figures: (["\($vs | bt | map(select(.ratio_vs_tgtd >= 1)) | length) of \($vs | bt | length) rows >= 1x; lowest \($vs | bt | min_by(.ratio_vs_tgtd) | if . == null then "-" else "\(.ratio_vs_tgtd)x (\(rowname))" end)"]
       + (if ($vs | poll | length) > 0 then ["poll: \($vs | poll | map(select(.ratio_vs_tgtd >= 1)) | length) of \($vs | poll | length) rows >= 1x; lowest \($vs | poll | min_by(.ratio_vs_tgtd) | "\(.ratio_vs_tgtd)x (\(rowname))")"] else [] end)),
     met: verdict(allmet($vs | bt; .ratio_vs_tgtd >= 1); allmet($vs | poll; .ratio_vs_tgtd >= 1))},
    ($rows | map(select((.target | startswith("blocktarget")) and .proto == "iscsi" and .workload == "128k-read-qd8" and .mibps != null
        and (.lun | startswith("ram-"))))) as $x
    | {goal: "128 KiB sequential read over iSCSI >= 2.5 GB/s (RAM LUNs, best row)",
       figures: figs($x; "\(rowname) \(.lun): \(.mibps.median * 1048576 / 1e9 | r2) GB/s"),
       met: verdict(if ($x | bt | length) == 0 then null else ($x | bt | any(.mibps.median * 1048576 / 1e9 >= 2.5)) end;
                    if ($x | poll | length) == 0 then null else ($x | poll | any(.mibps.median * 1048576 / 1e9 >= 2.5)) end)},
    ($rows | map(select(.bs == 4096 and .qd == 32 and .cpu_us_per_io != null and (.target != "blocktarget-poll") and (.lun == "ram-4k" or .lun == "tgtd-4k")))) as $x
    | {goal: "target CPU per 4 KiB I/O <= 8 us (blocktarget, QD32; tgtd shown for comparison; poll mode spins by design, not counted)",
       figures: ($x | map("\(.target) \(rowname): \(.cpu_us_per_io.median | r2) us")),
       met: allmet($x | map(select(.target == "blocktarget")); .cpu_us_per_io.median <= 8)},
    {goal: "NVMe/TCP >= iSCSI on every workload, same generator, every logical block size",
     figures: figs($nv; "\(.lun) \(rowname): \(.ratio_nvme_vs_iscsi)x"),
     met: verdict(allmet($nv | bt; .ratio_nvme_vs_iscsi >= 1); allmet($nv | poll; .ratio_nvme_vs_iscsi >= 1))},
    {goal: "no GC pause over 10 ms (whole benchmark, both instances) and no heap / off-heap growth during the \($soak.seconds // 60) s soak (after GC heap and direct buffers each < 16 MiB, RSS < 32 MiB over the settled part)",
     figures: (["default: \($m.gc.pauses) pauses (\($m.gc.collector // "?")), longest \($m.gc.max_pause_ms // "-") ms",
               "poll: \($m.gc.poll.pauses // 0) pauses (\($m.gc.poll.collector // "?")), longest \($m.gc.poll.max_pause_ms // "-") ms"]
       + (if $soak == null then ["soak: not run"] else
           ["soak \($soak.seconds) s: heap after GC \($soak.heap_after_gc_mib.first // "-") → \($soak.heap_after_gc_mib.last // "-") MiB (\($soak.heap_after_gc_mib.samples) GCs)",
            "direct buffers \($soak.direct_mib.first // "-") → \($soak.direct_mib.last // "-") MiB",
            "RSS \($soak.rss_mib.first // "-") → \($soak.rss_mib.last // "-") MiB",
            "soak GC: \($soak.gc.pauses) pauses, longest \($soak.gc.max_pause_ms // "-") ms",
            "soak traffic: \($soak.iscsi) | \($soak.nvme)"] end)),
     met: (([$m.gc.max_pause_ms, $m.gc.poll.max_pause_ms] | map(select(. != null)) | all(. <= 10))
           and $soak != null and ($soak.heap_after_gc_mib.growth // 1e9) < 16 and ($soak.direct_mib.growth // 1e9) < 16
           and ($soak.rss_mib.growth // 1e9) < 32)},
    ($rows | map(select(.target == "blocktarget-direct" and .ratio_vs_fio != null))) as $x
    | {goal: "O_DIRECT file LUN (io_uring event loops) >= 0.8x fio's io_uring engine on the same file (issue 15)",
       figures: (($x | map("\(rowname): \(.ratio_vs_fio)x"))
         + ([$rows[] | select(.target == "blocktarget-direct-worker" and .ratio_vs_fio != null)]
            | map("worker threads (io_uring off) \(rowname): \(.ratio_vs_fio)x"))),
       met: allmet($x; .ratio_vs_fio >= 0.8)}
  ] as $goals
| $m + {rows: $rows, goals: $goals}
