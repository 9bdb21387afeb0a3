//! Move evaluations on the board and the position editor, through the real app with
//! egui_kittest: the analysis bot's values appear on every legal square (one point of view), are
//! dropped and recomputed after a move, go when turned off, and a hanging analysis is killed
//! when the position changes; the editor and a pasted OBF line set up positions, and a malformed
//! line is refused with its reason.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use othello_app::analysis::Status;
use othello_app::catalog::FolderSource;
use othello_app::game_file::{self, Players};
use othello_app::{Launch, OthelloApp, Settings};
use othello_arena::ggf;
use othello_sdk::{Color, Position};

/// How long a test waits for a bot or the analysis before it fails (a guard, not a timing).
const WAIT: Duration = Duration::from_secs(20);
/// FFO problem #1, as Edax's OBF file writes it.
const FFO_1: &str = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X";

/// Values each legal move by the discs it flips.
fn analyzer() -> PathBuf {
    othello_testkit::fixture("analyzes")
}

fn launch(grace: Duration) -> Launch {
    Launch {
        plugin_folders: Vec::new(),
        runner: othello_testkit::runner_command(),
        options: othello_arena::seat::SeatOptions { grace, ..othello_testkit::seat_options() },
        engines: Vec::new(),
    }
}

fn app_with(settings: Settings, launch: Launch) -> Harness<'static, OthelloApp> {
    Harness::builder().with_size([1200.0, 900.0]).build_eframe(move |cc| {
        OthelloApp::with_config(&cc.egui_ctx, settings, FolderSource::Exact(Vec::new()), &launch)
    })
}

fn evaluating(bot: &Path) -> Settings {
    Settings { animate: false, show_evaluations: true, analysis_bot: Some(bot.to_owned()), ..Settings::default() }
}

fn wait_until(harness: &mut Harness<'_, OthelloApp>, what: &str, done: impl Fn(&OthelloApp) -> bool) {
    let started = Instant::now();
    while !done(harness.state()) {
        assert!(started.elapsed() < WAIT, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(5));
        harness.step();
    }
    harness.step();
}

/// The analysis shows a value for every legal move of the position on the board.
fn every_move_valued(app: &OthelloApp) -> bool {
    let position = app.game().viewed();
    let values = app.analysis().values_for(&position);
    !values.is_empty() && values.len() as u32 == position.legal_moves().count()
}

/// The accessible labels of the board cells that show an evaluation.
fn evaluated_cells(harness: &Harness<'_, OthelloApp>) -> Vec<String> {
    harness
        .query_all_by_role(Role::Button)
        .filter_map(|node| node.accesskit_node().label())
        .filter(|label| label.contains(", evaluation "))
        .collect()
}

fn click_button(harness: &mut Harness<'_, OthelloApp>, label: &str) {
    harness.get_by_role_and_label(Role::Button, label).click_accesskit();
    harness.step();
    harness.step();
}

#[test]
fn evaluations_appear_on_every_legal_square_and_are_recomputed_after_a_move() {
    let mut harness = app_with(evaluating(&analyzer()), launch(othello_testkit::TEST_GRACE));
    wait_until(&mut harness, "the start position's values", every_move_valued);
    let cells = evaluated_cells(&harness);
    assert_eq!(cells.len(), 4, "{cells:?}");
    for square in ["d3", "c4", "f5", "e6"] {
        // Black to move, every move flips one disc: +1.0 for Black (one decimal).
        let label = cells.iter().find(|l| l.starts_with(&format!("{square}, "))).expect(square);
        assert!(label.contains("+1.0 discs, Black's view"), "{label}");
    }
    assert_eq!(cells.iter().filter(|l| l.ends_with(", best move")).count(), 1, "one best move ringed");
    assert!(harness.query_by_label_contains("+ = Black ahead, in discs").is_some(), "the legend says how to read them");

    harness.get_by_label_contains("f5, evaluation").click();
    // The frame that takes the click, then the first frame of the new position.
    harness.step();
    harness.step();
    let after_f5 = harness.state().game().live();
    assert_eq!(after_f5.side_to_move(), Color::White);
    assert!(
        evaluated_cells(&harness).iter().all(|l| !l.starts_with("d3") && !l.starts_with("c4")),
        "the old position's values are gone at once"
    );
    wait_until(&mut harness, "the values after f5", every_move_valued);
    let cells = evaluated_cells(&harness);
    assert_eq!(cells.len() as u32, after_f5.legal_moves().count(), "{cells:?}");
    // White to move, each move flips one disc: +1 for White is -1 from Black's view.
    assert!(cells.iter().all(|l| l.contains("-1.0 discs, Black's view")), "{cells:?}");
}

