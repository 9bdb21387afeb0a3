/*
 * othello_bot.h -- the Othello arena bot ABI, version 1.
 *
 * A bot is a shared library (.so / .dll / .dylib) exporting, unmangled, with
 * the C calling convention, the three required functions below, and any of the
 * optional ones. The host calls a bot from one thread at a time.
 *
 * Squares: column a-h = col 0-7 (left to right), row 1-8 = row 0-7 (top to
 * bottom); bit (8 * row + col) of a bitboard; a1 = bit 0, h8 = bit 63.
 * Moves: one byte, (row << 4) | col, or OTHELLO_PASS (0xFF).
 *
 * The header compiles unchanged with gcc and clang (Linux, macOS), MinGW gcc
 * and MSVC (Windows), as C or C++. Build (one line each):
 *   Linux:          gcc -O2 -shared -fPIC -I path/to/sdk/include my_bot.c -o libmy_bot.so
 *   macOS:          clang -O2 -shared -fPIC -I path/to/sdk/include my_bot.c -o libmy_bot.dylib
 *   Windows, MSVC:  cl /O2 /LD /I path\to\sdk\include my_bot.c   (makes my_bot.dll)
 *   Windows, MinGW: x86_64-w64-mingw32-gcc -O2 -shared -I path/to/sdk/include my_bot.c -o my_bot.dll
 */
#ifndef OTHELLO_BOT_H
#define OTHELLO_BOT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks a function as exported from the bot's library. The declarations below
 * carry it, so a definition in a file that includes this header is exported
 * even without it (MSVC and MinGW need dllexport; gcc and clang built with
 * -fvisibility=hidden need the default visibility). */
#if defined(_WIN32) || defined(__CYGWIN__)
#define OTHELLO_EXPORT __declspec(dllexport)
#elif defined(__GNUC__) || defined(__clang__)
#define OTHELLO_EXPORT __attribute__((visibility("default")))
#else
#define OTHELLO_EXPORT
#endif

#define OTHELLO_ABI_VERSION 1u
#define OTHELLO_PASS 0xFFu
/* A non-move a bot may return from think() after an internal failure;
 * othello_last_error() then says why. Scored as a loss like any illegal reply. */
#define OTHELLO_MOVE_ERROR 0xFEu

#define OTHELLO_BLACK 1u
#define OTHELLO_WHITE 2u

typedef struct OthelloBoard {
    uint64_t black;          /* bit 8*row + col set = black disc */
    uint64_t white;
    uint64_t legal;          /* legal moves of the side to move (0 = it must pass) */
    uint8_t  to_move;        /* 1 = black, 2 = white */
    uint8_t  reserved[3];    /* zero */
    uint32_t time_limit_ms;  /* time the host allows for this move; 0 = no limit */
} OthelloBoard;              /* 32 bytes */

/* ---- Required exports -------------------------------------------------- */

/* Returns OTHELLO_ABI_VERSION. */
OTHELLO_EXPORT uint32_t othello_abi_version(void);

/* Called before every game the bot plays: reset state, return the display
 * name (static NUL-terminated UTF-8; NULL = use the file name). */
OTHELLO_EXPORT const char *init(void);

/* Called on every turn of the bot while the game is not over, also when it
 * has no legal move. Returns the move as (row << 4) | col, or OTHELLO_PASS.
 * A move is legal only if its bit is in board->legal; OTHELLO_PASS only if
 * board->legal == 0. Anything else loses the game. */
OTHELLO_EXPORT uint8_t think(const OthelloBoard *board);

/* ---- Optional exports: declare and define only those you implement ------ */

/* Strength levels: the bot has levels 1..N, N the strongest and the default.
 * othello_levels() returns N (0 = no levels). The host calls
 * othello_set_level(level) after init() and before the game's first think();
 * the level holds until set again. */
OTHELLO_EXPORT uint32_t othello_levels(void);
OTHELLO_EXPORT void othello_set_level(uint32_t level);

/* Which fields of OthelloSearchInfo hold a value. */
#define OTHELLO_INFO_EVAL     1u  /* eval */
#define OTHELLO_INFO_DEPTH    2u  /* depth */
#define OTHELLO_INFO_NODES    4u  /* nodes */
#define OTHELLO_INFO_WIN_RATE 8u  /* win_rate */
#define OTHELLO_INFO_EXACT   16u  /* eval is the exact final disc difference */

typedef struct OthelloSearchInfo {
    uint32_t size;      /* set by the host: sizeof(OthelloSearchInfo); later versions only append */
    uint32_t flags;     /* OTHELLO_INFO_* bits of the fields set */
    double   eval;      /* evaluation in discs, from the view of the side that just moved */
    double   win_rate;  /* estimated probability of winning for that side, 0..1 */
    uint64_t nodes;     /* nodes searched (or playouts) */
    uint32_t depth;     /* depth reached, in plies */
    uint32_t reserved;
} OthelloSearchInfo;    /* 40 bytes */

/* After think() returns, the host may call othello_search_info() with a
 * zeroed struct (size set); fill what you know and set its flags.
 * The host's struct may be shorter or longer than yours (later versions only
 * append fields): write only fields lying entirely within info->size bytes,
 * set only the flags of fields written, never touch bytes past info->size,
 * and leave size as it is; size < 8 (no room for flags): write nothing.
 * This spells out what version 1 always meant; it is not an ABI change. */
