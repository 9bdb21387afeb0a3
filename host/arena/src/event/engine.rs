//! Plays an event's games on worker threads, each with its own seats, and
//! reports progress to the caller's thread.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, mpsc};
use std::time::{Duration, Instant};

use othello_sdk::Position;

use super::{DoneSet, EventSpec, FinishedGame, ScheduleIter, ScheduledGame, Shard, SprtDecision, Tally};
use crate::record::MoveRecord;
use crate::referee::{GameEvent, play_game_observed};
use crate::seat::{Failure, Reply, Seat, Seating, StopHandle, open_seat, open_seat_stoppable};

/// How often the caller's `stop` flag is checked while games run, to stop their bots.
const STOP_CHECK_INTERVAL: Duration = Duration::from_millis(100);

/// How to run an event (what does not change which games are played).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOptions {
    /// How the bots are run (isolated or in process, and their limits).
    pub seating: Seating,
    /// Games played at once (each worker thread has its own seats).
    pub concurrency: usize,
    /// Report every move ([`ArenaEvent::Moved`]); off for headless speed.
    pub live_moves: bool,
    /// Pin each worker, and the bots it starts, to a processor of its own (round the allowed
    /// ones; Linux only, ignored elsewhere): see [`affinity`](super::affinity).
    pub affinity: bool,
}

/// Progress of a running event, delivered on the thread that called [`run`].
#[derive(Debug, Clone)]
pub enum ArenaEvent {
    /// A game began (both seats started).
    GameStarted { index: usize, black: usize, white: usize, position: Position },
    /// A move of a running game (only with `live_moves`).
    Moved { index: usize, record: MoveRecord, position: Position },
    /// A game finished; it counts from now on.
    GameFinished(FinishedGame),
    /// The SPRT reached a decision: the match stops.
    SprtDecided { decision: SprtDecision, llr: f64 },
}

/// How an event run ended ([`run`]).
#[derive(Debug, Clone)]
pub struct RunSummary {
    /// Every finished game (resumed ones included), by index.
    pub games: Vec<FinishedGame>,
    /// Scheduled games not played (stopped, or SPRT decided).
    pub unplayed: usize,
    pub sprt: Option<(SprtDecision, f64)>,
}

/// What a run plays: a range of the schedule (the whole event, or a shard) less the games
/// already finished, whose results are counted in `tally`.
#[derive(Debug, Clone)]
pub struct Plan {
    pub done: DoneSet,
    pub tally: Tally,
    /// Whether a decided SPRT stops the run (not in a shard: only the merge sees every game).
    pub sprt_stops: bool,
}

impl Plan {
    /// Every game of `shard` (or of the event) still to play.
    pub fn new(spec: &EventSpec, shard: Option<Shard>) -> Plan {
        Plan { done: DoneSet::new(spec.games_of(shard)), tally: Tally::new(&spec.names()), sprt_stops: shard.is_none() }
    }

    /// Counts a game finished before this run (a resumed event); false if it was counted already
    /// or is not part of the plan.
    pub fn record(&mut self, game: &FinishedGame) -> bool {
        let new = self.done.insert(game.index);
        if new {
            self.tally.add(game);
        }
        new
    }
}

/// Where [`play`] delivers a run's events, on the thread that called it.
pub trait EventSink {
    /// One event: a finished game is handed over, not kept.
    fn event(&mut self, event: ArenaEvent);
    /// No event is waiting (now, or for a while): a moment to flush buffered output.
    fn idle(&mut self) {}
    /// Whether to deliver [`ArenaEvent::GameStarted`] (a headless run that only counts finished
    /// games saves a message per game without them).
    fn wants_game_starts(&self) -> bool {
        true
    }
}

/// How [`play`] ended.
#[derive(Debug, Clone)]
pub struct PlayOutcome {
    /// The results of every finished game of the plan (earlier ones included).
    pub tally: Tally,
    pub done: DoneSet,
    /// Games of the plan not played (stopped, or SPRT decided).
    pub unplayed: usize,
    pub sprt: Option<(SprtDecision, f64)>,
}

