# shellcheck shell=bash
# bench/spdk-lib.sh — SPDK as a peer target and as a client, and the target-CPU and median arithmetic of the reports,
# shared by bench/spdk-ab, bench/lun-ab and bench/profile (sourced; ROOT is the repository). Needs root: hugepages.

# Builds SPDK offline from ../shared/third-party if it is not built yet (SPDK_DIR [/tmp/spdk], set to where it is),
# reserves 2048 hugepages of 2 MiB if fewer are, mounts /dev/hugepages if it is not, and removes the hugepage files of
# SPDK processes that are gone.
spdk_prepare() {
  SPDK_DIR=$("$ROOT/../shared/peers/spdk-build.sh" "${SPDK_DIR:-/tmp/spdk}" | tail -n1)
  if [ "$(cat /proc/sys/vm/nr_hugepages)" -lt 2048 ]; then echo 2048 >/proc/sys/vm/nr_hugepages; fi
  mountpoint -q /dev/hugepages || { mkdir -p /dev/hugepages; mount -t hugetlbfs nodev /dev/hugepages; }
  # an SPDK process that was killed leaves its hugepage files behind, holding their pages (1 GiB each) for good
  pgrep -f "$SPDK_DIR/build/bin/" >/dev/null || rm -f /dev/hugepages/spdk*
}

# spdk_perf OUT TRID RW BYTES QD SECONDS: one spdk_nvme_perf run on CPU 1 (latency histogram on), its output in OUT.
spdk_perf() {
  taskset -c 1 "$SPDK_DIR/build/bin/spdk_nvme_perf" -c 0x2 -q "$5" -o "$4" -w "$3" -t "$6" -L -s 1024 -i 7 \
    -r "$2" >"$1" 2>&1
}

# spdk_perf_summary OUT: "IOPS MiB/s p50 p99 p99.9 mean" of a spdk_nvme_perf output (latencies in µs).
spdk_perf_summary() {
  awk '/^Total *:/ { iops = $3; mibps = $4; mean = $5 }
       /^Summary latency data/ { s = 1 }
       s && /50.00000%/ { p50 = $3 } s && /99.00000%/ { p99 = $3 } s && /99.90000%/ { p999 = $3 }
       END { sub(/us$/, "", p50); sub(/us$/, "", p99); sub(/us$/, "", p999)
             printf "%s %s %s %s %s %s\n", iops, mibps, p50, p99, p999, mean }' "$1"
}

# cpu_sample PID: "ticks sys_ticks wall_ns" now: the process's utime + stime and its stime (/proc/PID/stat, in clock
# ticks), and the wall clock. Two samples around a measured window give cpu_per_io its inputs.
cpu_sample() {
  local c k
  read -r c k < <(awk '{ print $14 + $15, $15 }' "/proc/$1/stat")
  echo "$c $k $(date +%s%N)"
}

# core_sample CPU: "softirq_ticks steal_ticks all_ticks" of that CPU now (/proc/stat): the network work done on the core
# outside the processes' own times, the time the hypervisor took the vCPU away, and the sum of every column.
core_sample() {
  awk -v cpu="cpu$1" '$1 == cpu { all = 0; for (i = 2; i <= NF; i++) all += $i; print $8, $9, all }' /proc/stat
}

# cpu_per_io TICKS WALL_NS IOPS: CPU µs per I/O of TICKS clock ticks spent over WALL_NS at IOPS (-1 without I/O).
cpu_per_io() {
  awk -v c="$1" -v hz="$(getconf CLK_TCK)" -v w="$2" -v iops="$3" \
    'BEGIN { printf "%.2f", (iops > 0 && w > 0 ? (c / hz) / (w / 1e9) * 1e6 / iops : -1) }'
}

# MEDIAN_AWK: awk source of median(a, m), the median of the numbers a[1..m] (0 when m is 0; sorts a), for the
# reports' awk programs to include.
# shellcheck disable=SC2016 # awk source, not shell
MEDIAN_AWK='function median(a, m,   x, y, t) {
  for (x = 1; x <= m; x++) for (y = x + 1; y <= m; y++) if (a[y] < a[x]) { t = a[x]; a[x] = a[y]; a[y] = t }
  return m == 0 ? 0 : (m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2) }'
