# Sourced by ./blocktarget and scripts/dist (after scripts/env.sh): the server jar, how it is kept fresh
# in a checkout, and the JVM flags the server runs with (the release's bin/blocktarget gets the same).
BT_JAR="$ROOT/target-server/target/blocktarget.jar"

# ZGC: pauses stay far below a millisecond. The JVM would pick G1 (or Serial when it sees one CPU), whose young
# pauses measured 8-30 ms under bench/run load on this 2-core machine; ZGC's were <= 0.04 ms with the same
# throughput, also in poll mode on one core (bench/README.md, "Profile"). Data lives off-heap (RAM disks,
# Netty pools), the live heap is tens of MiB: the soft limit keeps ZGC from touching gigabytes of heap before
# its first cycle (RSS grew 300 MiB in 15 s without it), while -Xmx stays the JVM's default for huge LUN
# tables. BLOCKTARGET_JAVA_OPTS comes later on the command line and may override both; when it names a
# collector (-XX:+Use...GC) these are left out, since the JVM refuses two.
BT_GC_FLAGS=(-XX:+UseZGC -XX:SoftMaxHeapSize=256m)

# Prints the first source file newer than the jar (pom.xml or src/main of protocol, config, target-server).
bt_newer_source() {
  find "$ROOT/pom.xml" "$ROOT/protocol" "$ROOT/config" "$ROOT/target-server" \
       \( -path '*/target' -prune \) -o \( -type f \( -name pom.xml -o -path '*/src/main/*' \) -newer "$BT_JAR" -print \) \
       2>/dev/null | head -n1
}

# Builds the jar on first use and whenever a source is newer, saying which in one line on stderr.
bt_ensure_jar() {
  local why changed
  if [ ! -f "$BT_JAR" ]; then
    why="first use"
  else
    # || true: find stops with SIGPIPE once head has its line, which pipefail + set -e would make fatal
    changed=$(bt_newer_source || true)
    [ -n "$changed" ] || return 0
    why="${changed#"$ROOT"/} is newer than the jar (git pull?)"
  fi
  echo "blocktarget: building the server, $why; log: target/build.log" >&2
  mkdir -p "$ROOT/target"
  if ! (cd "$ROOT" && "$MVN" -B -ntp -DskipTests -pl target-server -am package >"$ROOT/target/build.log" 2>&1); then
    grep -E '^\[ERROR\]' "$ROOT/target/build.log" | head -n 20 >&2 || true
    echo "blocktarget: build failed; see $ROOT/target/build.log" >&2
    exit 1
  fi
}
