//! The desktop app driven through its accessibility tree with egui_kittest: clicks on board cells
//! by their square names, buttons, text fields and keys, against real bot libraries compiled from C.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use othello_app::catalog::FolderSource;
use othello_app::{Ending, Game, Launch, OthelloApp, SeatChoice, Settings};
use othello_arena::seat::Termination;
use othello_sdk::{Color, Move, Position, parse_transcript_from};

/// How long a test waits for a bot before it fails.
const BOT_WAIT: Duration = Duration::from_secs(20);

/// A well-behaved bot: plays its first legal move.
pub(super) fn first_legal_bot() -> PathBuf {
    othello_testkit::fixture("first_legal")
}

/// Plays first legal moves as white; dereferences NULL as soon as it plays black.
fn crashing_bot() -> PathBuf {
    othello_testkit::fixture("segfault")
}

pub(super) fn bot(path: &Path) -> SeatChoice {
    SeatChoice::Bot { path: path.to_owned(), level: None }
}

/// The real app with `settings`, scanning only `folders`, in a window big enough for every panel.
/// Bots run in runner processes, as in the app.
pub(super) fn app(settings: Settings, folders: Vec<PathBuf>) -> Harness<'static, OthelloApp> {
    let launch = Launch {
        plugin_folders: Vec::new(),
        runner: othello_testkit::runner_command(),
        options: othello_testkit::seat_options(),
        engines: Vec::new(),
    };
    Harness::builder()
        .with_size([1200.0, 800.0])
        .build_eframe(move |cc| OthelloApp::with_config(&cc.egui_ctx, settings, FolderSource::Exact(folders), &launch))
}

pub(super) fn humans() -> Settings {
    Settings { animate: false, ..Settings::default() }
}

/// Runs the app until it is idle: no repaint pending, every answer that arrived handled. Waits on
/// that event, not on a number of frames: a busy machine may deliver a bot's answer in the middle
/// (each answer asks for a frame of its own), which is a reason to go on, not to fail.
pub(super) fn settle(harness: &mut Harness<'_, OthelloApp>) {
    let started = Instant::now();
    while harness.try_run().is_err() {
        assert!(started.elapsed() < BOT_WAIT, "the app kept asking for frames for {BOT_WAIT:?}");
    }
}

/// Steps the app until `done` holds, letting worker threads answer in between.
pub(super) fn wait_until(harness: &mut Harness<'_, OthelloApp>, what: &str, done: impl Fn(&OthelloApp) -> bool) {
    let started = Instant::now();
    while !done(harness.state()) {
        assert!(started.elapsed() < BOT_WAIT, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(5));
        harness.step();
    }
    harness.step();
}

fn position_after(transcript: &str) -> Position {
    parse_transcript_from(Position::start(), transcript).unwrap().1
}

fn paste_transcript(harness: &mut Harness<'_, OthelloApp>, text: &str) {
    let field = harness.get_by_label("Paste a transcript");
    field.focus();
    harness.step();
    // Replace whatever the field holds.
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness.step();
    harness.get_by_label("Paste a transcript").type_text(text);
    harness.step();
    harness.get_by_role_and_label(Role::Button, "Load transcript").click();
    settle(harness);
    // Replacing a game in progress asks first.
    if harness.state().confirmation().is_some() {
        harness.get_by_role_and_label(Role::Button, "Load").click();
        settle(harness);
    }
}

/// A stand-in bot compiled from `tests/bots/standin.c` with these `-D` definitions, into a folder
/// of its own named `tag` (so a test can scan just it).
pub(super) fn standin_bot(tag: &str, defines: &[(&str, &str)]) -> PathBuf {
    let folder = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("app-ui-bots-{tag}"));
    std::fs::create_dir_all(&folder).unwrap();
    let library = folder.join(format!("lib{tag}.so"));
    let partial = library.with_extension(format!("so.{}.partial", std::process::id()));
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let status = std::process::Command::new("cc")
        .args(["-O1", "-shared", "-fPIC", "-w", "-I"])
        .arg(manifest.join("../../sdk/include"))
        .args(defines.iter().map(|(name, value)| format!("-D{name}={value}")))
        .arg(manifest.join("tests/bots/standin.c"))
        .arg("-o")
        .arg(&partial)
        .status()
        .expect("the C compiler `cc` runs");
    assert!(status.success(), "compiling the stand-in bot failed");
    std::fs::rename(&partial, &library).unwrap();
    library
}

/// New game, confirmed if a game in progress makes the app ask (a bot may be thinking: no settle).
pub(super) fn start_new_game(harness: &mut Harness<'_, OthelloApp>) {
    harness.get_by_role_and_label(Role::Button, "New game").click();
    harness.step();
    if harness.state().confirmation().is_some() {
        harness.step();
        harness.get_by_role_and_label(Role::Button, "Start new game").click();
        harness.step();
    }
}

pub(super) fn is_enabled(harness: &Harness<'_, OthelloApp>, button: &str) -> bool {
    !harness.get_by_role_and_label(Role::Button, button).accesskit_node().is_disabled()
}

#[test]
fn human_plays_a_legal_cell_by_its_label_and_the_bot_answers() {
    let settings = Settings { white: bot(&first_legal_bot()), ..humans() };
    let mut harness = app(settings, Vec::new());

    harness.get_by_label("d3").click();
    wait_until(&mut harness, "the bot's reply", |app| app.game().moves().len() == 2);

    let game = harness.state().game();
    assert_eq!(game.transcript(), "d3c3", "c3 is white's first legal move in square order");
    assert_eq!(game.live().side_to_move(), Color::Black, "the human's turn again");
    assert!(harness.query_by_label_contains("Black to move").is_some());
}

#[test]
fn an_illegal_click_changes_nothing() {
    let mut harness = app(humans(), Vec::new());
    for square in ["a1", "d4", "e5", "c3"] {
        harness.get_by_label(square).click();
        settle(&mut harness);
    }
    assert!(harness.state().game().moves().is_empty());
    assert_eq!(harness.state().game().live(), Position::start());
    assert!(harness.state().message().is_none());

    harness.get_by_label("f5").click();
    settle(&mut harness);
    assert_eq!(harness.state().game().live(), position_after("f5"));
}

/// After these moves Black has no legal move.
const BLACK_MUST_PASS: &str = "d3c3b3b2f5a3a1c1";
const PASS_NOTICE: &str = "Black has no legal move and passes";

#[test]
fn a_pass_stays_on_screen_until_acknowledged_or_the_next_move() {
    let mut harness = app(humans(), Vec::new());
    paste_transcript(&mut harness, BLACK_MUST_PASS);
    let game = harness.state().game();
    assert_eq!(game.moves().last().map(|m| (m.mv, m.color)), Some((Move::Pass, Color::Black)));
    assert!(harness.query_by_label(PASS_NOTICE).is_some());
    assert!(harness.query_by_label_contains("White 4 discs (Human), to move").is_some(), "the side to move is marked");
    // Not a flash: it stays however many frames go by.
    for _ in 0..5 {
        harness.step();
    }
    assert!(harness.query_by_label(PASS_NOTICE).is_some());
    harness.get_by_role_and_label(Role::Button, "OK").click();
    settle(&mut harness);
    assert!(harness.query_by_label(PASS_NOTICE).is_none(), "acknowledged");

    // The next move ends it too.
    paste_transcript(&mut harness, BLACK_MUST_PASS);
    assert!(harness.query_by_label(PASS_NOTICE).is_some());
    let square = harness.state().game().live().legal_moves().into_iter().next().unwrap();
    harness.get_by_label(&square.to_string()).click();
    settle(&mut harness);
    assert!(harness.query_by_label(PASS_NOTICE).is_none());

    // Against a bot that answers at once, the human's pass stays until the human moves.
    let settings = Settings { white: bot(&first_legal_bot()), ..humans() };
    let mut harness = app(settings, Vec::new());
    paste_transcript(&mut harness, BLACK_MUST_PASS);
    wait_until(&mut harness, "the bot's move after the pass", |app| app.game().moves().len() == 10);
    settle(&mut harness);
    assert!(harness.query_by_label(PASS_NOTICE).is_some(), "still shown after the bot moved");
}

#[test]
fn disc_counts_mark_the_side_to_move() {
    let mut harness = app(humans(), Vec::new());
    assert!(harness.query_by_label("Black 2 discs (Human), to move").is_some());
    assert!(harness.query_by_label("White 2 discs (Human)").is_some());
    harness.get_by_label("f5").click();
    settle(&mut harness);
    assert!(harness.query_by_label("Black 4 discs (Human)").is_some());
    assert!(harness.query_by_label("White 1 discs (Human), to move").is_some());
}

#[test]
fn a_bad_pasted_transcript_shows_what_is_wrong_and_keeps_the_game() {
    let mut harness = app(humans(), Vec::new());
    harness.get_by_label("f5").click();
    settle(&mut harness);

    paste_transcript(&mut harness, "f5d6a1");
    let message = harness.state().message().expect("a message").clone();
    assert!(message.is_error);
    assert!(message.text.contains("move 3") && message.text.contains("a1"), "{}", message.text);
    assert!(harness.query_by_label_contains("Transcript not loaded: move 3").is_some());
    assert_eq!(harness.state().game().transcript(), "f5", "the game is kept");

    paste_transcript(&mut harness, "f5 d6 zz");
    assert!(harness.query_by_label_contains("`zz` is not a move").is_some());
    assert_eq!(harness.state().game().transcript(), "f5");
}

