//! Panels on their own, outside the app: each keeps its own state and returns the user's wishes
//! as actions, changing no game itself.

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use othello_app::analysis::EvalView;
use othello_app::panels::moves::MovesPanel;
use othello_app::panels::records::RecordsPanel;
use othello_app::{Action, Game};

struct MovesState {
    panel: MovesPanel,
    game: Game,
    asked: Vec<Action>,
}

#[test]
fn the_moves_panel_returns_the_move_to_view_and_leaves_the_game_alone() {
    let mut game = Game::from_transcript("f5d6c3d3").unwrap();
    game.view(2);
    let state = MovesState { panel: MovesPanel::default(), game, asked: Vec::new() };
    let mut harness = Harness::new_ui_state(
        |ui, state: &mut MovesState| {
            if let Some(action) = state.panel.show(&state.game, None, EvalView::Black, true, ui) {
                state.asked.push(action);
            }
        },
        state,
    );
    harness.get_by_label("3. B c3").click();
    harness.run();
    harness.get_by_role_and_label(Role::Button, ">|").click();
    harness.run();
    harness.get_by_role_and_label(Role::Button, "Play on from here").click();
    harness.run();
    let state = harness.state();
    assert_eq!(state.asked, [Action::View(3), Action::View(4), Action::PlayOnFromViewed]);
    assert_eq!((state.game.cursor(), state.game.moves().len()), (2, 4), "the panel changed no game");
}

#[test]
fn the_records_panel_keeps_its_own_text_and_returns_the_load() {
    let state = (RecordsPanel::default(), String::from("game.ggf"), Vec::new());
    let mut harness = Harness::new_ui_state(
        |ui, (panel, file, asked): &mut (RecordsPanel, String, Vec<Action>)| {
            if let Some(action) = panel.show(file, ui) {
                asked.push(action);
            }
        },
        state,
    );
    harness.get_by_label("Paste a transcript").focus();
    harness.run();
    harness.get_by_label("Paste a transcript").type_text("f5d6");
    harness.run();
    harness.get_by_role_and_label(Role::Button, "Load transcript").click();
    harness.run();
    harness.get_by_role_and_label(Role::Button, "Open").click();
    harness.run();
    assert_eq!(harness.state().2, [Action::LoadTranscript("f5d6".to_owned()), Action::OpenPath("game.ggf".into())]);
}

/// An app that scans no folder, for the panels that read it.
fn bare_app(settings: othello_app::Settings) -> othello_app::OthelloApp {
    let launch = othello_app::Launch {
        plugin_folders: Vec::new(),
        runner: othello_testkit::runner_command(),
        options: othello_testkit::seat_options(),
        engines: Vec::new(),
    };
    let folders = othello_app::catalog::FolderSource::Exact(Vec::new());
    othello_app::OthelloApp::with_config(&egui::Context::default(), settings, folders, &launch)
}

fn edax() -> othello_app::settings::Engine {
    othello_app::settings::Engine {
        name: "Edax".to_owned(),
        command: "edax -q -nboard".to_owned(),
        working_folder: String::new(),
    }
}

struct PlayersState {
    app: othello_app::OthelloApp,
    records: RecordsPanel,
    asked: Vec<Action>,
}

#[test]
fn the_players_panel_returns_the_settings_it_edits_and_the_engine_removal_and_leaves_the_app_alone() {
    let settings = othello_app::Settings { show_legal_moves: true, engines: vec![edax()], ..Default::default() };
    let before = settings.clone();
    let state = PlayersState { app: bare_app(settings), records: RecordsPanel::default(), asked: Vec::new() };
    let mut harness = Harness::new_ui_state(
        |ui, state: &mut PlayersState| {
            let actions = othello_app::panels::players::show(&state.app, &mut state.records, ui);
            state.asked.extend(actions);
        },
        state,
    );
    harness.get_by_label("Show legal moves").click();
    harness.run();
    harness.get_by_role_and_label(Role::Button, "Remove").click();
    harness.run();
    harness.get_by_role_and_label(Role::Button, "Add engine…").click();
    harness.run();
    let state = harness.state();
    let edited = othello_app::Settings { show_legal_moves: false, ..before.clone() };
    assert_eq!(
        state.asked,
        [Action::ChangeSettings(Box::new(edited)), Action::RemoveEngine(0), Action::OpenEngineForm(None)]
    );
    assert_eq!(*state.app.settings(), before, "the panel changed no setting itself");
}

