/* The starter kit's first bot: plays the move that flips the most discs.
 * Build it beside othello_bot.h (see the starter page for your compiler), then upload the library. */
#include "othello_bot.h"

uint32_t othello_abi_version(void) { return OTHELLO_ABI_VERSION; }

const char *init(void) { return "Greedy (C)"; }    /* before every game: reset, return your name */

uint8_t think(const OthelloBoard *board) {         /* each of your turns: your move */
    if (board->legal == 0) return OTHELLO_PASS;    /* no legal move: you must pass */
    uint64_t me = board->to_move == OTHELLO_BLACK ? board->black : board->white;
    uint64_t them = board->to_move == OTHELLO_BLACK ? board->white : board->black;
    int best = -1, most = -1;
    for (uint64_t moves = board->legal; moves; moves &= moves - 1) {
        int square = othello_ctz(moves);           /* 0..63 = 8 * row + column, a1 = 0 */
        int flipped = othello_popcount(othello_flips(me, them, square));
        if (flipped > most) { best = square; most = flipped; }
    }
    return othello_move(best / 8, best % 8);
}
