//! Replicas on one database, at the level of their rows (on PostgreSQL when the suite runs on
//! it): a role is held by one replica at a time and passes when its holder is gone; the games of
//! a replica gone go back to the queue, a live replica's stay its.

use std::path::Path;

use othello_server::replicas::{POOL_CALIBRATION, Replica, requeue_abandoned};
use othello_server::store;

#[test]
fn a_role_is_held_by_one_replica_at_a_time_and_passes_when_its_holder_is_gone() {
    let dir = tempfile::tempdir().unwrap();
    let (ladder, _database) = crate::ladder_in(dir.path());
    let db = store::open(&ladder).unwrap();
    let (first, second) = (Replica::register(&db, "first").unwrap(), Replica::register(&db, "second").unwrap());
    assert!(first.lead(&db, POOL_CALIBRATION).unwrap(), "a free role is taken");
    assert!(!second.lead(&db, POOL_CALIBRATION).unwrap(), "held by the first");
    first.beat(&db, "first").unwrap();
    assert!(first.lead(&db, POOL_CALIBRATION).unwrap(), "the holder renews it");
    assert!(!second.lead(&db, POOL_CALIBRATION).unwrap(), "still the first's after its beat");
    // The first is gone (killed): its term runs out without a beat.
    db.execute("UPDATE server_leaders SET expires_at = 0 WHERE replica = ?1", [&first.id]).unwrap();
    assert!(second.lead(&db, POOL_CALIBRATION).unwrap(), "taken over once lapsed");
    assert!(!first.lead(&db, POOL_CALIBRATION).unwrap(), "the first, back, does not take it again");
    second.leave(&db).unwrap();
    assert!(first.lead(&db, POOL_CALIBRATION).unwrap(), "free at once when its holder leaves");
}

#[test]
fn the_games_of_a_replica_gone_go_back_to_the_queue_and_a_live_ones_stay() {
    let dir = tempfile::tempdir().unwrap();
    let (ladder, _database) = crate::ladder_in(dir.path());
    let mut db = store::open(&ladder).unwrap();
    let token = store::add_entrant(&db, "Alice").unwrap();
    let entrant = store::entrant_by_token(&db, &token).unwrap().unwrap();
    let (gone, live) = (Replica::register(&db, "gone").unwrap(), Replica::register(&db, "live").unwrap());
    let mut uploads = Vec::new();
    for (sha256, replica) in [("aa", &gone), ("bb", &live)] {
        let upload = store::add_upload(&mut db, entrant.id, sha256, "bot.so", Path::new("bot.so"), 1).unwrap();
        let job = store::claim_job(&mut db, &replica.local_lease(0)).unwrap().expect("a check is queued");
        assert_eq!(job.upload, upload);
        uploads.push(upload);
    }
    assert_eq!(requeue_abandoned(&db).unwrap(), 0, "both replicas are live");
    db.execute("UPDATE server_replicas SET seen_at = 0 WHERE id = ?1", [&gone.id]).unwrap();
    assert_eq!(requeue_abandoned(&db).unwrap(), 1, "the gone replica's check only");
    let states: Vec<(String, Option<String>)> = db
        .query_map("SELECT state, lease FROM server_jobs ORDER BY id", [], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap();
    assert_eq!(states, [("queued".to_owned(), None), ("running".to_owned(), Some(live.local_lease(0)))]);
    let again = store::claim_job(&mut db, &live.local_lease(1)).unwrap().expect("queued again");
    assert_eq!(again.upload, uploads[0], "the gone replica's job, claimed by the live one");
}
