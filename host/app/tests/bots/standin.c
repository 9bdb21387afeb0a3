/* A stand-in bot for the app's UI tests: plays its first legal move at once and reports a fixed
 * search from its own (the mover's) point of view. Compiled with -D to vary it:
 *   BOT_NAME   the name init returns (default "Stand-in")
 *   BOT_LEVELS the number of levels (default 0: none)
 *   BOT_EVAL   the eval it reports, in discs for the side that moved (default 3)
 *   BOT_THINK_MS how long each think takes (default 0)
 *   BOT_ILLEGAL  1: answers an occupied square every time (loses every game by an illegal move) */
#include <stdint.h>
#include <time.h>
#include "othello_bot.h"

#ifndef BOT_NAME
#define BOT_NAME "Stand-in"
#endif
#ifndef BOT_LEVELS
#define BOT_LEVELS 0
#endif
#ifndef BOT_EVAL
#define BOT_EVAL 3
#endif
#ifndef BOT_THINK_MS
#define BOT_THINK_MS 0
#endif
#ifndef BOT_ILLEGAL
#define BOT_ILLEGAL 0
#endif

OTHELLO_EXPORT uint32_t othello_abi_version(void) { return OTHELLO_ABI_VERSION; }
OTHELLO_EXPORT const char *init(void) { return BOT_NAME; }
#if BOT_LEVELS > 0
OTHELLO_EXPORT uint32_t othello_levels(void) { return BOT_LEVELS; }
OTHELLO_EXPORT void othello_set_level(uint32_t level) { (void)level; }
#endif

OTHELLO_EXPORT uint8_t think(const OthelloBoard *board) {
    if (BOT_THINK_MS > 0) {
        struct timespec pause = {BOT_THINK_MS / 1000, (long)(BOT_THINK_MS % 1000) * 1000000L};
        nanosleep(&pause, 0);
    }
    if (BOT_ILLEGAL) return othello_move(3, 3); /* d4: occupied from the start */
    if (board->legal == 0) return OTHELLO_PASS;
    int sq = __builtin_ctzll(board->legal);
    return othello_move(sq / 8, sq % 8);
}

OTHELLO_EXPORT void othello_search_info(OthelloSearchInfo *info) {
    info->flags = OTHELLO_INFO_EVAL | OTHELLO_INFO_DEPTH | OTHELLO_INFO_NODES;
    info->eval = BOT_EVAL;
    info->depth = 7;
    info->nodes = 12345;
}