#[test]
fn a_game_against_a_crashing_bot_ends_with_the_forfeit_banner_and_the_app_goes_on() {
    // The bot plays black, so it moves (and crashes) first.
    let settings = Settings { black: bot(&crashing_bot()), ..humans() };
    let mut harness = app(settings, Vec::new());
    wait_until(&mut harness, "the forfeit", |app| app.game().is_over());

    let Some(Ending::Forfeit { loser, failure }) = harness.state().game().ending().cloned() else {
        panic!("expected a forfeit, got {:?}", harness.state().game().ending());
    };
    assert_eq!((loser, failure.termination), (Color::Black, Termination::Crash));
    assert!(failure.detail.contains("signal"), "{}", failure.detail);
    assert!(harness.query_by_label_contains("White wins by forfeit — Black lost by crash").is_some());

    // The app keeps running: a new game starts normally.
    harness.get_by_role_and_label(Role::Button, "New game").click();
    harness.step();
    assert!(!harness.state().game().is_over());
    assert_eq!(harness.state().game().live(), Position::start());
}

#[test]
fn replay_navigation_shows_the_right_position() {
    let mut harness = app(humans(), Vec::new());
    paste_transcript(&mut harness, "f5d6c3d3c4");
    let game = |h: &Harness<'_, OthelloApp>| -> Game { h.state().game().clone() };
    assert_eq!(game(&harness).viewed(), position_after("f5d6c3d3c4"));

    harness.get_by_label("|<").click();
    settle(&mut harness);
    assert_eq!(game(&harness).viewed(), Position::start());
    assert!(harness.query_by_label("Viewing move 0 of 5").is_some());

    harness.get_by_label(">").click();
    settle(&mut harness);
    harness.get_by_label(">").click();
    settle(&mut harness);
    assert_eq!(game(&harness).viewed(), position_after("f5d6"));

    harness.key_press(egui::Key::ArrowLeft);
    settle(&mut harness);
    assert_eq!(game(&harness).viewed(), position_after("f5"));

    harness.get_by_label("4. W d3").click();
    settle(&mut harness);
    assert_eq!(game(&harness).viewed(), position_after("f5d6c3d3"));
    // The board cannot be played on while it shows the past.
    harness.get_by_label("e3").click();
    settle(&mut harness);
    assert_eq!(game(&harness).moves().len(), 5);

    harness.get_by_label(">|").click();
    settle(&mut harness);
    assert_eq!(game(&harness).viewed(), position_after("f5d6c3d3c4"));

    // The transcript goes to the clipboard.
    harness.get_by_role_and_label(Role::Button, "Copy transcript").click();
    harness.step();
    let copied = harness
        .output()
        .platform_output
        .commands
        .iter()
        .any(|command| matches!(command, egui::OutputCommand::CopyText(text) if text == "f5d6c3d3c4"));
    assert!(copied, "{:?}", harness.output().platform_output.commands);
    settle(&mut harness);

    // Play on from a past position: later moves are dropped.
    harness.get_by_label("2. W d6").click();
    settle(&mut harness);
    harness.get_by_label("Play on from here").click();
    settle(&mut harness);
    assert_eq!(game(&harness).transcript(), "f5d6");
    harness.get_by_label("c5").click();
    settle(&mut harness);
    assert_eq!(game(&harness).transcript(), "f5d6c5");
}

fn set_text(harness: &mut Harness<'_, OthelloApp>, label: &str, text: &str) {
    harness.get_by_label(label).focus();
    harness.step();
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness.step();
    harness.get_by_label(label).type_text(text);
    settle(harness);
}

#[test]
fn a_game_saved_as_ggf_in_progress_or_finished_opens_again_and_a_broken_file_keeps_the_game() {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("app-ui-saved.ggf");
    let _ = std::fs::remove_file(&path);
    let mut harness = app(humans(), Vec::new());
    for square in ["f5", "d6", "c3"] {
        harness.get_by_label(square).click();
        settle(&mut harness);
    }
    set_text(&mut harness, "Game file", path.to_str().unwrap());
    harness.get_by_role_and_label(Role::Button, "Save").click();
    settle(&mut harness);
    let saved = std::fs::read_to_string(&path).unwrap();
    assert!(saved.starts_with("(;GM[Othello]") && !saved.contains("RE["), "unfinished, so no result: {saved}");

    harness.get_by_role_and_label(Role::Button, "New game").click();
    settle(&mut harness);
    // The game in progress is not thrown away without a yes.
    assert!(harness.query_by_label("Start a new game?").is_some());
    harness.get_by_role_and_label(Role::Button, "Cancel").click();
    settle(&mut harness);
    assert_eq!(harness.state().game().transcript(), "f5d6c3");
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::N);
    settle(&mut harness);
    harness.get_by_role_and_label(Role::Button, "Start new game").click();
    settle(&mut harness);
    assert!(harness.state().game().moves().is_empty());
    harness.get_by_role_and_label(Role::Button, "Open").click();
    settle(&mut harness);
    // A game saved in progress opens at the same position with the same moves, and goes on.
    let message = harness.state().message().unwrap().clone();
    assert!(!message.is_error && message.text.starts_with("Opened"), "{}", message.text);
    let game = harness.state().game();
    assert_eq!(game.transcript(), "f5d6c3");
    assert_eq!(game.live(), position_after("f5d6c3"));
    assert!(!game.is_over() && game.is_viewing_live());
    assert!(harness.query_by_label_contains("White to move").is_some());
    harness.get_by_label("|<").click();
    settle(&mut harness);
    assert_eq!(harness.state().game().viewed(), Position::start(), "its moves replay");
    harness.get_by_label(">|").click();
    settle(&mut harness);
    harness.get_by_label("d3").click();
    settle(&mut harness);
    assert_eq!(harness.state().game().transcript(), "f5d6c3d3", "and it can be played on");

    // A finished game round-trips exactly; saving over the file asks first.
    paste_transcript(&mut harness, "d3c3b3d2e1d6d7e3f4");
    assert!(harness.state().game().is_over());
    harness.get_by_role_and_label(Role::Button, "Save").click();
    settle(&mut harness);
    assert!(matches!(harness.state().confirmation(), Some(othello_app::Confirm::Overwrite(_))), "the file exists");
    assert!(harness.query_by_role_and_label(Role::Button, "Replace").is_some());
    harness.get_by_role_and_label(Role::Button, "Cancel").click();
    settle(&mut harness);
    assert!(std::fs::read_to_string(&path).unwrap().contains("B[f5"), "not replaced");
    harness.get_by_role_and_label(Role::Button, "Save").click();
    settle(&mut harness);
    harness.get_by_role_and_label(Role::Button, "Replace").click();
    settle(&mut harness);
    assert!(std::fs::read_to_string(&path).unwrap().contains("B[f4"), "replaced");
    harness.get_by_role_and_label(Role::Button, "New game").click();
    settle(&mut harness);
    harness.get_by_role_and_label(Role::Button, "Open").click();
    settle(&mut harness);
    assert_eq!(harness.state().game().transcript(), "d3c3b3d2e1d6d7e3f4");
    assert!(harness.query_by_label_contains("Black wins 64–0").is_some());

    std::fs::write(
        &path,
        "(;GM[Othello]BO[8 ---------------------------O*------*O--------------------------- *]B[a1];)",
    )
    .unwrap();
    harness.get_by_role_and_label(Role::Button, "Open").click();
    settle(&mut harness);
    let message = harness.state().message().unwrap();
    assert!(message.is_error && message.text.starts_with("Not opened"), "{}", message.text);
    assert_eq!(harness.state().game().transcript(), "d3c3b3d2e1d6d7e3f4", "the game is kept");
}

#[test]
fn bot_against_bot_pauses_and_steps_one_move_at_a_time() {
    let first_legal = first_legal_bot();
    // A long delay between moves: nothing happens on its own during the test.
    let settings = Settings { black: bot(&first_legal), white: bot(&first_legal), bot_delay_ms: 60_000, ..humans() };
    let mut harness = app(settings, Vec::new());
    assert!(harness.query_by_label_contains("Paused").is_none());
    harness.get_by_role_and_label(Role::Button, "Pause").click();
    settle(&mut harness);
    assert!(harness.query_by_role_and_label(Role::Button, "Resume").is_some());
    assert!(harness.query_by_label_contains("Paused").is_some(), "the pause is shown");

    for expected in 1..=3 {
        harness.get_by_role_and_label(Role::Button, "Step").click();
        wait_until(&mut harness, "a stepped move", |app| app.game().moves().len() == expected);
        std::thread::sleep(Duration::from_millis(50));
        harness.step();
        assert_eq!(harness.state().game().moves().len(), expected, "one move per step");
    }
    assert_eq!(harness.state().game().transcript(), "d3c3b3", "each bot moves in turn");
}

#[test]
fn a_match_runs_in_the_background_with_standings_and_exports_its_games() {
    // A plugin folder of its own: a good bot and one that crashes whenever it plays black.
    let folder = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("app-ui-match-plugins");
    std::fs::create_dir_all(&folder).unwrap();
    for bot in [first_legal_bot(), crashing_bot()] {
        std::fs::copy(&bot, folder.join(bot.file_name().unwrap())).unwrap();
    }
    let mut harness = app(humans(), vec![folder]);
    harness.get_by_label("Matches").click();
    wait_until(&mut harness, "the plugin scan", |app| app.plugins().iter().filter(|p| p.is_ok()).count() == 2);
    harness.get_by_label_contains("First legal").click();
    settle(&mut harness);
    harness.get_by_label_contains("Segfault").click();
    settle(&mut harness);
    harness.get_by_role_and_label(Role::Button, "Start match").click();
    wait_until(&mut harness, "the match", |app| !app.matches().is_running() && !app.matches().finished().is_empty());

    let matches = harness.state().matches();
    assert_eq!(matches.finished().len(), 10, "the default 10 games");
    let standings = matches.standings().unwrap();
    let row = |name: &str| standings.rows.iter().find(|r| r.name == name).unwrap();
    // The crashing bot loses every game it plays black (5), and no game as white.
    assert_eq!(row("Segfault").failures, 5);
    assert!(row("First legal").score.wdl.wins >= 5, "it wins at least the games its opponent forfeits");
    assert!(harness.query_by_label("Standings").is_some());

    let export = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("app-ui-match.ggf");
    set_text(&mut harness, "Export file", export.to_str().unwrap());
    // As assistive technology clicks it: below the tables it lies under the panel's fold.
    harness.get_by_role_and_label(Role::Button, "Export GGF").click_accesskit();
    settle(&mut harness);
    let games = othello_arena::ggf::read_file(&export).unwrap();
    assert_eq!(games.len(), 10);
}

