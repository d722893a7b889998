#!/bin/sh
# Runs a command while one core is kept fully busy, then always stops the hog.
#
#   sh scripts/with-cpu-hog.sh npx vitest run --project integration
#   sh scripts/with-cpu-hog.sh --first 'make checks' npx vitest run --project integration
#
# Why: the integration tests put real load on 127.0.0.1 and judge it against wall-clock time. A
# test that passes only on a quiet machine says what a quiet machine happens to show; `make test`
# runs the integration set beside this hog on every CI run, so each run proves the suite holds on
# a machine where another process takes a core (issue 26, item 8).
#
# The hog is a plain sh loop (no node: nothing of the suite shares its runtime). With --first, the
# hog first does that shell command's work (make test: the type check, the import rules and the
# format check), then loops: a core's worth taken by real work, then by the loop, the whole time
# the command runs. So that the work's threads together take no more than one busy process
# would, it runs in a cgroup of its own at the default weight (v1 cpu.shares 1024, v2 cpu.weight
# 100: the whole group competes as one process). Where no cgroup can be made (not root, no cpu
# controller), the first work runs before the command instead, and the hog is the loop alone.
# When the command ends first, the script waits for that work; it exits non-zero if either failed.
#
# The hog's presence is printed before and after, with the CPU seconds it used (with its first
# work's), read from /proc (Linux); elsewhere the figure is left out. Set PLATEAU_NO_CPU_HOG=1 to
# run the command alone (to compare): the --first work then runs before it.
set -u
FIRST=""
if [ "${1:-}" = "--first" ]; then
  if [ "$#" -lt 2 ]; then
    echo "with-cpu-hog: --first needs a shell command: usage: sh scripts/with-cpu-hog.sh [--first 'cmd'] <command> [args...]" >&2
    exit 2
  fi
  FIRST=$2
  shift 2
fi
if [ "$#" -eq 0 ]; then
  echo "with-cpu-hog: no command given: usage: sh scripts/with-cpu-hog.sh [--first 'cmd'] <command> [args...]" >&2
  exit 2
fi
if [ "${PLATEAU_NO_CPU_HOG:-}" = "1" ]; then
  echo "with-cpu-hog: PLATEAU_NO_CPU_HOG=1: running without the CPU hog" >&2
  if [ -n "$FIRST" ]; then sh -c "$FIRST" || exit $?; fi
  exec "$@"
fi

WHERE="on one core of $(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?')"
# A cgroup of the cpu controller at the default weight, for the hog's first work; its path, or nothing.
make_cgroup() {
  for base in /sys/fs/cgroup/cpu /sys/fs/cgroup/cpu,cpuacct; do
    if [ -f "$base/cpu.shares" ] && mkdir "$base/plateau-hog-$$" 2>/dev/null; then
      if echo 1024 >"$base/plateau-hog-$$/cpu.shares" 2>/dev/null; then
        echo "$base/plateau-hog-$$"
        return
      fi
      rmdir "$base/plateau-hog-$$" 2>/dev/null
    fi
  done
  if grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null && mkdir /sys/fs/cgroup/plateau-hog-$$ 2>/dev/null; then
    if echo 100 >/sys/fs/cgroup/plateau-hog-$$/cpu.weight 2>/dev/null; then
      echo /sys/fs/cgroup/plateau-hog-$$
      return
    fi
    rmdir /sys/fs/cgroup/plateau-hog-$$ 2>/dev/null
  fi
}
CGROUP=""
if [ -n "$FIRST" ]; then
  CGROUP=$(make_cgroup)
  if [ -z "$CGROUP" ]; then
    echo "with-cpu-hog: no cgroup of the cpu controller can be made here (needs root and cgroup v1's cpu or v2's cpu controller): \`$FIRST\` runs first, then the command beside the loop alone" >&2
    sh -c "$FIRST" || exit $?
    FIRST=""
  fi
fi
FIRST_STATUS=$(mktemp)
# The first work in its cgroup (125 when it cannot join), its exit status kept; then the loop, as
# a plain busy process outside the cgroup.
hog_main() {
  if [ -n "$FIRST" ]; then
    sh -c 'echo $$ >"$1/cgroup.procs" || exit 125; exec sh -c "$2"' first "$CGROUP" "$FIRST"
    echo $? >"$FIRST_STATUS"
  fi
  exec sh -c 'while :; do :; done'
}
hog_main &
HOG=$!
STARTED=$(date +%s)

# The hog's user + system CPU seconds so far, with its waited-for children's (its first work):
# fields 14 to 17 of /proc/PID/stat, in clock ticks.
hog_cpu_s() {
  if [ -r "/proc/$HOG/stat" ]; then
    ticks=$(getconf CLK_TCK 2>/dev/null || echo 100)
    awk -v t="$ticks" '{ sub(/^.*\) /, ""); printf "%.1f", ($12 + $13 + $14 + $15) / t }' "/proc/$HOG/stat"
  fi
}

first_done() {
  [ -s "$FIRST_STATUS" ]
}

stop_hog() {
  if kill -0 "$HOG" 2>/dev/null; then
    used=$(hog_cpu_s)
    # the first work, if still running (an interrupt), goes with the loop: all of its cgroup
    if [ -n "$CGROUP" ]; then
      for p in $(cat "$CGROUP/cgroup.procs" 2>/dev/null); do kill -TERM "$p" 2>/dev/null; done
    fi
    kill "$HOG" 2>/dev/null
    wait "$HOG" 2>/dev/null
    wall=$(($(date +%s) - STARTED))
    echo "with-cpu-hog: CPU hog (pid $HOG) stopped after ${wall} s wall${used:+, ${used} s of CPU}: the command ran beside one busy core" >&2
  else
    echo "with-cpu-hog: the CPU hog (pid $HOG) had died before the command ended: this run did not prove the suite on a busy machine" >&2
    HOG_DIED=1
  fi
  # a cgroup can be removed once its processes have gone
  if [ -n "$CGROUP" ]; then
    for _ in 1 2 3 4 5 6 7 8 9 10; do
      rmdir "$CGROUP" 2>/dev/null && break
      sleep 0.2
    done
  fi
}
trap 'stop_hog; rm -f "$FIRST_STATUS"; exit 130' INT
trap 'stop_hog; rm -f "$FIRST_STATUS"; exit 143' TERM

HOG_DIED=0
if [ -n "$FIRST" ]; then
  echo "with-cpu-hog: CPU hog running (pid $HOG: first \`$FIRST\` in cgroup $CGROUP at the default weight, then a busy sh loop $WHERE) beside: $*" >&2
else
  echo "with-cpu-hog: CPU hog running (pid $HOG, a busy sh loop $WHERE) beside: $*" >&2
fi
"$@"
status=$?
if [ -n "$FIRST" ] && ! first_done; then
  echo "with-cpu-hog: the command ended (exit $status); waiting for the hog's first work, \`$FIRST\`" >&2
  while kill -0 "$HOG" 2>/dev/null && ! first_done; do sleep 0.2; done
fi
trap - INT TERM
stop_hog
first_status=0
if [ -n "$FIRST" ]; then
  first_status=$(cat "$FIRST_STATUS" 2>/dev/null)
  first_status=${first_status:-1}
  echo "with-cpu-hog: \`$FIRST\` exited $first_status" >&2
fi
rm -f "$FIRST_STATUS"
if [ "$status" -ne 0 ]; then exit "$status"; fi
if [ "$first_status" -ne 0 ]; then exit "$first_status"; fi
if [ "$HOG_DIED" -eq 1 ]; then exit 1; fi
exit 0