OTHELLO_EXPORT void othello_search_info(OthelloSearchInfo *info);

/* Why the last call failed, as static or bot-owned NUL-terminated text that
 * stays valid until the next call into the bot; NULL = no failure. */
OTHELLO_EXPORT const char *othello_last_error(void);

/* ---- Optional export: analysis (an addition to version 1, not an ABI change) ----
 *
 * The value of every legal move, for move evaluations on a GUI's board and for
 * hints. A bot without this export keeps working; it is just not offered as an
 * analysis engine. */

#define OTHELLO_ANALYZE_ERROR 0xFFFFFFFFu  /* othello_analyze failed; othello_last_error says why */

typedef struct OthelloMoveValue {
    uint32_t size;      /* set by the host: sizeof(OthelloMoveValue); later versions only append */
    uint8_t  move;      /* (row << 4) | col: a legal move of the side to move */
    uint8_t  reserved[3];
    uint32_t flags;     /* OTHELLO_INFO_EVAL / _DEPTH / _WIN_RATE / _EXACT bits of the fields set */
    uint32_t depth;     /* depth reached for this move, in plies */
    double   eval;      /* final disc difference with best play after this move, from the view
                           of the side to move in the board (+ = good for it), -64..64 */
    double   win_rate;  /* the side to move's chance of winning after this move, 0..1 */
} OthelloMoveValue;     /* 32 bytes */

/* Searches `board` for at most board->time_limit_ms (0 = as you see fit) and
 * fills one element per legal move of the side to move (any order), at most
 * `capacity` of them; returns how many it filled, 0 when the side to move
 * must pass, OTHELLO_ANALYZE_ERROR after a failure. The host calls it between
 * games' moves like think(), from one thread at a time, and may call it again
 * on the same position with a longer time (values that deepen).
 * The host zeroes the array and sets `size` in every element; elements lie
 * `size` bytes apart (that is out[i] when your header is the host's). As with
 * OthelloSearchInfo, write only fields lying entirely within `size`, set only
 * the flags of fields written, and leave `size` as it is. The host checks
 * what it reads: more than `capacity`, an illegal or repeated move, or a value
 * that is not a finite number in range is left out, never trusted. */
OTHELLO_EXPORT uint32_t othello_analyze(const OthelloBoard *board, OthelloMoveValue *out, uint32_t capacity);

/* ---- Helpers for C authors ---------------------------------------------- */

/* Helpers are `static inline`: not part of the ABI, nothing is exported. They
 * use compiler built-ins where there are some (gcc, clang, MinGW) and plain C
 * elsewhere (MSVC has no __builtin_popcountll), with the same results. */

/* The number of set bits of b (discs, moves). */
static inline int othello_popcount(uint64_t b) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_popcountll(b);
#else
    b = b - ((b >> 1) & 0x5555555555555555ull);
    b = (b & 0x3333333333333333ull) + ((b >> 2) & 0x3333333333333333ull);
    b = (b + (b >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return (int)((b * 0x0101010101010101ull) >> 56);
#endif
}

/* The index (0..63) of the lowest set bit of b: the first square of a set of
 * moves. b must not be 0. */
static inline int othello_ctz(uint64_t b) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(b);
#else
    return othello_popcount((b & (~b + 1)) - 1); /* the bits below the lowest one */
#endif
}

static inline uint8_t othello_move(int row, int col) { return (uint8_t)((row << 4) | col); }

/* The discs that the side to move (`player`, against `opponent`) flips by
 * playing on square index `sq` (0..63); 0 if the move is illegal. */
static inline uint64_t othello_flips(uint64_t player, uint64_t opponent, int sq) {
    static const int dr[8] = {-1, -1, -1, 0, 0, 1, 1, 1};
    static const int dc[8] = {-1, 0, 1, -1, 1, -1, 0, 1};
    uint64_t flipped = 0;
    for (int d = 0; d < 8; d++) {
        uint64_t line = 0;
        int r = sq / 8 + dr[d], c = sq % 8 + dc[d];
        while (r >= 0 && r < 8 && c >= 0 && c < 8 && (opponent >> (r * 8 + c) & 1)) {
            line |= 1ull << (r * 8 + c);
            r += dr[d];
            c += dc[d];
        }
        if (line && r >= 0 && r < 8 && c >= 0 && c < 8 && (player >> (r * 8 + c) & 1)) flipped |= line;
    }
    return flipped;
}

/* ---- WebAssembly modules: an addition to ABI v1 (libraries are unchanged) ----------------
 * The same source builds a module that runs on every machine alike (book: "WebAssembly bots"):
 *   clang --target=wasm32-wasi --sysroot=/usr -O2 -nostartfiles -Wl,--no-entry \
 *         -Wl,--export-dynamic -I sdk/include bot.c -o bot.wasm
 * The host cannot pass pointers into a module's memory it does not own, so it passes the board
 * (and takes the search info and the analysis) through this buffer of the module's memory: the
 * header defines it (weak, so a bot of several files that include the header links once). */
#if defined(__wasm__)
#define OTHELLO_WASM_BUFFER_SIZE 4096u
__attribute__((weak)) OTHELLO_EXPORT void *othello_wasm_buffer(void) {
    static uint64_t othello_wasm_buffer_storage[OTHELLO_WASM_BUFFER_SIZE / 8];
    return othello_wasm_buffer_storage;
}
#endif

#ifdef __cplusplus
}
#endif

#endif /* OTHELLO_BOT_H */
