#!/bin/sh
# Makes sure a `prometheus` binary is present for the PromQL test (test/promql.test.ts), which
# starts its own Prometheus on 127.0.0.1 with a temp config and storage. Installs Debian's package
# with apt-get when it is missing and we are root; otherwise says why and exits 0, so the test
# skips with a visible reason instead of failing.
#
# The package's maintainer scripts would start a service listening on :9090 (and its
# recommended node exporter on :9100). We install without recommends, and while installing we
# put a policy-rc.d that answers 101 ("action forbidden") when the host has none, so
# invoke-rc.d / deb-systemd-invoke start nothing. Containers usually have one already.
set -eu
if command -v prometheus >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" != "0" ]; then
  echo "ensure-prometheus: prometheus is missing and we are not root: run 'sudo apt-get install -y --no-install-recommends prometheus' for the PromQL test" >&2
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-prometheus: prometheus is missing and apt-get is not available: put a prometheus binary on PATH for the PromQL test" >&2
  exit 0
fi
echo "ensure-prometheus: installing Debian's prometheus (~100 MB, no service started) for the PromQL test" >&2
POLICY=/usr/sbin/policy-rc.d
OWN_POLICY=
if [ ! -e "$POLICY" ]; then
  printf '#!/bin/sh\nexit 101\n' > "$POLICY" && chmod 755 "$POLICY" && OWN_POLICY=1
fi
cleanup() { if [ -n "$OWN_POLICY" ]; then rm -f "$POLICY"; fi; }
trap cleanup EXIT
export DEBIAN_FRONTEND=noninteractive
if apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq --no-install-recommends prometheus >/dev/null 2>&1; then
  echo "ensure-prometheus: $(prometheus --version 2>&1 | head -n 1)" >&2
else
  echo "ensure-prometheus: apt-get could not install prometheus; the PromQL test will skip" >&2
fi
exit 0
