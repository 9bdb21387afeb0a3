//! Perft counts from the start position against `tests/data/perft.txt`
//! (published figures; see the file's header for sources).

use othello_sdk::{Position, perft};

/// `(depth, leaves)` in the usual convention (column `bik`: a pass is a ply, a
/// finished game one leaf).
fn published_counts() -> Vec<(u32, u64)> {
    let text = include_str!("../data/perft.txt");
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let depth = fields.next()?.parse().ok()?;
            let leaves = fields.next()?.parse().ok()?;
            Some((depth, leaves))
        })
        .collect()
}

fn check_depths(range: std::ops::RangeInclusive<u32>) {
    let counts = published_counts();
    for depth in range {
        let &(_, expected) = counts.iter().find(|(d, _)| *d == depth).expect("depth in the data file");
        assert_eq!(perft(&Position::start(), depth), expected, "perft({depth})");
    }
}

#[test]
fn perft_matches_published_counts_to_depth_9() {
    assert!(published_counts().len() >= 12, "data file read");
    check_depths(1..=9);
}

#[test]
#[ignore = "slow: a few seconds in release; run with --ignored"]
fn perft_matches_published_counts_depths_10_to_12() {
    check_depths(10..=12);
}

#[test]
#[ignore = "slow: about a minute in release"]
fn perft_matches_published_count_depth_13() {
    check_depths(13..=13);
}

#[test]
fn perft_depth_zero_is_one() {
    assert_eq!(perft(&Position::start(), 0), 1);
}
