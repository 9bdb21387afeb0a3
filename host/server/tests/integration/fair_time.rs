//! Fair time on the server: the clock every game is counted on is in its record and on its page,
//! and the plans workers play by carry it.

use othello_arena::seat::Clock;

use crate::{TestServer, named_bot};

#[test]
fn a_games_page_says_which_clock_counted_its_time() {
    let server = TestServer::start_with(|config| config.seat_options.clock = Clock::Cpu);
    let entrant = server.add_entrant("Cleo");
    let id = server.upload_file(&entrant, &named_bot("cpu-clock", "On CPU time"));
    server.wait_for_status(&entrant, id, &["rated"]);
    let (_, games) = server.get_json(&format!("/api/bots/{id}/games"), Some(&entrant));
    let game = games[0]["id"].as_i64().unwrap();
    let (_, replay) = server.get_json(&format!("/api/games/{game}"), None);
    assert_eq!(replay["clock"], "cpu", "{replay}");
    let (status, page) = server.get(&format!("/games/{game}"), None);
    assert_eq!(status, 200);
    let limit = replay["time_limit_ms"].as_u64().expect("the server's games have a time limit");
    assert!(page.contains(&format!("{limit} ms a move, counted on the CPU-time clock")), "{page}");
}
