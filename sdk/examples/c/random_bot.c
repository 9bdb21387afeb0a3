/* A complete bot plugin in C: plays a random legal move.
 * Build: cc -O2 -shared -fPIC -I sdk/include sdk/examples/c/random_bot.c -o librandom_c.so */
#include <stdlib.h>
#include <time.h>
#include "othello_bot.h"

uint32_t othello_abi_version(void) { return OTHELLO_ABI_VERSION; }

const char *init(void) {
    const char *seed = getenv("OTHELLO_SEED");  /* set: replay the same games */
    srand(seed ? (unsigned)strtoul(seed, NULL, 10) : (unsigned)time(NULL));
    return "Random (C)";
}

uint8_t think(const OthelloBoard *board) {
    int count = othello_popcount(board->legal);
    if (count == 0) return OTHELLO_PASS;
    int pick = rand() % count;
    uint64_t moves = board->legal;
    while (pick--) moves &= moves - 1; /* drop the lowest move `pick` times */
    int sq = othello_ctz(moves);
    return othello_move(sq / 8, sq % 8);
}
