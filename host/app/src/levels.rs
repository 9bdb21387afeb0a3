//! What a bot's strength level means, in words a player understands.
//!
//! The bot ABI tells the host only how many levels a bot has. For the sample bots the app knows
//! what each level does (copied from `bots/alphabeta/src/level.rs` and `bots/mcts/src/lib.rs`;
//! keep them in step); any other bot's level is shown as "level N of M".

/// The sample alpha-beta bot's name, as its `init` returns it.
pub const ALPHA_BETA_NAME: &str = "Alpha-beta";
/// The sample Monte Carlo bot's name.
pub const MCTS_NAME: &str = "MCTS";

/// What one alpha-beta level may do (`bots/alphabeta/src/level.rs`).
struct AlphaBetaLevel {
    /// Deepest midgame search, in moves (plies).
    max_depth: u32,
    /// Empties from which it plays the endgame perfectly.
    solve_empties: u32,
    /// Random noise on its move scores, in discs (0 = none).
    noise_discs: f32,
}

const ALPHA_BETA_LEVELS: [AlphaBetaLevel; 10] = [
    AlphaBetaLevel { max_depth: 1, solve_empties: 0, noise_discs: 12.0 },
    AlphaBetaLevel { max_depth: 1, solve_empties: 4, noise_discs: 6.0 },
    AlphaBetaLevel { max_depth: 2, solve_empties: 6, noise_discs: 3.0 },
    AlphaBetaLevel { max_depth: 3, solve_empties: 8, noise_discs: 1.5 },
    AlphaBetaLevel { max_depth: 4, solve_empties: 10, noise_discs: 0.8 },
    AlphaBetaLevel { max_depth: 5, solve_empties: 12, noise_discs: 0.4 },
    AlphaBetaLevel { max_depth: 6, solve_empties: 14, noise_discs: 0.0 },
    AlphaBetaLevel { max_depth: 8, solve_empties: 16, noise_discs: 0.0 },
    AlphaBetaLevel { max_depth: 11, solve_empties: 18, noise_discs: 0.0 },
    AlphaBetaLevel { max_depth: 64, solve_empties: 64, noise_discs: 0.0 },
];

/// Playouts per move of the MCTS levels (`PLAYOUTS_PER_LEVEL` in `bots/mcts/src/lib.rs`;
/// `None` = as many as the time allows).
const MCTS_PLAYOUTS: [Option<u64>; 5] = [Some(100), Some(1_000), Some(10_000), Some(100_000), None];

/// A middle level of a bot with `levels` levels (for a newcomer's first opponent).
pub fn middle(levels: u32) -> u32 {
    levels.div_ceil(2).max(1)
}

/// "level 5 of 10: looks 4 moves ahead, plays the last 10 moves perfectly, makes small errors".
pub fn describe(bot_name: &str, level: u32, levels: u32) -> String {
    let head = format!("level {level} of {levels}");
    match bot_name {
        ALPHA_BETA_NAME if levels as usize == ALPHA_BETA_LEVELS.len() => {
            let l = &ALPHA_BETA_LEVELS[(level.clamp(1, levels) - 1) as usize];
            if level >= levels {
                return format!(
                    "{head}: full strength, plays its opening book, then searches as deep as the time per move allows"
                );
            }
            let depth = match l.max_depth {
                1 => "looks 1 move ahead".to_owned(),
                d => format!("looks {d} moves ahead"),
            };
            let endgame = match l.solve_empties {
                0 => String::new(),
                n => format!(", plays the last {n} moves perfectly"),
            };
            let errors = match l.noise_discs {
                0.0 => String::new(),
                n if n >= 3.0 => ", often blunders on purpose".to_owned(),
                _ => ", makes small errors on purpose".to_owned(),
            };
            // Levels 9 and 10 play the opening book (`bots/alphabeta/src/level.rs`).
            let book = if level + 1 >= levels { "plays its opening book, " } else { "" };
            format!("{head}: {book}{depth}{endgame}{errors}")
        }
        MCTS_NAME if levels as usize == MCTS_PLAYOUTS.len() => {
            match MCTS_PLAYOUTS[(level.clamp(1, levels) - 1) as usize] {
                Some(playouts) => format!("{head}: {} random playouts per move", group_thousands(playouts)),
                None => format!("{head}: full strength, as many playouts as the time per move allows"),
            }
        }
        _ => format!("{head} (higher is stronger)"),
    }
}

/// 10000 → "10,000".
fn group_thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_bots_levels_are_described_by_what_they_do_and_others_by_number() {
        assert_eq!(
            describe(ALPHA_BETA_NAME, 5, 10),
            "level 5 of 10: looks 4 moves ahead, plays the last 10 moves perfectly, makes small errors on purpose"
        );
        assert_eq!(describe(ALPHA_BETA_NAME, 1, 10), "level 1 of 10: looks 1 move ahead, often blunders on purpose");
        assert!(describe(ALPHA_BETA_NAME, 10, 10).contains("full strength"));
        assert_eq!(describe(MCTS_NAME, 3, 5), "level 3 of 5: 10,000 random playouts per move");
        assert!(describe(MCTS_NAME, 5, 5).contains("as many playouts as the time"));
        assert_eq!(describe("Levels", 2, 3), "level 2 of 3 (higher is stronger)");
        // A bot that only shares a name with a sample bot is not described by the sample's table.
        assert_eq!(describe(ALPHA_BETA_NAME, 2, 3), "level 2 of 3 (higher is stronger)");
        assert_eq!((middle(10), middle(5), middle(1)), (5, 3, 1));
    }
}
