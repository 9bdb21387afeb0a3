//! The keyboard shortcuts, one table for the key handling and the menus that show them.

use egui::{Key, KeyboardShortcut, Modifiers};

use crate::{Action, Tab};

const fn command(key: Key) -> KeyboardShortcut {
    KeyboardShortcut::new(Modifiers::COMMAND, key)
}

const fn command_shift(key: Key) -> KeyboardShortcut {
    KeyboardShortcut::new(Modifiers::COMMAND.plus(Modifiers::SHIFT), key)
}

/// Every shortcut with its action. Shortcuts with Shift come before the same key without, as
/// egui matches modifiers loosely.
pub fn bindings() -> Vec<(KeyboardShortcut, Action)> {
    vec![
        (command_shift(Key::C), Action::CopyTranscript),
        (command_shift(Key::Z), Action::Redo),
        (command(Key::N), Action::NewGame),
        (command(Key::O), Action::Open),
        (command(Key::S), Action::Save),
        (command(Key::Z), Action::Undo),
        (command(Key::Y), Action::Redo),
        (command(Key::P), Action::TogglePause),
        (command(Key::Period), Action::Step),
        (command(Key::Num1), Action::ShowTab(Tab::Play)),
        (command(Key::Num2), Action::ShowTab(Tab::Plugins)),
        (command(Key::Num3), Action::ShowTab(Tab::Matches)),
        (command(Key::Q), Action::Quit),
    ]
}

/// The shortcut of `action` as this platform writes it ("Ctrl+N"), if it has one.
pub fn text(ctx: &egui::Context, action: &Action) -> Option<String> {
    bindings().into_iter().find(|(_, a)| a == action).map(|(shortcut, _)| ctx.format_shortcut(&shortcut))
}

/// Keys that are not commands: replay navigation.
pub const NAVIGATION_KEYS: [(&str, &str); 4] = [
    ("Left arrow", "Back one move"),
    ("Right arrow", "Forward one move"),
    ("Home / Up arrow", "Start position"),
    ("End / Down arrow", "Last position"),
];
