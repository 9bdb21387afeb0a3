/* A bot whose import table is that of a Visual Studio Debug build: VCRUNTIME140D.dll and
 * ucrtbased.dll (the debug runtime), an API set (api-ms-win-crt-*) and KERNEL32.dll. Built by
 * MinGW against import libraries of those names (build.sh): the loader sees the same table. */
#include "fixture.h"
void __std_terminate(void);
int _CrtDbgReport(int, const char *, int, const char *, const char *, ...);
void _initterm(void *, void *);
__declspec(dllimport) unsigned long __stdcall GetTickCount(void);
OTHELLO_EXPORT const char *init(void) {
    if (GetTickCount() == 1) { _initterm(0, 0); _CrtDbgReport(0, 0, 0, 0, 0); __std_terminate(); }
    return "Debug build";
}
OTHELLO_EXPORT uint8_t think(const OthelloBoard *board) { return first_legal(board); }
