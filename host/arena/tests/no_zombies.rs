//! Every process the host starts is reaped by the host: after seats are opened, play and are
//! dropped (sandbox on and off, a failing bot among them), and after the sandbox report and a
//! plugin probe, no process started on the way is left — not running, not a zombie. The test
//! process is made the reaper of orphans, so a helper process abandoned by its parent (a
//! runner's keeper killed before reaping the jail it forked) would be found as its child.
//!
//! One test in its own binary: other tests' processes would be this process's children too.
// Linux: the subreaper and /proc.
#![cfg(target_os = "linux")]

use othello_arena::plugins::probe_all;
use othello_arena::referee::{Opening, play_game};
use othello_arena::seat::{SandboxMode, SeatOptions, open_seat, sandbox_report};
use othello_testkit::{
    TEST_TIME_LIMIT, adopted_children, become_subreaper, fixture, isolated, random_bot, runner_command, seat_options,
};

#[test]
fn nothing_the_host_started_is_left_behind_not_even_a_zombie() {
    // The fixtures are compiled first: `cc` is a child of this process too (reaped by `Command`).
    let (random, crasher) = (random_bot(), fixture("segfault"));
    become_subreaper();
    for sandbox in [SandboxMode::Auto, SandboxMode::Off] {
        let options = SeatOptions { sandbox, ..seat_options() };
        {
            let mut black = open_seat(&isolated(&random).with_options(options)).unwrap();
            let mut white = open_seat(&isolated(&random).with_options(options)).unwrap();
            for _ in 0..2 {
                let record = play_game(black.as_mut(), white.as_mut(), &Opening::none(), Some(TEST_TIME_LIMIT));
                assert!(record.result.loser().is_none(), "{:?}", record.result);
            }
            // A runner that died (a crash) and was replaced for the next game.
            let mut crash = open_seat(&isolated(&crasher).with_options(options)).unwrap();
            let record = play_game(crash.as_mut(), black.as_mut(), &Opening::none(), Some(TEST_TIME_LIMIT));
            assert!(record.result.loser().is_some(), "{:?}", record.result);
            play_game(crash.as_mut(), white.as_mut(), &Opening::none(), Some(TEST_TIME_LIMIT));
        }
        assert_eq!(adopted_children(), [], "left behind by games with --sandbox {sandbox}");
    }
    sandbox_report(&runner_command()).expect("the runner reports its sandbox");
    probe_all(&[random.clone(), crasher.clone()], &runner_command(), &seat_options());
    assert_eq!(adopted_children(), [], "left behind by the sandbox report and the plugin probe");
}