/// Plays every scheduled game not in `done`, calling `on_event` on this thread for each event,
/// and returns every finished game. Setting `stop` ends the run soon: running games are
/// abandoned (never reported as finished) and their isolated bots' runners killed, even
/// mid-think; no new game starts. For events too large to keep, use [`play`].
pub fn run(
    spec: &EventSpec,
    options: &RunOptions,
    done: Vec<FinishedGame>,
    stop: &AtomicBool,
    on_event: &mut dyn FnMut(ArenaEvent),
) -> RunSummary {
    struct Collect<'a> {
        games: Vec<FinishedGame>,
        on_event: &'a mut dyn FnMut(ArenaEvent),
    }
    impl EventSink for Collect<'_> {
        fn event(&mut self, event: ArenaEvent) {
            if let ArenaEvent::GameFinished(game) = &event {
                self.games.push(game.clone());
            }
            (self.on_event)(event);
        }
    }
    let mut plan = Plan::new(spec, None);
    let mut games = Vec::with_capacity(done.len());
    for game in done {
        if plan.record(&game) {
            games.push(game);
        }
    }
    let mut collect = Collect { games, on_event };
    let outcome = play(spec, options, plan, stop, &mut collect);
    let mut games = collect.games;
    games.sort_by_key(|g| g.index);
    RunSummary { games, unplayed: outcome.unplayed, sprt: outcome.sprt }
}

/// Plays the games of `plan` not finished yet, in schedule order, delivering every event to
/// `sink` on this thread and keeping none: memory does not grow with the number of games.
/// Setting `stop` ends the run soon, as for [`run`].
pub fn play(
    spec: &EventSpec,
    options: &RunOptions,
    plan: Plan,
    stop: &AtomicBool,
    sink: &mut dyn EventSink,
) -> PlayOutcome {
    let Plan { mut done, mut tally, sprt_stops } = plan;
    let mut sprt_result = None;

    // The SPRT is on the first participant's results against the second (matches only).
    let sprt_check = |tally: &Tally| -> Option<(SprtDecision, f64)> {
        let sprt = spec.sprt?;
        let llr = sprt.llr(tally.pair(0, 1).wdl, tally.pentanomial());
        let decision = sprt.decision(llr);
        (decision != SprtDecision::Continue).then_some((decision, llr))
    };
    if sprt_stops && let Some(decided) = sprt_check(&tally) {
        sprt_result = Some(decided);
        stop.store(true, Ordering::SeqCst);
    }

    let left = done.range().len() - done.len();
    let pending = Mutex::new(Pending { games: spec.games(done.range()), done: done.clone() });
    let workers = options.concurrency.max(1).min(left);
    // Without it (no file descriptor left), a stop waits for the bots' current moves.
    let seats_stop = StopHandle::new().ok();
    let starts = sink.wants_game_starts();
    std::thread::scope(|scope| {
        // Bounded: workers faster than the caller's thread wait rather than queue games without end.
        let (events, received) = mpsc::sync_channel::<Vec<ArenaEvent>>(EVENT_QUEUE);
        for worker in 0..workers {
            let events = events.clone();
            let (pending, seats_stop) = (&pending, seats_stop.as_ref());
            scope.spawn(move || {
                if options.affinity {
                    // Unpinned games are as valid, only slower: a failure changes nothing else.
                    let _ = super::affinity::pin_current_thread(worker);
                }
                work(spec, options, Control { pending, stop, seats_stop, starts }, &events)
            });
        }
        drop(events);
        let mut deliver = |event: ArenaEvent, sink: &mut dyn EventSink| {
            if let ArenaEvent::GameFinished(game) = &event {
                if sprt_result.is_some() {
                    // Finished after the test decided (in the same batch, or on another worker):
                    // dropped as a stop drops running games, so the counts are the decision's.
                    return;
                }
                if !done.insert(game.index) {
                    return; // cannot happen: each game is handed out once
                }
                tally.add(game);
                sink.event(event);
                if sprt_stops
                    && sprt_result.is_none()
                    && let Some((decision, llr)) = sprt_check(&tally)
                {
                    sprt_result = Some((decision, llr));
                    stop.store(true, Ordering::SeqCst);
                    sink.event(ArenaEvent::SprtDecided { decision, llr });
                }
            } else {
                sink.event(event);
            }
        };
        loop {
            let next_event = received.recv_timeout(STOP_CHECK_INTERVAL);
            if stop.load(Ordering::SeqCst)
                && let Some(seats_stop) = &seats_stop
            {
                seats_stop.stop();
            }
            match next_event {
                Ok(events) => events.into_iter().for_each(|event| deliver(event, sink)),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    sink.idle();
                    continue;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            while let Ok(events) = received.try_recv() {
                events.into_iter().for_each(|event| deliver(event, sink));
            }
            sink.idle();
        }
    });
    sink.idle();
    let unplayed = done.range().len() - done.len();
    PlayOutcome { tally, done, unplayed, sprt: sprt_result }
}

/// The games still to hand out to workers, in schedule order.
struct Pending {
    games: ScheduleIter,
    /// Games finished before the run.
    done: DoneSet,
}

impl Pending {
    fn next(&mut self) -> Option<ScheduledGame> {
        self.games.by_ref().find(|game| !self.done.contains(game.index))
    }
}

/// What the workers share: the games to play and the ways to stop.
#[derive(Clone, Copy)]
struct Control<'a> {
    pending: &'a Mutex<Pending>,
    /// The caller's stop flag.
    stop: &'a AtomicBool,
    /// Stops every seat's bot once the caller's flag is seen set.
    seats_stop: Option<&'a StopHandle>,
    /// Whether to report games starting.
    starts: bool,
}

