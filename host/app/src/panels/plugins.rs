//! Every library found in the plugin folders with its status, the folders scanned, and Rescan.

use std::path::PathBuf;

use egui::{Color32, RichText, Ui};

use crate::OthelloApp;
use crate::catalog::FolderSource;
use othello_arena::plugins::PluginStatus;

pub fn show(app: &mut OthelloApp, ui: &mut Ui) {
    ui.heading("Plugins");
    ui.horizontal(|ui| {
        if ui.button("Rescan").clicked() {
            app.catalog.rescan();
        }
        if app.catalog.is_scanning() {
            ui.label("scanning…");
        }
    });
    ui.small("Rescanned automatically when a library is added, removed or rebuilt.");
    ui.add_space(4.0);
    if app.catalog.entries().is_empty() && !app.catalog.is_scanning() {
        ui.label("No libraries found in the folders below.");
    }
    for entry in app.catalog.entries() {
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
    let mut remove = None;
    for folder in app.catalog.folders().to_vec() {
        ui.horizontal(|ui| {
            ui.small(folder.display().to_string());
            if app.settings.extra_plugin_folders.contains(&folder) && ui.small_button("remove").clicked() {
                remove = Some(folder.clone());
            }
        });
    }
    if !app.catalog.folders().iter().any(|f| f.ends_with(othello_arena::plugins::LOCAL_PLUGIN_FOLDER)) {
        ui.small(format!("(create ./{} to add bots there)", othello_arena::plugins::LOCAL_PLUGIN_FOLDER));
    }
    ui.horizontal(|ui| {
        let hint = "another folder";
        ui.add(egui::TextEdit::singleline(&mut app.panels.folder_input).hint_text(hint).desired_width(170.0));
        if ui.button("Add folder").clicked() && !app.panels.folder_input.trim().is_empty() {
            let folder = PathBuf::from(app.panels.folder_input.trim());
            if !folder.is_dir() {
                app.show_error(format!("{} is not a folder", folder.display()));
            } else if !app.settings.extra_plugin_folders.contains(&folder) {
                app.settings.extra_plugin_folders.push(folder);
                app.panels.folder_input.clear();
                set_extra_folders(app);
            }
        }
    });
    if let Some(folder) = remove {
        app.settings.extra_plugin_folders.retain(|f| *f != folder);
        set_extra_folders(app);
    }
    sandbox(app, ui);
}

/// Which layers of the sandbox protect the app's bots on this machine, and why any is missing.
fn sandbox(app: &OthelloApp, ui: &mut Ui) {
    ui.separator();
    ui.label(RichText::new("Sandbox of the bots").strong());
    match app.catalog.sandbox() {
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

fn set_extra_folders(app: &mut OthelloApp) {
    if let FolderSource::Standard { .. } = app.catalog.source() {
        let extra = crate::standard_extra(&app.command_line_folders, &app.settings.extra_plugin_folders);
        app.catalog.set_source(FolderSource::Standard { extra });
    }
}
