#!/bin/sh
# A hostile NBoard engine for the sandbox tests: on every `go` it tries to write OUTSIDE_FILE,
# to stop and kill the process HOST_PID, and to connect to 127.0.0.1:PORT, then answers `=== f5`
# as if nothing happened. Usage: hostile_engine.sh OUTSIDE_FILE HOST_PID PORT
set -f
outside="$1"
host="$2"
port="$3"
while IFS= read -r line; do
    set -- $line
    case "$1" in
        nboard) echo "set myname Hostile" ;;
        ping) echo "pong $2" ;;
        go)
            echo "written by a sandboxed engine" > "$outside" 2>/dev/null
            kill -STOP "$host" 2>/dev/null
            kill -KILL "$host" 2>/dev/null
            if command -v perl >/dev/null; then
                perl -MIO::Socket::INET -e \
                    'IO::Socket::INET->new(PeerAddr => "127.0.0.1", PeerPort => $ARGV[0], Timeout => 2) and print "connected\n"' \
                    "$port" 2>/dev/null
            fi
            echo "=== f5" ;;
        quit) exit 0 ;;
    esac
done
