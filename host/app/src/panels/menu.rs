//! The menu bar (Game, Edit, View, Help) with every command and its keyboard shortcut, and the
//! Help windows.

use egui::{Button, Ui};

use crate::{Action, OthelloApp, Tab, shortcuts};

/// Which Help windows are open.
#[derive(Debug, Default)]
pub struct HelpWindows {
    pub shortcuts: bool,
    pub how_to_play: bool,
    pub about: bool,
}

/// One of the Help windows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HelpWindow {
    Shortcuts,
    HowToPlay,
    About,
}

impl HelpWindows {
    pub fn open(&mut self, window: HelpWindow) {
        match window {
            HelpWindow::Shortcuts => self.shortcuts = true,
            HelpWindow::HowToPlay => self.how_to_play = true,
            HelpWindow::About => self.about = true,
        }
    }
}

/// The menu bar. Reads the app only; returns the commands chosen (the View menu's check boxes as
/// changed settings).
pub fn show(app: &OthelloApp, ui: &mut Ui) -> Vec<Action> {
    let ctx = ui.ctx().clone();
    let mut chosen = None;
    let mut settings = app.settings.clone();
    egui::MenuBar::new().ui(ui, |ui| {
        let mut item = |ui: &mut Ui, label: &str, action: Action, enabled: bool| {
            let mut button = Button::new(label);
            if let Some(text) = shortcuts::text(&ctx, &action) {
                button = button.shortcut_text(text);
            }
            if ui.add_enabled(enabled, button).clicked() {
                chosen = Some(action);
            }
        };
        let game = app.game();
        let over = game.is_over();
        ui.menu_button("Game", |ui| {
            item(ui, "New game", Action::NewGame, true);
            item(ui, "Swap colours", Action::SwapColours, true);
            ui.separator();
            item(ui, "Open…", Action::Open, true);
            item(ui, "Save…", Action::Save, true);
            ui.separator();
            item(ui, "Analyse game", Action::AnalyseGame, !app.board_game().moves().is_empty());
            ui.separator();
            item(ui, "Resign", Action::Resign, app.can_resign());
            item(ui, "Abort", Action::Abort, !over);
            item(ui, if app.session.paused { "Resume" } else { "Pause" }, Action::TogglePause, app.can_pause());
            item(ui, "Step one move", Action::Step, app.session.paused && !over && !app.session.has_human());
            item(ui, "Take back loss on time", Action::TakeBackTimeLoss, app.session.lost_on_time().is_some());
            ui.separator();
            item(ui, "Quit", Action::Quit, true);
        });
        ui.menu_button("Edit", |ui| {
            item(ui, "Undo", Action::Undo, app.session.can_undo());
            item(ui, "Redo", Action::Redo, app.session.has_human() && app.game().can_redo());
            ui.separator();
            item(ui, "Copy transcript", Action::CopyTranscript, true);
        });
        ui.menu_button("View", |ui| {
            for tab in Tab::ALL {
                item(ui, &format!("{} tab", tab.title()), Action::ShowTab(tab), true);
            }
            ui.separator();
            ui.checkbox(&mut settings.show_legal_moves, "Show legal moves");
            ui.checkbox(&mut settings.animate, "Animate flips");
            ui.checkbox(&mut settings.grow_with_window, "Grow with the window")
                .on_hover_text("Larger text and panels in a window larger than 1280×820");
            ui.checkbox(&mut settings.sound, "Sound").on_hover_text(crate::sound::STATUS);
        });
        ui.menu_button("Help", |ui| {
            for (label, window) in [
                ("Keyboard shortcuts", HelpWindow::Shortcuts),
                ("How to play", HelpWindow::HowToPlay),
                ("About", HelpWindow::About),
            ] {
                if ui.button(label).clicked() {
                    chosen = Some(Action::OpenHelp(window));
                }
            }
        });
    });
    let mut actions = Vec::new();
    if settings != app.settings {
        actions.push(Action::ChangeSettings(Box::new(settings)));
    }
    actions.extend(chosen);
    actions
}

/// The Help windows that are open (How to play reads the values' point of view).
pub fn help_windows(help: &mut HelpWindows, view: crate::analysis::EvalView, ctx: &egui::Context) {
    egui::Window::new("Keyboard shortcuts").open(&mut help.shortcuts).resizable(false).collapsible(false).show(
        ctx,
        |ui| {
            egui::Grid::new("shortcuts").num_columns(2).striped(true).show(ui, |ui| {
                for (shortcut, action) in shortcuts::bindings() {
                    ui.label(ctx.format_shortcut(&shortcut));
                    ui.label(action_name(&action));
                    ui.end_row();
                }
                for (key, what) in shortcuts::NAVIGATION_KEYS {
                    ui.label(key);
                    ui.label(what);
                    ui.end_row();
                }
            });
        },
    );
    egui::Window::new("How to play").open(&mut help.how_to_play).resizable(false).collapsible(false).show(ctx, |ui| {
        ui.set_max_width(360.0);
        ui.label(
            "Black moves first. Place a disc so that it encloses a straight line of your opponent's discs \
                 between it and one of yours: they flip to your colour. The dotted squares are your legal moves; \
                 click one to play it. If you have no legal move you pass. The game ends when neither side can \
                 move; the one with more discs wins.",
        );
        ui.add_space(4.0);
        ui.label(format!(
            "Evaluations are in discs, to one decimal (a solved, exact one is whole), from one point of \
                 view everywhere: {}. Moves are numbered 1, 2, 3… by each disc placed (passes count), as in \
                 Othello records. Change the point of view in the Play tab, Analysis.",
            view.legend()
        ));
    });
    egui::Window::new("About").open(&mut help.about).resizable(false).collapsible(false).show(ctx, |ui| {
        ui.label(format!("Othello Arena {}", env!("CARGO_PKG_VERSION")));
        ui.label("Write, load, watch, play and rank Othello bots.");
    });
}

/// What an action does, for the shortcuts list.
fn action_name(action: &Action) -> String {
    match action {
        Action::NewGame => "New game".into(),
        Action::SwapColours => "Swap colours".into(),
        Action::Open => "Open a game file".into(),
        Action::Save => "Save the game".into(),
        Action::Undo => "Undo".into(),
        Action::Redo => "Redo".into(),
        Action::Resign => "Resign".into(),
        Action::Abort => "Abort".into(),
        Action::TogglePause => "Pause / resume the game (its bots and its clock)".into(),
        Action::TakeBackTimeLoss => "Take back a loss on time".into(),
        Action::Step => "Step one move while paused".into(),
        Action::CopyTranscript => "Copy the transcript".into(),
        Action::AnalyseGame => "Analyse the game".into(),
        Action::ShowTab(tab) => format!("{} tab", tab.title()),
        Action::Quit => "Quit".into(),
        // Not bound to keys (the shortcuts list names only bound actions).
        other => format!("{other:?}"),
    }
}