#[test]
fn the_plugins_panel_lists_libraries_with_their_status_and_notices_new_ones() {
    let folder = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("app-ui-rescan-plugins");
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).unwrap();
    let mut harness = app(humans(), vec![folder.clone()]);
    harness.get_by_label("Plugins").click();
    settle(&mut harness);
    wait_until(&mut harness, "the first scan", |app| !app.is_scanning_plugins());
    assert!(harness.query_by_label("No libraries found in the folders below.").is_some());
    assert!(harness.query_by_label(folder.to_str().unwrap()).is_some(), "the folder is listed");
    // The sandbox's layers on this machine, as the runner reports them, each active or missing.
    let layers = othello_arena::seat::sandbox_report(&othello_testkit::runner_command()).unwrap();
    assert!(!layers.is_empty());
    assert!(harness.query_by_label("Sandbox of the bots").is_some());
    for layer in &layers {
        let line =
            if layer.is_active() { format!("{}: active", layer.name) } else { format!("{}: MISSING", layer.name) };
        assert!(harness.query_by_label_contains(&line).is_some(), "{line}");
    }

    // Added while the app runs: found by the automatic rescan.
    let good = first_legal_bot();
    std::fs::copy(&good, folder.join("libgood.so")).unwrap();
    std::fs::write(folder.join("libnotes.so"), "not a library").unwrap();
    wait_until(&mut harness, "the rescan", |app| app.plugins().len() == 2);
    assert!(harness.query_by_label("First legal").is_some());
    assert!(harness.query_by_label_contains("not a loadable library").is_some());

    // Removed: gone after the next rescan.
    std::fs::remove_file(folder.join("libnotes.so")).unwrap();
    wait_until(&mut harness, "the rescan", |app| app.plugins().len() == 1);
}

#[test]
fn undo_takes_back_to_the_humans_turn_and_redo_replays() {
    let settings = Settings { white: bot(&first_legal_bot()), ..humans() };
    let mut harness = app(settings, Vec::new());
    harness.get_by_label("d3").click();
    wait_until(&mut harness, "the bot's reply", |app| app.game().moves().len() == 2);

    // Undo takes back the bot's reply and the human's move: the human is to move again.
    harness.get_by_role_and_label(Role::Button, "Undo").click();
    settle(&mut harness);
    assert!(harness.state().game().moves().is_empty());
    assert!(harness.query_by_label_contains("Black to move").is_some());

    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Y);
    settle(&mut harness);
    assert_eq!(harness.state().game().transcript(), "d3c3", "redo replays both moves");

    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    settle(&mut harness);
    // A different move: the bot answers it.
    harness.get_by_label("f5").click();
    wait_until(&mut harness, "the bot's reply", |app| app.game().moves().len() == 2);
    assert!(harness.state().game().transcript().starts_with("f5"));
    assert!(!harness.state().game().can_redo(), "a new move drops the redo line");
}

/// The one runner of `library` this test process has, once it is thinking.
fn thinking_runner(harness: &mut Harness<'_, OthelloApp>, library: &Path) -> u32 {
    wait_until(harness, "the bot to think", |app| app.session().thinking().is_some());
    let runners = othello_testkit::runners_of(library);
    assert_eq!(runners.len(), 1, "one runner for the one bot seat: {runners:?}");
    runners[0]
}

fn assert_ended(runner: u32, after: &str) {
    assert!(othello_testkit::wait_until_gone(runner), "the runner {runner} kept running after {after}");
}

#[test]
fn an_abandoned_think_ends_its_runner_and_the_next_game_gets_a_fresh_one() {
    // Black never answers and the time per move is unlimited: only stopping ends its runner.
    let hang = othello_testkit::fixture("hang");
    let settings = Settings { black: bot(&hang), time_per_move_ms: 0, ..humans() };
    let mut harness = app(settings, Vec::new());
    let first = thinking_runner(&mut harness, &hang);

    start_new_game(&mut harness);
    assert_ended(first, "New game");
    let second = thinking_runner(&mut harness, &hang);
    assert_ne!(second, first, "the new game has a fresh runner");

    // Undo while the bot thinks: after f5 d6 (the human plays white) black is to move again.
    paste_transcript(&mut harness, "f5d6");
    assert_ended(second, "loading a transcript");
    let third = thinking_runner(&mut harness, &hang);
    harness.get_by_role_and_label(Role::Button, "Undo").click();
    harness.step();
    assert_ended(third, "Undo");
    assert_eq!(harness.state().game().transcript(), "f5", "back to the human's turn");

    // Abort while the bot thinks.
    start_new_game(&mut harness);
    let fourth = thinking_runner(&mut harness, &hang);
    harness.get_by_role_and_label(Role::Button, "Abort").click();
    harness.step();
    assert_ended(fourth, "Abort");

    // A seat change while the bot thinks; the new player then plays normally.
    start_new_game(&mut harness);
    let fifth = thinking_runner(&mut harness, &hang);
    harness.state_mut().set_seat(Color::Black, bot(&first_legal_bot()));
    harness.step();
    assert_ended(fifth, "a seat change");
    wait_until(&mut harness, "the new bot's move", |app| app.game().moves().len() == 1);
    assert_eq!(harness.state().game().transcript(), "d3", "d3 is black's first legal move in square order");

    // Closing the app ends a think too.
    harness.state_mut().set_seat(Color::Black, bot(&hang));
    harness.state_mut().new_game();
    let sixth = thinking_runner(&mut harness, &hang);
    drop(harness);
    assert_ended(sixth, "the app closed");
}

#[test]
fn a_newcomer_plays_black_against_alpha_beta_at_a_middle_level_with_a_hint() {
    let launch = Launch {
        plugin_folders: Vec::new(),
        runner: othello_testkit::runner_command(),
        options: othello_testkit::seat_options(),
        engines: Vec::new(),
    };
    let first_run = |folder: PathBuf| {
        let launch = launch.clone();
        Harness::builder()
            .with_size([1200.0, 800.0])
            .build_eframe(move |cc| OthelloApp::first_run(&cc.egui_ctx, FolderSource::Exact(vec![folder]), &launch))
    };
    let alpha_beta = standin_bot("alpha-beta", &[("BOT_NAME", "\"Alpha-beta\""), ("BOT_LEVELS", "10")]);
    let other = standin_bot("newcomer-other", &[("BOT_NAME", "\"Other\""), ("BOT_LEVELS", "3")]);
    std::fs::copy(&other, alpha_beta.parent().unwrap().join("libother.so")).unwrap();

    let mut harness = first_run(alpha_beta.parent().unwrap().to_owned());
    wait_until(&mut harness, "the newcomer's opponent", |app| !app.settings().white.is_human());
    settle(&mut harness);
    let settings = harness.state().settings();
    assert!(settings.black.is_human());
    let SeatChoice::Bot { path, level } = &settings.white else { unreachable!() };
    assert_eq!((path.file_name().unwrap().to_str().unwrap(), *level), ("libalpha-beta.so", Some(5)));
    assert!(harness.query_by_label_contains("Click a dotted square to move").is_some(), "the hint");
    assert!(
        harness.query_by_label_contains("level 5 of 10: looks 4 moves ahead").is_some(),
        "the level says what it means"
    );
    // The hint's promise holds: the dotted squares are moves, and the bot answers.
    harness.get_by_label("f5").click();
    wait_until(&mut harness, "the bot's answer", |app| app.game().moves().len() == 2);
    // Once Black is a bot too, the welcome line no longer says "You play Black".
    assert!(harness.state().message().unwrap().text.starts_with("You play Black"));
    let other_bot = SeatChoice::Bot { path: alpha_beta.parent().unwrap().join("libother.so"), level: Some(1) };
    harness.state_mut().set_seat(Color::Black, other_bot);
    harness.step();
    let message = harness.state().message().unwrap().text.clone();
    assert!(!message.contains("You play Black") && message.contains("plays Black"), "{message}");

    // Without the alpha-beta bot: the bot with the most levels, at its middle level.
    let mut harness = first_run(other.parent().unwrap().to_owned());
    wait_until(&mut harness, "the fallback opponent", |app| !app.settings().white.is_human());
    assert!(matches!(&harness.state().settings().white, SeatChoice::Bot { level: Some(2), .. }));
    assert!(harness.query_by_label_contains("level 2 of 3 (higher is stronger)").is_some());

    // No bot at all: two humans, and the app says where bots come from.
    let empty = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("app-ui-no-bots");
    std::fs::create_dir_all(&empty).unwrap();
    let mut harness = first_run(empty);
    wait_until(&mut harness, "the first scan", |app| !app.is_scanning_plugins());
    settle(&mut harness);
    assert!(harness.state().settings().white.is_human());
    assert!(harness.state().message().unwrap().text.contains("No bot found"));
}

