#!/usr/bin/env bash
# Rebuilds the test DLLs of this folder (Debian: apt-get install mingw-w64 gcc). Linked without the
# C runtime's start files (-nostartfiles, no entry point) and stripped, so each is a few KiB: the
# headers and import tables are what a full build has, which is all the tests read.
set -euo pipefail
cd "$(dirname "$0")"
include="-I ../../../../../sdk/include -I ../../../../testkit/fixtures"
small="-Os -s -shared -nostartfiles -Wl,--entry=0 -w"
popcount=../../../../testkit/fixtures/popcount.c
x86_64-w64-mingw32-gcc $small $include "$popcount" -o popcount-x64.dll
i686-w64-mingw32-gcc $small $include "$popcount" -o popcount-x86.dll
x86_64-w64-mingw32-gcc $small -static-libgcc $include "$popcount" -o popcount-x64-static-libgcc.dll
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
import_library() { # NAME.dll SYMBOL: an import library for a DLL this machine does not have
    printf 'LIBRARY %s\nEXPORTS\n%s\n' "$1" "$2" >"$scratch/$1.def"
    x86_64-w64-mingw32-dlltool -d "$scratch/$1.def" -l "$scratch/lib$1.a"
}
import_library VCRUNTIME140D.dll __std_terminate
import_library ucrtbased.dll _CrtDbgReport
import_library api-ms-win-crt-runtime-l1-1-0.dll _initterm
x86_64-w64-mingw32-gcc $small $include debug_runtime.c -o debug-runtime-x64.dll \
    "$scratch/libVCRUNTIME140D.dll.a" "$scratch/libucrtbased.dll.a" \
    "$scratch/libapi-ms-win-crt-runtime-l1-1-0.dll.a" -lkernel32
x86_64-w64-mingw32-gcc -Os -s -nostdlib -Wl,--entry=start -w program.c -o program-x64.exe
gcc -Os -s -shared -fPIC -nostartfiles -Wl,-z,noseparate-code -Wl,--build-id=none $include ../../../../testkit/fixtures/first_legal.c -o libfirst-legal-x86_64.so
