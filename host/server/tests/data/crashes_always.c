/* A bot that loads and names itself, then crashes on every move it is asked for (with a line
 * on stderr first): the server must rate it at the bottom with its failures shown. */
#include <stdio.h>
#include <stdint.h>
#include "othello_bot.h"

OTHELLO_EXPORT uint32_t othello_abi_version(void) { return OTHELLO_ABI_VERSION; }
OTHELLO_EXPORT const char *init(void) { return "Crasher"; }
int *volatile null_pointer;
OTHELLO_EXPORT uint8_t think(const OthelloBoard *board) {
    (void)board;
    fprintf(stderr, "crasher: about to dereference NULL\n");
    fflush(stderr);
    *null_pointer = 1;
    return OTHELLO_PASS;
}