#[test]
fn the_engine_form_keeps_its_own_fields_says_what_is_missing_and_returns_the_engine() {
    use othello_app::panels::engines::EngineForm;
    let form = Some(EngineForm { seat: Some(othello_sdk::Color::White), ..Default::default() });
    let mut harness = Harness::new_ui_state(
        |ui, (form, asked): &mut (Option<EngineForm>, Vec<Action>)| {
            asked.extend(othello_app::panels::engines::form_window(form, &ui.ctx().clone()));
        },
        (form, Vec::new()),
    );
    harness.get_by_role_and_label(Role::Button, "Add").click();
    harness.run();
    assert!(harness.query_by_label("Give the engine a name").is_some(), "the form says what is missing");
    assert!(harness.state().1.is_empty() && harness.state().0.is_some(), "nothing added, the form stays open");
    harness.get_by_label("Engine name").focus();
    harness.run();
    harness.get_by_label("Engine name").type_text("Edax");
    harness.run();
    harness.get_by_label("Engine command").focus();
    harness.run();
    harness.get_by_label("Engine command").type_text("edax -q -nboard");
    harness.run();
    harness.get_by_role_and_label(Role::Button, "Add").click();
    harness.run();
    let (form, asked) = harness.state();
    assert_eq!(asked, &[Action::AddEngine(edax(), Some(othello_sdk::Color::White))]);
    assert!(form.is_none(), "the form closed once its engine was returned");
}

#[test]
fn the_analysis_panel_returns_the_point_of_view_chosen() {
    let settings = othello_app::Settings { show_evaluations: true, ..Default::default() };
    let state = (bare_app(settings.clone()), Vec::new());
    let mut harness = Harness::new_ui_state(
        |ui, (app, asked): &mut (othello_app::OthelloApp, Vec<Action>)| {
            asked.extend(othello_app::panels::analysis::show(app, ui));
        },
        state,
    );
    harness.get_by_role_and_label(Role::Button, "White").click();
    harness.run();
    let (app, asked) = harness.state();
    let edited = othello_app::Settings { eval_view: EvalView::White, ..settings.clone() };
    assert_eq!(asked, &[Action::ChangeSettings(Box::new(edited))]);
    assert_eq!(*app.settings(), settings, "the panel changed no setting itself");
}

#[test]
fn the_menu_returns_its_commands_and_the_help_window_to_open() {
    let mut harness = Harness::new_ui_state(
        |ui, (app, asked): &mut (othello_app::OthelloApp, Vec<Action>)| {
            asked.extend(othello_app::panels::menu::show(app, ui));
        },
        (bare_app(othello_app::Settings::default()), Vec::new()),
    );
    harness.get_by_label("Game").click();
    harness.run();
    harness.get_by_label("Swap colours").click();
    harness.run();
    harness.get_by_label("Help").click();
    harness.run();
    harness.get_by_label("About").click();
    harness.run();
    use othello_app::panels::menu::HelpWindow;
    assert_eq!(harness.state().1, [Action::SwapColours, Action::OpenHelp(HelpWindow::About)]);
}

/// A plugin folder with two usable bots (the C random bot and `first_legal`).
fn two_bots(dir: &std::path::Path) -> std::path::PathBuf {
    let plugins = dir.join("plugins");
    std::fs::create_dir(&plugins).unwrap();
    for source in [othello_testkit::random_bot(), othello_testkit::fixture("first_legal")] {
        std::fs::copy(&source, plugins.join(source.file_name().unwrap())).unwrap();
    }
    plugins
}

