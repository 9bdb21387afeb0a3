//! The panels around the board; each draws from and acts on the app.

pub mod analysis;
pub mod confirm;
pub mod editor;
pub mod engines;
pub mod eval_graph;
pub mod ladder;
pub mod matches;
pub mod menu;
pub mod moves;
pub mod players;
pub mod plugins;
pub mod records;
pub mod status;
pub mod toolbar;
