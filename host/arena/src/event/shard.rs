//! A part of an event's schedule (`--shard K/N`), so N machines can play one event with no
//! coordination and `othello merge` can put the parts together.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The `index`-th (0-based) of `count` disjoint parts of an event's schedule
/// ([`EventSpec::shard_games`](super::EventSpec::shard_games)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// Parses `K/N` with 0 ≤ K < N (as Slurm's `SLURM_ARRAY_TASK_ID` of `--array=0-N-1` counts).
    pub fn parse(text: &str) -> Result<Shard, String> {
        let (index, count) =
            text.split_once('/').ok_or_else(|| format!("`{text}`: a shard is K/N, e.g. 0/4 (the first of four)"))?;
        let index: usize = index.trim().parse().map_err(|_| format!("`{text}`: K in K/N must be a number"))?;
        let count: usize = count.trim().parse().map_err(|_| format!("`{text}`: N in K/N must be a number"))?;
        if count == 0 {
            return Err(format!("`{text}`: N in K/N must be at least 1"));
        }
        if index >= count {
            return Err(format!("`{text}`: K counts from 0, so K/N needs K < N (0/{count} … {}/{count})", count - 1));
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_from_zero() {
        assert_eq!(Shard::parse("0/4"), Ok(Shard { index: 0, count: 4 }));
        assert_eq!(Shard::parse("3/4").unwrap().to_string(), "3/4");
        assert!(Shard::parse("4/4").unwrap_err().contains("K counts from 0"));
        assert!(Shard::parse("1/0").is_err());
        assert!(Shard::parse("1").is_err());
        assert!(Shard::parse("a/2").is_err());
    }
}
