#!/usr/bin/env bash
# `npm test`: the unit tests (Node) and the end-to-end tests (headless Chromium and Firefox ESR) at
# the same time. The end-to-end half spends much of its wall time waiting on pages, workers and
# timers, so it runs beside the unit tests' two workers on what CPU they leave: at a lower priority
# (nice 10), because the unit tests hold tight time limits (a 0.3 s call against a 0.5 s limit, a
# corpus at 0.6 s a line) that a machine shared at equal priority broke (a CI run, 2026-12-07). The end-to-end output goes to a file while the unit tests print; once they are
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
  exec nice -n 10 npm run -s test:e2e
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
