#!/bin/sh
# Makes sure Debian's headless Chromium is present for the HTML report's screenshot test.
# Installs it with apt-get when /usr/bin/chromium is missing and we are root; otherwise says
# what to do and leaves the decision to the test (which skips with a reason when it is absent).
set -eu
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
if [ -x "$CHROMIUM" ]; then
  exit 0
fi
if [ "$(id -u)" != "0" ]; then
  echo "ensure-chromium: $CHROMIUM is missing and we are not root: run 'sudo apt-get install -y chromium' for the HTML screenshot test" >&2
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: $CHROMIUM is missing and apt-get is not available: install Chromium and set CHROMIUM=/path/to/chromium" >&2
  exit 0
fi
echo "ensure-chromium: installing Debian's chromium (headless screenshot test of report.html)" >&2
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y --no-install-recommends chromium >/dev/null 2>&1; then
  apt-get update >/dev/null 2>&1 || true
  apt-get install -y --no-install-recommends chromium >/dev/null 2>&1 || {
    echo "ensure-chromium: apt-get could not install chromium: the screenshot test will be skipped" >&2
    exit 0
  }
fi
[ -x "$CHROMIUM" ] && echo "ensure-chromium: $("$CHROMIUM" --version 2>/dev/null || echo installed)" >&2
