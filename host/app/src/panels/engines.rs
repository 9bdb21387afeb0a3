//! NBoard engines as players: "Add engine…" stores a name, the command that starts the engine in
//! NBoard mode and its working folder in the settings; the engines are offered in the player
//! choice and can be removed here. The arena opens them as `nboard:COMMAND` seats.

use egui::{RichText, Ui};
use othello_sdk::Color;

use crate::settings::{Engine, SeatChoice};
use crate::{Action, OthelloApp};

/// The "Add engine" form while it is open.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EngineForm {
    pub name: String,
    pub command: String,
    pub working_folder: String,
    /// The seat that gets the engine once added (`None` from the engines list).
    pub seat: Option<Color>,
    pub error: Option<String>,
}

/// The engines added, each with Remove, and "Add engine…". Reads the app only; returns the
/// removal or the form's opening.
pub fn show(app: &OthelloApp, ui: &mut Ui) -> Option<Action> {
    ui.heading("NBoard engines");
    if app.settings.engines.is_empty() && app.file_engines().is_empty() {
        ui.small("Programs speaking the NBoard protocol (such as Edax) can play here.");
    }
    let mut remove = None;
    for (index, engine) in app.settings.engines.iter().enumerate() {
        ui.horizontal(|ui| {
            ui.label(RichText::new(&engine.name).strong()).on_hover_text(&engine.command);
            if ui.small_button("Remove").on_hover_text(format!("Remove {}", engine.name)).clicked() {
                remove = Some(index);
            }
        });
    }
    let mut action = remove.map(Action::RemoveEngine);
    for engine in app.file_engines() {
        ui.label(RichText::new(&engine.name).strong())
            .on_hover_text(format!("{} — from the engines file (edit it there)", engine.command));
    }
    if ui.button("Add engine…").clicked() {
        action = Some(Action::OpenEngineForm(None));
    }
    action
}

/// Removes engine `index`; a seat it held goes back to a human.
pub fn remove_engine(app: &mut OthelloApp, index: usize) {
    let engine = app.settings.engines.remove(index);
    let path = engine.seat_path();
    let mut reseat = false;
    for seat in [&mut app.settings.black, &mut app.settings.white] {
        if matches!(seat, SeatChoice::Bot { path: p, .. } if *p == path) {
            *seat = SeatChoice::Human;
            reseat = true;
        }
    }
    if reseat {
        app.session.seat_players(&app.settings);
    }
    app.show_info(format!("Engine {} removed", engine.name));
}

/// The form's window, while open (the form is this panel's own state); returns the engine to add
/// once the form is valid, which closes it.
pub fn form_window(open_form: &mut Option<EngineForm>, ctx: &egui::Context) -> Option<Action> {
    let mut form = open_form.take()?;
    let mut open = true;
    let mut add = false;
    egui::Window::new("Add an NBoard engine").open(&mut open).collapsible(false).resizable(false).show(ctx, |ui| {
        ui.set_max_width(380.0);
        egui::Grid::new("engine form").num_columns(2).show(ui, |ui| {
            ui.label("Name");
            ui.add(egui::TextEdit::singleline(&mut form.name).hint_text("Edax")).accessible_name("Engine name");
            ui.end_row();
            ui.label("Command");
            ui.add(egui::TextEdit::singleline(&mut form.command).hint_text("/usr/local/bin/edax -q -nboard"))
                .accessible_name("Engine command")
                .on_hover_text("The command line that starts the engine in NBoard mode");
            ui.end_row();
            ui.label("Working folder");
            ui.add(egui::TextEdit::singleline(&mut form.working_folder).hint_text("(optional)"))
                .accessible_name("Engine working folder")
                .on_hover_text("The folder the engine runs in; many find their data files there");
            ui.end_row();
        });
        if let Some(error) = &form.error {
            ui.colored_label(egui::Color32::LIGHT_RED, error);
        }
        add = ui.button("Add").clicked();
    });
    if add {
        match validate(&form) {
            Ok(engine) => return Some(Action::AddEngine(engine, form.seat)),
            Err(why) => form.error = Some(why),
        }
    }
    if open {
        *open_form = Some(form);
    }
    None
}

/// The engine the form describes, or what is wrong with it.
pub fn validate(form: &EngineForm) -> Result<Engine, String> {
    let name = form.name.trim();
    let command = form.command.trim();
    if name.is_empty() {
        return Err("Give the engine a name".to_owned());
    }
    let words = othello_arena::nboard::protocol::split_command(command).map_err(|why| format!("Command: {why}"))?;
    if words.is_empty() || words[0].is_empty() {
        return Err("Give the command that starts the engine".to_owned());
    }
    let folder = form.working_folder.trim();
    if !folder.is_empty() && !std::path::Path::new(folder).is_dir() {
        return Err(format!("{folder} is not a folder"));
    }
    Ok(Engine { name: name.to_owned(), command: command.to_owned(), working_folder: folder.to_owned() })
}
