//! The FFO endgame positions (`tests/data/ffo.txt`): board strings parse, and
//! every position's legal moves are exactly the moves the file scores.

use othello_sdk::{Color, Move, Position, Square};

struct FfoPosition {
    id: u32,
    position: Position,
    scored_moves: Vec<Square>,
}

fn ffo_positions() -> Vec<FfoPosition> {
    include_str!("../data/ffo.txt")
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let position = Position::from_board_string(&format!("{} {}", fields[1], fields[2]))
                .unwrap_or_else(|e| panic!("FFO #{}: {e}", fields[0]));
            let scored_moves = fields[5].split(',').map(|m| m.split(':').next().unwrap().parse().unwrap()).collect();
            FfoPosition { id: fields[0].parse().unwrap(), position, scored_moves }
        })
        .collect()
}

#[test]
fn all_79_positions_parse_and_round_trip() {
    let positions = ffo_positions();
    assert_eq!(positions.len(), 79);
    for p in &positions {
        let text = p.position.to_board_string();
        assert_eq!(Position::from_board_string(&text).unwrap(), p.position, "FFO #{}", p.id);
    }
    // #40 is a well-known black-to-move position with 20 empties.
    let p40 = positions.iter().find(|p| p.id == 40).unwrap();
    assert_eq!(p40.position.side_to_move(), Color::Black);
    assert_eq!(p40.position.empty().count(), 20);
}

#[test]
fn legal_moves_are_the_moves_the_file_scores() {
    for p in ffo_positions() {
        let mut ours: Vec<Square> = p.position.legal_moves().into_iter().collect();
        let mut theirs = p.scored_moves.clone();
        ours.sort();
        theirs.sort();
        assert_eq!(ours, theirs, "FFO #{}", p.id);
        for square in ours {
            let mut next = p.position;
            let flipped = next.try_play(Move::Play(square)).unwrap();
            assert!(!flipped.is_empty());
            assert_eq!(next.empty().count() + 1, p.position.empty().count());
        }
    }
}
