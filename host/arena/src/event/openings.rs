//! Openings for a match: none, distinct random ones drawn reproducibly from a
//! seed, or a file of transcripts (one per line, as XOT lists are written).

use std::collections::HashSet;
use std::path::Path;

use othello_sdk::{Move, Position, SplitMix64};
use serde::{Deserialize, Serialize};

use crate::referee::Opening;

/// Where openings come from (`--openings none|random:PLIES|FILE`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OpeningSource {
    None,
    /// Random legal moves from the start (passes do not count as plies).
    Random {
        plies: u32,
    },
    /// Transcripts, used in order and cycled.
    List(Vec<String>),
}

/// Tries to find a new distinct random opening before allowing repeats
/// (short openings have few distinct lines: 4 after one ply).
const DISTINCT_TRIES: usize = 200;
/// Longest random opening accepted.
pub const MAX_RANDOM_PLIES: u32 = 40;

impl OpeningSource {
    /// Parses `none`, `random:PLIES`, or reads a transcript file.
    pub fn parse(text: &str) -> Result<OpeningSource, String> {
        if text == "none" {
            return Ok(OpeningSource::None);
        }
        if let Some(plies) = text.strip_prefix("random:") {
            let plies: u32 = plies.parse().map_err(|_| format!("`{text}`: PLIES must be a number"))?;
            if plies > MAX_RANDOM_PLIES {
                return Err(format!("`{text}`: at most {MAX_RANDOM_PLIES} random plies"));
            }
            return Ok(OpeningSource::Random { plies });
        }
        OpeningSource::read_file(Path::new(text))
    }

    /// Reads one transcript per line; blank lines and `#` comments are skipped.
    pub fn read_file(path: &Path) -> Result<OpeningSource, String> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            format!("cannot read openings file {}: {e} (expected none, random:PLIES or a file)", path.display())
        })?;
        let mut lines = Vec::new();
        for (number, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            Opening::parse(line).map_err(|e| format!("{}:{}: {e}", path.display(), number + 1))?;
            lines.push(line.to_owned());
        }
        if lines.is_empty() {
            return Err(format!("openings file {} holds no opening", path.display()));
        }
        Ok(OpeningSource::List(lines))
    }

    /// The openings of `count` game pairs, reproducible from `seed` (the first `count` of
    /// [`OpeningSource::cursor`]).
    pub fn openings(&self, count: usize, seed: u64) -> Vec<Opening> {
        let mut cursor = self.cursor(seed);
        (0..count).map(|pair| cursor.opening(pair)).collect()
    }

    /// The openings of an event's game pairs, computed on demand in any order of pairs (fastest
    /// in increasing order), in memory bounded by [`RANDOM_OPENING_BLOCK`].
    pub fn cursor(&self, seed: u64) -> OpeningCursor {
        OpeningCursor { source: self.clone(), seed, block: None }
    }
}

/// Random openings are drawn in blocks of this many game pairs, each block from its own seed,
/// distinct within the block: any pair's opening is found without drawing every opening before
/// it (shards, resumed events) and without remembering them all (million-game events).
pub const RANDOM_OPENING_BLOCK: usize = 4096;

/// Spreads block numbers over the seeds (the golden-ratio increment of SplitMix64).
const BLOCK_SEED_STEP: u64 = 0x9E37_79B9_7F4A_7C15;

/// The openings of one event, pair by pair (see [`OpeningSource::cursor`]).
pub struct OpeningCursor {
    source: OpeningSource,
    seed: u64,
    /// The block of random openings drawn so far.
    block: Option<RandomBlock>,
}

/// Random openings of one block, drawn in order as far as needed.
struct RandomBlock {
    number: usize,
    rng: SplitMix64,
    seen: HashSet<Vec<Move>>,
    /// Openings drawn in this block so far; the last of them is `last`.
    drawn: usize,
    last: Opening,
    /// Set once no new distinct opening was found: the rest of the block may repeat.
    exhausted: bool,
}