/// Finished games that end within this long of the last message to the caller's thread are sent
/// together with the next one: waking that thread for each of 50,000 games a second would cost
/// more than the games. A game that takes longer is sent at once.
const BATCH_WINDOW: Duration = Duration::from_millis(10);
/// Most finished games sent in one message.
const BATCH_MAX: usize = 64;
/// Messages waiting for the caller's thread before workers wait for it: with [`BATCH_MAX`], at
/// most a few thousand finished games are held in memory, however far behind the caller falls.
const EVENT_QUEUE: usize = 32;

/// One worker: takes the next pending game until none is left or `stop` is set.
fn work(spec: &EventSpec, options: &RunOptions, control: Control<'_>, events: &mpsc::SyncSender<Vec<ArenaEvent>>) {
    let Control { pending, stop, seats_stop, starts } = control;
    let mut seats: HashMap<usize, Box<dyn Seat>> = HashMap::new();
    let time_limit = spec.time_limit();
    // Finished games not sent yet, and when the last message went.
    let mut finished = Vec::new();
    let mut last_sent = Instant::now();
    // The receiver lives until every worker is done.
    let send = |batch: &mut Vec<ArenaEvent>, last_sent: &mut Instant| {
        if !batch.is_empty() {
            let _ = events.send(std::mem::take(batch));
            *last_sent = Instant::now();
        }
    };
    while !stop.load(Ordering::SeqCst) {
        // A worker that panicked holding the lock left the iterator whole: take it anyway.
        let Some(game) = pending.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).next() else { break };
        let game = &game;
        let (mut black, mut white) = (
            take_seat(&mut seats, spec, options, seats_stop, game.black),
            take_seat(&mut seats, spec, options, seats_stop, game.white),
        );
        let index = game.index;
        let game_started = Instant::now();
        let mut observer = |event: GameEvent<'_>| {
            if stop.load(Ordering::Relaxed) {
                return ControlFlow::Break(());
            }
            let event = match event {
                GameEvent::Started { position, .. } if starts => {
                    ArenaEvent::GameStarted { index, black: game.black, white: game.white, position: *position }
                }
                GameEvent::Started { .. } => return ControlFlow::Continue(()),
                GameEvent::Moved { record, position } if options.live_moves => {
                    ArenaEvent::Moved { index, record: record.clone(), position: *position }
                }
                GameEvent::Moved { .. } => return ControlFlow::Continue(()),
            };
            let _ = events.send(vec![event]);
            ControlFlow::Continue(())
        };
        let played = play_game_observed(black.as_mut(), white.as_mut(), &game.opening, time_limit, &mut observer);
        for (participant, seat) in [(game.black, black), (game.white, white)] {
            if !seat.is_placeholder() {
                seats.insert(participant, seat.into_inner());
            }
        }
        // A game whose bots were stopped is abandoned, not lost by them; so is one that ends
        // after the stop (its bot may have died of the same Ctrl-C).
        if seats_stop.is_some_and(StopHandle::is_stopped) || stop.load(Ordering::SeqCst) {
            break;
        }
        if let Ok(mut record) = played {
            record.black = spec.participants[game.black].name.clone();
            record.white = spec.participants[game.white].name.clone();
            let libraries = [&spec.participants[game.black].library, &spec.participants[game.white].library];
            let clock = crate::seat::game_clock(options.seating.options.clock, libraries.map(|l| l.as_path()));
            record.clock = Some(clock);
            finished.push(ArenaEvent::GameFinished(FinishedGame {
                index,
                pair: game.pair,
                black: game.black,
                white: game.white,
                record,
                clock: Some(clock),
            }));
            if finished.len() >= BATCH_MAX
                || last_sent.elapsed() >= BATCH_WINDOW
                || game_started.elapsed() >= BATCH_WINDOW
            {
                send(&mut finished, &mut last_sent);
            }
        }
    }
    send(&mut finished, &mut last_sent);
}

