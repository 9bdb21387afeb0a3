//! Limits on what a caller without a valid token may send: each address may fail to
//! authenticate (an upload or a login without a valid token) a few times a minute, then is
//! answered 429 until the minute has passed. Kept in memory: a restart forgets it, which costs
//! an attacker nothing it did not have.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::Refusal;

/// Requests without a valid token one address may make in [`WINDOW`].
pub const UNAUTHENTICATED_PER_WINDOW: usize = 20;
/// The window of [`UNAUTHENTICATED_PER_WINDOW`].
pub const WINDOW: Duration = Duration::from_secs(60);

#[derive(Default)]
pub struct AddressLimit {
    recent: Mutex<HashMap<IpAddr, VecDeque<Instant>>>,
}

impl AddressLimit {
    /// Refuses `address` when it failed [`UNAUTHENTICATED_PER_WINDOW`] times in the window.
    pub fn check(&self, address: IpAddr) -> Result<(), Refusal> {
        let mut recent = self.recent.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let now = Instant::now();
        let times = recent.entry(address).or_default();
        while times.front().is_some_and(|&at| now.duration_since(at) > WINDOW) {
            times.pop_front();
        }
        if times.len() >= UNAUTHENTICATED_PER_WINDOW {
            return Err(Refusal::new(
                429,
                format!(
                    "{} requests without a valid token from your address in the last {} s: wait a minute, and log in \
                     with a valid token",
                    times.len(),
                    WINDOW.as_secs()
                ),
            ));
        }
        Ok(())
    }

    /// Notes a request of `address` without a valid token.
    pub fn note(&self, address: IpAddr) {
        let mut recent = self.recent.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        // Forget addresses quiet for a window, so the map stays small.
        if recent.len() > 10_000 {
            let now = Instant::now();
            recent.retain(|_, times| times.back().is_some_and(|&at| now.duration_since(at) <= WINDOW));
        }
        recent.entry(address).or_default().push_back(Instant::now());
    }
}