impl OpeningCursor {
    /// The opening of game pair `pair` (0-based, counted over the whole event).
    pub fn opening(&mut self, pair: usize) -> Opening {
        let plies = match &self.source {
            OpeningSource::None => return Opening::none(),
            OpeningSource::List(lines) => {
                return Opening::parse(&lines[pair % lines.len()]).expect("checked when read");
            }
            OpeningSource::Random { plies } => *plies,
        };
        let (number, offset) = (pair / RANDOM_OPENING_BLOCK, pair % RANDOM_OPENING_BLOCK);
        if self.block.as_ref().is_none_or(|block| block.number != number || block.drawn > offset + 1) {
            self.block = Some(RandomBlock {
                number,
                rng: SplitMix64::new(block_seed(self.seed, number)),
                seen: HashSet::new(),
                drawn: 0,
                last: Opening::none(),
                exhausted: false,
            });
        }
        let block = self.block.as_mut().expect("just made");
        while block.drawn <= offset {
            let mut opening = random_opening(&mut block.rng, plies);
            if !block.exhausted {
                let mut distinct = false;
                for _ in 0..DISTINCT_TRIES {
                    if block.seen.insert(opening.clone()) {
                        distinct = true;
                        break;
                    }
                    opening = random_opening(&mut block.rng, plies);
                }
                // Every line of this length may be used up: stop looking for new ones.
                block.exhausted = !distinct;
            }
            block.last = Opening::new(opening).expect("random openings are legal");
            block.drawn += 1;
        }
        block.last.clone()
    }
}

/// The seed of block `number`: the first block uses the event's seed itself, so events of up to a
/// block of pairs keep the openings they had before blocks existed.
fn block_seed(seed: u64, number: usize) -> u64 {
    if number == 0 {
        return seed;
    }
    SplitMix64::new(seed.wrapping_add((number as u64).wrapping_mul(BLOCK_SEED_STEP))).next_u64()
}

/// Up to `plies` random legal moves (stops early if the game ends).
fn random_opening(rng: &mut SplitMix64, plies: u32) -> Vec<Move> {
    let mut position = Position::start();
    let mut moves = Vec::new();
    let mut played = 0;
    while played < plies && !position.is_game_over() {
        let legal: Vec<_> = position.legal_moves().into_iter().collect();
        let mv = if legal.is_empty() { Move::Pass } else { Move::Play(legal[rng.below(legal.len() as u32) as usize]) };
        position.play_unchecked(mv);
        moves.push(mv);
        if mv != Move::Pass {
            played += 1;
        }
    }
    moves
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_openings_are_distinct_legal_and_reproducible() {
        let source = OpeningSource::parse("random:6").unwrap();
        let a = source.openings(50, 7);
        assert_eq!(a, source.openings(50, 7));
        assert_ne!(a, source.openings(50, 8));
        let distinct: HashSet<_> = a.iter().collect();
        assert_eq!(distinct.len(), 50);
        for opening in &a {
            assert_eq!(opening.position().disc_counts().0 + opening.position().disc_counts().1, 4 + 6);
        }
        // Only 4 one-ply openings exist: all of them come before any repeat.
        let one_ply: HashSet<_> = OpeningSource::Random { plies: 1 }.openings(4, 1).into_iter().collect();
        assert_eq!(one_ply.len(), 4);
    }

    #[test]
    fn openings_of_any_pair_are_found_without_the_ones_before() {
        let source = OpeningSource::Random { plies: 8 };
        let pairs = 2 * RANDOM_OPENING_BLOCK + 10;
        let all = source.openings(pairs, 3);
        let mut cursor = source.cursor(3);
        for pair in [pairs - 1, 5, RANDOM_OPENING_BLOCK, RANDOM_OPENING_BLOCK + 1, 0] {
            assert_eq!(cursor.opening(pair), all[pair], "pair {pair}");
        }
        // Distinct within a block, and the blocks differ.
        let first: HashSet<_> = all[..RANDOM_OPENING_BLOCK].iter().collect();
        assert_eq!(first.len(), RANDOM_OPENING_BLOCK);
        assert_ne!(all[0], all[RANDOM_OPENING_BLOCK]);
    }

    #[test]
    fn bad_openings_files_say_where() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("openings.txt");
        std::fs::write(&path, "# XOT\nf5d6c3d3\n\nf5d6a1\n").unwrap();
        let error = OpeningSource::parse(path.to_str().unwrap()).unwrap_err();
        assert!(error.ends_with("openings.txt:4: move 3 (at character 5): a1 is illegal: a1 flips no disc"), "{error}");
        std::fs::write(&path, "f5d6c3d3\nf5f6\n").unwrap();
        let source = OpeningSource::parse(path.to_str().unwrap()).unwrap();
        let openings = source.openings(3, 0);
        assert_eq!(openings[2], openings[0]);
        assert_eq!(openings[1].moves().len(), 2);
        assert!(OpeningSource::parse("random:x").is_err());
        assert!(OpeningSource::parse("/no/such/file").unwrap_err().contains("cannot read"));
    }
}