#[test]
fn turning_evaluations_off_removes_them_and_stops_the_analysis() {
    let mut harness = app_with(evaluating(&analyzer()), launch(othello_testkit::TEST_GRACE));
    wait_until(&mut harness, "values", every_move_valued);
    harness.get_by_label("Show evaluations").click();
    harness.step();
    harness.step();
    assert!(!harness.state().settings().show_evaluations);
    assert!(evaluated_cells(&harness).is_empty());
    assert!(!harness.state().analysis().is_running());
    assert!(harness.state().analysis().values_for(&Position::start()).is_empty());
}

#[test]
fn a_busy_analysis_is_killed_when_the_position_changes_and_when_turned_off() {
    // The analysis never returns; a long grace keeps the host from stopping it on its own.
    let hang = own_copy_of("analysis_hang", "busy_analysis_is_killed");
    let mut harness = app_with(evaluating(&hang), launch(Duration::from_secs(120)));
    let first = wait_for_runner(&mut harness, &hang, &[]);
    harness.get_by_label("f5").click();
    harness.step();
    harness.step();
    assert!(othello_testkit::wait_until_gone(first), "the analysis of the old position was killed");
    let second = wait_for_runner(&mut harness, &hang, &[first]);
    harness.get_by_label("Show evaluations").click();
    harness.step();
    harness.step();
    assert!(othello_testkit::wait_until_gone(second), "turning evaluations off killed the analysis");
}

/// A copy of a fixture library for one test alone: tests running at once tell their runners apart
/// by the library's path.
fn own_copy_of(fixture: &str, test: &str) -> PathBuf {
    let source = othello_testkit::fixture(fixture);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("own-fixtures").join(test);
    std::fs::create_dir_all(&dir).unwrap();
    let copy = dir.join(source.file_name().unwrap());
    std::fs::copy(&source, &copy).unwrap();
    copy
}

/// The analysis runner of `library` other than `old`, once it runs.
fn wait_for_runner(harness: &mut Harness<'_, OthelloApp>, library: &Path, old: &[u32]) -> u32 {
    let started = Instant::now();
    loop {
        let runners: Vec<u32> =
            othello_testkit::runners_of(library).into_iter().filter(|pid| !old.contains(pid)).collect();
        if let [runner] = runners[..] {
            return runner;
        }
        assert!(started.elapsed() < WAIT, "no analysis runner: {runners:?}");
        std::thread::sleep(Duration::from_millis(5));
        harness.step();
    }
}

#[test]
fn the_editor_sets_up_a_position_to_play_from_and_it_is_saved_with_its_board() {
    let mut harness = app_with(Settings { animate: false, ..Settings::default() }, launch(othello_testkit::TEST_GRACE));
    click_button(&mut harness, "Edit position");
    assert!(harness.state().editor().is_some());
    assert!(harness.query_by_label_contains("Editing the position").is_some(), "the board says edit mode is on");
    click_button(&mut harness, "Clear board");
    for (tool, squares) in [("Black disc", ["a1", "c1"]), ("White disc", ["b1", "b2"])] {
        click_button(&mut harness, tool);
        for square in squares {
            harness.get_by_label(square).click();
            harness.step();
        }
    }
    click_button(&mut harness, "Empty");
    harness.get_by_label("c1").click();
    harness.step();
    click_button(&mut harness, "Black disc");
    harness.get_by_label("d1").click();
    harness.step();
    click_button(&mut harness, "Black to move");
    let expected = Position::from_board_string(&format!("XO-X{}-O{} X", "-".repeat(4), "-".repeat(54))).unwrap();
    assert_eq!(harness.state().editor().unwrap().draft(), expected);
    click_button(&mut harness, "Play from here");
    let game = harness.state().game();
    assert!(harness.state().editor().is_none());
    assert_eq!((game.start(), game.live(), game.moves().len()), (expected, expected, 0));

    // Played on and saved, the game keeps its start: GGF's BO[] holds the board.
    harness.get_by_label("c1").click();
    harness.step();
    let game = harness.state().game().clone();
    assert_eq!(game.moves().len(), 1);
    let text = game_file::to_ggf(&game, &Players { black: "A", white: "B", time_limit_ms: None });
    let back = game_file::from_ggf(&ggf::parse(&text).unwrap()[0]).unwrap();
    assert_eq!((back.start(), back.live()), (expected, game.live()), "{text}");
}

