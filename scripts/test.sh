#!/usr/bin/env bash
# `npm test`: the unit tests (Node) and the end-to-end tests (headless Chromium and Firefox ESR) at
# the same time. The end-to-end half spends most of its wall time waiting on pages, workers and
# timers (measured on two cores: 258 s of CPU in 16 min of wall time), so beside the unit tests'
# two workers it costs little CPU, and the whole run takes about as long as its longer half instead
# of their sum. The end-to-end output goes to a file while the unit tests print; once they are
# done it is printed from the start and followed to its end, so the two logs never interleave.
#
# BROWSERS_READY (CI, .ci/run): a file the end-to-end half waits for before it starts, holding the
# exit status of the browsers' install running in the background.
set -uo pipefail
cd "$(dirname "$0")/.."

e2e_log="$(mktemp)"
trap 'kill 0 2>/dev/null' INT TERM
(
  if [ -n "${BROWSERS_READY:-}" ]; then
    while [ ! -s "$BROWSERS_READY" ]; do sleep 2; done
    status="$(cat "$BROWSERS_READY")"
    if [ "$status" != 0 ]; then
      echo "installing the browsers failed (exit status $status): no end-to-end test ran" >&2
      exit 1
    fi
  fi
  exec npm run -s test:e2e
) >"$e2e_log" 2>&1 &
e2e_pid=$!

echo "== test: unit (the end-to-end tests run beside them; their output follows)"
npm run -s test:unit
unit_status=$?

echo "== test: end to end"
tail -c +1 -f --pid="$e2e_pid" "$e2e_log"
wait "$e2e_pid"
e2e_status=$?
rm -f "$e2e_log"

if [ "$unit_status" != 0 ] || [ "$e2e_status" != 0 ]; then
  echo "npm test failed: unit tests exit $unit_status, end-to-end tests exit $e2e_status" >&2
  exit 1
fi
