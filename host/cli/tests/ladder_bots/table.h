/* Two test bots for the ladder's tests that play by the classic square-weight table: one takes
 * the best square (a fair beginner), the other the worst (it gives corners away). Deterministic:
 * ties go to the lowest square. */
#include <stdint.h>
#include "othello_bot.h"

static const int WEIGHTS[64] = {
    100, -20, 10,  5,  5, 10, -20, 100,
    -20, -50, -2, -2, -2, -2, -50, -20,
     10,  -2, -1, -1, -1, -1,  -2,  10,
      5,  -2, -1, -1, -1, -1,  -2,   5,
      5,  -2, -1, -1, -1, -1,  -2,   5,
     10,  -2, -1, -1, -1, -1,  -2,  10,
    -20, -50, -2, -2, -2, -2, -50, -20,
    100, -20, 10,  5,  5, 10, -20, 100,
};

/* The legal move whose weight times `sign` is largest. */
static uint8_t by_table(const OthelloBoard *board, int sign) {
    if (board->legal == 0) return OTHELLO_PASS;
    int best = -1, best_score = 0;
    for (int sq = 0; sq < 64; sq++) {
        if (!((board->legal >> sq) & 1)) continue;
        int score = sign * WEIGHTS[sq];
        if (best < 0 || score > best_score) { best = sq; best_score = score; }
    }
    return othello_move(best / 8, best % 8);
}

OTHELLO_EXPORT uint32_t othello_abi_version(void) { return OTHELLO_ABI_VERSION; }
