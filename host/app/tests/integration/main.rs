//! The app driven through egui_kittest, one binary (each module a former test file).

mod analysis_ui;
mod app_ui;
mod clock_ui;
mod ladder_ui;
mod panels_ui;
