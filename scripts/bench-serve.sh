#!/usr/bin/env bash
# The contest server's speed goals (issue 26), on a copy of one seeded ladder per run:
#
#   scripts/bench-serve.sh placement [RUNS]   upload → end of placement of a bot of `weighted`
#                                             strength (a rebuilt libweighted: new hash, same play)
#   scripts/bench-serve.sh latency [RUNS]     GET / and /api/leaderboard with 50 clients (wrk)
#                                             while the workers play that placement
#   scripts/bench-serve.sh match              `othello match` of weighted against the pool's
#                                             alpha-beta levels, games per second, for comparison
#   scripts/bench-serve.sh streams [RUNS]     GET /api/leaderboard with 30 clients while 300 open
#                                             pages hold /api/events (and fetch the leaderboard at
#                                             each change) and the workers play that placement
#                                             (the example leaderboard_load; release build)
#   scripts/bench-serve.sh speed [RUNS]       issue 46's placement figures: upload → first rating
#                                             (the API's first `rating`) and upload → settled (±ERROR
#                                             among its opponents, `rated`), for BOT=instant or
#                                             BOT=burn60 (burns 60 % of TIME_MS of CPU on every
#                                             move), both playing their first legal move
#   scripts/bench-serve.sh first-page [RUNS]  `othello serve` on a fresh ladder (no file) → the
#                                             first `GET /` answered (the pool calibrates meanwhile)
#
# FRESH=1 (placement, speed): each run starts a fresh ladder (no file) instead of a copy of a
# calibrated one: the pool enters with its shipped calibration (at TIME_MS=100) and refines it in
# the background while the bot is placed, as on a contest's first minutes.
#
# Settings (environment): WORKERS (default 1), TIME_MS (20), ERROR (50), MAX_GAMES (200),
# DURATION of each wrk run (20s), STREAMS (300) and CLIENTS (30) of `streams`, BASE (a seeded ladder to reuse), BUILD=0 not to build first, OTHELLO (the binary; debug build).
set -euo pipefail
cd "$(dirname "$0")/.."

MODE=${1:?placement, latency, streams, match, speed or first-page}
RUNS=${2:-3}
WORKERS=${WORKERS:-1}
TIME_MS=${TIME_MS:-20}
ERROR=${ERROR:-50}
MAX_GAMES=${MAX_GAMES:-200}
DURATION=${DURATION:-20s}
if [ "${BUILD:-1}" = 1 ]; then
    cargo build -p othello-cli -p othello-runner -p bot-random -p bot-weighted -p bot-alphabeta -p bot-mcts >&2
fi
OTHELLO=${OTHELLO:-$PWD/target/debug/othello}
scratch=$(mktemp -d)
server=
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
    rm -rf "$scratch"
}
trap cleanup EXIT

# Starts `othello serve` on LADDER with more options; sets $server and $url.
start_server() {
    local ladder=$1
    shift
    rm -f "$scratch/serve.out" # the last run's address must not be read as this one's
    "$OTHELLO" serve --ladder "$ladder" --listen 127.0.0.1:0 --time-ms "$TIME_MS" --error "$ERROR" \
        --max-games "$MAX_GAMES" --workers "$WORKERS" "$@" >"$scratch/serve.out" 2>"$scratch/serve.err" &
    server=$!
    until grep -q '^listening on ' "$scratch/serve.out" 2>/dev/null; do
        kill -0 "$server" 2>/dev/null || { cat "$scratch/serve.err" >&2; exit 1; }
        sleep 0.2
    done
    url=$(sed -n 's/^listening on //p' "$scratch/serve.out")
}

stop_server() {
    kill -INT "$server"
    wait "$server" || true
    server=
}

json_field() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }

# The fresh start needs no seeded base: measured before one is made.
if [ "$MODE" = first-page ]; then
    for run in $(seq "$RUNS"); do
        mkdir -p "$scratch/fresh-$run"
        started=$(date +%s.%N)
        start_server "$scratch/fresh-$run/contest.sqlite3"
        until curl -sf -o /dev/null "$url/"; do sleep 0.05; done
        answered=$(date +%s.%N)
        python3 -c "print(f'run $run: first page {$answered - $started:.2f} s after the start')"
        stop_server
    done
    exit 0
fi

# The seeded ladder every run starts from (seeded once: several minutes; BASE=FILE keeps it for
# the next invocation).
base=${BASE:-$scratch/base.sqlite3}
if [ "${FRESH:-0}" != 1 ] && [ ! -f "$base" ]; then
    echo "seeding the sample pool…" >&2
    start_server "$base" --no-continuous-games
    # The pool is calibrated in the background while the server serves: wait for its end.
    until curl -sf "$url/api/seeding" | grep -q '"running":false'; do sleep 1; done
    stop_server
fi
# A bot of weighted strength that is not the pool's own weighted: its name, `Weighted` in the
# library's read-only data, becomes `BenchBot` (a name like a pool bot's is refused), which also
# changes its hash, not its play.
cp "$(dirname "$OTHELLO")/libweighted.so" "$scratch/libweighted.so"
python3 - "$scratch/libweighted.so" <<'PATCH'
import sys
path = sys.argv[1]
data = open(path, "rb").read()
at = data.index(b"Weighted")
open(path, "wb").write(data[:at] + b"BenchBot" + data[at + 8:])
PATCH