fn scanned_catalog(folder: std::path::PathBuf) -> othello_app::catalog::Catalog {
    let mut catalog = othello_app::catalog::Catalog::new(
        othello_app::catalog::FolderSource::Exact(vec![folder]),
        othello_testkit::runner_command(),
        othello_testkit::seat_options(),
        Box::new(|| {}),
    );
    let started = std::time::Instant::now();
    while catalog.is_scanning() || catalog.entries().len() < 2 {
        assert!(started.elapsed() < std::time::Duration::from_secs(60), "the plugin scan did not finish");
        std::thread::sleep(std::time::Duration::from_millis(5));
        catalog.update();
    }
    catalog
}

struct MatchesPanelState {
    matches: othello_app::matches::MatchesState,
    options: othello_app::settings::MatchOptions,
    catalog: othello_app::catalog::Catalog,
    asked: Vec<Action>,
}

#[test]
fn the_matches_panel_keeps_its_choice_of_bots_in_its_own_state_and_asks_nothing_of_the_app() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = scanned_catalog(two_bots(dir.path()));
    let state =
        MatchesPanelState { matches: Default::default(), options: Default::default(), catalog, asked: Vec::new() };
    let mut harness = Harness::new_ui_state(
        |ui, state: &mut MatchesPanelState| {
            let seating = othello_arena::seat::Seating::in_process();
            let wake = || -> Box<dyn Fn() + Send> { Box::new(|| {}) };
            let shared = othello_app::panels::Shared {
                catalog: &state.catalog,
                seating: &seating,
                time_per_move_ms: 0,
                wake: &wake,
            };
            state.asked.extend(othello_app::panels::matches::show(&mut state.matches, &mut state.options, &shared, ui));
        },
        state,
    );
    let start_enabled = |harness: &Harness<'_, MatchesPanelState>| {
        !harness.get_by_role_and_label(Role::Button, "Start match").accesskit_node().is_disabled()
    };
    assert!(!start_enabled(&harness), "no bot chosen yet");
    harness.get_by_label_contains("Random (C)").click();
    harness.run();
    harness.get_by_label_contains("First legal").click();
    harness.run();
    let state = harness.state();
    let names: Vec<_> = state.matches.chosen().iter().map(|p| p.file_name().unwrap().to_owned()).collect();
    assert_eq!(names, ["librandom_c.so", "libfirst_legal.so"], "the panel's own choice, in its order");
    assert!(start_enabled(&harness), "two bots make a match");
    assert!(harness.state().asked.is_empty(), "choosing bots asks nothing of the app");
}

struct LadderPanelState {
    ladder: othello_app::ladder::LadderState,
    catalog: othello_app::catalog::Catalog,
    asked: Vec<Action>,
}

