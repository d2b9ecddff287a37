# The compact headline table (4 KiB LUNs, 1 connection, target CPU0 / client CPU1), shared by report.md
# and the README's Performance section. Input: report.json.
def kiops: if . == null then "–" elif . >= 100000 then "\(. / 1000 | round)k" else "\(. / 100 | round / 10)k" end;
def x: if . == null then "–" else "\(.)×" end;
def num1: if . == null then "–" else "\(. * 10 | round / 10)" end;
def pick($rows; $t; $c; $p; $w; $jobs; $pl):
  [$rows[] | select(.target == $t and .client == $c and .proto == $p and .workload == $w and .jobs == $jobs
      and .placement == $pl and (.lun == "ram-4k" or .lun == "tgtd-4k"))][0];
def cell: if . == null or .iops == null then "–"
  elif .bs >= 131072 then "\(.iops.median | kiops) (\(.mibps.median | round) MiB/s)" else .iops.median | kiops end;
def summary_table($jobs; $pl):
  .rows as $rows
  | "| workload | iscsi-perf: tgtd | iscsi-perf: blocktarget | × | loadgen iSCSI: tgtd | loadgen iSCSI: blocktarget | × | loadgen NVMe/TCP: blocktarget | QD1 latency or target CPU µs/IO: tgtd / blocktarget |",
    "|---|---|---|---|---|---|---|---|---|",
    ( ["4k-randread-qd1", "4k-randread-qd32", "4k-randwrite-qd32", "128k-read-qd8", "128k-write-qd8"][] as $w
      | pick($rows; "tgtd"; "iscsi-perf"; "iscsi"; $w; $jobs; $pl) as $pt
      | pick($rows; "blocktarget"; "iscsi-perf"; "iscsi"; $w; $jobs; $pl) as $pb
      | pick($rows; "tgtd"; "loadgen"; "iscsi"; $w; $jobs; $pl) as $lt
      | pick($rows; "blocktarget"; "loadgen"; "iscsi"; $w; $jobs; $pl) as $lb
      | pick($rows; "blocktarget"; "loadgen"; "nvme"; $w; $jobs; $pl) as $ln
      # latency for QD1 (loadgen p50, else iscsi-perf's mean from IOPS), CPU per I/O otherwise
      | (if ($lb.iops // null) != null and ($lt.iops // null) != null then [$lt, $lb, "loadgen"]
         else [$pt, $pb, "iscsi-perf"] end) as [$ct, $cb, $cc]
      | (if $w == "4k-randread-qd1" then
           (if $cc == "loadgen" then "p50 \($ct.p50us.median | num1) / \($cb.p50us.median | num1) µs (loadgen)"
            else "mean \($ct.mean_lat_us.median | num1) / \($cb.mean_lat_us.median | num1) µs (iscsi-perf)" end)
         else "CPU \($ct.cpu_us_per_io.median | num1) / \($cb.cpu_us_per_io.median | num1) µs (\($cc))" end) as $last
      | "| \($w | sub("-qd"; " QD") | sub("-"; " ")) | \($pt | cell) | \($pb | cell) | \($pb.ratio_vs_tgtd // null | x) | \($lt | cell) | \($lb | cell) | \($lb.ratio_vs_tgtd // null | x) | \($ln | cell) | \($last) |"
    );
# Poll mode (blocktarget.yaml poll: true, one event loop spinning on CPU 0, client on CPU 1) next to tgtd and
# blocktarget's default (sleeping) event loops, same placement.
def poll_table($jobs):
  .rows as $rows
  | "| workload | iscsi-perf: tgtd | iscsi-perf: poll | × | loadgen iSCSI: tgtd | loadgen iSCSI: default | loadgen iSCSI: poll | × | loadgen NVMe/TCP: default | loadgen NVMe/TCP: poll | p50 µs loadgen iSCSI / NVMe: default → poll |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
    ( ["4k-randread-qd1", "4k-randread-qd32", "4k-randwrite-qd32", "128k-read-qd8", "128k-write-qd8"][] as $w
      | pick($rows; "tgtd"; "iscsi-perf"; "iscsi"; $w; $jobs; "pinned") as $pt
      | pick($rows; "blocktarget-poll"; "iscsi-perf"; "iscsi"; $w; $jobs; "pinned") as $pp
      | pick($rows; "tgtd"; "loadgen"; "iscsi"; $w; $jobs; "pinned") as $lt
      | pick($rows; "blocktarget"; "loadgen"; "iscsi"; $w; $jobs; "pinned") as $lb
      | pick($rows; "blocktarget-poll"; "loadgen"; "iscsi"; $w; $jobs; "pinned") as $lp
      | pick($rows; "blocktarget"; "loadgen"; "nvme"; $w; $jobs; "pinned") as $nb
      | pick($rows; "blocktarget-poll"; "loadgen"; "nvme"; $w; $jobs; "pinned") as $np
      | "| \($w | sub("-qd"; " QD") | sub("-"; " ")) | \($pt | cell) | \($pp | cell) | \($pp.ratio_vs_tgtd // null | x) | \($lt | cell) | \($lb | cell) | \($lp | cell) | \($lp.ratio_vs_tgtd // null | x) | \($nb | cell) | \($np | cell) | \($lb.p50us.median // null | num1) / \($nb.p50us.median // null | num1) → \($lp.p50us.median // null | num1) / \($np.p50us.median // null | num1) |"
    );
