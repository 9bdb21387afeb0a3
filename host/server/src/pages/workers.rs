//! The list of remote workers (`/workers`).

use maud::{Markup, html};

use super::{Frame, layout};
use crate::store::workers::WorkerInfo;

/// `local`: the games this server plays at once itself.
pub fn list(frame: &Frame, local: usize, workers: &[WorkerInfo]) -> Markup {
    let body = html! {
        h1 { "Workers" }
        p.note {
            "This server plays " (local) " game(s) at once itself; the workers below play on other machines and send each game back, checked before it counts."
        }
        @if workers.is_empty() {
            p { "No remote worker yet: " code { "othello serve worker add NAME" } " gives one a token." }
        } @else {
            table #workers {
                thead { tr { th { "Worker" } th { "Cores" } th { "Games" } th { "Last seen" } th { "Playing" } } }
                tbody {
                    @for worker in workers {
                        tr {
                            td.name { (worker.name) @if worker.revoked { " (revoked)" } }
                            td { (worker.cores.map(|c| c.to_string()).unwrap_or_else(|| "–".to_owned())) }
                            td { (worker.games) }
                            td { (worker.last_seen.map(othello_arena::ggf::format_date).unwrap_or_else(|| "never".to_owned())) }
                            td { @if worker.playing.is_empty() { "–" } @else { @for line in &worker.playing { div { (line) } } } }
                        }
                    }
                }
            }
        }
    };
    layout(frame, "Workers", body)
}
