#!/bin/sh
# Runs a command while a busy loop keeps one core fully busy, then always kills the loop.
#
#   sh scripts/with-cpu-hog.sh npx vitest run --project integration
#
# Why: the integration tests put real load on 127.0.0.1 and judge it against wall-clock time. A
# test that passes only on a quiet machine says what a quiet machine happens to show; `make test`
# runs the integration set beside this hog on every CI run, so each run proves the suite holds on
# a machine where another process takes a core (issue 26, item 8).
#
# The hog is a plain sh loop (no node: nothing of the suite shares its runtime). Its presence is
# printed before and after, with the CPU seconds it used, read from /proc (Linux); elsewhere the
# figure is left out. Set PLATEAU_NO_CPU_HOG=1 to run the command alone (to compare).
set -u
if [ "$#" -eq 0 ]; then
  echo "with-cpu-hog: no command given: usage: sh scripts/with-cpu-hog.sh <command> [args...]" >&2
  exit 2
fi
if [ "${PLATEAU_NO_CPU_HOG:-}" = "1" ]; then
  echo "with-cpu-hog: PLATEAU_NO_CPU_HOG=1: running without the CPU hog" >&2
  exec "$@"
fi

sh -c 'while :; do :; done' &
HOG=$!
STARTED=$(date +%s)

# The loop's user + system CPU seconds so far (fields 14 and 15 of /proc/PID/stat, in clock ticks).
hog_cpu_s() {
  if [ -r "/proc/$HOG/stat" ]; then
    ticks=$(getconf CLK_TCK 2>/dev/null || echo 100)
    awk -v t="$ticks" '{ sub(/^.*\) /, ""); printf "%.1f", ($12 + $13) / t }' "/proc/$HOG/stat"
  fi
}

stop_hog() {
  if kill -0 "$HOG" 2>/dev/null; then
    used=$(hog_cpu_s)
    kill "$HOG" 2>/dev/null
    wait "$HOG" 2>/dev/null
    wall=$(( $(date +%s) - STARTED ))
    echo "with-cpu-hog: CPU hog (pid $HOG) stopped after ${wall} s wall${used:+, ${used} s of CPU}: the command ran beside one busy core" >&2
  else
    echo "with-cpu-hog: the CPU hog (pid $HOG) had died before the command ended: this run did not prove the suite on a busy machine" >&2
    HOG_DIED=1
  fi
}
trap 'stop_hog; exit 130' INT
trap 'stop_hog; exit 143' TERM

HOG_DIED=0
echo "with-cpu-hog: CPU hog running (pid $HOG, a busy sh loop on one core of $(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?')) beside: $*" >&2
"$@"
status=$?
trap - INT TERM
stop_hog
if [ "$status" -eq 0 ] && [ "$HOG_DIED" -eq 1 ]; then
  exit 1
fi
exit "$status"
