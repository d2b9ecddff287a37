# Sourced by ./blocktarget, ./run-tests and the bench scripts: finds a JDK >= 25 and Maven.
# Sets JAVA_HOME, JAVA, MVN. On failure prints one line saying what to install and exits 1.

bt_java_major() {  # $1 = java binary; prints the feature version (17, 25, ...) or nothing
  "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = \([0-9][0-9]*\).*/\1/p' | head -n1
}

bt_find_jdk() {
  local c major
  # BLOCKTARGET_JVM_DIRS (tests): where to look besides $JAVA_HOME, default /usr/lib/jvm/*
  local dirs
  if [ -n "${BLOCKTARGET_JVM_DIRS+x}" ]; then dirs=$BLOCKTARGET_JVM_DIRS; else dirs=$(echo /usr/lib/jvm/*); fi
  # shellcheck disable=SC2086 # word splitting of the directory list is intended
  for c in "${JAVA_HOME:-}" $dirs; do
    [ -n "$c" ] && [ -x "$c/bin/java" ] && [ -x "$c/bin/javac" ] || continue
    major=$(bt_java_major "$c/bin/java")
    if [ -n "$major" ] && [ "$major" -ge 25 ]; then
      echo "$c"; return 0
    fi
  done
  return 1
}

if ! BT_JDK=$(bt_find_jdk); then
  echo "blocktarget: needs a JDK 25 or newer (none found in \$JAVA_HOME or /usr/lib/jvm); install one (e.g. Debian/Adoptium temurin-25-jdk) or point JAVA_HOME at it" >&2
  exit 1
fi
export JAVA_HOME="$BT_JDK"
JAVA="$JAVA_HOME/bin/java"
if command -v mvn >/dev/null 2>&1; then
  MVN=mvn
else
  echo "blocktarget: needs Apache Maven 3.8 or newer to build; install it, e.g. 'apt-get install maven'" >&2
  exit 1
fi
# Flags every JVM of ours runs with (keep in step with blocktarget.jvm.flags in pom.xml).
BT_JVM_FLAGS=(--enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow)
# Maven's own libraries (guava) use sun.misc.Unsafe; say it is allowed so JDK 25 does not warn.
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
