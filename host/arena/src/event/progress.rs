//! What a client shows of a running event — games started and finished, the live standings and
//! the SPRT's decision — kept from the event's [`ArenaEvent`]s in one place, so the command line's
//! progress bar and the app's Matches tab read the same numbers.

use super::{ArenaEvent, EventSpec, FinishedGame, Plan, SprtDecision, Standings, Tally};

/// The progress of one event, fed with its events on the client's thread.
#[derive(Debug, Clone)]
pub struct EventProgress {
    scheduled: usize,
    started: usize,
    tally: Tally,
    sprt: Option<(SprtDecision, f64)>,
}

impl EventProgress {
    /// An event of `spec` with `done` games already finished (a resumed event).
    pub fn new(spec: &EventSpec, done: &[FinishedGame]) -> EventProgress {
        let mut tally = Tally::new(&spec.names());
        for game in done {
            tally.add(game);
        }
        EventProgress { scheduled: spec.game_count(), started: done.len(), tally, sprt: None }
    }

    /// The progress of a run of `plan` (a shard, or a resumed event), with its finished games
    /// counted.
    pub fn of_plan(plan: &Plan) -> EventProgress {
        EventProgress {
            scheduled: plan.done.range().len(),
            started: plan.done.len(),
            tally: plan.tally.clone(),
            sprt: None,
        }
    }

    /// Takes one event of the run.
    pub fn record(&mut self, event: &ArenaEvent) {
        match event {
            ArenaEvent::GameStarted { .. } => self.started += 1,
            ArenaEvent::GameFinished(game) => self.tally.add(game),
            ArenaEvent::SprtDecided { decision, llr } => self.sprt = Some((*decision, *llr)),
            ArenaEvent::Moved { .. } => {}
        }
    }

    /// Games in the schedule.
    pub fn scheduled(&self) -> usize {
        self.scheduled
    }

    /// Games begun so far (finished ones included).
    pub fn started(&self) -> usize {
        self.started
    }

    /// Games finished so far.
    pub fn finished(&self) -> usize {
        self.tally.games()
    }

    /// The standings now (O(participants²), independent of the number of games).
    pub fn standings(&self) -> Standings {
        self.tally.standings()
    }

    /// The running totals.
    pub fn tally(&self) -> &Tally {
        &self.tally
    }

    /// The SPRT's decision, once it decided.
    pub fn sprt(&self) -> Option<(SprtDecision, f64)> {
        self.sprt
    }
}