#[test]
fn the_menu_bar_lists_the_commands_with_their_shortcuts() {
    let mut harness = app(humans(), Vec::new());
    for menu in ["Game", "Edit", "View", "Help"] {
        assert!(harness.query_by_role_and_label(Role::Button, menu).is_some(), "{menu} menu");
    }
    harness.get_by_role_and_label(Role::Button, "Help").click();
    settle(&mut harness);
    harness.get_by_label("Keyboard shortcuts").click();
    settle(&mut harness);
    for (keys, what) in [
        ("Ctrl+N", "Pause / resume the game (its bots and its clock)"),
        ("Ctrl+Z", "Copy the transcript"),
        ("Ctrl+O", "Open a game file"),
    ] {
        assert!(harness.query_by_label(keys).is_some(), "{keys}");
        assert!(harness.query_by_label(what).is_some(), "{what}");
    }
    // The Game menu.
    harness.get_by_label("f5").click();
    settle(&mut harness);
    harness.get_by_role_and_label(Role::Button, "Game").click();
    settle(&mut harness);
    // Its commands are there besides the toolbar's.
    assert_eq!(harness.query_all_by_role_and_label(Role::Button, "Swap colours").count(), 2);
    let open = harness.query_all_by_label_contains("Open…").map(|n| format!("{n:?}")).collect::<Vec<_>>();
    assert!(!open.is_empty() && open.iter().any(|n| n.contains("Ctrl+O")), "{open:?}");
    harness.key_press(egui::Key::Escape);
    settle(&mut harness);
    // The shortcut does what the menu says, asking first as the game is under way.
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::N);
    settle(&mut harness);
    assert!(harness.query_by_label("Start a new game?").is_some());
}

#[test]
fn resign_asks_first_is_unavailable_before_the_first_move_and_undo_takes_it_back() {
    let mut harness = app(humans(), Vec::new());
    assert!(!is_enabled(&harness, "Resign"), "nothing to resign before the first move");
    harness.get_by_label("f5").click();
    settle(&mut harness);
    assert!(is_enabled(&harness, "Resign"));
    harness.get_by_role_and_label(Role::Button, "Resign").click();
    settle(&mut harness);
    assert!(harness.query_by_label("Resign as White?").is_some());
    harness.get_by_role_and_label(Role::Button, "Cancel").click();
    settle(&mut harness);
    assert!(!harness.state().game().is_over(), "cancelled");
    harness.get_by_role_and_label(Role::Button, "Resign").click();
    settle(&mut harness);
    harness.get_by_role_and_label(Role::Button, "Resign now").click();
    settle(&mut harness);
    assert_eq!(harness.state().game().ending(), Some(&Ending::Resigned(Color::White)));
    assert!(harness.query_by_label_contains("White resigned: Black wins").is_some());

    // Undo takes the resignation back: same position, no result, White to move and able to.
    harness.get_by_role_and_label(Role::Button, "Undo").click();
    settle(&mut harness);
    let game = harness.state().game();
    assert!(!game.is_over() && game.transcript() == "f5");
    assert!(harness.query_by_label_contains("White resigned").is_none(), "the banner is gone");
    harness.get_by_label("d6").click();
    settle(&mut harness);
    assert_eq!(harness.state().game().transcript(), "f5d6");
}

#[test]
fn undo_after_a_finished_game_reopens_it_and_the_bot_plays_on() {
    let settings = Settings { white: bot(&first_legal_bot()), ..humans() };
    let mut harness = app(settings, Vec::new());
    // Black wipes White out at move 9 (Black is the human).
    paste_transcript(&mut harness, "d3c3b3d2e1d6d7e3f4");
    assert!(harness.query_by_label_contains("Black wins 64–0").is_some());
    harness.get_by_role_and_label(Role::Button, "Undo").click();
    settle(&mut harness);
    let game = harness.state().game();
    assert_eq!((game.transcript().as_str(), game.is_over()), ("d3c3b3d2e1d6d7e3", false));
    assert!(harness.query_by_label_contains("Black wins 64").is_none(), "the result banner is gone");
    // Another move this time: the bot answers as in any game.
    let other = harness.state().game().live().legal_moves().into_iter().find(|s| s.to_string() != "f4").unwrap();
    harness.get_by_label(&other.to_string()).click();
    wait_until(&mut harness, "the bot's answer", |app| app.game().moves().len() == 10 || app.game().is_over());
}

#[test]
fn evaluations_read_for_black_in_the_read_out_and_the_graph_alike() {
    // White reports +3 from its own point of view: -3 for Black.
    let white = standin_bot("eval-plus-three", &[("BOT_EVAL", "3")]);
    let settings = Settings { white: bot(&white), ..humans() };
    let mut harness = app(settings, Vec::new());
    let eval_value = |harness: &Harness<'_, OthelloApp>| {
        let row = harness.get_by_label("Eval");
        let value = harness
            .query_all_by_label_contains("-3.0")
            .chain(harness.query_all_by_label_contains("—"))
            .find(|n| (n.rect().center().y - row.rect().center().y).abs() < 2.0)
            .expect("the value next to its label");
        (value.value().unwrap_or_default(), value.rect().right())
    };
    let (before, width_before) = eval_value(&harness);
    assert_eq!(before.trim(), "—");
    harness.get_by_label("d3").click();
    wait_until(&mut harness, "the bot's reply", |app| app.game().moves().len() == 2);
    settle(&mut harness);
    let (after, width_after) = eval_value(&harness);
    assert_eq!(after.trim(), "-3.0");
    assert_eq!(width_before, width_after, "the value's right edge stays put as it changes");
    assert!(harness.query_by_label_contains("Evaluation graph, move 2: -3.0 discs for Black").is_some());
}

/// The real app scanning `folder`, on the Matches tab once both of its bots are found.
fn matches_tab(settings: Settings, folder: PathBuf, bots: usize) -> Harness<'static, OthelloApp> {
    let mut harness = app(settings, vec![folder]);
    harness.get_by_label("Matches").click();
    wait_until(&mut harness, "the plugin scan", |app| app.plugins().iter().filter(|p| p.is_ok()).count() == bots);
    settle(&mut harness);
    harness
}

#[test]
fn a_clean_sweep_shows_a_finite_honest_elo() {
    let good = standin_bot("sweep-good", &[("BOT_NAME", "\"Good\"")]);
    let bad = standin_bot("sweep-bad", &[("BOT_NAME", "\"Bad\""), ("BOT_ILLEGAL", "1")]);
    std::fs::copy(&bad, good.parent().unwrap().join("libsweep-bad.so")).unwrap();
    let mut settings = humans();
    settings.matches.games = 4;
    let mut harness = matches_tab(settings, good.parent().unwrap().to_owned(), 2);
    harness.get_by_label_contains("Good").click();
    settle(&mut harness);
    harness.get_by_label_contains("Bad").click();
    settle(&mut harness);
    harness.get_by_role_and_label(Role::Button, "Start match").click();
    wait_until(&mut harness, "the match", |app| !app.matches().is_running() && !app.matches().finished().is_empty());
    settle(&mut harness);
    let standings = harness.state().matches().standings().unwrap();
    assert_eq!(standings.rows[0].score.wdl.wins, 4, "every game won");
    // 4 straight wins: the score rate is above 0.05^(1/4) = 0.473 (-18.9 Elo) with 95 % confidence,
    // a bound said in words (the project's one Elo format).
    assert!(harness.query_by_label("at least -18.9 (no losses yet)").is_some(), "a lower bound, not +inf");
    assert!(harness.query_by_label("at most +18.9 (no wins yet)").is_some());
    assert!(harness.query_by_label_contains("inf").is_none());

    // A replay starts from the standard start, with the match's random opening marked.
    let plies = harness.state().settings().matches.opening_plies as usize;
    harness.query_all_by_role_and_label(Role::Button, "Replay").next().unwrap().click();
    settle(&mut harness);
    let viewer = harness.state().matches().viewer().expect("a replay on the board");
    assert_eq!((viewer.game.start(), viewer.game.opening_plies()), (Position::start(), plies));
    assert_eq!(harness.query_all_by_label_contains("(opening)").count(), plies, "the opening's moves are marked");

    // The replay can be analysed where it is shown.
    harness.state_mut().settings_mut().analysis_bot = Some(othello_testkit::fixture("analyzes"));
    harness.get_by_role_and_label(Role::Button, "Analyse").click();
    wait_until(&mut harness, "the replay's analysis", |app| {
        app.game_review().is_some_and(|r| *r.status() == othello_app::review::Status::Done)
    });
    let replayed = harness.state().matches().viewer().unwrap().game.clone();
    let review = harness.state().game_review().unwrap();
    assert!(review.is_for(&replayed), "the game on the board was analysed");
    assert_eq!(review.progress(), (replayed.moves().len(), replayed.moves().len()));
    assert!(harness.state().game().moves().is_empty(), "not the player's game");
}

