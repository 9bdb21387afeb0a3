//! Every library found in the plugin folders with its status, the folders scanned, and Rescan.

use std::path::PathBuf;

use egui::{Color32, RichText, Ui};

use crate::catalog::FolderSource;
use crate::{Action, OthelloApp};
use othello_arena::plugins::PluginStatus;

/// The Plugins panel: its own state is the folder being typed. Reads the app only and returns
/// what the user asked for (rescan, add or remove a folder).
#[derive(Default)]
pub struct PluginsPanel {
    folder: String,
}

impl PluginsPanel {
    pub fn show(&mut self, app: &OthelloApp, ui: &mut Ui) -> Option<Action> {
        let mut action = None;
        ui.heading("Plugins");
        ui.horizontal(|ui| {
            if ui.button("Rescan").clicked() {
                action = Some(Action::Rescan);
            }
            if app.workers.catalog.is_scanning() {
                ui.label("scanning…");
            }
        });
        ui.small("Rescanned automatically when a library is added, removed or rebuilt.");
        ui.add_space(4.0);
        if app.workers.catalog.entries().is_empty() && !app.workers.catalog.is_scanning() {
            ui.label("No libraries found in the folders below.");
        }
        for entry in app.workers.catalog.entries() {
            ui.group(|ui| {
                ui.set_width(ui.available_width());
                ui.label(RichText::new(&entry.name).strong());
                ui.small(entry.path.display().to_string());
                match &entry.status {
                    PluginStatus::Ok => {
                        let abi = entry.abi_version.map(|v| format!("ABI {v}")).unwrap_or_default();
                        let features = entry.features_text();
                        let features = if features.is_empty() { String::new() } else { format!(", {features}") };
                        ui.colored_label(Color32::LIGHT_GREEN, format!("OK · {abi}{features}"));
                    }
                    PluginStatus::Error(why) => {
                        ui.colored_label(Color32::LIGHT_RED, why);
                    }
                }
            });
        }
        ui.separator();
        ui.label(RichText::new("Folders scanned").strong());
        for folder in app.workers.catalog.folders() {
            ui.horizontal(|ui| {
                ui.small(folder.display().to_string());
                if app.settings.extra_plugin_folders.contains(folder) && ui.small_button("remove").clicked() {
                    action = Some(Action::RemovePluginFolder(folder.clone()));
                }
            });
        }
        if !app.workers.catalog.folders().iter().any(|f| f.ends_with(othello_arena::plugins::LOCAL_PLUGIN_FOLDER)) {
            ui.small(format!("(create ./{} to add bots there)", othello_arena::plugins::LOCAL_PLUGIN_FOLDER));
        }
        ui.horizontal(|ui| {
            let hint = "another folder";
            ui.add(egui::TextEdit::singleline(&mut self.folder).hint_text(hint).desired_width(170.0));
            if ui.button("Add folder").clicked() && !self.folder.trim().is_empty() {
                let folder = PathBuf::from(self.folder.trim());
                if !folder.is_dir() {
                    action = Some(Action::Refuse(format!("{} is not a folder", folder.display())));
                } else {
                    self.folder.clear();
                    action = Some(Action::AddPluginFolder(folder));
                }
            }
        });
        sandbox(app, ui);
        action
    }
}

/// Which layers of the sandbox protect the app's bots on this machine, and why any is missing.
fn sandbox(app: &OthelloApp, ui: &mut Ui) {
    ui.separator();
    ui.label(RichText::new("Sandbox of the bots").strong());
    match app.workers.catalog.sandbox() {
        None => {
            ui.small("checking…");
        }
        Some(Ok(layers)) if layers.is_empty() => {
            ui.small("off: bots run in a plain process with your user and rights");
        }
        Some(Ok(layers)) => {
            for layer in layers {
                match &layer.state {
                    Ok(detail) => ui.small(format!("{}: active, {detail}", layer.name)),
                    Err(why) => ui.small(format!("{}: MISSING, {why}", layer.name)),
                };
            }
        }
        Some(Err(why)) => {
            ui.small(format!("unknown: {why}"));
        }
    }
}

/// The catalog scans the standard folders, the command line's and the ones added in the app.
pub(crate) fn set_extra_folders(app: &mut OthelloApp) {
    if let FolderSource::Standard { .. } = app.workers.catalog.source() {
        let extra = crate::standard_extra(&app.command_line.plugin_folders, &app.settings.extra_plugin_folders);
        app.workers.catalog.set_source(FolderSource::Standard { extra });
    }
}