#[test]
fn a_malformed_position_is_refused_with_its_reason_and_the_game_is_kept() {
    let mut harness = app_with(Settings { animate: false, ..Settings::default() }, launch(othello_testkit::TEST_GRACE));
    harness.get_by_label("f5").click();
    harness.step();
    let before = harness.state().game().live();
    paste_position(&mut harness, &FFO_1.replace(" X", " Q"));
    let message = harness.state().message().expect("a message").clone();
    assert!(message.is_error && message.text.contains("`Q` is not a side to move"), "{message:?}");
    paste_position(&mut harness, "--XXXX X");
    let message = harness.state().message().unwrap().text.clone();
    assert!(message.contains("the board has 6 squares; it needs 64"), "{message}");
    assert_eq!(harness.state().game().live(), before, "the game is kept");
}

#[test]
fn a_pasted_ffo_position_is_analysed_on_every_legal_move() {
    let mut harness = app_with(evaluating(&analyzer()), launch(othello_testkit::TEST_GRACE));
    paste_position(&mut harness, &format!("{FFO_1}; g8:+18 h1:+12"));
    let ffo = Position::from_board_string(FFO_1).unwrap();
    assert_eq!(harness.state().game().start(), ffo);
    wait_until(&mut harness, "the FFO position's values", |app| app.game().viewed() == ffo && every_move_valued(app));
    let values = harness.state().analysis().values_for(&ffo).to_vec();
    for value in &values {
        assert_eq!(value.eval, Some(f64::from(ffo.flips(value.square).count())), "{value:?}");
    }
    let cells = evaluated_cells(&harness);
    assert_eq!(cells.len() as u32, ffo.legal_moves().count(), "{cells:?}");
}

fn paste_position(harness: &mut Harness<'_, OthelloApp>, text: &str) {
    let field = harness.get_by_label("Paste a position");
    field.focus();
    harness.step();
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness.step();
    harness.get_by_label("Paste a position").type_text(text);
    harness.step();
    click_button(harness, "Set up pasted position");
}

#[test]
fn the_side_to_move_view_flips_the_signs_and_keeps_the_best_move_ringed() {
    let mut harness = app_with(evaluating(&analyzer()), launch(othello_testkit::TEST_GRACE));
    wait_until(&mut harness, "the start position's values", every_move_valued);
    harness.get_by_label_contains("f5, evaluation").click();
    harness.step();
    harness.step();
    wait_until(&mut harness, "the values after f5", every_move_valued);
    let black_view = evaluated_cells(&harness);
    assert!(black_view.iter().all(|l| l.contains("-1.0 discs, Black's view")), "{black_view:?}");
    let ringed = |cells: &[String]| -> Vec<String> {
        cells.iter().filter(|l| l.ends_with(", best move")).map(|l| l[..2].to_owned()).collect()
    };
    click_button(&mut harness, "Side to move");
    assert_eq!(harness.state().settings().eval_view, othello_app::settings::EvalView::SideToMove, "a setting");
    let mover_view = evaluated_cells(&harness);
    assert_eq!(mover_view.len(), black_view.len());
    // White to move: each move flips one disc, +1 for White.
    assert!(mover_view.iter().all(|l| l.contains("+1.0 discs, White's view")), "{mover_view:?}");
    assert!(harness.query_by_label_contains("+ = the side to move ahead").is_some(), "the legend says so");
    assert_eq!(ringed(&mover_view), ringed(&black_view), "the same best move is ringed");
    assert_eq!(ringed(&mover_view).len(), 1);
    click_button(&mut harness, "Black");
    assert!(evaluated_cells(&harness).iter().all(|l| l.contains("-1.0 discs, Black's view")));
}

