// A bot written in C++ without extern "C": the compiler mangles init and think into C++ names,
// so the library exports no `init` and no `think` (the mistake the server explains).
#include <cstdint>
struct OthelloBoard { std::uint64_t black, white; std::uint8_t side_to_move, pad[7]; };
__attribute__((visibility("default"))) const char *init() { return "Mangled"; }
__attribute__((visibility("default"))) std::uint8_t think(const OthelloBoard *) { return 0xFF; }