#[test]
fn the_ladder_panel_opens_the_file_typed_and_its_own_worker_reads_the_leaderboard() {
    let dir = tempfile::tempdir().unwrap();
    let plugins = two_bots(dir.path());
    let path = dir.path().join("ladder.sqlite3");
    let mut ladder = othello_ladder::Ladder::open(&path).unwrap();
    let random =
        othello_ladder::identity::library_identity(&plugins.join("librandom_c.so"), "Random (C)", None).unwrap();
    let stop = std::sync::atomic::AtomicBool::new(false);
    let seating = othello_arena::seat::Seating::in_process();
    othello_ladder::seed::seed_pool(&mut ladder, &[random], &seating, None, 1, &stop, &mut |_| {}).unwrap();
    drop(ladder);
    let state = LadderPanelState { ladder: Default::default(), catalog: scanned_catalog(plugins), asked: Vec::new() };
    let mut harness = Harness::new_ui_state(
        |ui, state: &mut LadderPanelState| {
            let seating = othello_arena::seat::Seating::in_process();
            let wake = || -> Box<dyn Fn() + Send> { Box::new(|| {}) };
            let shared = othello_app::panels::Shared {
                catalog: &state.catalog,
                seating: &seating,
                time_per_move_ms: 0,
                wake: &wake,
            };
            state.asked.extend(othello_app::panels::ladder::show(&mut state.ladder, &shared, ui));
        },
        state,
    );
    harness.get_by_label("Ladder file").focus();
    harness.run();
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness.run();
    harness.get_by_label("Ladder file").type_text(&path.display().to_string());
    harness.run();
    harness.get_by_role_and_label(Role::Button, "Open").click();
    harness.run_steps(2);
    assert_eq!(harness.state().ladder.path(), Some(path.as_path()), "the panel's own state holds the file");
    let started = std::time::Instant::now();
    while harness.state().ladder.board().is_none() {
        assert!(started.elapsed() < std::time::Duration::from_secs(60), "the leaderboard was not read");
        std::thread::sleep(std::time::Duration::from_millis(5));
        harness.step();
    }
    harness.run_steps(2);
    assert!(harness.query_by_label("Games of Random (C)").is_some(), "its row is shown");
    assert!(harness.query_by_label("Rate First legal").is_some(), "the plugin list is offered for rating");
    assert!(harness.state().asked.is_empty(), "opening a ladder asks nothing of the app");
}

#[test]
fn the_toolbar_and_the_message_line_return_their_commands_and_change_nothing() {
    let ctx = egui::Context::default();
    let mut app = bare_app(othello_app::Settings::default());
    app.perform(Action::Tell("Saved to /tmp/game.ggf".to_owned()), &ctx);
    let mut harness = Harness::new_ui_state(
        |ui, (app, asked): &mut (othello_app::OthelloApp, Vec<Action>)| {
            asked.extend(othello_app::panels::toolbar::show(app, ui));
            asked.extend(othello_app::panels::toolbar::message_line(app, ui));
        },
        (app, Vec::new()),
    );
    assert!(
        harness.get_by_role_and_label(Role::Button, "Undo").accesskit_node().is_disabled(),
        "nothing to undo before the first move"
    );
    harness.get_by_role_and_label(Role::Button, "Swap colours").click();
    harness.run();
    harness.get_by_role_and_label(Role::Button, "x").click();
    harness.run();
    let (app, asked) = harness.state();
    assert_eq!(asked, &[Action::SwapColours, Action::DismissMessage]);
    assert_eq!(
        app.message().map(|m| m.text.as_str()),
        Some("Saved to /tmp/game.ggf"),
        "the line is the app's to clear"
    );
}

#[test]
fn the_dialog_returns_the_answer_and_leaves_the_question_to_the_app() {
    let ctx = egui::Context::default();
    let mut app = bare_app(othello_app::Settings::default());
    app.perform(Action::Play("f5".parse().unwrap()), &ctx);
    app.perform(Action::NewGame, &ctx);
    let question = othello_app::Confirm::Discard(othello_app::actions::Discard::NewGame);
    assert_eq!(app.confirmation(), Some(&question), "a game in progress makes New game ask");
    let mut harness = Harness::new_ui_state(
        |ui, (app, asked): &mut (othello_app::OthelloApp, Vec<Action>)| {
            asked.extend(othello_app::panels::confirm::show(app, &ui.ctx().clone()));
        },
        (app, Vec::new()),
    );
    harness.get_by_role_and_label(Role::Button, "Cancel").click();
    harness.run_steps(2);
    harness.get_by_role_and_label(Role::Button, "Start new game").click();
    harness.run_steps(2);
    let (app, asked) = harness.state();
    assert_eq!(asked, &[Action::CancelConfirmation, Action::GoAhead(question.clone())]);
    assert_eq!(app.confirmation(), Some(&question), "the dialog changed nothing itself");
    assert_eq!(app.game().transcript(), "f5", "the game is the app's to replace");
}
