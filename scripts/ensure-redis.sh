#!/bin/sh
# Makes sure `redis-server` and `prometheus-redis-exporter` are present for the downstream test
# (test/downstreams-redis.test.ts), which starts its own Redis on a free port of 127.0.0.1 (temp
# dir, no persistence) and its own exporter. Installs Debian's packages with apt-get when one is
# missing and we are root; otherwise says why and exits 0, so the test skips with a visible
# reason instead of failing.
#
# The packages' maintainer scripts would start services (redis on :6379, the exporter on :9121).
# We install without recommends, and while installing we put a policy-rc.d that answers 101
# ("action forbidden") when the host has none, so invoke-rc.d / deb-systemd-invoke start nothing;
# afterwards, in case something started anyway (a host without policy-rc.d support), we stop and
# disable both services.
set -eu
missing=
command -v redis-server >/dev/null 2>&1 || missing="$missing redis-server"
command -v prometheus-redis-exporter >/dev/null 2>&1 || missing="$missing prometheus-redis-exporter"
if [ -z "$missing" ]; then
  exit 0
fi
if [ "$(id -u)" != "0" ]; then
  echo "ensure-redis:$missing missing and we are not root: run 'sudo apt-get install -y --no-install-recommends$missing' for the downstream test" >&2
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-redis:$missing missing and apt-get is not available: put them on PATH for the downstream test" >&2
  exit 0
fi
echo "ensure-redis: installing Debian's$missing (~10 MB, no service started) for the downstream test" >&2
POLICY=/usr/sbin/policy-rc.d
OWN_POLICY=
if [ ! -e "$POLICY" ]; then
  printf '#!/bin/sh\nexit 101\n' > "$POLICY" && chmod 755 "$POLICY" && OWN_POLICY=1
fi
cleanup() { if [ -n "$OWN_POLICY" ]; then rm -f "$POLICY"; fi; }
trap cleanup EXIT
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086 # $missing is a list of package names
if apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq --no-install-recommends $missing >/dev/null 2>&1; then
  for svc in redis-server prometheus-redis-exporter; do
    if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
      systemctl disable --now "$svc" >/dev/null 2>&1 || true
    elif [ -x "/etc/init.d/$svc" ]; then
      "/etc/init.d/$svc" stop >/dev/null 2>&1 || true
      command -v update-rc.d >/dev/null 2>&1 && update-rc.d "$svc" disable >/dev/null 2>&1 || true
    fi
  done
  echo "ensure-redis: $(redis-server --version 2>&1 | head -n 1); $(prometheus-redis-exporter --version 2>&1 | head -n 1)" >&2
else
  echo "ensure-redis: apt-get could not install$missing; the downstream test will skip" >&2
fi
exit 0
