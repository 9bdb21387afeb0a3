//! Principal-variation search's child step, shared by the midgame search and the endgame solver.

/// A child's score in a principal-variation search, from the mover's view: the full window for
/// the `first` move, else a null window and a re-search should it land inside. `search(alpha,
/// beta)` returns the child's score for the mover in that window.
#[inline(always)]
pub fn principal_variation(first: bool, alpha: i32, beta: i32, mut search: impl FnMut(i32, i32) -> i32) -> i32 {
    if first {
        return search(alpha, beta);
    }
    let probe = search(alpha, alpha + 1);
    if probe > alpha && probe < beta { search(probe, beta) } else { probe }
}
