//! The bots of a game, each on its own worker thread so the UI never waits for one.
//!
//! A worker opens its bot, then answers think requests; every event it sends wakes the UI with
//! `request_repaint`. Requests carry a token, so a reply to a position that was taken back (undo,
//! new game) is recognised and ignored. Dropping a [`BotWorker`] stops its bot: a runner still
//! loading or thinking is killed and reaped at once, so an abandoned think costs no CPU, and the
//! next game gets a fresh runner from a new worker.

use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};
use std::thread;
use std::time::{Duration, Instant};

use othello_sdk::{Position, SearchInfo};

use othello_arena::seat::{Failure, Reply, SeatSpec, StopHandle, Termination, open_seat_stoppable};

/// Wakes the UI when a worker has news (`egui::Context::request_repaint` in the app).
pub type Waker = Box<dyn Fn() + Send>;

enum Request {
    Think { token: u64, position: Position, time_limit: Option<Duration> },
}

enum Event {
    Opened { name: String },
    Failed(Failure),
    Reply { token: u64, result: Result<Reply, Failure> },
}

/// What a worker is doing, as the UI shows it.
#[derive(Debug, Clone, PartialEq)]
pub enum WorkerState {
    Opening,
    Ready,
    Thinking {
        token: u64,
        since: Instant,
    },
    /// The bot could not be opened or started; the seat loses its game.
    Failed(Failure),
}

/// A finished `think`: the reply or the failure, for the request `token`.
pub struct Answer {
    pub token: u64,
    pub result: Result<Reply, Failure>,
}

/// One seat's bot on its own thread.
pub struct BotWorker {
    spec: SeatSpec,
    requests: Sender<Request>,
    events: Receiver<Event>,
    name: Option<String>,
    state: WorkerState,
    /// The search info of the bot's last move, shown while it thinks again.
    pub last_info: Option<SearchInfo>,
    /// Ends the bot's runner when the worker is dropped.
    stop: Option<StopHandle>,
}

impl BotWorker {
    /// Starts a worker that opens the bot and prepares it for a new game.
    /// Each move the bot is told `time_limit` (the seat enforces it with its grace margin).
    pub fn spawn(spec: SeatSpec, time_limit: Option<Duration>, wake: Waker) -> BotWorker {
        let (requests, request_rx) = channel::<Request>();
        let (event_tx, events) = channel::<Event>();
        let thread_spec = spec.clone();
        let name = format!("bot {}", othello_arena::seat::library_stem(&spec.library));
        let stop = match StopHandle::new() {
            Ok(stop) => stop,
            Err(e) => {
                let failure = Failure::new(Termination::LoadError, format!("cannot start the bot: {e}"));
                return BotWorker::failed(spec, requests, events, failure);
            }
        };
        let thread_stop = stop.clone();
        let spawned = thread::Builder::new().name(name).spawn(move || {
            let send = |event| {
                let delivered = event_tx.send(event).is_ok();
                wake();
                delivered
            };
            let mut seat = match open_seat_stoppable(&thread_spec, &thread_stop)
                .and_then(|mut seat| seat.new_game().map(|()| seat))
            {
                Ok(seat) => seat,
                Err(failure) => {
                    send(Event::Failed(failure));
                    return;
                }
            };
            if !send(Event::Opened { name: seat.name().to_owned() }) {
                return;
            }
            for Request::Think { token, position, time_limit: this_move } in request_rx {
                let result = seat.think(&position, this_move.or(time_limit));
                if !send(Event::Reply { token, result }) {
                    return;
                }
            }
        });
        match spawned {
            Ok(_) => BotWorker {
                spec,
                requests,
                events,
                name: None,
                state: WorkerState::Opening,
                last_info: None,
                stop: Some(stop),
            },
            Err(e) => {
                let failure = Failure::new(Termination::LoadError, format!("no thread to run it: {e}"));
                BotWorker::failed(spec, requests, events, failure)
            }
        }
    }

    /// A worker that could not start: its seat loses the game.
    fn failed(spec: SeatSpec, requests: Sender<Request>, events: Receiver<Event>, failure: Failure) -> BotWorker {
        BotWorker {
            spec,
            requests,
            events,
            name: None,
            state: WorkerState::Failed(failure),
            last_info: None,
            stop: None,
        }
    }

    pub fn spec(&self) -> &SeatSpec {
        &self.spec
    }

    /// The bot's name once it has been opened.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    pub fn state(&self) -> &WorkerState {
        &self.state
    }

    pub fn is_thinking(&self) -> bool {
        matches!(self.state, WorkerState::Thinking { .. })
    }

    /// Asks for a move, within `time_limit` if given (else the worker's own limit); the answer
    /// comes from [`BotWorker::poll`].
    pub fn think(&mut self, token: u64, position: Position, time_limit: Option<Duration>) {
        if self.state != WorkerState::Ready {
            return;
        }
        if self.requests.send(Request::Think { token, position, time_limit }).is_ok() {
            self.state = WorkerState::Thinking { token, since: Instant::now() };
        } else {
            self.state = WorkerState::Failed(worker_stopped());
        }
    }

    /// Takes the worker's news; returns a finished think, if any.
    pub fn poll(&mut self) -> Option<Answer> {
        loop {
            match self.events.try_recv() {
                Ok(Event::Opened { name }) => {
                    self.name = Some(name);
                    self.state = WorkerState::Ready;
                }
                Ok(Event::Failed(failure)) => self.state = WorkerState::Failed(failure),
                Ok(Event::Reply { token, result }) => {
                    self.state = WorkerState::Ready;
                    if let Ok(reply) = &result {
                        self.last_info = reply.info;
                    }
                    return Some(Answer { token, result });
                }
                Err(TryRecvError::Empty) => return None,
                Err(TryRecvError::Disconnected) => {
                    if !matches!(self.state, WorkerState::Failed(_)) {
                        self.state = WorkerState::Failed(worker_stopped());
                    }
                    return None;
                }
            }
        }
    }
}

impl Drop for BotWorker {
    fn drop(&mut self) {
        if let Some(stop) = &self.stop {
            stop.stop();
        }
    }
}

fn worker_stopped() -> Failure {
    Failure::new(Termination::Crash, "the bot's worker thread stopped")
}
