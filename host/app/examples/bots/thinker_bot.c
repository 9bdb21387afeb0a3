/* A greedy bot that takes its time (a quarter of the time limit, or THINK_MS without one) and
 * reports a search: the disc difference after its move as the evaluation, depth and nodes. */
#include <time.h>
#include "othello_bot.h"

#define THINK_MS 250

static OthelloSearchInfo last;

uint32_t othello_abi_version(void) { return OTHELLO_ABI_VERSION; }

const char *init(void) { return "Thinker"; }

uint32_t othello_levels(void) { return 3; }

void othello_set_level(uint32_t level) { (void)level; }

uint8_t think(const OthelloBoard *board) {
    uint32_t ms = board->time_limit_ms ? board->time_limit_ms / 4 : THINK_MS;
    struct timespec pause = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&pause, 0);
    uint64_t me = board->to_move == OTHELLO_BLACK ? board->black : board->white;
    uint64_t you = board->to_move == OTHELLO_BLACK ? board->white : board->black;
    int best = -1, best_gain = -1;
    for (int sq = 0; sq < 64; sq++) {
        if (!(board->legal >> sq & 1)) continue;
        int gain = othello_popcount(othello_flips(me, you, sq));
        if (gain > best_gain) best = sq, best_gain = gain;
    }
    int diff = othello_popcount(me) - othello_popcount(you) + 2 * best_gain + 1;
    last.flags = OTHELLO_INFO_EVAL | OTHELLO_INFO_DEPTH | OTHELLO_INFO_NODES;
    last.eval = best < 0 ? othello_popcount(me) - othello_popcount(you) : diff;
    last.depth = 1;
    last.nodes = (uint64_t)othello_popcount(board->legal) * 1000;
    return best < 0 ? OTHELLO_PASS : othello_move(best / 8, best % 8);
}

void othello_search_info(OthelloSearchInfo *info) {
    info->flags = last.flags;
    info->eval = last.eval;
    info->depth = last.depth;
    info->nodes = last.nodes;
}
