#!/bin/sh
# Makes sure the real servers the integration tests start are installed: each test starts its own
# on 127.0.0.1 (own port, temp data), and skips with a visible reason when its binary is missing.
#
#   binary                        Debian package             for
#   prometheus                    prometheus                 the PromQL tests
#   chromium                      chromium                   the HTML report's screenshot test
#   redis-server                  redis-server               the downstream test (real Redis)
#   prometheus-redis-exporter     prometheus-redis-exporter  the downstream test (its exporter)
#   /usr/lib/postgresql/*/bin/    postgresql                 the reset and distribution tests (real PostgreSQL;
#     postgres                                               its binaries are not on PATH)
#   mariadbd (/usr/sbin)          mariadb-server             the reset tests (real MariaDB, the MySQL protocol)
#   nginx (/usr/sbin)             nginx                      the clients against real nginx (test/nginx.test.ts)
#
# Everything missing is installed in ONE apt-get call (one package-list update at most, tried
# only when the install without it fails), so that on a fresh machine `make test` pays for apt
# once, and runs it beside the unit project (Makefile).
#
# The packages' maintainer scripts would start services (prometheus on :9090, redis on :6379, the
# exporter on :9121, postgresql on :5432, mariadb on :3306, nginx on :80). We install without recommends, and while installing we put a policy-rc.d
# that answers 101 ("action forbidden") when the host has none, so invoke-rc.d / deb-systemd-invoke
# start nothing; afterwards, in case something started anyway, we stop and disable them.
#
# Not root, or no apt-get: says what to install and exits 0; the tests skip with their reason.
set -eu
# binary:package; a binary given as an absolute path (a glob) is looked for there, not on PATH
PAIRS="prometheus:prometheus chromium:chromium redis-server:redis-server prometheus-redis-exporter:prometheus-redis-exporter /usr/lib/postgresql/*/bin/postgres:postgresql mariadbd:mariadb-server nginx:nginx"
SERVICES="prometheus redis-server prometheus-redis-exporter postgresql mariadb nginx"

# have BIN: BIN is on PATH or in /usr/bin or /usr/sbin; or, for an absolute path, a file it matches
have() {
  case $1 in
    /*)
      for f in $1; do
        [ -x "$f" ] && return 0
      done
      return 1
      ;;
    *) command -v "$1" >/dev/null 2>&1 || [ -x "/usr/bin/$1" ] || [ -x "/usr/sbin/$1" ] ;;
  esac
}

missing=
for pair in $PAIRS; do
  bin=${pair%%:*}
  pkg=${pair##*:}
  have "$bin" || missing="$missing $pkg"
done
if [ -z "$missing" ]; then
  exit 0
fi
if [ "$(id -u)" != "0" ]; then
  echo "ensure-servers:$missing missing and we are not root: run 'sudo apt-get install -y --no-install-recommends$missing'; their tests skip until then" >&2
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-servers:$missing missing and apt-get is not available: put them on PATH; their tests skip until then" >&2
  exit 0
fi
echo "ensure-servers: installing Debian's$missing (no service started)" >&2
POLICY=/usr/sbin/policy-rc.d
OWN_POLICY=
if [ ! -e "$POLICY" ]; then
  printf '#!/bin/sh\nexit 101\n' >"$POLICY" && chmod 755 "$POLICY" && OWN_POLICY=1
fi
cleanup() { if [ -n "$OWN_POLICY" ]; then rm -f "$POLICY"; fi; }
trap cleanup EXIT
export DEBIAN_FRONTEND=noninteractive
install() {
  # shellcheck disable=SC2086 # $missing is a list of package names
  apt-get install -y -qq --no-install-recommends $missing >/dev/null 2>&1
}
if install || { apt-get update -qq >/dev/null 2>&1 && install; }; then
  for svc in $SERVICES; do
    if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
      systemctl disable --now "$svc" >/dev/null 2>&1 || true
    elif [ -x "/etc/init.d/$svc" ]; then
      "/etc/init.d/$svc" stop >/dev/null 2>&1 || true
      if command -v update-rc.d >/dev/null 2>&1; then update-rc.d "$svc" disable >/dev/null 2>&1 || true; fi
    fi
  done
  echo "ensure-servers: installed$missing" >&2
else
  echo "ensure-servers: apt-get could not install$missing; their tests will skip" >&2
fi
exit 0