/// A game where each side plays the move that flips the fewest discs (the first such in square
/// order): against the analyser, which values a move by its flips, it is full of mistakes.
fn fewest_flips_game() -> (String, Vec<(usize, u32, u32)>) {
    let mut position = Position::start();
    let mut moves = Vec::new();
    // (ply, best flips, played flips) of every move that is not a pass.
    let mut verdicts = Vec::new();
    while !position.is_game_over() {
        let legal: Vec<_> = position.legal_moves().into_iter().collect();
        let mv = match legal.iter().min_by_key(|&&s| position.flips(s).count()) {
            Some(&square) => {
                let best = legal.iter().map(|&s| position.flips(s).count()).max().unwrap();
                verdicts.push((moves.len() + 1, best, position.flips(square).count()));
                othello_sdk::Move::Play(square)
            }
            None => othello_sdk::Move::Pass,
        };
        position.try_play(mv).unwrap();
        moves.push(mv);
    }
    (othello_sdk::format_transcript(&moves), verdicts)
}

#[test]
fn game_analysis_finds_the_known_mistakes_of_a_scripted_game() {
    let mut harness = app_with(
        Settings { analysis_bot: Some(analyzer()), ..Settings { animate: false, ..Settings::default() } },
        launch(othello_testkit::TEST_GRACE),
    );
    let (transcript, verdicts) = fewest_flips_game();
    let expected: Vec<usize> = verdicts
        .iter()
        .filter(|(_, best, played)| f64::from(best - played) >= othello_app::review::MISTAKE_DISCS)
        .map(|(ply, _, _)| *ply)
        .collect();
    assert!(!expected.is_empty(), "the scripted game has mistakes to find");
    harness.state_mut().load_transcript(&transcript);
    harness.step();
    click_button(&mut harness, "Analyse game");
    wait_until(&mut harness, "the game analysis", |app| {
        app.game_review().is_some_and(|r| *r.status() != othello_app::review::Status::Running)
    });
    let review = harness.state().game_review().unwrap();
    assert_eq!(*review.status(), othello_app::review::Status::Done);
    assert_eq!(review.progress().0, harness.state().game().moves().len(), "every move analysed");
    let found: Vec<usize> = review.mistakes().map(|m| m.ply).collect();
    assert_eq!(found, expected, "the mistakes are the moves that flipped 4 or more fewer than the best");
    for &(ply, best, played) in &verdicts {
        let verdict = review.of_ply(ply).unwrap();
        assert_eq!((verdict.best_value, verdict.played_value), (f64::from(best), Some(f64::from(played))));
    }
    // Marked in the move list and on the graph.
    let first = review.of_ply(expected[0]).unwrap().clone();
    let letter = if first.color == Color::Black { 'B' } else { 'W' };
    let label = format!("{}. {letter} {}", first.ply, first.played);
    let prefix = format!("{label}, ");
    let name = harness.get_by_label_contains(&prefix).accesskit_node().label().unwrap_or_default().to_owned();
    assert!(name.contains("mistake") || name.contains("blunder"), "{name}");
    let graph = harness.get_by_label_contains("Evaluation graph").accesskit_node().label().unwrap().to_owned();
    assert!(graph.contains(&format!("mistakes at moves {}", expected[0])), "{graph}");
    assert!(harness.query_by_label_contains(&format!("Mistakes ({})", expected.len())).is_some());
    // The loss graph adds up each player's losses against the best moves.
    let mut lost = [0.0, 0.0];
    for &(ply, best, played) in &verdicts {
        let color = review.of_ply(ply).unwrap().color;
        lost[usize::from(color == Color::White)] += f64::from(best - played);
    }
    let expected_name = format!("Loss graph: Black lost {:.1} discs, White lost {:.1} discs in all", lost[0], lost[1]);
    assert!(harness.query_by_label(&expected_name).is_some(), "{expected_name}");
}