#[test]
fn a_running_match_game_is_watched_live_and_a_finished_one_replayed() {
    let slow = standin_bot("watch-slow", &[("BOT_NAME", "\"Slow\""), ("BOT_THINK_MS", "25")]);
    let other = standin_bot("watch-other", &[("BOT_NAME", "\"Other\""), ("BOT_THINK_MS", "25")]);
    std::fs::copy(&other, slow.parent().unwrap().join("libwatch-other.so")).unwrap();
    let mut settings = humans();
    settings.matches.games = 2;
    settings.matches.opening_plies = 0;
    let mut harness = matches_tab(settings, slow.parent().unwrap().to_owned(), 2);
    harness.get_by_label_contains("Slow").click();
    settle(&mut harness);
    harness.get_by_label_contains("Other").click();
    settle(&mut harness);
    harness.get_by_role_and_label(Role::Button, "Start match").click();
    wait_until(&mut harness, "a game under way", |app| {
        app.matches().live_games().values().any(|g| g.game.moves().len() >= 2)
    });
    assert!(harness.query_by_label_contains("Time left").is_some(), "an ETA line while running");
    harness.get_by_role_and_label(Role::Button, "Watch").click();
    harness.step();
    let index = harness.state().matches().viewer().expect("a game on the board").index;
    let seen = harness.state().matches().viewer().unwrap().game.moves().len();
    // It follows the game as it is played.
    wait_until(&mut harness, "live moves", |app| app.matches().viewer().unwrap().game.moves().len() >= seen + 3);
    let viewed = harness.state().matches().viewer().unwrap().game.live();
    let live = harness.state().matches().live_games().get(&index).map(|g| g.game.live());
    assert!(live.is_none_or(|live| live == viewed), "the board shows the game as played");
    assert!(harness.query_by_label_contains(&format!("Match game {} (live)", index + 1)).is_some());

    wait_until(&mut harness, "the match's end", |app| !app.matches().is_running());
    settle(&mut harness);
    // The watched game ended on the board with its result.
    let viewer = harness.state().matches().viewer().unwrap();
    assert!(viewer.game.is_over());
    let finished = harness.state().matches().finished();
    let record = &finished.iter().find(|g| g.index == index).unwrap().record;
    assert_eq!(viewer.game.live(), record.final_position());

    // Replay the other game from its start.
    let other_index = finished.iter().map(|g| g.index).find(|&i| i != index).unwrap();
    let other_record = finished.iter().find(|g| g.index == other_index).unwrap().record.clone();
    let replays = harness.query_all_by_role_and_label(Role::Button, "Replay").count();
    assert_eq!(replays, 2);
    // The list shows the most recent first; find the other game's line.
    let [b, w] = other_record.result.discs;
    let line = format!("{}. {} {b}–{w} {}", other_index + 1, other_record.black, other_record.white);
    let row_y = harness.get_by_label(&line).rect().center().y;
    harness
        .query_all_by_role_and_label(Role::Button, "Replay")
        .find(|b| (b.rect().center().y - row_y).abs() < 4.0)
        .unwrap()
        .click();
    settle(&mut harness);
    let viewer = harness.state().matches().viewer().unwrap();
    assert_eq!(viewer.index, other_index);
    assert_eq!(viewer.game.viewed(), other_record.start, "a replay starts at the first position");
    // The keys walk the replay as they walk the player's game.
    harness.key_press(egui::Key::ArrowRight);
    settle(&mut harness);
    assert_eq!(harness.state().matches().viewer().unwrap().game.cursor(), 1, "Right: one move on");
    harness.key_press(egui::Key::End);
    settle(&mut harness);
    assert_eq!(harness.state().matches().viewer().unwrap().game.viewed(), other_record.final_position());
    harness.key_press(egui::Key::Home);
    settle(&mut harness);
    assert_eq!(harness.state().matches().viewer().unwrap().game.cursor(), 0, "Home: the start");
    assert!(harness.state().game().moves().is_empty(), "the player's game did not move");
    harness.get_by_label(">|").click();
    settle(&mut harness);
    assert_eq!(harness.state().matches().viewer().unwrap().game.viewed(), other_record.final_position());
    assert!(harness.query_by_label_contains(&format!("Match game {} (replay)", other_index + 1)).is_some());
    harness.get_by_role_and_label(Role::Button, "Back to my game").click();
    settle(&mut harness);
    assert!(harness.state().matches().viewer().is_none());
}

#[test]
fn a_multi_game_file_opens_a_list_and_the_games_players_are_shown() {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("app-ui-three-games.ggf");
    let text: String = [("Alice", "Bob", "f5d6"), ("Carol", "Dave", "f5f6e6"), ("Erin", "Frank", "d3c3")]
        .iter()
        .map(|(black, white, moves)| {
            let game = Game::from_transcript(moves).unwrap();
            let players = othello_app::game_file::Players { black, white, time_limit_ms: None };
            othello_app::game_file::to_ggf(&game, &players) + "\n"
        })
        .collect();
    std::fs::write(&path, text).unwrap();
    let mut harness = app(humans(), Vec::new());
    set_text(&mut harness, "Game file", path.to_str().unwrap());
    harness.get_by_role_and_label(Role::Button, "Open").click();
    settle(&mut harness);
    assert_eq!(harness.state().game_picker().map(|p| p.games.len()), Some(3));
    harness.get_by_label_contains("2. Carol – Dave, 3 moves").click();
    settle(&mut harness);
    assert_eq!(harness.state().game().transcript(), "f5f6e6");
    assert!(harness.query_by_label_contains("(Carol)").is_some(), "Black's name from the file");
    assert!(harness.query_by_label_contains("(Dave), to move").is_some(), "White's name from the file");
}

#[test]
fn sounds_mark_a_move_a_pass_and_the_end_and_mute_silences_them() {
    use othello_app::sound::Cue;
    let mut harness = app(humans(), Vec::new());
    harness.get_by_label("f5").click();
    settle(&mut harness);
    assert_eq!((harness.state().sounds().last(), harness.state().sounds().count()), (Some(Cue::Move), 1));

    // A loaded game makes no sound; White's c1 leaves Black without a move: a pass.
    paste_transcript(&mut harness, "d3c3b3b2f5a3a1");
    let count = harness.state().sounds().count();
    harness.get_by_label("c1").click();
    settle(&mut harness);
    assert_eq!(harness.state().game().moves().last().unwrap().mv, Move::Pass);
    assert_eq!(harness.state().sounds().last(), Some(Cue::Pass));
    assert!(harness.state().sounds().count() > count);

    // The last move of a game: the end.
    paste_transcript(&mut harness, "d3c3b3d2e1d6d7e3");
    harness.get_by_label("f4").click();
    settle(&mut harness);
    assert!(harness.state().game().is_over());
    assert_eq!(harness.state().sounds().last(), Some(Cue::GameEnd));

    // Muted: silence.
    let mut harness = app(Settings { sound: false, ..humans() }, Vec::new());
    harness.get_by_label("f5").click();
    settle(&mut harness);
    assert_eq!(harness.state().sounds().count(), 0);
}

#[test]
fn an_nboard_engine_added_in_the_app_plays_and_can_be_removed() {
    let mut harness = app(humans(), Vec::new());
    let buttons = harness.query_all_by_role_and_label(Role::Button, "Add engine…").count();
    assert!(buttons >= 1);
    harness.get_all_by_role_and_label(Role::Button, "Add engine…").last().unwrap().click();
    settle(&mut harness);
    // The fake engine of the arena's tests: answers f5 with an evaluation of +1.5 for itself.
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testkit/nboard");
    set_text(&mut harness, "Engine name", "Fake");
    set_text(&mut harness, "Engine command", "sh ./fake_engine.sh spaced");
    set_text(&mut harness, "Engine working folder", script.to_str().unwrap());
    harness.get_by_role_and_label(Role::Button, "Add").click();
    settle(&mut harness);
    let engines = harness.state().settings().engines.clone();
    assert_eq!(engines.len(), 1);
    assert_eq!(engines[0].command, "sh ./fake_engine.sh spaced");

    // As Black it makes the first move, from its working folder (its command is relative to it).
    harness.state_mut().set_seat(Color::Black, SeatChoice::Bot { path: engines[0].seat_path(), level: None });
    wait_until(&mut harness, "the engine's move", |app| app.game().moves().len() == 1);
    settle(&mut harness);
    assert_eq!(harness.state().game().transcript(), "f5");
    assert!(harness.query_all_by_label_contains("+1.5").count() > 0, "its evaluation, for Black");

    harness.get_by_role_and_label(Role::Button, "Remove").click();
    settle(&mut harness);
    assert!(harness.state().settings().engines.is_empty());
    assert!(harness.state().settings().black.is_human(), "its seat goes back to a human");
}

#[test]
fn an_engine_of_the_engines_file_is_offered_and_plays_from_its_folder() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testkit/nboard");
    let file = format!(
        r#"[{{"name": "Filed", "command": "sh ./fake_engine.sh spaced", "workingDirectory": "{}"}}]"#,
        folder.display()
    );
    let engines = othello_arena::nboard::EnginesFile::parse(&file, None).unwrap().engines;
    let launch = Launch {
        plugin_folders: Vec::new(),
        runner: othello_testkit::runner_command(),
        options: othello_testkit::seat_options(),
        engines: engines.clone(),
    };
    let mut harness = Harness::builder().with_size([1200.0, 800.0]).build_eframe(move |cc| {
        OthelloApp::with_config(&cc.egui_ctx, humans(), FolderSource::Exact(Vec::new()), &launch)
    });
    settle(&mut harness);
    assert_eq!(harness.state().file_engines(), engines);
    harness.state_mut().set_seat(Color::Black, SeatChoice::Bot { path: engines[0].bot_name().into(), level: None });
    wait_until(&mut harness, "the engine's move", |app| app.game().moves().len() == 1);
    settle(&mut harness);
    assert_eq!(harness.state().game().transcript(), "f5", "from its working folder");
    assert!(harness.query_all_by_label_contains("Filed").count() > 0, "named as the file says");
}

#[test]
fn the_sandbox_mode_is_a_setting_that_bots_run_with() {
    let mut harness = app(Settings { white: bot(&first_legal_bot()), ..humans() }, Vec::new());
    assert_eq!(harness.state().session().seating().options.sandbox, othello_arena::seat::SandboxMode::Auto);
    harness.state_mut().settings_mut().sandbox = othello_app::settings::SandboxChoice::Off;
    harness.state_mut().apply_sandbox();
    assert_eq!(harness.state().session().seating().options.sandbox, othello_arena::seat::SandboxMode::Off);
    // The bot restarted with it plays on.
    harness.get_by_label("d3").click();
    wait_until(&mut harness, "the bot's reply", |app| app.game().moves().len() == 2);
}

