# The compact headline table (4 KiB LUNs, 1 connection, target CPU0 / client CPU1), shared by report.md
# and the README's Performance section. Input: report.json.
def kiops: if . == null then "–" elif . >= 100000 then "\(. / 1000 | round)k" else "\(. / 100 | round / 10)k" end;
def x: if . == null then "–" else "\(.)×" end;
def num1: if . == null then "–" else "\(. * 10 | round / 10)" end;
def pickl($rows; $t; $c; $p; $w; $jobs; $pl; $luns):
  [$rows[] | select(.target == $t and .client == $c and .proto == $p and .workload == $w and .jobs == $jobs
      and .placement == $pl and (.lun as $l | $luns | index($l)))][0];
def pick($rows; $t; $c; $p; $w; $jobs; $pl): pickl($rows; $t; $c; $p; $w; $jobs; $pl; ["ram-4k", "tgtd-4k"]);
def cell: if . == null or .iops == null then "–"
  elif .bs >= 131072 then "\(.iops.median | kiops) (\(.mibps.median | round) MiB/s)" else .iops.median | kiops end;
def summary_table($jobs; $pl):
  .rows as $rows
  | "| workload | iscsi-perf: tgtd | iscsi-perf: tgtd tuned | iscsi-perf: blocktarget | × stock / tuned | loadgen iSCSI: tgtd | loadgen iSCSI: tgtd tuned | loadgen iSCSI: blocktarget | × stock / tuned | loadgen NVMe/TCP: blocktarget | QD1 latency or target CPU µs/IO: tgtd / blocktarget |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
    ( ["4k-randread-qd1", "4k-randread-qd32", "4k-randwrite-qd32", "128k-read-qd8", "128k-write-qd8"][] as $w
      | pick($rows; "tgtd"; "iscsi-perf"; "iscsi"; $w; $jobs; $pl) as $pt
      | pick($rows; "tgtd-tuned"; "iscsi-perf"; "iscsi"; $w; $jobs; $pl) as $ptt
      | pick($rows; "blocktarget"; "iscsi-perf"; "iscsi"; $w; $jobs; $pl) as $pb
      | pick($rows; "tgtd"; "loadgen"; "iscsi"; $w; $jobs; $pl) as $lt
      | pick($rows; "tgtd-tuned"; "loadgen"; "iscsi"; $w; $jobs; $pl) as $ltt
      | pick($rows; "blocktarget"; "loadgen"; "iscsi"; $w; $jobs; $pl) as $lb
      | pick($rows; "blocktarget"; "loadgen"; "nvme"; $w; $jobs; $pl) as $ln
      # latency for QD1 (loadgen p50, else iscsi-perf's mean from IOPS), CPU per I/O otherwise
      | (if ($lb.iops // null) != null and ($lt.iops // null) != null then [$lt, $lb, "loadgen"]
         else [$pt, $pb, "iscsi-perf"] end) as [$ct, $cb, $cc]
      | (if $w == "4k-randread-qd1" then
           (if $cc == "loadgen" then "p50 \($ct.p50us.median | num1) / \($cb.p50us.median | num1) µs (loadgen)"
            else "mean \($ct.mean_lat_us.median | num1) / \($cb.mean_lat_us.median | num1) µs (iscsi-perf)" end)
         else "CPU \($ct.cpu_us_per_io.median | num1) / \($cb.cpu_us_per_io.median | num1) µs (\($cc))" end) as $last
      | "| \($w | sub("-qd"; " QD") | sub("-"; " ")) | \($pt | cell) | \($ptt | cell) | \($pb | cell) | \($pb.ratio_vs_tgtd // null | x) / \($pb.ratio_vs_tuned_tgtd // null | x) | \($lt | cell) | \($ltt | cell) | \($lb | cell) | \($lb.ratio_vs_tgtd // null | x) / \($lb.ratio_vs_tuned_tgtd // null | x) | \($ln | cell) | \($last) |"
    );
# Poll mode (blocktarget.yaml poll: true, one event loop spinning on CPU 0, client on CPU 1) next to tgtd and
# blocktarget's default (sleeping) event loops, same placement. × = poll / default mode: a core spinning against a
# tgtd that sleeps is no like-for-like ratio, so there is none against tgtd.
def poll_table($jobs):
  .rows as $rows
  | "| workload | iscsi-perf: tgtd | iscsi-perf: default | iscsi-perf: poll | × poll / default | loadgen iSCSI: tgtd | loadgen iSCSI: default | loadgen iSCSI: poll | × poll / default | loadgen NVMe/TCP: default | loadgen NVMe/TCP: poll | × poll / default | p50 µs loadgen iSCSI / NVMe: default → poll |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ( ["4k-randread-qd1", "4k-randread-qd32", "4k-randwrite-qd32", "128k-read-qd8", "128k-write-qd8"][] as $w
      | pick($rows; "tgtd"; "iscsi-perf"; "iscsi"; $w; $jobs; "pinned") as $pt
      | pick($rows; "blocktarget"; "iscsi-perf"; "iscsi"; $w; $jobs; "pinned") as $pd
      | pick($rows; "blocktarget-poll"; "iscsi-perf"; "iscsi"; $w; $jobs; "pinned") as $pp
      | pick($rows; "tgtd"; "loadgen"; "iscsi"; $w; $jobs; "pinned") as $lt
      | pick($rows; "blocktarget"; "loadgen"; "iscsi"; $w; $jobs; "pinned") as $lb
      | pick($rows; "blocktarget-poll"; "loadgen"; "iscsi"; $w; $jobs; "pinned") as $lp
      | pick($rows; "blocktarget"; "loadgen"; "nvme"; $w; $jobs; "pinned") as $nb
      | pick($rows; "blocktarget-poll"; "loadgen"; "nvme"; $w; $jobs; "pinned") as $np
      | "| \($w | sub("-qd"; " QD") | sub("-"; " ")) | \($pt | cell) | \($pd | cell) | \($pp | cell) | \($pp.ratio_poll_vs_default // null | x) | \($lt | cell) | \($lb | cell) | \($lp | cell) | \($lp.ratio_poll_vs_default // null | x) | \($nb | cell) | \($np | cell) | \($np.ratio_poll_vs_default // null | x) | \($lb.p50us.median // null | num1) / \($nb.p50us.median // null | num1) → \($lp.p50us.median // null | num1) / \($np.p50us.median // null | num1) |"
    );
