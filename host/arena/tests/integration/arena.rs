//! The arena engine as a library: tournaments with failing bots and
//! concurrency, SPRT early stops, and GGF / JSON round trips of real games.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use othello_arena::event::{
    ArenaEvent, EventSpec, Format, OpeningSource, Participant, RunOptions, Sprt, SprtDecision, Standings, run,
};
use othello_arena::ggf;
use othello_arena::referee::{Opening, play_game};
use othello_arena::seat::{Seating, Termination, open_seat};
use othello_sdk::Color;
use othello_testkit::*;

fn participant(name: &str, library: std::path::PathBuf) -> Participant {
    Participant { name: name.to_owned(), library, level: None }
}

fn options(seating: Seating, concurrency: usize) -> RunOptions {
    RunOptions { seating, concurrency, live_moves: true, affinity: false }
}

#[test]
fn a_tournament_with_failing_bots_finishes_every_game() {
    let spec = EventSpec {
        participants: vec![
            participant("Segfault", fixture("segfault")),
            participant("First legal", fixture("first_legal")),
            participant("Random", random_bot()),
            participant("Abort in init", fixture("abort_in_init")),
        ],
        format: Format::Tournament { rounds: 1, games_per_pair: 2 },
        openings: OpeningSource::Random { plies: 2 },
        seed: 3,
        time_limit_ms: Some(TEST_TIME_LIMIT.as_millis() as u64),
        sprt: None,
    };
    let stop = AtomicBool::new(false);
    let (mut started, mut moves, mut finished) = (0, 0, 0);
    let summary = run(&spec, &options(isolated_seating(), 2), Vec::new(), &stop, &mut |event| match event {
        ArenaEvent::GameStarted { .. } => started += 1,
        ArenaEvent::Moved { .. } => moves += 1,
        ArenaEvent::GameFinished(_) => finished += 1,
        ArenaEvent::SprtDecided { .. } => panic!("no SPRT here"),
    });
    assert_eq!(summary.games.len(), 12);
    assert_eq!(summary.unplayed, 0);
    assert_eq!(finished, 12);
    assert!(moves > 0 && started > 0);
    for game in &summary.games {
        let result = &game.record.result;
        let names = (game.record.black.as_str(), game.record.white.as_str());
        if names.0 == "Abort in init" || names.1 == "Abort in init" {
            // Its library never opens: it forfeits every game before a move.
            assert_eq!(result.loser().map(|c| game.record.name(c)), Some("Abort in init"));
            assert_eq!(result.termination(), Termination::LoadError);
            assert_eq!(result.detail(), "killed by signal SIGABRT (abort) in init");
            assert!(game.record.moves.is_empty());
        } else if names.0 == "Segfault" {
            assert_eq!(result.termination(), Termination::Crash, "{result:?}");
            assert_eq!(result.loser(), Some(Color::Black));
        } else {
            assert_eq!(result.termination(), Termination::Normal, "{names:?}: {result:?}");
        }
    }
    let standings = Standings::compute(&spec.names(), &summary.games);
    let row = |name: &str| standings.rows.iter().find(|r| r.name == name).unwrap().clone();
    assert_eq!(row("Abort in init").score.wdl.wins, 0);
    assert_eq!(row("Abort in init").failures, 6);
    // Segfault crashes in its 2 games as black except against the forfeiting bot.
    assert_eq!(row("Segfault").failures, 2);
    assert_eq!(standings.cross[1][2].wdl.games(), 2);
    assert_eq!(standings.cross[3][1].wdl, othello_arena::event::Wdl { wins: 0, draws: 0, losses: 2 });
}

#[test]
fn sprt_stops_a_lopsided_match_early() {
    let spec = EventSpec {
        participants: vec![
            participant("First legal", fixture("first_legal")),
            participant("No think", fixture("missing_think")),
        ],
        format: Format::Match { games: 1000 },
        openings: OpeningSource::None,
        seed: 1,
        time_limit_ms: None,
        sprt: Some(Sprt::parse("elo0=0,elo1=10,alpha=0.05,beta=0.05").unwrap()),
    };
    let stop = AtomicBool::new(false);
    let mut decided = None;
    let summary = run(&spec, &options(in_process_seating(), 1), Vec::new(), &stop, &mut |event| {
        if let ArenaEvent::SprtDecided { decision, .. } = event {
            decided = Some(decision);
        }
    });
    assert_eq!(decided, Some(SprtDecision::AcceptH1));
    assert_eq!(summary.sprt.map(|s| s.0), Some(SprtDecision::AcceptH1));
    // Every colour-swapped pair is won 2-0 by forfeit: fishtest's LLR_logistic(0, 10, [0, 0, 0, 0, n])
    // first reaches ln(0.95/0.05) at n = 104 pairs. Games finished after the decision (workers
    // see the stop a little later) are not counted.
    assert_eq!(summary.games.len(), 208, "stopped after {} games", summary.games.len());
    assert_eq!(summary.unplayed, 1000 - 208);
}

