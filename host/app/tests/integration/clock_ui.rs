//! The game clock through the app: exact under undo, redo, pause, save and reopen; a loss on time
//! stays lost unless taken back explicitly; quitting a game in progress asks first.

use std::time::Duration;

use egui::accesskit::Role;
use egui_kittest::kittest::Queryable;
use othello_app::clock::ManualTime;
use othello_app::{Confirm, Settings};
use othello_sdk::Color;

use super::app_ui::{app, bot, first_legal_bot, humans, is_enabled, settle, wait_until};

fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

#[test]
fn undo_never_gives_time_back_and_charges_the_time_spent_since_the_bots_reply() {
    let time = ManualTime::default();
    let settings = Settings { clock_minutes: 1, clock_increment_s: 2, white: bot(&first_legal_bot()), ..humans() };
    let mut harness = app(settings, Vec::new());
    harness.state_mut().set_time_source(time.source());
    settle(&mut harness);
    let left = |harness: &egui_kittest::Harness<'_, othello_app::OthelloApp>| {
        Color::ALL.map(|c| harness.state().clock_left(c).unwrap())
    };
    // Six rounds of: move, the bot's reply, 2.5 s of thought, undo. The issue saw the clocks
    // rise (increments of the moves taken back kept, the thought since the reply dropped).
    let mut before = left(&harness);
    for round in 0..6 {
        harness.get_by_label("d3").click();
        wait_until(&mut harness, "the bot's reply", |app| app.game().moves().len() == 2);
        time.advance(Duration::from_millis(2500));
        harness.step();
        harness.get_by_role_and_label(Role::Button, "Undo").click();
        settle(&mut harness);
        assert!(harness.state().game().moves().is_empty());
        let after = left(&harness);
        assert_eq!(after[0], before[0] - Duration::from_millis(2500), "round {round}: Black's thought stays spent");
        assert_eq!(after[1], before[1], "round {round}: White's time (it took none) and no increments kept");
        before = after;
    }
    assert_eq!(before, [secs(45), secs(60)]);
    // Redo gives back the increments of the moves it replays, and no time.
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Y);
    settle(&mut harness);
    assert_eq!(harness.state().game().moves().len(), 2);
    assert_eq!(left(&harness), [secs(47), secs(62)]);
}

#[test]
fn a_loss_on_time_stays_lost_until_taken_back_with_the_turns_time_restored() {
    let time = ManualTime::default();
    let mut harness = app(Settings { clock_minutes: 1, ..humans() }, Vec::new());
    harness.state_mut().set_time_source(time.source());
    settle(&mut harness);
    harness.get_by_label("f5").click();
    settle(&mut harness);
    time.advance(secs(45));
    harness.step();
    assert!(harness.query_by_label("White's clock 0:15, running").is_some());
    time.advance(secs(20));
    harness.step();
    harness.step();
    assert_eq!(harness.state().session().lost_on_time(), Some(Color::White));
    // Undo, its shortcut and "play on" leave the loss alone.
    assert!(!is_enabled(&harness, "Undo"), "Undo is off after a loss on time");
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    settle(&mut harness);
    assert!(harness.state().game().is_over(), "the side at 0:00 stays lost");
    assert_eq!(harness.state().clock_left(Color::White), Some(Duration::ZERO));
    // Taking it back is explicit, asks first, and gives White the time of that turn back.
    harness.get_by_role_and_label(Role::Button, "Take back loss on time").click();
    settle(&mut harness);
    assert_eq!(harness.state().confirmation(), Some(&Confirm::TakeBackTimeLoss(Color::White)));
    harness.get_by_role_and_label(Role::Button, "Take back").click();
    settle(&mut harness);
    assert!(!harness.state().game().is_over(), "the game goes on");
    assert_eq!(harness.state().clock_left(Color::White), Some(secs(60)), "its turn's time restored");
    assert!(harness.state().session().paused, "paused until resumed");
    time.advance(secs(30));
    harness.step();
    assert_eq!(harness.state().clock_left(Color::White), Some(secs(60)), "nothing runs while paused");
    assert!(harness.query_by_label("e6").is_none_or(|_| harness.state().session().human_to_move().is_none()));
    harness.get_by_role_and_label(Role::Button, "Resume").click();
    settle(&mut harness);
    time.advance(secs(5));
    harness.step();
    assert!(harness.query_by_label("White's clock 0:55, running").is_some());
}

#[test]
fn a_saved_clock_reopens_exactly_and_waits_until_resumed() {
    let time = ManualTime::default();
    let settings = Settings { clock_minutes: 2, clock_increment_s: 1, ..humans() };
    let mut harness = app(settings.clone(), Vec::new());
    harness.state_mut().set_time_source(time.source());
    settle(&mut harness);
    for (square, think) in [("f5", 0), ("d6", 7), ("c3", 11)] {
        time.advance(secs(think));
        harness.get_by_label(square).click();
        settle(&mut harness);
    }
    time.advance(secs(4)); // White thinks 4 s, then the game is saved
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("clock.ggf");
    harness.state_mut().save_game(&path);
    let saved = Color::ALL.map(|c| harness.state().clock_left(c).unwrap());
    assert_eq!(saved, [secs(120 + 2 - 11), secs(120 + 1 - 7 - 4)]);

    // Another launch, a minute later, with another clock setting: the game's own clock opens.
    let later = ManualTime::default();
    let mut harness = app(Settings { clock_minutes: 5, ..humans() }, Vec::new());
    harness.state_mut().set_time_source(later.source());
    settle(&mut harness);
    harness.state_mut().open_game_at(&path, 0);
    settle(&mut harness);
    assert_eq!(Color::ALL.map(|c| harness.state().clock_left(c).unwrap()), saved);
    later.advance(secs(600));
    harness.step();
    assert_eq!(Color::ALL.map(|c| harness.state().clock_left(c).unwrap()), saved, "no ticking until resumed");
    assert!(!harness.state().game().is_over());
    assert!(harness.state().session().human_to_move().is_none(), "the board waits for Resume");
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::P);
    settle(&mut harness);
    later.advance(secs(3));
    harness.step();
    assert_eq!(harness.state().clock_left(Color::White), Some(saved[1] - secs(3)), "White's time runs again");
}

#[test]
fn quitting_a_game_in_progress_asks_first() {
    let mut harness = app(humans(), Vec::new());
    settle(&mut harness);
    harness.get_by_label("f5").click();
    settle(&mut harness);
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Q);
    settle(&mut harness);
    assert_eq!(harness.state().confirmation(), Some(&Confirm::Quit));
    assert!(harness.query_by_label("Quit?").is_some());
    harness.get_by_role_and_label(Role::Button, "Cancel").click();
    settle(&mut harness);
    assert_eq!(harness.state().confirmation(), None);
    assert_eq!(harness.state().game().transcript(), "f5", "the game is still there");
    assert!(!harness.state().is_quitting());
    // Without a game in progress Quit quits at once.
    let mut idle = app(humans(), Vec::new());
    settle(&mut idle);
    idle.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Q);
    idle.step();
    assert_eq!(idle.state().confirmation(), None);
    assert!(idle.state().is_quitting());
}
