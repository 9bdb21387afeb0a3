//! Putting the shards of an event back together (`othello merge`): every shard, once, of one and
//! the same event, each finished; the result is a state directory of the whole event, as if one
//! machine had played it.

use std::path::{Path, PathBuf};

use super::state::{Resumed, SavedEvent, StateDir};
use super::{EventSpec, Plan, Shard};

/// A merged event.
#[derive(Debug, Clone)]
pub struct Merged {
    /// The whole event (no shard).
    pub event: SavedEvent,
    /// Its standings, with every game counted.
    pub plan: Plan,
    /// How many shards were merged.
    pub shards: usize,
}

/// Merges the shard state directories `shards` into a new state directory `out` (refused if it
/// already holds an event). Refused with a reason naming the folders: a shard given twice, a
/// shard missing, an unfinished shard, or shards of different events.
pub fn merge(out: &Path, shards: &[PathBuf]) -> Result<Merged, String> {
    if shards.is_empty() {
        return Err("name the shards' state folders to merge".to_owned());
    }
    let mut parts: Vec<(PathBuf, Shard, Resumed)> = Vec::new();
    for dir in shards {
        let resumed = StateDir::inspect(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let shard = resumed.event.shard.unwrap_or(Shard { index: 0, count: 1 });
        if let Some((first_dir, _, first)) = parts.first() {
            if let Err(why) = same_event(&first.event.spec, &resumed.event.spec) {
                return Err(format!(
                    "{} and {} hold parts of different events: {why}",
                    first_dir.display(),
                    dir.display()
                ));
            }
            let count = first.event.shard.map_or(1, |s| s.count);
            if shard.count != count {
                return Err(format!(
                    "{} is shard {shard} but {} is shard {}: the shards were cut differently",
                    dir.display(),
                    first_dir.display(),
                    first.event.shard.unwrap_or(Shard { index: 0, count: 1 })
                ));
            }
        }
        if let Some((twice, _, _)) = parts.iter().find(|(_, other, _)| other.index == shard.index) {
            return Err(format!("shard {shard} is given twice: {} and {}", twice.display(), dir.display()));
        }
        if !resumed.plan.done.is_complete() {
            let range = resumed.plan.done.range();
            return Err(format!(
                "{} (shard {shard}) is unfinished: {} of its {} games{}; finish it with `--state {} --resume` first",
                dir.display(),
                resumed.plan.done.len(),
                range.len(),
                if resumed.torn_line { ", its last game cut off mid-write" } else { "" },
                dir.display()
            ));
        }
        parts.push((dir.clone(), shard, resumed));
    }
    let count = parts[0].1.count;
    let missing: Vec<String> =
        (0..count).filter(|k| !parts.iter().any(|(_, s, _)| s.index == *k)).map(|k| format!("{k}/{count}")).collect();
    if !missing.is_empty() {
        return Err(format!(
            "shard{} {} missing: an event of {count} shards needs all of them",
            if missing.len() > 1 { "s" } else { "" },
            missing.join(", ")
        ));
    }
    parts.sort_by_key(|(_, shard, _)| shard.index);

    let event = SavedEvent { spec: parts[0].2.event.spec.clone(), shard: None };
    let mut plan = event.plan();
    plan.done = super::DoneSet::complete(plan.done.range());
    let mut state = StateDir::create_event(out, &event)?;
    for (dir, _, part) in &parts {
        plan.tally.merge(&part.plan.tally);
        state.append_log_of(dir, part.log_bytes)?;
    }
    state.checkpoint(&plan)?;
    Ok(Merged { event, plan, shards: count })
}

/// Whether two specs are the same event (the bots' libraries may live in other folders on other
/// machines: their file names must agree); the first difference otherwise.
pub fn same_event(a: &EventSpec, b: &EventSpec) -> Result<(), String> {
    let bots = |spec: &EventSpec| {
        spec.participants
            .iter()
            .map(|p| {
                let file = p
                    .library
                    .file_name()
                    .map_or_else(|| p.library.display().to_string(), |f| f.to_string_lossy().into_owned());
                format!("{} ({file}{})", p.name, p.level.map_or(String::new(), |l| format!(", level {l}")))
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    if bots(a) != bots(b) {
        return Err(format!("the bots differ: {} against {}", bots(a), bots(b)));
    }
    if a.format != b.format {
        return Err(format!("the schedules differ: {} against {}", describe(a.format), describe(b.format)));
    }
    if a.seed != b.seed {
        return Err(format!("the seeds differ: {} against {}", a.seed, b.seed));
    }
    if a.openings != b.openings {
        return Err("the openings differ".to_owned());
    }
    if a.time_limit_ms != b.time_limit_ms {
        return Err(format!("the time per move differs: {:?} ms against {:?} ms", a.time_limit_ms, b.time_limit_ms));
    }
    if a.sprt != b.sprt {
        return Err("the SPRT settings differ".to_owned());
    }
    Ok(())
}

/// `a match of 100 games`, `a tournament of 2 rounds of 4 games a pair`.
fn describe(format: super::Format) -> String {
    match format {
        super::Format::Match { games } => format!("a match of {games} games"),
        super::Format::Tournament { rounds, games_per_pair } => {
            format!("a tournament of {rounds} rounds of {games_per_pair} games a pair")
        }
    }
}
