#!/usr/bin/env bash
# What remote workers cost: one `othello serve --workers 0` and 1, 2 and 4 `othello worker`
# processes on this machine, playing the server's continuous games among quick bots (the C
# `random` bot and first-legal bots), so that coordination, not search, is what is measured.
# Prints, per number of workers and run: games per second over the window, the server's CPU
# time per game, and the median claim-to-submit overhead per job (a job's time from its claim to
# the answer to its result, less the time spent playing its games); then the medians over runs.
#
#   scripts/bench-workers.sh [RUNS]           (default 3 runs per number of workers)
#
# Settings (environment):
#   WORKERS="1 2 4"     numbers of worker processes (each --concurrency 1)
#   WINDOW=20           seconds measured, once every bot is placed
#   TIME_MS=100         --time-ms of the games
#   MODE=local          the same games played by the server's own workers (`--workers N`, no
#                       worker process), for comparison: its CPU per game then includes the games
#   OTHELLO=…           the othello program [default: target/debug/othello, built first]
#   BUILD=0             do not build first
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${1:-3}
WORKERS=${WORKERS:-"1 2 4"}
WINDOW=${WINDOW:-20}
MODE=${MODE:-remote}
TIME_MS=${TIME_MS:-100}
if [ "${BUILD:-1}" = 1 ] && [ -z "${OTHELLO:-}" ]; then
    cargo build -p othello-cli >&2
fi
OTHELLO=${OTHELLO:-$PWD/target/debug/othello}

scratch=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$scratch"
}
trap cleanup EXIT

cc -shared -fPIC -O2 -Isdk/include sdk/examples/c/random_bot.c -o "$scratch/librandom.so"
for n in 1 2 3; do
    cc -shared -fPIC -O2 -Isdk/include -Ihost/testkit/fixtures "-DNAME=\"Bot $n\"" host/testkit/fixtures/named.c \
        -o "$scratch/libbot$n.so"
done

games() { sqlite3 "$1/contest.sqlite3" "PRAGMA busy_timeout=10000; SELECT count(*) FROM games;" | tail -1; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

echo "workers run games/s server-cpu-ms/game overhead-ms/job(median)"
results=$scratch/results
for n in $WORKERS; do
    for run in $(seq "$RUNS"); do
        dir=$scratch/run-$n-$run
        mkdir -p "$dir/plugins"
        cp "$scratch/librandom.so" "$scratch/libbot1.so" "$dir/plugins/"
        (cd "$dir" && "$OTHELLO" ladder --ladder contest.sqlite3 --seed-pool plugins/librandom.so plugins/libbot1.so \
            >/dev/null 2>&1)
        entrant=$(cd "$dir" && "$OTHELLO" serve entrant add Bench --ladder contest.sqlite3 | tail -1)
        (cd "$dir" && exec "$OTHELLO" serve --ladder contest.sqlite3 --listen 127.0.0.1:0 --workers "$([ "$MODE" = local ] && echo "$n" || echo 0)" --allow-weak-sandbox \
            --plugins plugins --time-ms "$TIME_MS" --error 400 --max-games 4 >"$dir/server.out" 2>"$dir/server.err") &
        server=$!
        pids+=("$server")
        until grep -q "listening on" "$dir/server.out" 2>/dev/null; do sleep 0.1; done
        address=$(sed -n 's/^listening on //p' "$dir/server.out")
        server_pid=$server
        for bot in 2 3; do
            curl -sf -H "Authorization: Bearer $entrant" -F "bot=@$scratch/libbot$bot.so" "$address/api/bots" >/dev/null
        done
        workers=()
        for i in $(seq "$([ "$MODE" = local ] && echo 0 || echo "$n")"); do
            token=$(cd "$dir" && "$OTHELLO" serve worker add "w$i" --ladder contest.sqlite3 | tail -1)
            OTHELLO_WORKER_TOKEN=$token "$OTHELLO" worker --server "$address" --concurrency 1 --cache "$dir/cache-$i" \
                --allow-weak-sandbox 2>"$dir/worker-$i.err" &
            workers+=($!)
            pids+=($!)
        done
        for id in 1 2; do
            until curl -sf -H "Authorization: Bearer $entrant" "$address/api/bots/$id" | grep -q '"status":"rated"'; do
                sleep 0.2
            done
        done
        for i in $(seq "${#workers[@]}"); do wc -l <"$dir/worker-$i.err" >"$dir/mark-$i"; done
        g0=$(games "$dir"); c0=$(cpu_ticks "$server_pid")
        sleep "$WINDOW"
        g1=$(games "$dir"); c1=$(cpu_ticks "$server_pid")
        overheads=$dir/overheads
        : >"$overheads"
        for i in $(seq "${#workers[@]}"); do
            tail -n +"$(($(cat "$dir/mark-$i") + 1))" "$dir/worker-$i.err" |
                sed -n 's/.* \([0-9]*\) ms from claim to submit, \([0-9]*\) ms of it playing.*/\1 \2/p' |
                awk '{ print $1 - $2 }' >>"$overheads"
        done
        kill "${workers[@]}" "$server" 2>/dev/null || true
        wait "${workers[@]}" "$server" 2>/dev/null || true
        workers=()
        python3 - "$n" "$run" "$g0" "$g1" "$c0" "$c1" "$(getconf CLK_TCK)" "$WINDOW" "$overheads" <<'EOF' | tee -a "$results"
import statistics, sys
n, run, g0, g1, c0, c1, tck, window = (int(x) for x in sys.argv[1:9])
overheads = [int(line) for line in open(sys.argv[9]) if line.strip()]
games = max(g1 - g0, 1)
cpu_ms = (c1 - c0) / tck * 1000 / games
overhead = statistics.median(overheads) if overheads else float("nan")
print(f"{n} {run} {(g1 - g0) / window:.1f} {cpu_ms:.2f} {overhead:.0f}")
EOF
    done
done
echo "median over runs: workers games/s server-cpu-ms/game overhead-ms/job"
python3 - "$results" <<'EOF'
import collections, statistics, sys
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    n, _, rate, cpu, overhead = line.split()
    rows[int(n)].append((float(rate), float(cpu), float(overhead)))
for n, runs in sorted(rows.items()):
    print(n, *(f"{statistics.median(column):.2f}" for column in zip(*runs)))
EOF