# Null LUNs (no backend on either side): blocktarget's null LUN vs tgtd's bs null LUN on the tuned target, iSCSI,
# 1 connection, placement $pl. × = blocktarget / tgtd.
def null_table($pl):
  .rows as $rows
  | "| workload | iscsi-perf: tgtd null | iscsi-perf: blocktarget null | × | loadgen iSCSI: tgtd null | loadgen iSCSI: blocktarget null | × | target CPU µs/IO (loadgen): tgtd / blocktarget |",
    "|---|---|---|---|---|---|---|---|",
    ( ["4k-randread-qd32", "4k-randwrite-qd32", "128k-read-qd8", "128k-write-qd8"][] as $w
      | pickl($rows; "tgtd-tuned"; "iscsi-perf"; "iscsi"; $w; 1; $pl; ["tgtd-null"]) as $pt
      | pickl($rows; "blocktarget"; "iscsi-perf"; "iscsi"; $w; 1; $pl; ["null-4k"]) as $pb
      | pickl($rows; "tgtd-tuned"; "loadgen"; "iscsi"; $w; 1; $pl; ["tgtd-null"]) as $lt
      | pickl($rows; "blocktarget"; "loadgen"; "iscsi"; $w; 1; $pl; ["null-4k"]) as $lb
      | select($pt != null or $pb != null or $lt != null or $lb != null)
      | "| \($w | sub("-qd"; " QD") | sub("-"; " ")) | \($pt | cell) | \($pb | cell) | \($pb.ratio_vs_tuned_tgtd // null | x) | \($lt | cell) | \($lb | cell) | \($lb.ratio_vs_tuned_tgtd // null | x) | \($lt.cpu_us_per_io.median // null | num1) / \($lb.cpu_us_per_io.median // null | num1) |"
    );