#[test]
fn a_game_analysis_of_a_game_no_longer_kept_is_stopped_with_its_runner() {
    // The analysis never returns; a long grace keeps the host from stopping it on its own.
    let hang = own_copy_of("analysis_hang", "game_analysis_no_longer_kept");
    let settings = Settings { analysis_bot: Some(hang.clone()), animate: false, ..Settings::default() };
    let mut harness = app_with(settings, launch(Duration::from_secs(120)));
    harness.state_mut().load_transcript("f5d6c3d3c4");
    harness.step();
    click_button(&mut harness, "Analyse game");
    let runner = wait_for_runner(&mut harness, &hang, &[]);
    assert_eq!(*harness.state().game_review().unwrap().status(), othello_app::review::Status::Running);
    harness.state_mut().new_game();
    harness.step();
    assert!(othello_testkit::wait_until_gone(runner), "the analysis of the dropped game was killed");
    assert!(harness.state().game_review().is_none());
}

#[test]
fn game_analysis_takes_a_bot_with_the_analysis_export_when_none_is_chosen() {
    // Only the analysis bot is loaded; none is chosen in the settings.
    let plugins = tempfile::tempdir().unwrap();
    let library = plugins.path().join(analyzer().file_name().unwrap());
    std::fs::copy(analyzer(), &library).unwrap();
    let folders = vec![plugins.path().to_owned()];
    let launch = launch(othello_testkit::TEST_GRACE);
    let mut harness = Harness::builder().with_size([1200.0, 900.0]).build_eframe(move |cc| {
        let settings = Settings { animate: false, ..Settings::default() };
        OthelloApp::with_config(&cc.egui_ctx, settings, FolderSource::Exact(folders), &launch)
    });
    wait_until(&mut harness, "the plugin scan", |app| !app.is_scanning_plugins() && !app.plugins().is_empty());
    assert_eq!(harness.state().settings().analysis_bot, None);
    harness.state_mut().load_transcript("f5d6c3d3c4");
    harness.step();
    click_button(&mut harness, "Analyse game");
    assert_eq!(harness.state().settings().analysis_bot.as_deref(), Some(library.as_path()), "taken and shown");
    // The message line names the bot, while the analysis runs ("Analysing the game's 5 moves
    // with …") and once it is done ("Game analysed with …": a fast bot is done within a frame).
    let name = harness.state().plugins().iter().find(|p| p.path == library).expect("the bot is listed").name.clone();
    assert!(harness.query_by_label_contains(&format!(" with {name}")).is_some(), "the message line says which bot");
    wait_until(&mut harness, "the game analysis", |app| {
        app.game_review().is_some_and(|r| *r.status() == othello_app::review::Status::Done)
    });
    assert_eq!(harness.state().game_review().unwrap().progress().0, 5, "every move analysed");
    harness.step();
    assert!(
        harness.query_by_label_contains(&format!("Game analysed with {name}: ")).is_some(),
        "the summary names the bot too"
    );
}

#[test]
fn the_analysis_pauses_while_a_bot_thinks_and_starts_again_after_its_move() {
    let slow = super::app_ui::standin_bot("slow-thinker", &[("BOT_THINK_MS", "1500")]);
    let settings = Settings {
        white: super::app_ui::bot(&slow),
        time_per_move_ms: 0, // the stand-in sleeps: no move limit to run into
        ..evaluating(&analyzer())
    };
    let mut harness = app_with(settings, launch(othello_testkit::TEST_GRACE));
    wait_until(&mut harness, "the start position's values", every_move_valued);
    harness.get_by_label_contains("f5, evaluation").click();
    wait_until(&mut harness, "the bot's think", |app| app.session().thinking().is_some());
    assert_eq!(harness.state().analysis().status(), Status::Paused, "the bot has the cores");
    assert!(!harness.state().analysis().is_running(), "no search runs beside the bot");
    assert!(harness.query_by_label_contains("Paused while a bot thinks").is_some(), "the panel says why");
    wait_until(&mut harness, "the bot's move", |app| app.game().moves().len() == 2);
    wait_until(&mut harness, "the values after the bot's move", every_move_valued);
    assert_ne!(harness.state().analysis().status(), Status::Paused);
}

