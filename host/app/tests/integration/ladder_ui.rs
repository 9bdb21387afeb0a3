//! The Ladder tab driven through its accessibility tree: rate a bot of the plugin list with live
//! progress, see it on the leaderboard, and replay one of its games on the board.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use othello_app::catalog::FolderSource;
use othello_app::{Launch, OthelloApp, Settings};
use othello_arena::seat::Seating;
use othello_ladder::Ladder;
use othello_ladder::identity::library_identity;
use othello_ladder::seed::seed_pool;

/// How long a test waits for the workers before it fails.
const WAIT: Duration = Duration::from_secs(60);

fn app(folders: Vec<PathBuf>) -> Harness<'static, OthelloApp> {
    let launch = Launch {
        plugin_folders: Vec::new(),
        runner: othello_testkit::runner_command(),
        options: othello_testkit::seat_options(),
        engines: Vec::new(),
    };
    let settings = Settings { animate: false, ..Settings::default() };
    Harness::builder()
        .with_size([1400.0, 900.0])
        .build_eframe(move |cc| OthelloApp::with_config(&cc.egui_ctx, settings, FolderSource::Exact(folders), &launch))
}

/// Steps the app until `done` holds, letting the workers answer in between.
fn wait_until(harness: &mut Harness<'_, OthelloApp>, what: &str, done: impl Fn(&OthelloApp) -> bool) {
    let started = Instant::now();
    while !done(harness.state()) {
        let status = harness.state().ladder().status().map(str::to_owned);
        assert!(started.elapsed() < WAIT, "timed out waiting for {what} (tab status: {status:?})");
        std::thread::sleep(Duration::from_millis(5));
        harness.step();
    }
    harness.step();
}

/// A plugin folder with the C random bot and `first_legal`, and a ladder whose pool is the
/// random bot alone (its anchor, with no games yet).
fn setup(dir: &Path) -> (PathBuf, PathBuf) {
    let plugins = dir.join("plugins");
    std::fs::create_dir(&plugins).unwrap();
    for source in [othello_testkit::random_bot(), othello_testkit::fixture("first_legal")] {
        std::fs::copy(&source, plugins.join(source.file_name().unwrap())).unwrap();
    }
    let path = dir.join("ladder.sqlite3");
    let mut ladder = Ladder::open(&path).unwrap();
    let random = library_identity(&plugins.join("librandom_c.so"), "Random (C)", None).unwrap();
    let stop = AtomicBool::new(false);
    seed_pool(&mut ladder, &[random], &Seating::in_process(), None, 1, &stop, &mut |_| {}).unwrap();
    (plugins, path)
}

#[test]
fn the_ladder_tab_rates_a_bot_shows_it_and_replays_its_games() {
    let dir = tempfile::tempdir().unwrap();
    let (plugins, path) = setup(dir.path());
    let mut harness = app(vec![plugins]);
    harness.get_by_label("Ladder").click();
    harness.state_mut().ladder_mut().set_path(path.clone());
    harness.state_mut().ladder_mut().max_games = 4;
    wait_until(&mut harness, "the plugin scan and the leaderboard", |app| {
        app.plugins().len() == 2 && app.ladder().board().is_some()
    });
    assert_eq!(harness.state().ladder().board().unwrap().anchor.as_deref(), Some("Random (C)"));

    harness.get_by_label("Rate First legal").click();
    harness.step();
    assert!(harness.state().ladder().is_rating(), "Rate started a session: {:?}", harness.state().ladder().status());
    wait_until(&mut harness, "the rating session", |app| !app.ladder().is_rating());
    let placement = harness.state().ladder().placement().expect("a placement").clone();
    assert_eq!(placement.progress.games, 4);
    assert_eq!(harness.state().ladder().progress().map(|p| p.games), Some(4), "progress came in while it played");
    assert_eq!(placement.row.name, "First legal");
    assert!(placement.row.rating.is_some_and(f64::is_finite));
    assert!(harness.query_by_label_contains("First legal v1").is_some(), "the placement is shown");
    wait_until(&mut harness, "the reloaded leaderboard", |app| {
        app.ladder().board().is_some_and(|b| b.rows.iter().any(|r| r.name == "First legal" && r.games == 4))
    });

    // The entry's games, and one of them on the board.
    // A pointer click at the row's centre, whichever row it is: the table's horizontal scroll bar
    // has a strip of its own under the rows and covers none of them.
    harness.get_by_label("Games of First legal").click();
    wait_until(&mut harness, "the games of First legal", |app| app.ladder().games().len() == 4);
    let game = harness.state().ladder().games()[0].clone();
    let stored = othello_arena::ggf::parse(&game.ggf).unwrap().remove(0);
    // The player's game in progress, which a replay must keep.
    harness.get_by_label("f5").click();
    harness.step();
    harness.get_by_label(&format!("Replay game {}", game.id)).click();
    harness.step();
    harness.step();
    let replay = harness.state().replay().expect("the ladder game on the board");
    let moves: Vec<_> = replay.game.moves().iter().map(|m| m.mv).collect();
    let expected: Vec<_> = stored.moves.iter().map(|m| m.mv).collect();
    assert_eq!(moves, expected, "the stored game is on the board: {:?}", harness.state().message());
    assert_eq!(replay.game.start(), stored.start);
    assert!(replay.game.is_over());
    assert_eq!(replay.names, [stored.black.clone(), stored.white.clone()], "its own players");
    assert!(harness.query_by_label_contains(&format!("({})", stored.black)).is_some(), "named on screen");
    assert_eq!(harness.state().game().transcript(), "f5", "the player's game is kept");
    let message = harness.state().message().expect("a notice").text.clone();
    assert!(message.contains("Replaying") && message.contains("First legal"), "{message}");
    // The keys walk the replay; undo does not touch the hidden game.
    harness.key_press(egui::Key::End);
    harness.step();
    harness.key_press(egui::Key::ArrowLeft);
    harness.step();
    assert_eq!(harness.state().replay().unwrap().game.cursor(), expected.len() - 1);
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    harness.step();
    assert_eq!(harness.state().game().transcript(), "f5", "undo leaves the player's game alone");
    // Saved, the replay keeps its players (not the seats of the player's game).
    let saved = dir.path().join("replayed.ggf");
    harness.state_mut().save_game(&saved);
    let text = std::fs::read_to_string(&saved).unwrap();
    assert!(text.contains(&format!("PB[{}]PW[{}]", stored.black, stored.white)), "{text}");
    harness.get_by_label("Back to my game").click();
    harness.step();
    harness.step();
    assert!(harness.state().replay().is_none());
    assert_eq!(harness.state().game().transcript(), "f5");
    assert!(harness.query_by_label_contains("White to move (Human)").is_some(), "the player's game is back");
}