# File LUNs (issue 15) beside the RAM and null LUNs of the same server: one row per workload, loadgen over the
# protocol $p, 1 connection, unpinned (bench/run measures them A B C D per workload). × = file / RAM IOPS.
def file_table($p):
  .rows as $rows
  | def fl($l; $w): pickl($rows; "blocktarget"; "loadgen"; $p; $w; 1; "unpinned"; [$l]);
    def xr($f; $r): if ($f.iops.median // null) == null or ($r.iops.median // null) == null then "–"
      else "\($f.iops.median / $r.iops.median * 100 | round / 100)×" end;
    "| workload | RAM | file on tmpfs | × RAM | file on ext4/XFS, page cache | × RAM | null | target CPU µs/IO: RAM / tmpfs / disk file |",
    "|---|---|---|---|---|---|---|---|",
    ( ["4k-randread-qd1", "4k-randread-qd32", "4k-randwrite-qd1", "4k-randwrite-qd32", "128k-read-qd8", "128k-write-qd8"][] as $w
      | fl("ram-4k"; $w) as $r | fl("file-shm-4k"; $w) as $s | fl("file-disk-4k"; $w) as $d | fl("null-4k"; $w) as $n
      | select($s != null or $d != null)
      | "| \($w | sub("-qd"; " QD") | sub("-"; " ")) | \($r | cell) | \($s | cell) | \(xr($s; $r)) | \($d | cell) | \(xr($d; $r)) | \($n | cell) | \($r.cpu_us_per_io.median // null | num1) / \($s.cpu_us_per_io.median // null | num1) / \($d.cpu_us_per_io.median // null | num1) |"
    );
# The O_DIRECT file LUN (issue 15): io_uring event loops vs worker threads (-Dblocktarget.io-uring=off), both
# protocols, against fio's own io_uring engine on the same file. × = IOPS / fio's.
def direct_table:
  .rows as $rows
  | def dr($t; $c; $p; $w): pickl($rows; $t; $c; $p; $w; 1; "unpinned"; ["direct-4k"]);
    def xf($a; $f): if ($a.iops.median // null) == null or ($f.iops.median // null) == null then "–"
      else "\($a.iops.median / $f.iops.median * 100 | round / 100)×" end;
    "| workload | fio io_uring | io_uring loops: NVMe/TCP | × fio | io_uring loops: iSCSI | worker threads: NVMe/TCP | worker threads: iSCSI | target CPU µs/IO NVMe/TCP: io_uring / workers |",
    "|---|---|---|---|---|---|---|---|",
    ( ["4k-randread-qd1", "4k-randread-qd32", "4k-randwrite-qd32", "128k-read-qd8", "128k-write-qd8"][] as $w
      | [$rows[] | select(.lun == "direct-4k" and .client == "fio" and .workload == $w)][0] as $f
      | dr("blocktarget-direct"; "loadgen"; "nvme"; $w) as $un | dr("blocktarget-direct"; "loadgen"; "iscsi"; $w) as $ui
      | dr("blocktarget-direct-worker"; "loadgen"; "nvme"; $w) as $wn
      | dr("blocktarget-direct-worker"; "loadgen"; "iscsi"; $w) as $wi
      | select($un != null or $f != null)
      | "| \($w | sub("-qd"; " QD") | sub("-"; " ")) | \($f | cell) | \($un | cell) | \(xf($un; $f)) | \($ui | cell) | \($wn | cell) | \($wi | cell) | \($un.cpu_us_per_io.median // null | num1) / \($wn.cpu_us_per_io.median // null | num1) |"
    );
# NVMe/TCP TLS 1.3 on / off (issue 14): blocktarget's tls-4k (access.tls: required, PSK hash 01,
# TLS_AES_128_GCM_SHA256) against ram-4k in clear, the load generator, 1 connection, placement $pl. × = on / off.
def tls_table($pl):
  .rows as $rows
  | "| workload | IOPS off | IOPS on | × on / off | MiB/s off / on | target CPU µs/IO off / on | client CPU µs/IO off / on |",
    "|---|---|---|---|---|---|---|",
    ( ["4k-randread-qd32", "4k-randwrite-qd32", "128k-read-qd8", "128k-write-qd8"][] as $w
      | pickl($rows; "blocktarget"; "loadgen"; "nvme"; $w; 1; $pl; ["ram-4k"]) as $off
      | pickl($rows; "blocktarget"; "loadgen"; "nvme"; $w; 1; $pl; ["tls-4k"]) as $on
      | select($on != null)
      | "| \($w | sub("-qd"; " QD") | sub("-"; " ")) | \($off | cell) | \($on | cell) | \($on.tls_vs_plain.iops // null | x) | \($off.mibps.median // null | num1) / \($on.mibps.median // null | num1) | \($off.cpu_us_per_io.median // null | num1) / \($on.cpu_us_per_io.median // null | num1) | \($off.client_cpu_us_per_io.median // null | num1) / \($on.client_cpu_us_per_io.median // null | num1) |"
    );