#[test]
fn ggf_and_json_round_trip_real_games() {
    let mut black = open_seat(&in_process(&random_bot())).unwrap();
    let mut white = open_seat(&in_process(&fixture("first_legal"))).unwrap();
    let mut games = Vec::new();
    for opening in ["", "f5d6c3d3c4f4c5b3"] {
        let opening = Opening::parse(opening).unwrap();
        games.push(play_game(black.as_mut(), white.as_mut(), &opening, Some(Duration::from_secs(1))));
    }
    // A forfeit too.
    let mut passer = open_seat(&in_process(&fixture("illegal_pass"))).unwrap();
    games.push(play_game(passer.as_mut(), white.as_mut(), &Opening::none(), None));

    let text: String = games.iter().map(|g| ggf::write_game(g) + "\n").collect();
    assert!(text.starts_with("(;GM[Othello]PC[othello-arena]DT["), "{text}");
    let read = ggf::read_games(&text).unwrap();
    assert_eq!(read.len(), games.len());
    for (original, copy) in games.iter().zip(&read) {
        assert_eq!(copy.black, original.black);
        assert_eq!(copy.white, original.white);
        assert_eq!(copy.transcript(), original.transcript());
        assert_eq!(copy.final_position(), original.final_position());
        assert_eq!(copy.positions().last(), Some(&original.final_position()));
        assert_eq!(copy.positions().len(), copy.moves.len() + 1);
        assert_eq!(copy.result.winner, original.result.winner);
        assert_eq!(copy.result.discs, original.result.discs);
        assert_eq!(copy.started_at, original.started_at);
        assert_eq!(copy.time_limit_ms, original.time_limit_ms);
    }
    assert_eq!(read[2].result.loser(), Some(Color::Black));

    let json = serde_json::to_string(&games).unwrap();
    let back: Vec<othello_arena::record::GameRecord> = serde_json::from_str(&json).unwrap();
    assert_eq!(back, games);
}

/// Stopping an event ends a bot that is thinking with no time limit at once: its runner is killed,
/// the game is abandoned (not scored as a loss), and the run returns.
#[test]
#[cfg(target_os = "linux")] // finds the runner in /proc
fn stopping_an_event_ends_a_thinking_bot_at_once() {
    // A copy of its own: other tests of this binary run the same fixture, and their runners must
    // not be taken for this event's.
    let hang = fixture("hang").with_file_name("libhang_stopped_event.so");
    std::fs::copy(fixture("hang"), &hang).unwrap();
    let spec = EventSpec {
        participants: vec![participant("Hang", hang.clone()), participant("First legal", fixture("first_legal"))],
        format: Format::Match { games: 2 },
        openings: OpeningSource::None,
        seed: 1,
        time_limit_ms: None,
        sprt: None,
    };
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let running = {
        let stop = stop.clone();
        std::thread::spawn(move || run(&spec, &options(isolated_seating(), 1), Vec::new(), &stop, &mut |_| {}))
    };
    let started = std::time::Instant::now();
    let runner = loop {
        // Black (Hang) is asked to move first and never answers.
        if let Some(&pid) = runners_of(&hang).first() {
            break pid;
        }
        assert!(started.elapsed() < STOP_DEADLINE, "the hanging bot's runner did not start");
        std::thread::sleep(Duration::from_millis(5));
    };
    std::thread::sleep(Duration::from_millis(200));
    assert!(!running.is_finished(), "the game waits for the bot");

    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let stopped = std::time::Instant::now();
    while !running.is_finished() {
        assert!(stopped.elapsed() < STOP_DEADLINE, "the run did not end when stopped");
        std::thread::sleep(Duration::from_millis(5));
    }
    let summary = running.join().unwrap();
    assert!(summary.games.is_empty(), "the stopped game is abandoned, not scored: {:?}", summary.games);
    assert_eq!(summary.unplayed, 2);
    assert!(wait_until_gone(runner), "the runner was killed and reaped");
}
