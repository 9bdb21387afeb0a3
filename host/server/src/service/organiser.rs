//! What the organiser asks of the service: who they are, and what their page shows.

use super::finals::FinalView;
use super::{Refusal, Service};

/// What the organiser's page shows.
pub struct AdminState {
    pub submissions_open: bool,
    /// The organiser's setting, if any.
    pub stored_time: Option<Option<std::time::Duration>>,
    pub final_view: Option<FinalView>,
    pub entrants: Vec<crate::store::Entrant>,
    /// The remote workers with their hosts (shown here only) and their tallies.
    pub workers: Vec<crate::store::workers::WorkerInfo>,
    pub tallies: Vec<crate::store::workers::WorkerTally>,
    /// Copies sent (refused or entered) and the rule for them.
    pub copies: Vec<crate::service::entries::Copy>,
    pub copy_rule: crate::store::settings::CopyRule,
    /// The time a move of the command line (`--time-ms`), when the organiser set none.
    pub command_line_time: Option<std::time::Duration>,
}

impl Service {
    /// What the organiser's page shows.
    pub fn admin_state(&self) -> Result<AdminState, Refusal> {
        let ratings: std::collections::HashMap<i64, f64> =
            self.leaderboard()?.iter().filter_map(|row| Some((row.entry, row.rating?))).collect();
        self.with_db(|db| {
            Ok(AdminState {
                submissions_open: crate::store::submissions_open(db)?,
                stored_time: crate::store::settings::stored_time_limit(db)?,
                final_view: super::finals::view(db)?,
                entrants: crate::store::entrants(db)?,
                workers: crate::store::workers::workers(db)?,
                tallies: crate::store::workers::tallies(db, &ratings)?,
                copies: crate::service::entries::copies(db)?,
                copy_rule: crate::store::settings::copy_rule(db)?,
                command_line_time: self.config.time_limit,
            })
        })
    }

    /// Whether `token` is the organiser's, or else `session` an organiser's live session.
    pub fn is_organiser(&self, token: Option<&str>, session: Option<&str>) -> Result<bool, Refusal> {
        self.with_db(|db| match (token, session) {
            (Some(token), _) => Ok(crate::store::settings::is_admin_token(db, token)?),
            (None, Some(session)) => {
                Ok(crate::store::sessions::holder(db, crate::store::sessions::Kind::Admin, session)?.is_some())
            }
            (None, None) => Ok(false),
        })
    }
}
