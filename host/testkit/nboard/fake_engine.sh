#!/bin/sh
# A scripted NBoard engine for the tests: it speaks just enough of the protocol (`nboard`, `ping`,
# `go`, `quit`) and behaves on `go` as its first argument says:
#   spaced     stray lines, status, nodestats and search lines, then `=== f5 1.50 0.0` (spaces, lower case)
#   v1         like spaced, but complains about `nboard 2` as an engine that only knows version 1 does
#   double     answers twice, `=== f5` then `=== d3` (the second must be dropped, not taken for the next answer)
#   flood      writes 20,000 debug lines before answering f5
#   illegal    answers a1 (never legal from the start)
#   garbage    answers a move that is no move
#   crash      writes to stderr and exits with code 3
#   hang       never answers
#   spawner    starts a background `sleep`, writes its pid to the file named by the second argument, and hangs
#   exit-early exits before answering anything
#   log        writes every line it is sent to `received.log` in its working folder, answers f5
# It only ever answers f5, so it can play one move from the start as black.
set -f # GGF boards hold `*`: no globbing when lines are split into words
mode="$1"
if [ "$mode" = exit-early ]; then
    echo "fake engine: cannot find my opening book" >&2
    exit 1
fi
if [ "$mode" = spawner ]; then
    sleep 1000 &
    echo $! > "$2"
fi
while IFS= read -r line; do
    if [ "$mode" = log ]; then printf '%s\n' "$line" >> received.log; fi
    set -- $line
    case "$1" in
        nboard)
            if [ "$mode" = v1 ] && [ "$2" != 1 ]; then echo "Error: expected \"nboard 1\" protocol"; fi
            echo "set myname Fake $mode" ;;
        ping) echo "pong $2" ;;
        go)
            case "$mode" in
                spaced|v1)
                    echo "debug: some stray text"
                    echo "status thinking"
                    echo "nodestats 1234 0.01"
                    echo "search f5 1.50 0 7@73%"
                    echo "=== f5 1.50 0.0" ;;
                double) echo "=== f5"; echo "=== d3" ;;
                log) echo "=== F5" ;;
                flood) yes "debug: flooding the host" | head -n 20000; echo "=== f5" ;;
                illegal) echo "=== A1/0.00/0.0" ;;
                garbage) echo "=== zz/1/1" ;;
                crash) echo "fake engine: giving up" >&2; exit 3 ;;
            esac ;;
        quit) exit 0 ;;
    esac
done
