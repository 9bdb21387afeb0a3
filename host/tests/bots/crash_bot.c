/* A bot that loads fine and crashes (segmentation fault) as soon as it is asked to move. */
#include <stddef.h>
#include "othello_bot.h"

uint32_t othello_abi_version(void) { return OTHELLO_ABI_VERSION; }

const char *init(void) { return "Crashy"; }

uint8_t think(const OthelloBoard *board) {
    volatile int *nowhere = NULL;
    *nowhere = (int)board->legal;
    return OTHELLO_PASS;
}