/// egui's margin inside a side panel, left and right.
const PANEL_MARGIN: f32 = 8.0;

/// The rectangle the board's cells cover.
fn board_rect(harness: &Harness<'_, OthelloApp>) -> egui::Rect {
    harness.get_by_label("a1").rect().union(harness.get_by_label("h8").rect())
}

#[test]
fn the_layout_fits_the_smallest_window_at_any_scale_and_the_board_keeps_its_size_across_tabs() {
    for (size, scale) in
        [([760.0, 520.0], 1.0), ([760.0, 520.0], 2.0), ([1600.0, 1000.0], 1.0), ([1600.0, 1000.0], 1.5)]
    {
        let launch = Launch {
            plugin_folders: Vec::new(),
            runner: othello_testkit::runner_command(),
            options: othello_testkit::seat_options(),
            engines: Vec::new(),
        };
        let mut harness = Harness::builder().with_size(size).with_pixels_per_point(scale).build_eframe(move |cc| {
            OthelloApp::with_config(&cc.egui_ctx, humans(), FolderSource::Exact(Vec::new()), &launch)
        });
        settle(&mut harness);
        let what = format!("{size:?} at scale {scale}");
        let screen = egui::Rect::from_min_size(egui::Pos2::ZERO, size.into());
        let board = board_rect(&harness);
        // Nothing runs off the window's sides (a too-wide widget would also push its panel
        // over the board).
        for node in harness.query_all(egui_kittest::kittest::By::new()) {
            let Some(bounds) = node.accesskit_node().bounding_box() else { continue };
            let (left, right) = (bounds.x0 as f32 / scale, bounds.x1 as f32 / scale);
            let label = node.accesskit_node().label().unwrap_or_default();
            assert!(left >= -0.5 && right <= size[0] + 0.5, "{what}: {label:?} {left}..{right} is cut");
        }
        assert!(screen.contains_rect(board), "{what}: the board {board:?} fits");
        assert!(board.width() >= 300.0 && (board.width() - board.height()).abs() < 1.0, "{what}: {board:?}");
        for label in ["Game", "Help", "New game", "Undo", "Abort", "Play", "Plugins", "Matches", "Eval", "Nodes"] {
            let rect = harness.get_all_by_label(label).next().unwrap().rect();
            assert!(screen.contains_rect(rect), "{what}: {label} {rect:?} is on screen");
            assert!(!rect.intersects(board), "{what}: {label} {rect:?} does not overlap the board {board:?}");
        }
        for tab in ["Plugins", "Play"] {
            harness.get_by_role_and_label(Role::Button, tab).click();
            settle(&mut harness);
            assert_eq!(board_rect(&harness), board, "{what}: the board keeps its size on the {tab} tab");
        }
        // The tables' tabs take a wider panel: the board gives up some room and stays whole.
        for tab in ["Matches", "Ladder"] {
            harness.get_by_role_and_label(Role::Button, tab).click();
            settle(&mut harness);
            let smaller = board_rect(&harness);
            assert!(screen.contains_rect(smaller) && smaller.width() >= 200.0, "{what}: {tab}: {smaller:?}");
            assert!(smaller.width() < board.width(), "{what}: {tab}: the panel is wider");
        }
        harness.get_by_role_and_label(Role::Button, "Play").click();
        settle(&mut harness);
        assert_eq!(board_rect(&harness), board, "{what}: the board is back to its size");
        // A whole game with its opening names and a result: the right panel keeps its width.
        paste_transcript(&mut harness, &first_legal_game());
        settle(&mut harness);
        assert_eq!(board_rect(&harness), board, "{what}: the board keeps its size with a long game");
        // The longest opening name in the list, in the move list and the status panel.
        paste_transcript(&mut harness, "f5d6c5f4e3c6d3f6e6d7g4c4g5c3f7d2e7f2");
        settle(&mut harness);
        assert!(harness.query_all_by_label_contains("Rotating Flat (Kling").count() >= 2, "named in both places");
        assert_eq!(board_rect(&harness), board, "{what}: the board keeps its size with a long opening name");
        // The right panel now scrolls: its scroll bar floats over the content's right edge and
        // must not cover the search read-out's values, which are right-aligned there.
        let scroll = harness.ctx.global_style().spacing.scroll;
        let content_right = size[0] - PANEL_MARGIN;
        let values: Vec<_> = harness.get_all_by_label(&format!("{:>8}", "—")).map(|node| node.rect()).collect();
        assert_eq!(values.len(), 4, "{what}: the four read-out values");
        for value in values {
            assert!(
                value.right() <= content_right - scroll.bar_width - scroll.bar_outer_margin + 0.5,
                "{what}: the read-out value {value:?} is clear of the scroll bar ({scroll:?})"
            );
        }
        for node in harness.query_all(egui_kittest::kittest::By::new()) {
            // The transcript field's text is longer than the field, which scrolls it.
            let role = node.accesskit_node().role();
            if matches!(role, Role::TextRun | Role::TextInput) {
                continue;
            }
            let Some(bounds) = node.accesskit_node().bounding_box() else { continue };
            let (left, right) = (bounds.x0 as f32 / scale, bounds.x1 as f32 / scale);
            let label = node.accesskit_node().label().unwrap_or_default();
            assert!(left >= -0.5 && right <= size[0] + 0.5, "{what}: {role:?} {label:?} {left}..{right} is cut");
        }
    }
}

/// A whole game: each side plays its first legal move (in square order) until neither can.
fn first_legal_game() -> String {
    let mut position = Position::start();
    let mut moves = Vec::new();
    while !position.is_game_over() {
        let mv = match position.legal_moves().into_iter().next() {
            Some(square) => Move::Play(square),
            None => Move::Pass,
        };
        position.try_play(mv).unwrap();
        moves.push(mv);
    }
    othello_sdk::format_transcript(&moves)
}

#[test]
fn a_seat_changed_after_the_game_does_not_rewrite_its_players() {
    let first_legal = first_legal_bot();
    let settings = Settings { black: bot(&first_legal), white: bot(&first_legal), bot_delay_ms: 0, ..humans() };
    let mut harness = app(settings, Vec::new());
    wait_until(&mut harness, "the end of the bots' game", |app| app.game().is_over());
    settle(&mut harness);
    let black = harness.state().player_name(Color::Black);
    assert_ne!(black, "Human");
    harness.state_mut().set_seat(Color::Black, SeatChoice::Human);
    settle(&mut harness);
    assert_eq!(harness.state().player_name(Color::Black), black, "the finished game keeps who played it");
    assert!(
        harness.query_by_label_contains(&format!("Black {}", harness.state().game().live().disc_counts().0)).is_some()
    );
    assert!(harness.query_all_by_label_contains(&format!("({black})")).count() > 0, "the name on screen");
    let message = harness.state().message().unwrap().text.clone();
    assert!(message.contains("from the next game"), "{message}");
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("app-ui-finished-players.ggf");
    let _ = std::fs::remove_file(&path);
    harness.state_mut().save_game(&path);
    let saved = std::fs::read_to_string(&path).unwrap();
    assert!(saved.contains(&format!("PB[{black}]")), "{saved}");
    // The next game has the new seat.
    start_new_game(&mut harness);
    settle(&mut harness);
    assert_eq!(harness.state().player_name(Color::Black), "Human");
}

#[test]
fn a_bot_put_in_the_seat_to_move_says_it_moves_at_once() {
    let mut harness = app(humans(), Vec::new());
    harness.get_by_label("f5").click();
    settle(&mut harness);
    harness.state_mut().set_seat(Color::White, bot(&first_legal_bot()));
    wait_until(&mut harness, "the bot's move", |app| app.game().moves().len() == 2);
    let message = harness.state().message().unwrap().text.clone();
    assert!(message.contains("moves at once"), "{message}");
}

/// FFO problem #1, as Edax's OBF file writes it.
const FFO_1: &str = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X";

#[test]
fn setting_up_a_position_over_a_game_in_progress_asks_first() {
    let mut harness = app(humans(), Vec::new());
    harness.get_by_label("f5").click();
    settle(&mut harness);
    set_text(&mut harness, "Paste a position", FFO_1);
    harness.get_by_role_and_label(Role::Button, "Set up pasted position").click_accesskit();
    settle(&mut harness);
    assert!(
        harness.query_by_label("Play from the position set up?").is_some(),
        "it asks: {:?}",
        harness.state().message()
    );
    harness.get_by_role_and_label(Role::Button, "Cancel").click();
    settle(&mut harness);
    assert_eq!(harness.state().game().transcript(), "f5", "the game is kept");

    // The editor's "Play from here" asks too.
    harness.get_by_role_and_label(Role::Button, "Edit position").click_accesskit();
    settle(&mut harness);
    harness.get_by_role_and_label(Role::Button, "Play from here").click_accesskit();
    settle(&mut harness);
    assert!(harness.state().confirmation().is_some(), "the editor asks as well");
    harness.get_by_role_and_label(Role::Button, "Cancel").click();
    settle(&mut harness);
    assert_eq!(harness.state().game().transcript(), "f5");
    assert!(harness.state().editor().is_some(), "still editing after no");
    harness.get_by_role_and_label(Role::Button, "Cancel editing").click_accesskit();
    settle(&mut harness);
    // Editing paused the game; cancelling leaves it as it was: White may move.
    assert!(!harness.state().session().paused);
    assert_eq!(harness.state().session().human_to_move(), Some(Color::White));

    harness.get_by_role_and_label(Role::Button, "Set up pasted position").click_accesskit();
    settle(&mut harness);
    harness.get_by_role_and_label(Role::Button, "Discard and set up").click();
    settle(&mut harness);
    assert_eq!(harness.state().game().start().to_board_string(), FFO_1, "set up after yes");
    assert!(harness.state().game().moves().is_empty());
}

