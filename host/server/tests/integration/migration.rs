//! A ladder made by the release before migrations were recorded (commit 55ddc90, server schema
//! 3: `tests/data/release-55ddc90/`) opens in this one with every row kept, its tables as a new
//! ladder's, and its migrations recorded.

use othello_db::{Db, Location};

const ALICE_TOKEN: &str = "a9d66233585d12252540fb37a8078d99f8663ef4347e76e0942a1d818f5d48b9";

/// Every table's columns (name, declared type, place in the primary key) and every index's name.
fn shape(db: &Db) -> Vec<String> {
    let mut shape: Vec<String> = db
        .query_map(
            "SELECT m.name, p.name, upper(p.type), p.pk FROM sqlite_master m, pragma_table_info(m.name) p
             WHERE m.type = 'table' ORDER BY m.name, p.cid",
            [],
            |row| {
                Ok(format!(
                    "{}.{} {} pk{}",
                    row.get::<String>(0)?,
                    row.get::<String>(1)?,
                    row.get::<String>(2)?,
                    row.get::<i64>(3)?
                ))
            },
        )
        .unwrap();
    shape.extend(
        db.query_map(
            "SELECT 'index ' || name || ' on ' || tbl_name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name",
            [],
            |row| row.get::<String>(0),
        )
        .unwrap(),
    );
    shape
}

#[test]
fn a_ladder_of_the_release_before_migrations_opens_with_its_rows_and_the_new_tables() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.sqlite3");
    std::fs::copy(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/release-55ddc90/contest.sqlite3"),
        &old,
    )
    .unwrap();
    let migrated = othello_server::store::open(&Location::File(old.clone())).unwrap();
    let fresh = othello_server::store::open(&Location::File(dir.path().join("new.sqlite3"))).unwrap();
    assert_eq!(shape(&migrated), shape(&fresh), "the old file's tables are a new ladder's");

    let recorded: Vec<(String, i64)> = migrated
        .query_map("SELECT set_name, version FROM schema_migrations ORDER BY set_name, version", [], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .unwrap();
    let newest = |migrations: &[othello_db::Migration]| migrations.iter().map(|m| m.version).max().unwrap();
    assert_eq!(
        recorded.last().unwrap(),
        &("server".to_owned(), newest(othello_server::store::MIGRATIONS)),
        "{recorded:?}"
    );
    assert!(recorded.contains(&("ladder".to_owned(), newest(othello_ladder::schema::MIGRATIONS))), "{recorded:?}");
    let schema: String =
        migrated.query_row("SELECT value FROM settings WHERE key = 'server_schema'", [], |row| row.get(0)).unwrap();
    assert_eq!(schema, "4", "an older server refuses the file now, as newer than it knows");

    // Every row is there: the games, the entrant (her token still works), her rated upload.
    let games: i64 = migrated.query_row("SELECT count(*) FROM games", [], |row| row.get(0)).unwrap();
    assert_eq!(games, 304);
    let alice = othello_server::store::entrant_by_token(&migrated, ALICE_TOKEN).unwrap().expect("Alice's token");
    assert_eq!(alice.name, "Alice");
    let status: String =
        migrated.query_row("SELECT status FROM server_uploads WHERE id = 1", [], |row| row.get(0)).unwrap();
    assert_eq!(status, "rated");
    let ladder = othello_ladder::Ladder::open(&old).unwrap();
    let board = othello_ladder::leaderboard::leaderboard(&ladder).unwrap();
    assert_eq!(board.rows.len(), 3, "the pool's two bots and Alice's");
    assert!(board.rows.iter().all(|row| row.rating.is_some()), "all rated from the old games");
    drop((migrated, ladder));

    // Opened again, nothing runs twice.
    let again = othello_server::store::open(&Location::File(old)).unwrap();
    let count: i64 = again.query_row("SELECT count(*) FROM schema_migrations", [], |row| row.get(0)).unwrap();
    assert_eq!(count as usize, recorded.len());
}