# The speed figures' two bots play alike (testkit's burns_cpu fixture: its first legal move) and
# differ only in the time they use: BOT=instant burns nothing, BOT=burn60 burns 60 % of TIME_MS of
# CPU on every move.
if [ "$MODE" = speed ]; then
    case ${BOT:-instant} in
    instant) burn_ms=0 ;;
    burn60) burn_ms=$((TIME_MS * 6 / 10)) ;;
    *) echo "BOT is instant or burn60" >&2; exit 2 ;;
    esac
    cc -O2 -shared -fPIC -DBURN_MS="$burn_ms" -Ihost/testkit/fixtures -Isdk/include host/testkit/fixtures/burns_cpu.c \
        -o "$scratch/libburns.so"
    bot_file=$scratch/libburns.so
fi

# Copies the base ladder to a run's own file, starts the server on it, adds an entrant and uploads
# the bot; sets $token and $bot and $uploaded (seconds since the epoch, with fractions).
start_run() {
    local ladder=$scratch/run-$1/contest.sqlite3
    mkdir -p "$(dirname "$ladder")"
    [ "${FRESH:-0}" = 1 ] || python3 -c "import sqlite3,sys; s=sqlite3.connect(sys.argv[1]); d=sqlite3.connect(sys.argv[2]); s.backup(d)" "$base" "$ladder"
    start_server "$ladder" "${@:2}"
    token=$("$OTHELLO" serve entrant add Bench --ladder "$ladder" | tail -1)
    uploaded=$(date +%s.%N)
    bot=$(curl -sf -H "Authorization: Bearer $token" -F "bot=@${bot_file:-$scratch/libweighted.so}" "$url/api/bots" | json_field '["id"]')
}

wait_rated() {
    while :; do
        local status
        status=$(curl -sf -H "Authorization: Bearer $token" "$url/api/bots/$bot" | json_field '["status"]')
        case $status in rated | rejected) break ;; esac
        sleep 0.5
    done
}

case $MODE in
placement)
    for run in $(seq "$RUNS"); do
        start_run "$run" --no-continuous-games
        wait_rated
        done_at=$(date +%s.%N)
        curl -sf -H "Authorization: Bearer $token" "$url/api/bots/$bot" |
            python3 -c "import json,sys; b=json.load(sys.stdin); print(f'run $run: {$done_at - $uploaded:.1f} s, {b[\"games\"]} games, {b[\"rating_text\"]}, {b[\"reason\"]}')"
        stop_server
    done
    ;;
latency)
    for run in $(seq "$RUNS"); do
        start_run "$run"
        # The placement is under way (the workers play) during both measurements.
        for path in / /api/leaderboard; do
            printf 'run %s GET %s: ' "$run" "$path"
            wrk -t2 -c50 -d"$DURATION" --latency "$url$path" |
                awk '/Requests\/sec/ {rps=$2} /^ +50%/ {p50=$2} /^ +99%/ {p99=$2} END {print "p50 " p50 ", p99 " p99 ", " rps " requests/s"}'
        done
        status=$(curl -sf -H "Authorization: Bearer $token" "$url/api/bots/$bot" | json_field '["status"]')
        echo "run $run: the bot was still $status at the end (the workers were playing)"
        stop_server
    done
    ;;
streams)
    if [ "${BUILD:-1}" = 1 ]; then cargo build --release -p othello-server --example leaderboard_load >&2; fi
    load=${LOAD:-$PWD/target/release/examples/leaderboard_load}
    for run in $(seq "$RUNS"); do
        start_run "$run"
        printf 'run %s (load %s): ' "$run" "$(cut -d' ' -f1-3 /proc/loadavg)"
        "$load" "$url" --streams "${STREAMS:-300}" --clients "${CLIENTS:-30}" --seconds "${DURATION%s}"
        status=$(curl -sf -H "Authorization: Bearer $token" "$url/api/bots/$bot" | json_field '["status"]')
        echo "run $run: the bot was still $status at the end (the workers were playing)"
        stop_server
    done
    ;;
speed)
    for run in $(seq "$RUNS"); do
        start_run "$run" --no-continuous-games
        first=
        while :; do
            view=$(curl -sf -H "Authorization: Bearer $token" "$url/api/bots/$bot")
            now=$(date +%s.%N)
            first_games=${first_games:-}
            if [ -z "$first" ] && [ "$(echo "$view" | json_field '["rating"] is not None')" = True ]; then
                first=$now
                first_games=$(echo "$view" | json_field '["games"]')
            fi
            case $(echo "$view" | json_field '["status"]') in rated | rejected) break ;; esac
            sleep 0.2
        done
        echo "$view" | python3 -c "import json,sys; b=json.load(sys.stdin); print(f'run $run (${BOT:-instant}, {$TIME_MS} ms, $WORKERS workers): first rating {$first - $uploaded:.1f} s ($first_games games), settled {$now - $uploaded:.1f} s ({b[\"games\"]} games, {b[\"failures\"]} lost by failure), {b[\"rating_text\"]}: {b[\"reason\"]}; load {open(\"/proc/loadavg\").read().split()[0]}')"
        stop_server
    done
    ;;
match)
    for level in 1 2 4; do
        start=$(date +%s.%N)
        "$OTHELLO" match "$scratch/libweighted.so" "alphabeta@$level" --games 40 --openings random:6 \
            --time-ms "$TIME_MS" --concurrency "$WORKERS" >/dev/null
        echo "match weighted vs alphabeta@$level: $(python3 -c "print(f'{40 / ($(date +%s.%N) - $start):.2f}')") games/s"
    done
    ;;
*)
    echo "unknown mode $MODE: placement, latency, streams, match, speed or first-page" >&2
    exit 2
    ;;
esac
