#!/bin/sh
# The compose file's one-shot `migrate`: applies the migrations once Postgres answers, then exits.
# `ledgerline migrate` exits 3 when Postgres is unreachable (a fresh volume is still initialising,
# or the server restarts once after init): that alone is retried, every 2 s for up to
# MIGRATE_ATTEMPTS tries. Any other failure (a bad migration, a bad setting) ends at once with its
# own exit code, so `docker compose up` stops and shows it instead of looping.
set -u
attempts=${MIGRATE_ATTEMPTS:-60}
n=1
while :; do
  node bin/ledgerline.js migrate
  code=$?
  if [ "$code" -ne 3 ]; then exit "$code"; fi
  if [ "$n" -ge "$attempts" ]; then
    echo "migrate: Postgres still unreachable after $n attempts; giving up" >&2
    exit 3
  fi
  echo "migrate: Postgres not answering yet (attempt $n of $attempts); retrying in 2 s" >&2
  n=$((n + 1))
  sleep 2
done
