//! The layer's promise: the same statements give the same rows on an SQLite file and on
//! PostgreSQL. Every test runs on both (PostgreSQL when this machine has it: see
//! `othello_testkit::postgres`).

use othello_db::{Db, Migration, OptionalExtension, Value, params};

const SCHEMA: &str = "
CREATE TABLE people (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    score REAL,
    photo BLOB,
    joined INTEGER NOT NULL
);
";
const MIGRATIONS: &[Migration] = &[
    Migration { version: 1, name: "people", sql: SCHEMA },
    Migration {
        version: 2,
        name: "notes",
        sql: "CREATE TABLE notes (person INTEGER NOT NULL REFERENCES people(id), text TEXT);",
    },
];

/// Runs `test` on a fresh SQLite file and on a fresh PostgreSQL database.
fn on_both(test: impl Fn(&Db)) {
    let dir = tempfile::tempdir().unwrap();
    let sqlite = othello_db::open_sqlite_file(&dir.path().join("t.sqlite3")).unwrap();
    sqlite.migrate("test", MIGRATIONS, |_| Ok(None)).unwrap();
    test(&sqlite);
    if let Some(database) = othello_testkit::postgres::database() {
        let postgres = Db::connect_postgres(&database.url).unwrap();
        postgres.migrate("test", MIGRATIONS, |_| Ok(None)).unwrap();
        test(&postgres);
        drop(postgres);
    }
}

#[test]
fn rows_read_the_same_from_both() {
    on_both(|db| {
        let ada = db
            .insert(
                "INSERT INTO people (name, score, photo, joined) VALUES (?1, ?2, ?3, ?4)",
                params!["Ada", 1.5, vec![0u8, 255, 7], 1_700_000_000_000i64],
            )
            .unwrap();
        let bob = db.insert("INSERT INTO people (name, joined) VALUES (?2, ?1)", params![5i64, "Bob"]).unwrap();
        assert!(bob > ada, "ids grow: {ada} then {bob}");
        type Person = (String, Option<f64>, Option<Vec<u8>>, i64);
        let rows: Vec<Person> = db
            .query_map("SELECT name, score, photo, joined FROM people ORDER BY id", [], |row| {
                Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
            })
            .unwrap();
        assert_eq!(
            rows,
            vec![("Ada".into(), Some(1.5), Some(vec![0, 255, 7]), 1_700_000_000_000), ("Bob".into(), None, None, 5)]
        );
        // Aggregates and comparisons come back as the same Rust values.
        let (count, any_rich, sum, scaled, mean): (i64, bool, i64, f64, f64) = db
            .query_row(
                "SELECT count(*), max(score) > 1.0, sum(joined), sum(joined) * 0.5, avg(joined - 1) FROM people",
                [],
                |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?, row.get(4)?)),
            )
            .unwrap();
        assert_eq!((count, any_rich, sum), (2, true, 1_700_000_000_005));
        assert_eq!((scaled, mean), (850_000_000_002.5, 850_000_000_001.5));
        // A `?` inside a string is text, not a parameter.
        let text: String = db.query_row("SELECT 'why?' || ?1", params!["!"], |row| row.get(0)).unwrap();
        assert_eq!(text, "why?!");
        let none = db.query_row("SELECT id FROM people WHERE name = ?1", ["Cy"], |row| row.get::<i64>(0)).optional();
        assert!(none.unwrap().is_none());
        let value: Value = db.query_row("SELECT photo FROM people WHERE id = ?1", [bob], |row| row.get(0)).unwrap();
        assert_eq!(value, Value::Null);
    });
}

#[test]
fn a_transaction_dropped_rolls_back_and_savepoints_nest() {
    on_both(|db| {
        {
            let outer = db.transaction().unwrap();
            outer.execute("INSERT INTO people (name, joined) VALUES ('kept', 1)", []).unwrap();
            {
                let inner = outer.transaction().unwrap();
                inner.execute("INSERT INTO people (name, joined) VALUES ('undone', 2)", []).unwrap();
            }
            outer.commit().unwrap();
        }
        {
            let dropped = db.transaction().unwrap();
            dropped.execute("INSERT INTO people (name, joined) VALUES ('never', 3)", []).unwrap();
        }
        let names: Vec<String> = db.query_map("SELECT name FROM people ORDER BY id", [], |row| row.get(0)).unwrap();
        assert_eq!(names, ["kept"]);
        assert!(!db.in_transaction());
    });
}

#[test]
fn a_duplicate_is_told_apart_from_other_errors() {
    on_both(|db| {
        db.execute("INSERT INTO people (name, joined) VALUES ('Ada', 1)", []).unwrap();
        let again = db.execute("INSERT INTO people (name, joined) VALUES ('Ada', 2)", []).unwrap_err();
        assert!(again.is_unique_violation(), "{again}");
        let bad = db.execute("INSERT INTO nowhere (x) VALUES (1)", []).unwrap_err();
        assert!(!bad.is_unique_violation(), "{bad}");
        // `ON CONFLICT` is the same on both.
        db.execute("INSERT INTO people (name, joined) VALUES ('Ada', 9) ON CONFLICT (name) DO UPDATE SET joined = excluded.joined", [])
            .unwrap();
        let joined: i64 = db.query_row("SELECT joined FROM people WHERE name = 'Ada'", [], |row| row.get(0)).unwrap();
        assert_eq!(joined, 9);
    });
}

#[test]
fn migrations_run_once_and_a_newer_database_is_refused() {
    on_both(|db| {
        // Applied already by `on_both`: nothing runs twice.
        assert_eq!(db.migrate("test", MIGRATIONS, |_| panic!("no baseline for a recorded set")).unwrap(), 2);
        assert!(db.has_table("notes").unwrap());
        let older = &MIGRATIONS[..1];
        let refused = db.migrate("test", older, |_| Ok(None)).unwrap_err().to_string();
        assert!(refused.contains("newer othello"), "{refused}");
        // Another set is counted apart, from its own baseline.
        let at = db
            .migrate("other", &[Migration { version: 1, name: "x", sql: "CREATE TABLE x (a INTEGER)" }], |_| {
                Ok(Some(1))
            })
            .unwrap();
        assert_eq!(at, 1);
        assert!(!db.has_table("x").unwrap(), "a baseline says the tables are there already");
    });
}
