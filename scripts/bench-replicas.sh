#!/usr/bin/env bash
# Issue 47's benchmark: jobs leased per second and the leaderboard's p99 with 1, 2 and 4 web
# replicas of `othello serve` on one PostgreSQL, and 1 on an SQLite file (and 2 on it, as a
# check), with simulated workers (the example lease_load: claim then release, 16 of them spread
# over the replicas) and 8 readers of /api/leaderboard (each replica in turn). Loopback only.
#
#   scripts/bench-replicas.sh [RUNS]
#
# Settings (environment): REPLICAS ("1 2 4"), STORES ("postgres sqlite"), SIM_WORKERS (16),
# READERS (8), DURATION (15, seconds), JOBS (24 uploads nobody plays, so claims always find one),
# PG_OPTS (more settings of the throw-away cluster, e.g. "-c synchronous_commit=off"),
# BUILD=0 not to build first, OTHELLO_BENCH_POSTGRES (an administrator's URL; by default a
# throw-away cluster of Debian's postgresql package is started here, as root via runuser).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-3}
REPLICAS=${REPLICAS:-1 2 4}
STORES=${STORES:-postgres sqlite}
JOBS=${JOBS:-24}
if [ "${BUILD:-1}" = 1 ]; then
    cargo build --release -p othello-cli -p othello-runner -p bot-random -p bot-weighted >&2
    cargo build --release -p othello-server --example lease_load >&2
fi
OTHELLO=$PWD/target/release/othello
LOAD=$PWD/target/release/examples/lease_load
scratch=$(mktemp -d)
chmod 755 "$scratch"
servers=()
pg_data=
cleanup() {
    for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; done
    if [ -n "$pg_data" ]; then runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$pg_data" -m immediate stop >/dev/null 2>&1 || true; fi
    rm -rf "$scratch"
}
trap cleanup EXIT

admin_url=${OTHELLO_BENCH_POSTGRES:-}
if [[ " $STORES " == *" postgres "* ]] && [ -z "$admin_url" ]; then
    PG_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    pg_data=$scratch/pg
    mkdir -p "$pg_data" && chown postgres "$pg_data"
    runuser -u postgres -- "$PG_BIN/initdb" -D "$pg_data" -A trust -U postgres >/dev/null
    runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$pg_data" -w -l "$pg_data/log" \
        -o "-p $port -k $pg_data -c listen_addresses=127.0.0.1 -c max_connections=300 ${PG_OPTS:-}" start >/dev/null
    admin_url=postgres://postgres@127.0.0.1:$port/postgres
fi

# A fresh ladder for one measurement: prints its --ladder value.
fresh_ladder() {
    local store=$1 name=$2
    if [ "$store" = postgres ]; then
        psql -q "$admin_url" -c "DROP DATABASE IF EXISTS $name WITH (FORCE)" -c "CREATE DATABASE $name" >&2
        echo "${admin_url%/*}/$name"
    else
        echo "$scratch/$name.sqlite3"
    fi
}

# Starts replica INDEX on LADDER; appends its pid to $servers and its address to $urls (not in a
# command substitution: a subshell's $servers would be lost, and its servers never stopped).
start_replica() {
    local ladder=$1 index=$2
    local out=$scratch/serve-$index.out
    rm -f "$out"
    (cd "$scratch" && exec "$OTHELLO" serve --ladder "$ladder" --listen 127.0.0.1:0 --workers 0 --time-ms 100 \
        --uploads "$scratch/uploads" --keep-shipped-calibration --no-continuous-games --allow-weak-sandbox \
        >"$out" 2>"$scratch/serve-$index.err") &
    servers+=($!)
    until grep -q '^listening on ' "$out" 2>/dev/null; do
        kill -0 "${servers[-1]}" 2>/dev/null || { cat "$scratch/serve-$index.err" >&2; exit 1; }
        sleep 0.1
    done
    urls+=("$(sed -n 's/^listening on //p' "$out")")
}

stop_replicas() {
    for pid in "${servers[@]}"; do kill -INT "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; done
    servers=()
}

# Uploads JOBS bots (each entrant its own copy of the random bot, made distinct by trailing bytes)
# through the first replica: their checks wait in the queue, as nobody plays.
queue_jobs() {
    local ladder=$1 url=$2
    for i in $(seq "$JOBS"); do
        token=$("$OTHELLO" serve entrant add "Bench$i" --ladder "$ladder" | tail -1)
        cp target/release/librandom.so "$scratch/bot$i.so"
        printf 'bench %s' "$i" >>"$scratch/bot$i.so"
        curl -sf -o /dev/null -H "Authorization: Bearer $token" -F "bot=@$scratch/bot$i.so;filename=libbot$i.so" "$url/api/bots"
    done
}

for store in $STORES; do
    for count in $REPLICAS; do
        [ "$store" = sqlite ] && [ "$count" -gt 2 ] && continue
        for run in $(seq "$RUNS"); do
            ladder=$(fresh_ladder "$store" "bench_${count}_$run")
            urls=()
            for i in $(seq "$count"); do start_replica "$ladder" "$i"; done
            queue_jobs "$ladder" "${urls[0]}"
            token=$("$OTHELLO" serve worker add sim --ladder "$ladder" | tail -1)
            printf '%s run %s (load %s): ' "$store" "$run" "$(cut -d' ' -f1-3 /proc/loadavg)"
            "$LOAD" "$token" "$(IFS=,; echo "${urls[*]}")" --workers "${SIM_WORKERS:-16}" \
                --readers "${READERS:-8}" --seconds "${DURATION:-15}"
            stop_replicas
        done
    done
done
