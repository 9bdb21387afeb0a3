//! This replica's keep-alive: its row renewed, and page changes and live games relayed between
//! the replicas (the tables are [`crate::store::replicas`]').

use std::sync::atomic::Ordering;

use othello_db::Db;

use crate::shared::Shared;
use crate::store::replicas::{self as store, HEARTBEAT, Replica};

/// Renews this replica's row and relays page changes every [`HEARTBEAT`] until the server
/// stops; then leaves. Runs on a thread of its own.
pub fn keep_alive(replica: &Replica, connection: &Db, address: &str, shared: &Shared) {
    let mut relay = ChangeRelay::new(connection).unwrap_or_else(|why| {
        eprintln!("replica {}: {why}", replica.id);
        ChangeRelay { shown: 0, counter: 0, moves_reported: 0, others: String::new() }
    });
    let mut last_beat: Option<std::time::Instant> = None;
    while !shared.workers_stopped.load(Ordering::SeqCst) {
        if last_beat.is_none_or(|at| at.elapsed() >= HEARTBEAT) {
            if let Err(why) = replica.beat(connection, address) {
                eprintln!("replica {}: cannot renew its row: {why}", replica.id);
            }
            last_beat = Some(std::time::Instant::now());
        }
        if shared.stop.load(Ordering::SeqCst) {
            // Stopping: the workers finish their games; nothing to relay to pages any more.
            std::thread::sleep(HEARTBEAT / 10);
            continue;
        }
        if let Err(why) = relay.relay(connection, shared) {
            eprintln!("replica {}: cannot relay page changes: {why}", replica.id);
        }
        shared.sleep_unless_stopped(HEARTBEAT);
    }
    if let Err(why) = replica.leave(connection) {
        eprintln!("replica {}: {why}", replica.id);
    }
}

/// Relays page changes between this replica and the others: a change here bumps the shared
/// counter; the counter moved by another replica tells this one's pages. The same for the games
/// being played: each replica reports its own in its row and reads the others'.
pub struct ChangeRelay {
    /// This replica's own change count last relayed.
    shown: u64,
    /// The shared counter last seen.
    counter: i64,
    /// This replica's move count last reported.
    moves_reported: u64,
    /// The other replicas' games as last read.
    others: String,
}

impl ChangeRelay {
    fn new(connection: &Db) -> Result<ChangeRelay, String> {
        Ok(ChangeRelay { shown: 0, counter: store::counter(connection)?, moves_reported: 0, others: String::new() })
    }

    /// Reports this replica's live games when they moved, and takes the others'.
    fn relay_live(&mut self, connection: &Db, shared: &Shared) -> Result<(), String> {
        let moves = *shared.live.moves.borrow();
        if moves != self.moves_reported {
            let report = serde_json::to_string(&shared.live.report()).expect("live games serialize");
            store::report_live(connection, &shared.replica.id, &report)?;
            self.moves_reported = moves;
        }
        let reports = store::live_reports(connection, &shared.replica.id)?;
        let others = reports.concat();
        if others != self.others {
            let games = reports
                .iter()
                .flat_map(|report| {
                    serde_json::from_str::<Vec<crate::shared::live::ReportedGame>>(report).unwrap_or_default()
                })
                .collect();
            self.others = others;
            shared.live.set_others(games);
            // Its own bump is not this replica's move.
            self.moves_reported = *shared.live.moves.borrow();
        }
        Ok(())
    }

    fn relay(&mut self, connection: &Db, shared: &Shared) -> Result<(), String> {
        self.relay_live(connection, shared)?;
        let local = *shared.changes.borrow();
        if local != self.shown {
            self.counter = store::bump_counter(connection)?;
            self.shown = local;
            return Ok(());
        }
        let now = store::counter(connection)?;
        if now != self.counter {
            self.counter = now;
            shared.changed();
            self.shown = *shared.changes.borrow();
        }
        Ok(())
    }
}
