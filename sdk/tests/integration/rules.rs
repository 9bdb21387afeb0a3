//! Rules against a plain 8-direction reference implementation on random
//! positions (proptest), plus the conventions users rely on.

use othello_sdk::{
    Bitboard, Color, IllegalMove, Move, Outcome, Position, Square, TranscriptErrorKind, format_transcript,
    parse_transcript,
};
use proptest::prelude::*;

const DIRECTIONS: [(i32, i32); 8] = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)];

/// Flips by walking each direction square by square.
fn reference_flips(player: u64, opponent: u64, square: usize) -> u64 {
    if (player | opponent) >> square & 1 != 0 {
        return 0;
    }
    let mut flipped = 0;
    for (dr, dc) in DIRECTIONS {
        let (mut r, mut c) = ((square / 8) as i32 + dr, (square % 8) as i32 + dc);
        let mut line = 0u64;
        while (0..8).contains(&r) && (0..8).contains(&c) && opponent >> (r * 8 + c) & 1 != 0 {
            line |= 1 << (r * 8 + c);
            r += dr;
            c += dc;
        }
        if (0..8).contains(&r) && (0..8).contains(&c) && player >> (r * 8 + c) & 1 != 0 {
            flipped |= line;
        }
    }
    flipped
}

fn reference_moves(player: u64, opponent: u64) -> u64 {
    (0..64).filter(|&s| reference_flips(player, opponent, s) != 0).fold(0, |m, s| m | 1 << s)
}

/// Random disjoint player/opponent bitboards of varied density.
fn arbitrary_discs() -> impl Strategy<Value = (u64, u64)> {
    (any::<u64>(), any::<u64>(), any::<u64>()).prop_map(|(a, b, density)| {
        let occupied = a | (b & density); // dense boards as well as sparse
        let player = occupied & b;
        (player, occupied & !player)
    })
}

