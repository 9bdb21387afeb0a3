/* Wine 8 (Debian 12) has no bcryptprimitives.dll, whose ProcessPrng Rust's
 * standard library calls for random numbers on Windows (every Windows 10 and
 * later has it). CI builds this stand-in with MinGW into the Wine prefix;
 * it is not part of the project's Windows build. */
#include <windows.h>
#include <bcrypt.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    while (length > 0) {
        ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
        if (BCryptGenRandom(NULL, data, chunk, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0) return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