/// A worker's seat for a participant: the open one, or a new one; a library
/// that fails to open gives a seat that forfeits the game with the load error.
fn take_seat(
    seats: &mut HashMap<usize, Box<dyn Seat>>,
    spec: &EventSpec,
    options: &RunOptions,
    stop: Option<&StopHandle>,
    participant: usize,
) -> TakenSeat {
    if let Some(seat) = seats.remove(&participant) {
        return TakenSeat::Open(seat);
    }
    let entry = &spec.participants[participant];
    let seat_spec = options.seating.spec(&entry.library, entry.level);
    let opened = match stop {
        Some(stop) => open_seat_stoppable(&seat_spec, stop),
        None => open_seat(&seat_spec),
    };
    match opened {
        Ok(seat) => TakenSeat::Open(seat),
        Err(failure) => TakenSeat::Failed(FailedSeat { name: entry.name.clone(), failure }),
    }
}

enum TakenSeat {
    Open(Box<dyn Seat>),
    Failed(FailedSeat),
}

impl TakenSeat {
    fn as_mut(&mut self) -> &mut dyn Seat {
        match self {
            TakenSeat::Open(seat) => seat.as_mut(),
            TakenSeat::Failed(seat) => seat,
        }
    }

    /// A failed seat is not kept: the next game tries to open the library again.
    fn is_placeholder(&self) -> bool {
        matches!(self, TakenSeat::Failed(_))
    }

    fn into_inner(self) -> Box<dyn Seat> {
        match self {
            TakenSeat::Open(seat) => seat,
            TakenSeat::Failed(seat) => Box::new(seat),
        }
    }
}

/// Stands in for a bot whose library did not open: it forfeits at the start.
struct FailedSeat {
    name: String,
    failure: Failure,
}

impl Seat for FailedSeat {
    fn name(&self) -> &str {
        &self.name
    }

    fn levels(&self) -> u32 {
        0
    }

    fn new_game(&mut self) -> Result<(), Failure> {
        Err(self.failure.clone())
    }

    fn think(&mut self, _: &Position, _: Option<Duration>) -> Result<Reply, Failure> {
        Err(self.failure.clone())
    }
}