#[test]
fn the_move_list_follows_the_move_viewed() {
    let mut harness = app(humans(), Vec::new());
    let transcript = first_legal_game();
    paste_transcript(&mut harness, &transcript);
    let moves = harness.state().game().moves().len();
    assert!(moves >= 58, "{moves}");
    // A row is in sight when it lies between the list's heading and the window's bottom.
    let in_sight = |harness: &Harness<'_, OthelloApp>, label: &str| {
        let top = harness.get_by_label("Moves").rect().bottom();
        harness.query_by_label(label).is_some_and(|n| n.rect().top() >= top && n.rect().bottom() <= 800.0)
    };
    let last = harness.state().game().moves().last().unwrap().clone();
    let last_label = format!("{moves}. {} {}", if last.color == Color::Black { 'B' } else { 'W' }, last.mv);
    assert!(in_sight(&harness, &last_label), "the list shows the last move");
    assert!(!in_sight(&harness, "Start"), "a long game's start is scrolled away");
    harness.key_press(egui::Key::Home);
    settle(&mut harness);
    assert!(in_sight(&harness, "Start"), "Home: the list scrolls to the start");
    harness.key_press(egui::Key::End);
    settle(&mut harness);
    assert!(in_sight(&harness, &last_label), "End: back to the last move");
    // From the graph: a click at its left end views an early move.
    let graph = harness.get_by_label_contains("Evaluation graph").rect();
    let at = egui::pos2(graph.left() + 4.0, graph.center().y);
    harness.event(egui::Event::PointerMoved(at));
    for pressed in [true, false] {
        let modifiers = egui::Modifiers::NONE;
        harness.event(egui::Event::PointerButton { pos: at, button: egui::PointerButton::Primary, pressed, modifiers });
    }
    settle(&mut harness);
    assert!(harness.state().game().cursor() <= 2, "{}", harness.state().game().cursor());
    assert!(in_sight(&harness, "Start") || in_sight(&harness, "1. B d3"), "the early moves are in sight");
}

#[test]
fn disc_counts_follow_the_position_being_edited() {
    let mut harness = app(humans(), Vec::new());
    harness.get_by_role_and_label(Role::Button, "Edit position").click_accesskit();
    settle(&mut harness);
    harness.get_by_label("a1").click();
    settle(&mut harness);
    assert!(harness.query_by_label_contains("Black 3 discs").is_some(), "the draft's count");
}

#[test]
fn the_game_clock_counts_down_for_the_side_to_move_and_flags_a_time_loss() {
    let time = othello_app::clock::ManualTime::default();
    let settings = Settings { clock_minutes: 1, clock_increment_s: 2, ..humans() };
    let mut harness = app(settings, Vec::new());
    harness.state_mut().set_time_source(time.source());
    settle(&mut harness);
    assert!(harness.query_by_label("Black's clock 1:00").is_some());
    assert!(harness.query_by_label("White's clock 1:00").is_some());
    // The clock starts with the game's first move: a minute untouched loses nothing.
    time.advance(Duration::from_secs(100));
    harness.step();
    assert!(harness.query_by_label("Black's clock 1:00").is_some(), "nothing runs before the first move");
    assert!(!harness.state().game().is_over());
    harness.get_by_label("f5").click();
    harness.step();
    harness.step();
    assert_eq!(harness.state().clock_left(Color::Black), Some(Duration::from_secs(62)), "60 s left, 2 s added");
    assert!(harness.query_by_label("White's clock 1:00, running").is_some(), "now White's runs");
    time.advance(Duration::from_secs(59));
    harness.step();
    assert!(!harness.state().game().is_over(), "a second left");
    time.advance(Duration::from_secs(1));
    harness.step();
    harness.step();
    let game = harness.state().game();
    match game.ending() {
        Some(Ending::Forfeit { loser, failure }) => {
            assert_eq!((*loser, failure.termination), (Color::White, Termination::Timeout));
        }
        other => panic!("White lost on time, not {other:?}"),
    }
    assert!(harness.query_by_label_contains("White lost by timeout").is_some(), "the banner says so");
    assert!(harness.query_by_label("Black's clock 1:02").is_some(), "the clocks stop");
    // Without a human there is no clock.
    let first_legal = first_legal_bot();
    let settings = Settings { clock_minutes: 1, black: bot(&first_legal), white: bot(&first_legal), ..humans() };
    let harness = app(settings, Vec::new());
    assert_eq!(harness.state().clock_left(Color::Black), None);
}

#[test]
fn the_opening_is_named_in_the_status_panel_and_the_move_list() {
    let mut harness = app(humans(), Vec::new());
    // The Tiger, played from d3: the board mirrored, the same opening.
    paste_transcript(&mut harness, "d3c5f6f5e6");
    assert!(harness.query_by_label("Opening: Tiger").is_some(), "in the status panel");
    assert!(harness.query_by_label("Tiger").is_some(), "beside the move that reached it");
    assert!(harness.query_by_label("Perpendicular").is_some(), "and the earlier name where it was reached");
    harness.key_press(egui::Key::ArrowLeft);
    settle(&mut harness);
    assert!(harness.query_by_label("Opening: Perpendicular").is_some(), "the viewed move's opening");
    harness.key_press(egui::Key::End);
    settle(&mut harness);
    assert!(harness.query_by_label("Opening: Tiger").is_some());
    // A game from a set-up position has no opening name.
    set_text(&mut harness, "Paste a position", FFO_1);
    harness.get_by_role_and_label(Role::Button, "Set up pasted position").click_accesskit();
    settle(&mut harness);
    if harness.state().confirmation().is_some() {
        harness.get_by_role_and_label(Role::Button, "Discard and set up").click();
        settle(&mut harness);
    }
    assert!(harness.query_by_label_contains("Opening: ").is_none());
}

#[test]
fn the_clock_setting_holds_from_the_first_move_and_then_waits_for_the_next_game() {
    let time = othello_app::clock::ManualTime::default();
    let mut harness = app(humans(), Vec::new());
    harness.state_mut().set_time_source(time.source());
    settle(&mut harness);
    assert_eq!(harness.state().clock_left(Color::Black), None, "no clock by default");
    // Typing "10" in the field (or dragging it up to 10) passes through 1: the game gets the 10
    // minutes it was given, not the 1 minute seen on the way.
    for minutes in [1, 10] {
        harness.state_mut().settings_mut().clock_minutes = minutes;
        harness.step();
    }
    time.advance(Duration::from_secs(5));
    harness.step();
    let ten = Duration::from_secs(600);
    assert_eq!(harness.state().clock_left(Color::Black), Some(ten), "nothing runs before the first move");
    assert!(harness.query_by_label("Black's clock 10:00").is_some());
    assert!(harness.query_by_label("White's clock 10:00").is_some());
    // Once the game is under way a new setting waits for the next game.
    harness.get_by_label("f5").click();
    harness.step();
    harness.step();
    time.advance(Duration::from_secs(5));
    harness.state_mut().settings_mut().clock_minutes = 3;
    harness.step();
    assert_eq!(harness.state().clock_left(Color::Black), Some(ten), "the game's clock holds");
    assert_eq!(harness.state().clock_left(Color::White), Some(ten - Duration::from_secs(5)));
    assert!(harness.query_by_label("White's clock 9:55, running").is_some());
    start_new_game(&mut harness);
    harness.step();
    assert_eq!(harness.state().clock_left(Color::Black), Some(Duration::from_secs(180)), "the next game's clock");
    // 0 turns it off at once.
    harness.state_mut().settings_mut().clock_minutes = 0;
    harness.step();
    assert_eq!(harness.state().clock_left(Color::Black), None);
    assert!(harness.query_by_label_contains("'s clock").is_none());
}

#[test]
fn a_pass_notice_gives_way_to_the_result_when_the_game_is_over() {
    let mut harness = app(humans(), Vec::new());
    paste_transcript(&mut harness, BLACK_MUST_PASS);
    assert!(harness.query_by_label(PASS_NOTICE).is_some());
    // The game ends before anyone moves again: the result banner alone tells the end.
    harness.get_by_role_and_label(Role::Button, "Abort").click();
    settle(&mut harness);
    assert!(harness.state().game().is_over());
    assert!(harness.query_by_label_contains("No result").is_some(), "the banner");
    assert!(harness.query_by_label(PASS_NOTICE).is_none(), "no pass notice under the result");
}

