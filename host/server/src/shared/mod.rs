//! What the web side and the workers share while the server runs.

pub mod live;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use crate::config::SeedingStatus;
use crate::store::replicas::Replica;

/// How long an idle worker sleeps before looking at the queue again even without a wake-up (a
/// job added by another process on the same ladder).
pub const IDLE_POLL: Duration = Duration::from_secs(2);

/// What the web side and the workers share: the stop flag, the queue's wake-up and the change
/// counter the live pages follow.
pub struct Shared {
    pub stop: AtomicBool,
    /// Bumped whenever a job is queued; workers wait on it.
    work: (Mutex<u64>, Condvar),
    /// Bumped whenever something a page shows changed (a game, a status).
    pub changes: tokio::sync::watch::Sender<u64>,
    /// Why the sandbox is weaker than strict, when the organiser allowed it.
    pub weak_sandbox: Option<String>,
    /// The games being played now, move by move (the arena screen).
    pub live: live::Live,
    /// The sample pool's calibration while it runs in the background (`None` when it is done or
    /// there is none): placements wait for it unless it started from a shipped calibration;
    /// checks and test games never do.
    pub seeding: Mutex<Option<SeedingStatus>>,
    /// This process among the servers of the ladder (its workers' leases carry its id).
    pub replica: Replica,
    /// Set when the server's workers have stopped (after the server was told to stop).
    pub workers_stopped: AtomicBool,
}

impl Shared {
    pub(crate) fn new(weak_sandbox: Option<String>, replica: Replica) -> Shared {
        Shared {
            replica,
            workers_stopped: AtomicBool::new(false),
            stop: AtomicBool::new(false),
            work: (Mutex::new(0), Condvar::new()),
            changes: tokio::sync::watch::Sender::new(0),
            weak_sandbox,
            live: live::Live::default(),
            seeding: Mutex::new(None),
        }
    }

    /// Whether the sample pool is still being calibrated.
    pub fn seeding(&self) -> Option<SeedingStatus> {
        self.seeding.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Whether placements wait for the pool's calibration (it started from no shipped one).
    pub fn placements_wait(&self) -> bool {
        self.seeding().is_some_and(|s| s.placements_wait())
    }

    pub fn changed(&self) {
        self.changes.send_modify(|n| *n += 1);
    }

    pub fn work_added(&self) {
        let (lock, wake) = &self.work;
        *lock.lock().expect("no panic holds it") += 1;
        wake.notify_all();
    }

    pub(crate) fn work_generation(&self) -> u64 {
        *self.work.0.lock().expect("no panic holds it")
    }

    /// Waits until work is added after generation `seen`, the server stops, or
    /// [`IDLE_POLL`] passes.
    pub(crate) fn wait_for_work(&self, seen: u64) {
        self.wait_for_work_at_most(seen, IDLE_POLL);
    }

    /// Sleeps for `time`, or less when the server stops (or work is added).
    pub fn sleep_unless_stopped(&self, time: Duration) {
        let seen = self.work_generation();
        self.wait_for_work_at_most(seen, time);
    }

    fn wait_for_work_at_most(&self, seen: u64, time: Duration) {
        let (lock, wake) = &self.work;
        let guard = lock.lock().expect("no panic holds it");
        let _unused = wake
            .wait_timeout_while(guard, time, |generation| *generation == seen && !self.stop.load(Ordering::SeqCst))
            .expect("no panic holds it");
    }

    pub(crate) fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
        let (lock, wake) = &self.work;
        *lock.lock().expect("no panic holds it") += 1;
        wake.notify_all();
        self.changed();
    }
}

/// Waits for Ctrl-C or SIGTERM (the server and the remote worker stop on either).
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
}