/// Positions reached by random legal play from the start.
fn arbitrary_game_position() -> impl Strategy<Value = Position> {
    prop::collection::vec(any::<u8>(), 0..70).prop_map(|choices| {
        let mut position = Position::start();
        for choice in choices {
            if position.is_game_over() {
                break;
            }
            let moves: Vec<Square> = position.legal_moves().into_iter().collect();
            let mv = if moves.is_empty() { Move::Pass } else { Move::Play(moves[choice as usize % moves.len()]) };
            position.play(mv);
        }
        position
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn legal_moves_match_the_reference((player, opponent) in arbitrary_discs()) {
        prop_assert_eq!(othello_sdk::legal_moves(player, opponent), reference_moves(player, opponent));
    }

    #[test]
    fn flips_match_the_reference((player, opponent) in arbitrary_discs(), pick in any::<prop::sample::Index>()) {
        let empties: Vec<usize> = (0..64).filter(|&s| (player | opponent) >> s & 1 == 0).collect();
        prop_assume!(!empties.is_empty());
        let square = empties[pick.index(empties.len())];
        prop_assert_eq!(othello_sdk::flips(player, opponent, square), reference_flips(player, opponent, square));
    }

    #[test]
    fn play_in_game_positions_matches_the_reference(position in arbitrary_game_position()) {
        let (p, o) = (position.player().0, position.opponent().0);
        prop_assert_eq!(position.legal_moves().0, reference_moves(p, o));
        for square in position.legal_moves() {
            let mut next = position;
            let flipped = next.play(Move::Play(square));
            prop_assert_eq!(flipped.0, reference_flips(p, o, square.index()));
            prop_assert_eq!(next.side_to_move(), !position.side_to_move());
            prop_assert_eq!(next.opponent().0, p | flipped.0 | square.bitboard().0);
            prop_assert_eq!(next.player().0, o & !flipped.0);
        }
    }

    #[test]
    fn transcripts_round_trip(position_moves in prop::collection::vec(any::<u8>(), 0..70)) {
        let mut position = Position::start();
        let mut moves = Vec::new();
        for choice in position_moves {
            if position.is_game_over() { break; }
            let legal: Vec<Square> = position.legal_moves().into_iter().collect();
            let mv = if legal.is_empty() { Move::Pass } else { Move::Play(legal[choice as usize % legal.len()]) };
            position.play(mv);
            moves.push(mv);
        }
        // A trailing pass is implicit in text, so it is not expected back.
        while moves.last() == Some(&Move::Pass) { moves.pop(); }
        let text = format_transcript(&moves);
        prop_assert_eq!(parse_transcript(&text).unwrap(), moves.clone());
        prop_assert_eq!(parse_transcript(&text.to_uppercase()).unwrap(), moves);
    }
}

#[test]
fn start_position_follows_the_conventions() {
    let start = Position::start();
    let sq = |s: &str| s.parse::<Square>().unwrap();
    assert_eq!(start.side_to_move(), Color::Black);
    assert_eq!(start.color_on(sq("d4")), Some(Color::White));
    assert_eq!(start.color_on(sq("e5")), Some(Color::White));
    assert_eq!(start.color_on(sq("d5")), Some(Color::Black));
    assert_eq!(start.color_on(sq("e4")), Some(Color::Black));
    let moves: Vec<String> = start.legal_moves().into_iter().map(|s| s.to_string()).collect();
    assert_eq!(moves, ["d3", "c4", "f5", "e6"]);
    assert_eq!(sq("a1").index(), 0);
    assert_eq!(sq("h8").index(), 63);
    assert_eq!(sq("h1").index(), 7);
}

#[test]
fn illegal_moves_say_why_and_change_nothing() {
    let sq = |s: &str| s.parse::<Square>().unwrap();
    let mut position = Position::start();
    assert_eq!(position.try_play(Move::Play(sq("d4"))), Err(IllegalMove::Occupied(sq("d4"))));
    assert_eq!(position.try_play(Move::Play(sq("a1"))), Err(IllegalMove::NoFlips(sq("a1"))));
    let err = position.try_play(Move::Pass).unwrap_err();
    assert_eq!(err.to_string(), "cannot pass with legal moves (d3, c4, f5, e6)");
    assert_eq!(position, Position::start());

    // White with no move must pass; a move is then refused with the reason.
    let mut stuck = Position::from_board_string(&format!("XXO{} O", "-".repeat(61))).unwrap();
    assert!(stuck.must_pass());
    assert_eq!(stuck.try_play(Move::Play(sq("h8"))), Err(IllegalMove::MustPass(sq("h8"))));
    assert_eq!(stuck.try_play(Move::Pass), Ok(Bitboard::EMPTY));
    assert_eq!(stuck.side_to_move(), Color::Black);
}

#[test]
fn move_bytes_follow_the_abi() {
    let sq = |s: &str| s.parse::<Square>().unwrap();
    assert_eq!(Move::Play(sq("a1")).to_byte(), 0x00);
    assert_eq!(Move::Play(sq("d3")).to_byte(), 0x23);
    assert_eq!(Move::Play(sq("h8")).to_byte(), 0x77);
    assert_eq!(Move::Pass.to_byte(), 0xFF);
    for byte in 0..=255u8 {
        match Move::from_byte(byte) {
            Ok(mv) => assert_eq!(mv.to_byte(), byte),
            Err(e) => assert!(e.to_string().contains("off the board"), "{e}"),
        }
    }
}

/// Games that end at exactly `ply` plies from the start (passes count as plies).
fn games_ending_at(position: Position, ply: u32, moves: &mut Vec<Move>, first: &mut Option<Vec<Move>>) -> u64 {
    if position.is_game_over() {
        if ply == 0 && first.is_none() {
            *first = Some(moves.clone());
        }
        return (ply == 0) as u64;
    }
    if ply == 0 {
        return 0;
    }
    let legal = position.legal_moves();
    let choices: Vec<Move> =
        if legal.is_empty() { vec![Move::Pass] } else { legal.into_iter().map(Move::Play).collect() };
    let mut count = 0;
    for mv in choices {
        let mut next = position;
        next.play(mv);
        moves.push(mv);
        count += games_ending_at(next, ply - 1, moves, first);
        moves.pop();
    }
    count
}

#[test]
fn games_end_when_neither_side_can_move_as_published() {
    // tests/data/perft.txt: 228 games end at ply 9 (the earliest possible), 356 at ply 10.
    let mut first = None;
    assert_eq!(games_ending_at(Position::start(), 8, &mut vec![], &mut first), 0);
    assert_eq!(games_ending_at(Position::start(), 9, &mut vec![], &mut first), 228);
    assert_eq!(games_ending_at(Position::start(), 10, &mut vec![], &mut None), 356);

    // Such a game is a wipe-out: the winner gets the empty squares too.
    let moves = first.unwrap();
    let text = format_transcript(&moves);
    let mut position = Position::start();
    for mv in parse_transcript(&text).unwrap() {
        position.play(mv);
    }
    assert!(position.is_game_over());
    let (black, white) = position.disc_counts();
    assert_eq!(black.min(white), 0, "{position}");
    assert_eq!(black.max(white), 13);
    let winner = if black > 0 { Color::Black } else { Color::White };
    assert_eq!(position.outcome(), Some(Outcome::Win(winner)));
    let (final_black, final_white) = position.final_score();
    assert_eq!(final_black + final_white, 64);
    assert_eq!(final_black.max(final_white), 64);
    let err = parse_transcript(&format!("{text}d3")).unwrap_err();
    assert!(matches!(err.kind, TranscriptErrorKind::Illegal { reason: IllegalMove::GameOver, .. }), "{err}");
}

#[test]
fn transcript_errors_say_where_and_why() {
    let err = parse_transcript("f5 d6 z9").unwrap_err();
    assert_eq!((err.offset, err.move_number), (6, 3));
    assert!(err.to_string().contains("`z9` is not a move"), "{err}");
    let err = parse_transcript("F5D6C3D3C4H1").unwrap_err();
    assert_eq!(err.to_string(), "move 6 (at character 11): h1 is illegal: h1 flips no disc");
    assert!(parse_transcript("f5 PA").is_err(), "a pass with moves is illegal");
    assert_eq!(parse_transcript("").unwrap(), vec![]);
}