#[test]
fn a_file_that_is_not_a_ladder_is_reported_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.sqlite3");
    std::fs::write(&path, "not a ladder\n".repeat(100)).unwrap();
    let mut harness = app(Vec::new());
    harness.get_by_label("Ladder").click();
    harness.state_mut().ladder_mut().set_path(path.clone());
    wait_until(&mut harness, "the refusal", |app| app.ladder().status().is_some());
    let status = harness.state().ladder().status().unwrap().to_owned();
    assert!(status.contains("not a usable othello ladder"), "{status}");
    assert!(harness.query_by_label_contains("not a usable othello ladder").is_some());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "not a ladder\n".repeat(100));
}

#[test]
fn the_leaderboard_with_real_rows_fits_its_panel_at_1024_by_700_without_sideways_scrolling() {
    let dir = tempfile::tempdir().unwrap();
    let (plugins, path) = setup(dir.path());
    // A second entry with games, so the table has a rated row beside the anchor's.
    let mut ladder = Ladder::open(&path).unwrap();
    let pool = [
        library_identity(&plugins.join("librandom_c.so"), "Random (C)", None).unwrap(),
        library_identity(&plugins.join("libfirst_legal.so"), "First legal", None).unwrap(),
    ];
    let stop = AtomicBool::new(false);
    seed_pool(&mut ladder, &pool, &Seating::in_process(), None, 1, &stop, &mut |_| {}).unwrap();
    drop(ladder);
    let launch = Launch {
        plugin_folders: Vec::new(),
        runner: othello_testkit::runner_command(),
        options: othello_testkit::seat_options(),
        engines: Vec::new(),
    };
    let settings = Settings { animate: false, ..Settings::default() };
    let mut harness = Harness::builder().with_size([1024.0, 700.0]).build_eframe(move |cc| {
        OthelloApp::with_config(&cc.egui_ctx, settings, FolderSource::Exact(vec![plugins]), &launch)
    });
    harness.get_by_label("Ladder").click();
    harness.state_mut().ladder_mut().set_path(path);
    wait_until(&mut harness, "the leaderboard with two rows", |app| {
        app.ladder().board().is_some_and(|b| b.rows.len() == 2 && b.rows.iter().all(|r| r.games > 0))
    });
    harness.run_steps(4);
    let board = harness.state().ladder().board().unwrap().clone();
    for row in &board.rows {
        assert!(harness.query_by_label(&row.rating_text()).is_some(), "row {} shown: {}", row.name, row.rating_text());
    }
    assert!(
        !harness.state().ladder().table_overflows(),
        "the leaderboard scrolls sideways at 1024x700: {:?}",
        board.rows.iter().map(|r| (r.name.clone(), r.rating_text())).collect::<Vec<_>>()
    );
}

#[test]
fn the_leaderboard_still_fits_when_the_window_grows_to_1920_by_1080_after_a_smaller_one() {
    let dir = tempfile::tempdir().unwrap();
    let (plugins, path) = setup(dir.path());
    let mut ladder = Ladder::open(&path).unwrap();
    let pool = [
        library_identity(&plugins.join("librandom_c.so"), "Random (C)", None).unwrap(),
        library_identity(&plugins.join("libfirst_legal.so"), "First legal", None).unwrap(),
    ];
    let stop = AtomicBool::new(false);
    seed_pool(&mut ladder, &pool, &Seating::in_process(), None, 1, &stop, &mut |_| {}).unwrap();
    drop(ladder);
    let launch = Launch {
        plugin_folders: Vec::new(),
        runner: othello_testkit::runner_command(),
        options: othello_testkit::seat_options(),
        engines: Vec::new(),
    };
    let settings = Settings { animate: false, ..Settings::default() };
    // The panel's width is first set in a small window (760x520, the smallest), where the table
    // scrolls; in a large one with text 1.3x larger the remembered width alone would be too narrow.
    let mut harness = Harness::builder().with_size([760.0, 520.0]).build_eframe(move |cc| {
        OthelloApp::with_config(&cc.egui_ctx, settings, FolderSource::Exact(vec![plugins]), &launch)
    });
    harness.get_by_label("Ladder").click();
    harness.state_mut().ladder_mut().set_path(path);
    wait_until(&mut harness, "the leaderboard with two rows", |app| {
        app.ladder().board().is_some_and(|b| b.rows.len() == 2 && b.rows.iter().all(|r| r.games > 0))
    });
    harness.run_steps(4);
    harness.set_size(egui::vec2(1920.0, 1080.0));
    harness.run_steps(6);
    assert!(harness.state().growth() > 1.2, "text grows in a 1920x1080 window");
    assert!(!harness.state().ladder().table_overflows(), "the leaderboard scrolls sideways at 1920x1080");
}