#[test]
fn the_players_move_list_is_where_it_was_after_a_replay() {
    let one = standin_bot("list-one", &[("BOT_NAME", "\"One\"")]);
    let two = standin_bot("list-two", &[("BOT_NAME", "\"Two\"")]);
    std::fs::copy(&two, one.parent().unwrap().join("liblist-two.so")).unwrap();
    let mut settings = humans();
    settings.matches.games = 1;
    settings.matches.opening_plies = 0;
    let mut harness = matches_tab(settings, one.parent().unwrap().to_owned(), 2);
    harness.get_by_role_and_label(Role::Button, "Play").click();
    settle(&mut harness);
    paste_transcript(&mut harness, &first_legal_game());
    let moves = harness.state().game().moves().len();
    let last = harness.state().game().moves().last().unwrap().clone();
    let last_label = format!("{moves}. {} {}", if last.color == Color::Black { 'B' } else { 'W' }, last.mv);
    let in_sight = |harness: &Harness<'_, OthelloApp>, label: &str| {
        let top = harness.get_by_label("Moves").rect().bottom();
        harness.query_by_label(label).is_some_and(|n| n.rect().top() >= top && n.rect().bottom() <= 800.0)
    };
    assert!(in_sight(&harness, &last_label), "the player's list shows the last move");
    // A replayed match game, walked back to its start: its list scrolls to the top.
    harness.get_by_role_and_label(Role::Button, "Matches").click();
    settle(&mut harness);
    harness.get_by_label_contains("One").click();
    settle(&mut harness);
    harness.get_by_label_contains("Two").click();
    settle(&mut harness);
    harness.get_by_role_and_label(Role::Button, "Start match").click();
    wait_until(&mut harness, "the match's end", |app| {
        !app.matches().is_running() && !app.matches().finished().is_empty()
    });
    settle(&mut harness);
    harness.get_by_role_and_label(Role::Button, "Replay").click();
    settle(&mut harness);
    harness.key_press(egui::Key::End);
    settle(&mut harness);
    harness.key_press(egui::Key::Home);
    settle(&mut harness);
    assert!(in_sight(&harness, "Start"), "the replay's list at its start");
    // Back to the player's game: its list shows the move viewed, as it did.
    harness.get_by_role_and_label(Role::Button, "Play").click();
    settle(&mut harness);
    assert!(in_sight(&harness, &last_label), "the player's list is where it was");
}

#[test]
fn a_replay_shows_the_running_clock_of_the_players_game() {
    let one = standin_bot("clock-one", &[("BOT_NAME", "\"One\"")]);
    let two = standin_bot("clock-two", &[("BOT_NAME", "\"Two\"")]);
    std::fs::copy(&two, one.parent().unwrap().join("libclock-two.so")).unwrap();
    let mut settings = Settings { clock_minutes: 5, ..humans() };
    settings.matches.games = 1;
    settings.matches.opening_plies = 0;
    let mut harness = matches_tab(settings, one.parent().unwrap().to_owned(), 2);
    harness.get_by_label_contains("One").click();
    settle(&mut harness);
    harness.get_by_label_contains("Two").click();
    settle(&mut harness);
    harness.get_by_role_and_label(Role::Button, "Start match").click();
    wait_until(&mut harness, "the match's end", |app| {
        !app.matches().is_running() && !app.matches().finished().is_empty()
    });
    // The player's game goes on: White's time runs.
    harness.get_by_role_and_label(Role::Button, "Play").click();
    settle(&mut harness);
    harness.get_by_label("f5").click();
    settle(&mut harness);
    assert_eq!(harness.state().game().transcript(), "f5");
    harness.get_by_role_and_label(Role::Button, "Matches").click();
    settle(&mut harness);
    harness.get_by_role_and_label(Role::Button, "Replay").click();
    settle(&mut harness);
    assert!(harness.state().replay().is_some(), "the match game on the board");
    assert!(
        harness.query_by_label_contains("Your game: White's clock").is_some(),
        "the player's running clock stays in sight during the replay"
    );
}

#[test]
fn playing_on_from_a_past_position_keeps_the_old_line_as_a_variation_to_switch_back_to() {
    let mut harness = app(humans(), Vec::new());
    for square in ["f5", "d6", "c3"] {
        harness.get_by_label(square).click();
        settle(&mut harness);
    }
    harness.get_by_label("1. B f5").click();
    settle(&mut harness);
    harness.get_by_role_and_label(Role::Button, "Play on from here").click();
    settle(&mut harness);
    harness.get_by_label("f4").click();
    settle(&mut harness);
    assert_eq!(harness.state().game().transcript(), "f5f4");
    assert!(harness.query_by_label("Variations (1)").is_some(), "the old line is kept");
    harness.get_by_label("Switch to the variation after move 1: d6 c3 (2 moves)").click();
    settle(&mut harness);
    assert_eq!(harness.state().game().transcript(), "f5d6c3", "back on the old line");
    assert!(harness.query_by_label("Switch to the variation after move 1: f4 (1 move)").is_some());
}

#[test]
fn a_wthor_file_is_imported_and_its_opening_tree_shows_the_moves_played_with_their_results() {
    use othello_app::wthor;
    let squares = |text: &str| -> Vec<othello_sdk::Square> {
        othello_sdk::parse_transcript(text).unwrap().into_iter().filter_map(|m| m.square()).collect()
    };
    // Written by the test from the published format: Black's discs 40, 20 and 32.
    let bytes = wthor::write(2026, &[(40, squares("f5d6c3d3c4")), (20, squares("f5f6e6")), (32, squares("d3c5"))]);
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("test.wtb");
    std::fs::write(&path, &bytes).unwrap();
    let broken = folder.path().join("broken.wtb");
    std::fs::write(&broken, &bytes[..bytes.len() - 1]).unwrap();

    let mut harness = app(humans(), Vec::new());
    set_text(&mut harness, "WTHOR file (.wtb)", &broken.display().to_string());
    harness.get_by_role_and_label(Role::Button, "Import games").click_accesskit();
    wait_until(&mut harness, "the import", |app| app.message().is_some_and(|m| m.text.starts_with("Not imported")));
    assert!(harness.state().message().unwrap().text.contains("cut short"), "{:?}", harness.state().message());
    assert!(harness.state().opening_tree().is_none());

    set_text(&mut harness, "WTHOR file (.wtb)", &path.display().to_string());
    harness.get_by_role_and_label(Role::Button, "Import games").click_accesskit();
    wait_until(&mut harness, "the import", |app| app.opening_tree().is_some());
    settle(&mut harness);
    assert_eq!(harness.state().message().unwrap().text, "Imported 3 games from test.wtb");
    assert_eq!(harness.state().settings().wthor_file, path.display().to_string(), "remembered");
    // Every first move is f5 turned: the three games, Black 1 win 1 draw 1 loss, -8 / 3 discs.
    assert!(harness.query_by_label("f5: 3 games, Black 50%, -2.7").is_some());
    harness.get_by_label("f5").click();
    settle(&mut harness);
    assert!(harness.query_by_label_contains("3 games reach this position").is_some());
    // White to move; values for Black (the point of view): d3 c5 is f5 d6 turned.
    assert!(harness.query_by_label("d6: 2 games, Black 75%, +8.0").is_some());
    assert!(harness.query_by_label("f6: 1 game, Black 0%, -24.0").is_some());
    // A move of the base is played from its row.
    harness.get_by_label("d6: 2 games, Black 75%, +8.0").click_accesskit();
    settle(&mut harness);
    assert_eq!(harness.state().game().transcript(), "f5d6");
}

#[test]
fn a_bot_deleted_since_it_was_chosen_is_named_and_no_game_starts_with_it() {
    let library = standin_bot("soon-gone", &[("BOT_NAME", "\"Soon Gone\"")]);
    let settings = Settings { white: bot(&library), ..humans() };
    let mut harness = app(settings, vec![library.parent().unwrap().to_owned()]);
    wait_until(&mut harness, "the plugin scan", |app| !app.is_scanning_plugins());
    settle(&mut harness);
    assert!(harness.query_all_by_label_contains("Soon Gone").count() > 0, "the scan's name, not the file's");
    assert!(harness.query_by_label_contains("soon-gone").is_none());
    std::fs::remove_file(&library).unwrap();
    harness.step();
    assert!(harness.query_by_label_contains("White: this bot's library is gone").is_some());
    harness.state_mut().new_game();
    harness.step();
    let message = harness.state().message().unwrap().text.clone();
    assert!(message.contains("soon-gone is no longer in its folder"), "{message}");
}

#[test]
fn a_large_window_draws_everything_larger_and_the_tab_bar_keeps_one_line() {
    let sized = |size: [f32; 2]| {
        let launch = Launch {
            plugin_folders: Vec::new(),
            runner: othello_testkit::runner_command(),
            options: othello_testkit::seat_options(),
            engines: Vec::new(),
        };
        Harness::builder().with_size(size).build_eframe(move |cc| {
            OthelloApp::with_config(&cc.egui_ctx, humans(), FolderSource::Exact(Vec::new()), &launch)
        })
    };
    let mut large = sized([1920.0, 1080.0]);
    for _ in 0..4 {
        large.step();
    }
    let growth = large.state().growth();
    assert!((growth - 1.3).abs() < 0.01, "1920×1080 draws at 1.3×, not {growth}");
    let body = large.ctx.global_style().text_styles[&egui::TextStyle::Body].size;
    assert!((body - 1.3 * egui::Style::default().text_styles[&egui::TextStyle::Body].size).abs() < 0.01);
    let graph = large.get_by_label_contains("Evaluation graph").accesskit_node().bounding_box().unwrap();
    assert!(graph.height() > 140.0, "the graph grows too: {}", graph.height());
    let mut usual = sized([1200.0, 800.0]);
    usual.step();
    assert_eq!(usual.state().growth(), 1.0, "up to 1280×820 the app keeps its size");
    // At 1024×700 the four tabs stay on one line on every tab (the wide Matches and Ladder panels
    // as the narrow Play one).
    let mut small = sized([1024.0, 700.0]);
    for tab in ["Play", "Plugins", "Matches", "Ladder"] {
        small.get_by_role_and_label(Role::Button, tab).click();
        small.step();
        small.step();
        let tops: Vec<f64> = ["Play", "Plugins", "Matches", "Ladder"]
            .iter()
            .map(|t| small.get_by_role_and_label(Role::Button, t).accesskit_node().bounding_box().unwrap().y0)
            .collect();
        assert!(tops.iter().all(|y| (y - tops[0]).abs() < 1.0), "on the {tab} tab: {tops:?}");
    }
}
