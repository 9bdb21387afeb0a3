/* Takes the worst square of the classic weight table: clearly weaker than random. */
#include "table.h"
OTHELLO_EXPORT const char *init(void) { return "Gifts"; }
OTHELLO_EXPORT uint8_t think(const OthelloBoard *board) { return by_table(board, -1); }