#[test]
fn one_point_of_view_for_the_board_the_read_out_the_graph_the_list_and_the_help() {
    let mut harness = app_with(evaluating(&analyzer()), launch(othello_testkit::TEST_GRACE));
    wait_until(&mut harness, "the start position's values", every_move_valued);
    for square in ["f5", "d6", "c3"] {
        harness.get_by_label_contains(&format!("{square}, evaluation")).click();
        harness.step();
        harness.step();
        wait_until(&mut harness, "the values after the move", every_move_valued);
    }
    click_button(&mut harness, "White");
    assert_eq!(harness.state().settings().eval_view, othello_app::settings::EvalView::White);
    // White to move: a move's value is the discs it flips, + for White, to one decimal.
    let cells = evaluated_cells(&harness);
    assert!(cells.iter().any(|l| l.starts_with("g5, evaluation +2.0 discs, White's view")), "{cells:?}");
    assert!(cells.iter().all(|l| l.contains("evaluation +") && l.contains(".0 discs, White's view")), "{cells:?}");
    assert!(harness.query_by_label_contains("For White, in discs: + = White ahead").is_some(), "the graph");
    assert!(harness.query_by_label_contains("In discs for White: + = White ahead").is_some(), "the read-out");
    // One numbering: plies, in the list's rows as in its moves and the status line.
    assert!(harness.query_by_label("3. B c3").is_some(), "the third move is move 3");
    assert!(harness.query_by_label("3.").is_some(), "its row is numbered 3");
    harness.key_press(egui::Key::ArrowLeft);
    harness.step();
    assert!(harness.query_by_label("Viewing move 2 of 3").is_some());
    // The help says the same.
    harness.get_by_role_and_label(Role::Button, "Help").click();
    harness.step();
    harness.step();
    harness.get_by_label("How to play").click();
    harness.step();
    harness.step();
    assert!(harness.query_by_label_contains("view everywhere: + = White ahead, in discs").is_some(), "the help");
}

#[test]
fn the_best_line_is_shown_with_its_values_and_is_legal() {
    let mut harness = app_with(evaluating(&analyzer()), launch(othello_testkit::TEST_GRACE));
    wait_until(&mut harness, "the best line", |app| app.analysis().line_for(&app.game().viewed()).len() == 8);
    let app = harness.state();
    let line = app.analysis().line_for(&Position::start()).to_vec();
    let best = app.analysis().values_for(&Position::start())[0].square;
    assert_eq!(line[0].mv, othello_sdk::Move::Play(best), "it starts with the best move");
    let mut position = Position::start();
    for step in &line {
        assert_eq!(step.mover, position.side_to_move());
        assert!(position.is_legal(step.mv), "{} is legal", step.mv);
        assert!(step.value.is_some_and(|v| v.eval.is_some()), "each move has its value");
        position.play(step.mv);
    }
    let shown = harness.query_by_label_contains("Best line: ").expect("the line is shown");
    let text = shown.accesskit_node().value().unwrap_or_default().to_owned();
    assert!(text.contains(&format!("{best}\u{a0}+1.0")), "the first move and its value, Black's view: {text}");
}

#[test]
fn the_search_time_is_the_players_choice() {
    let settings = Settings { analysis_max_ms: 250, ..evaluating(&analyzer()) };
    let mut harness = app_with(settings, launch(othello_testkit::TEST_GRACE));
    let mut budgets = Vec::new();
    let started = Instant::now();
    while harness.state().analysis().status() != Status::Done {
        assert!(started.elapsed() < WAIT, "the analysis ends at its last budget");
        if let Status::Deepening { budget_ms } = harness.state().analysis().status() {
            budgets.push(budget_ms);
        }
        std::thread::sleep(Duration::from_millis(5));
        harness.step();
    }
    assert!(budgets.iter().all(|b| *b <= 250), "{budgets:?}");
    assert!(harness.query_by_label("Analysis time").is_some(), "set in the Analysis panel");
}

