//! The ladder's database: foreign and damaged files are refused untouched, and several writers
//! at once lose nothing.

use std::path::Path;

use othello_arena::record::{GameRecord, Outcome};
use othello_ladder::identity::{Identity, Kind};
use othello_ladder::schema::{APPLICATION_ID, SCHEMA_VERSION};
use othello_ladder::{Ladder, leaderboard};
use othello_sdk::{Color, Position};

fn identity(name: &str, hash: &str) -> Identity {
    Identity {
        kind: Kind::Library,
        name: name.to_owned(),
        level: None,
        hash: hash.repeat(64 / hash.len()),
        locator: format!("/bots/lib{name}.so"),
    }
}

/// A finished game `black` – `white` that `winner` won (`None`: a draw), as the referee records it.
fn game(winner: Option<Color>) -> GameRecord {
    let result = match winner {
        Some(color) => Outcome::resigned(!color),
        None => Outcome::from_final_score(32, 32),
    };
    GameRecord {
        black: "B".to_owned(),
        white: "W".to_owned(),
        opening: Vec::new(),
        start: Position::start(),
        moves: Vec::new(),
        time_limit_ms: None,
        started_at: 1_700_000_000,
        result,
        clock: None,
    }
}

fn refused(path: &Path) -> String {
    let before = std::fs::read(path).unwrap();
    let error = Ladder::open(path).err().expect("refused");
    assert_eq!(std::fs::read(path).unwrap(), before, "the refused file is left exactly as it was");
    for suffix in ["-wal", "-shm"] {
        let mut side = path.as_os_str().to_owned();
        side.push(suffix);
        assert!(!Path::new(&side).exists() || std::fs::metadata(&side).unwrap().len() == 0);
    }
    assert!(error.contains(&path.display().to_string()) && error.contains("left untouched"), "{error}");
    error
}

#[test]
fn files_that_are_not_ladders_are_refused_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();

    let garbage = dir.path().join("garbage.sqlite3");
    std::fs::write(&garbage, "these are my notes, not a database\n".repeat(200)).unwrap();
    assert!(refused(&garbage).contains("not a database"));

    let foreign = dir.path().join("foreign.sqlite3");
    let other = rusqlite::Connection::open(&foreign).unwrap();
    other
        .execute_batch("CREATE TABLE accounts (id INTEGER, balance REAL); INSERT INTO accounts VALUES (1, 9.5);")
        .unwrap();
    drop(other);
    assert!(refused(&foreign).contains("another program"));

    let stamped = dir.path().join("stamped.sqlite3");
    let other = rusqlite::Connection::open(&stamped).unwrap();
    other.execute_batch("PRAGMA application_id = 1234; CREATE TABLE t (x);").unwrap();
    drop(other);
    assert!(refused(&stamped).contains("application id 0x000004d2"));

    let newer = dir.path().join("newer.sqlite3");
    drop(Ladder::open(&newer).unwrap());
    let other = rusqlite::Connection::open(&newer).unwrap();
    other.pragma_update(None, "user_version", SCHEMA_VERSION + 1).unwrap();
    other.pragma_update(None, "journal_mode", "DELETE").unwrap();
    drop(other);
    assert!(refused(&newer).contains("newer othello"));

    let folder = dir.path().join("a-folder");
    std::fs::create_dir(&folder).unwrap();
    assert!(Ladder::open(&folder).err().unwrap().contains("not a file"));
}

#[test]
fn a_new_or_empty_file_becomes_a_ladder_that_other_tools_can_read() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.sqlite3");
    std::fs::write(&empty, "").unwrap();
    let mut ladder = Ladder::open(&empty).unwrap();
    let a = ladder.entry_for(&identity("A", "a")).unwrap();
    let b = ladder.entry_for(&identity("B", "b")).unwrap();
    ladder.set_anchor_if_unset(a.id).unwrap();
    ladder.record_game(a.id, b.id, &game(Some(Color::White))).unwrap();
    drop(ladder);
    let plain = rusqlite::Connection::open(&empty).unwrap();
    let id: i32 = plain.pragma_query_value(None, "application_id", |r| r.get(0)).unwrap();
    assert_eq!(id, APPLICATION_ID);
    let ggf: String = plain.query_row("SELECT ggf FROM games", [], |r| r.get(0)).unwrap();
    assert!(ggf.starts_with("(;GM[Othello]") && ggf.contains("RE["), "{ggf}");

    let nested = dir.path().join("made/on/first/use.sqlite3");
    Ladder::open(&nested).unwrap();
    assert!(nested.is_file());
}

#[test]
fn two_builds_of_one_bot_are_two_versions_and_the_same_build_is_one_entry() {
    let dir = tempfile::tempdir().unwrap();
    let mut ladder = Ladder::open(dir.path().join("l.sqlite3")).unwrap();
    let anchor = ladder.entry_for(&identity("Random", "0")).unwrap();
    ladder.set_anchor_if_unset(anchor.id).unwrap();
    let old = ladder.entry_for(&identity("Mine", "1")).unwrap();
    let new = ladder.entry_for(&identity("Mine", "2")).unwrap();
    assert_ne!(old.id, new.id);
    assert_eq!(ladder.entry_for(&identity("Mine", "1")).unwrap().id, old.id, "same build, same entry");
    let leveled = ladder.entry_for(&Identity { level: Some(3), ..identity("Mine", "1") }).unwrap();
    assert_ne!(leveled.id, old.id, "Mine@3 is an entry of its own");
    for _ in 0..3 {
        ladder.record_game(old.id, anchor.id, &game(Some(Color::Black))).unwrap();
        ladder.record_game(new.id, anchor.id, &game(None)).unwrap();
        ladder.record_game(leveled.id, anchor.id, &game(Some(Color::White))).unwrap();
    }
    let board = leaderboard(&ladder).unwrap();
    let row = |id| board.rows.iter().find(|r| r.entry == id).unwrap();
    assert_eq!((row(old.id).name.as_str(), row(old.id).version), ("Mine", 1));
    assert_eq!((row(new.id).name.as_str(), row(new.id).version), ("Mine", 2));
    assert_eq!((row(leveled.id).name.as_str(), row(leveled.id).version), ("Mine@3", 1));
    assert!(row(old.id).rating.unwrap() > row(new.id).rating.unwrap());
    assert_eq!(row(new.id).score, Some(0.5));
    assert_eq!(board.anchor.as_deref(), Some("Random"));
    assert_eq!(board.rows[0].entry, old.id);
}

