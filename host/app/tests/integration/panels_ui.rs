//! Panels on their own, outside the app: each keeps its own state and returns the user's wishes
//! as actions, changing no game itself.

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
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