#[test]
fn practice_hides_the_hints_until_the_game_is_over_then_shows_them_and_analyses() {
    let settings = Settings { practice: true, ..evaluating(&analyzer()) };
    let mut harness = app_with(settings, launch(othello_testkit::TEST_GRACE));
    for _ in 0..10 {
        harness.step();
    }
    assert!(evaluated_cells(&harness).is_empty(), "no evaluations during the game");
    assert_eq!(harness.state().analysis().status(), Status::Off, "nothing searched meanwhile");
    assert!(harness.query_by_label_contains("Practice: the hints show once the game is over").is_some());
    harness.get_by_label("f5").click();
    for _ in 0..10 {
        harness.step();
    }
    assert!(evaluated_cells(&harness).is_empty());
    harness.state_mut().go_ahead(othello_app::Confirm::Resign(Color::White));
    wait_until(&mut harness, "the values after the game", every_move_valued);
    assert!(!evaluated_cells(&harness).is_empty(), "the hints show once it is over");
    harness.state_mut().analyse_game();
    wait_until(&mut harness, "the game analysis", |app| {
        app.game_review().is_some_and(|r| *r.status() == othello_app::review::Status::Done)
    });
}

#[test]
fn search_budgets_follow_the_time_and_go_on_to_an_exact_solve_near_the_end() {
    use othello_app::analysis::{Plan, SOLVE_CAP_MS};
    let plan = Plan { max_ms: 1000, solve_from_empties: 0, line_plies: 0 };
    assert_eq!(plan.budgets(&Position::start()), [100, 250, 500, 1000]);
    let odd = Plan { max_ms: 700, ..plan };
    assert_eq!(odd.budgets(&Position::start()), [100, 250, 500, 700]);
    let ffo = Position::from_board_string(FFO_1).unwrap();
    let solving = Plan { solve_from_empties: 14, ..plan };
    let budgets = solving.budgets(&ffo);
    assert_eq!(budgets[..5], [100, 250, 500, 1000, 2000], "past the time, doubling");
    assert_eq!(budgets.last(), Some(&SOLVE_CAP_MS), "up to the cap");
    assert_eq!(solving.budgets(&Position::start()).len(), 4, "not with 60 empties");
}

#[test]
fn a_game_analysis_waits_while_a_bot_of_the_game_thinks() {
    let slow = super::app_ui::standin_bot("slow-reviewed", &[("BOT_THINK_MS", "1500")]);
    let settings = Settings {
        white: super::app_ui::bot(&slow),
        time_per_move_ms: 0,
        analysis_bot: Some(analyzer()),
        animate: false,
        ..Settings::default()
    };
    let mut harness = app_with(settings, launch(othello_testkit::TEST_GRACE));
    // 31 moves of the scripted game: White, the slow bot, is to move.
    let (transcript, _) = fewest_flips_game();
    harness.state_mut().load_transcript(&transcript[..62]);
    wait_until(&mut harness, "the bot's think", |app| app.session().thinking().is_some());
    harness.state_mut().analyse_game();
    wait_until(&mut harness, "the analysis to wait", |app| app.game_review().is_some_and(|r| r.is_waiting()));
    let waiting = harness.state().game_review().unwrap().progress();
    for _ in 0..5 {
        std::thread::sleep(Duration::from_millis(20));
        harness.step();
    }
    let review = harness.state().game_review().unwrap();
    assert_eq!(review.progress(), waiting, "no position searched while the bot thinks");
    assert!(waiting.0 < waiting.1 && *review.status() == othello_app::review::Status::Running);
    wait_until(&mut harness, "the bot's move and the analysis's end", |app| {
        app.game().moves().len() == 32
            && app.game_review().is_some_and(|r| *r.status() == othello_app::review::Status::Done)
    });
}
