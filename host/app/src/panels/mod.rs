//! The panels around the board. A panel keeps its own state (what it alone reads: text being
//! typed, where a list was scrolled, which windows are open) in its own struct, here in
//! [`PanelStates`]; it reads the app (`&OthelloApp`, or [`Shared`] for Matches and Ladder), gets
//! only its own state by `&mut`, and returns the user's wishes as [`Action`](crate::Action)s, which
//! [`OthelloApp::perform`](crate::OthelloApp::perform) carries out in one place. A panel that edits
//! settings edits a copy and returns it as [`Action::ChangeSettings`](crate::Action::ChangeSettings).

pub mod analysis;
pub mod confirm;
pub mod database;
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

/// What the Matches and Ladder panels read of the app besides their own state: the plugin list,
/// how bots are seated, the Players' time per move, and wakers for their workers' threads.
pub struct Shared<'a> {
    pub catalog: &'a crate::catalog::Catalog,
    pub seating: &'a othello_arena::seat::Seating,
    pub time_per_move_ms: u64,
    pub wake: &'a dyn Fn() -> crate::players::Waker,
}

/// The panels' own state, out of the app's.
#[derive(Default)]
pub struct PanelStates {
    /// The player's move list (where it was scrolled).
    pub moves: moves::MovesPanel,
    /// The transcript being typed.
    pub records: records::RecordsPanel,
    /// The position line (OBF) being typed.
    pub position_input: String,
    /// The plugin folder being typed.
    pub plugins: plugins::PluginsPanel,
    /// The "Add engine" form, while open.
    pub engine_form: Option<engines::EngineForm>,
    /// The Help windows that are open.
    pub help: menu::HelpWindows,
    /// The WTHOR file's path being typed.
    pub database: database::DatabasePanel,
    /// The game was paused before the editor opened (Cancel leaves it so).
    pub paused_before_edit: bool,
    /// The position being set up, while the editor is open.
    pub editor: Option<editor::EditorState>,
    /// The question a modal dialog asks, waiting for the user's yes.
    pub confirm: Option<crate::Confirm>,
    /// The Matches tab: the running or last event, its worker and the game watched.
    pub matches: crate::matches::MatchesState,
    /// The Ladder tab: the ladder file, its workers and the game replayed.
    pub ladder: crate::ladder::LadderState,
}