/// A game that `loser` lost by crashing.
fn crashed(loser: Color) -> GameRecord {
    let failure = othello_arena::seat::Failure::new(othello_arena::seat::Termination::Crash, "segfault");
    GameRecord { result: Outcome::forfeit(loser, failure), ..game(None) }
}

#[test]
fn a_bot_that_failed_every_game_is_below_the_anchor_and_moves_no_rating() {
    let dir = tempfile::tempdir().unwrap();
    let mut ladder = Ladder::open(dir.path().join("l.sqlite3")).unwrap();
    let anchor = ladder.entry_for(&identity("Random", "0")).unwrap();
    ladder.set_anchor_if_unset(anchor.id).unwrap();
    let strong = ladder.entry_for(&identity("Strong", "1")).unwrap();
    for i in 0..10 {
        let winner = if i < 8 { Color::Black } else { Color::White };
        ladder.record_game(strong.id, anchor.id, &game(Some(winner))).unwrap();
    }
    let before = leaderboard(&ladder).unwrap();
    let strong_before = before.rows.iter().find(|r| r.entry == strong.id).unwrap().rating.unwrap();
    assert!(strong_before > 100.0);
    // Its only opponent is the strong bot: with its forfeits fitted it would be rated far
    // below Strong, yet above the anchor would be possible; it is placed at the bottom instead.
    let crashing = ladder.entry_for(&identity("Crashing", "2")).unwrap();
    for _ in 0..3 {
        ladder.record_game(crashing.id, strong.id, &crashed(Color::Black)).unwrap();
        ladder.record_game(strong.id, crashing.id, &crashed(Color::White)).unwrap();
    }
    ladder.set_last_rated(crashing.id).unwrap();
    let board = leaderboard(&ladder).unwrap();
    let names: Vec<&str> = board.rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["Strong", "Random", "Crashing"]);
    let row = board.rows.last().unwrap();
    assert!(row.failing && row.rating.is_none() && row.error.is_none(), "{row:?}");
    assert_eq!((row.rank, row.games, row.failures), (Some(3), 6, 6));
    assert_eq!(row.rating_text(), "every game failed");
    let strong_row = &board.rows[0];
    assert_eq!(strong_row.rating, Some(strong_before), "the forfeits move no rating");
    assert!(strong_row.rating_text().starts_with('+') && strong_row.rating_text().contains(" ± "));
    assert!(strong_row.placement_error.unwrap() < strong_row.error.unwrap() + 1e-9);
    assert_eq!(board.rows[1].rating_text(), "+0.0 (anchor)");
    assert_eq!(board.last_rated, Some(crashing.id));

    // The page labels both intervals and highlights the bot rated last.
    let page = othello_ladder::html::page(&board, &ladder.history().unwrap());
    assert!(page.contains("Rating ± from the anchor") && page.contains("± among its opponents"), "{page}");
    assert!(page.contains("<tr class=\"failing latest\">"), "{page}");
    assert!(page.contains(&format!("<td>{}</td>", othello_ladder::html::escape(&strong_row.rating_text()))));
    assert!(page.contains("every game failed"));
}

#[test]
fn several_writers_at_once_lose_no_game() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shared.sqlite3");
    const WRITERS: usize = 4;
    const GAMES_EACH: usize = 40;
    // Every writer opens its own connection (as separate `othello rate` processes do), adds the
    // same entries and its own, and commits its games one by one.
    std::thread::scope(|scope| {
        for writer in 0..WRITERS {
            let path = &path;
            scope.spawn(move || {
                let mut ladder = Ladder::open(path).unwrap();
                let pool = ladder.entry_for(&identity("Pool", "p")).unwrap();
                ladder.set_anchor_if_unset(pool.id).unwrap();
                let me = ladder.entry_for(&identity(&format!("Writer{writer}"), "w")).unwrap();
                for i in 0..GAMES_EACH {
                    let winner = if i % 3 == 0 { Color::White } else { Color::Black };
                    ladder.record_game(me.id, pool.id, &game(Some(winner))).unwrap();
                }
            });
        }
    });
    let ladder = Ladder::open(&path).unwrap();
    assert_eq!(ladder.game_count().unwrap(), (WRITERS * GAMES_EACH) as u64);
    assert_eq!(ladder.entries().unwrap().len(), WRITERS + 1, "the shared entry was added once");
    let board = leaderboard(&ladder).unwrap();
    assert!(board.rows.iter().all(|r| r.rating.is_some()));
    let check = rusqlite::Connection::open(&path).unwrap();
    let integrity: String = check.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(integrity, "ok");
}
