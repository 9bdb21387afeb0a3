//! One database layer for the ladder and the contest server: an SQLite file (the embedded
//! default: the app, a teacher's laptop) or a PostgreSQL database (a public ladder with several
//! web replicas), through one API and one SQL text.
//!
//! The code writes SQLite's SQL with `?1` parameters, in the subset both databases share
//! (`ON CONFLICT`, `RETURNING`, `COALESCE`, …); [`dialect`] translates the parameters and the
//! migrations' column types for PostgreSQL. Values cross as [`Value`]s, so the same row reads the
//! same from either. Synchronous on purpose: the ladder, the rating workers and the app are
//! synchronous code, and the web side calls the store from blocking tasks.

mod dialect;
mod error;
mod location;
mod migrate;
#[cfg(feature = "postgres")]
mod postgres;
mod sqlite;
mod value;

use std::cell::Cell;

pub use dialect::{Dialect, postgres_parameters, postgres_schema};
pub use error::{Error, OptionalExtension, Result};
pub use location::Location;
pub use migrate::Migration;
pub use value::{FromValue, Params, Row, ToValue, Value};

/// An open database connection.
pub struct Db {
    backend: Backend,
    location: Location,
    /// Transactions open on it: the first is `BEGIN`, inner ones are savepoints.
    depth: Cell<u32>,
}

enum Backend {
    Sqlite(rusqlite::Connection),
    #[cfg(feature = "postgres")]
    Postgres(Box<std::cell::RefCell<postgres::Pooled>>),
}

impl Db {
    /// Wraps an SQLite connection the caller opened (and checked) itself.
    pub fn from_sqlite(connection: rusqlite::Connection, location: Location) -> Db {
        Db { backend: Backend::Sqlite(connection), location, depth: Cell::new(0) }
    }

    /// Connects to the PostgreSQL database at `url` (a connection from this process's pool when
    /// one is free).
    #[cfg(feature = "postgres")]
    pub fn connect_postgres(url: &str) -> Result<Db> {
        let pooled = postgres::Pooled::connect(url)?;
        Ok(Db {
            backend: Backend::Postgres(Box::new(std::cell::RefCell::new(pooled))),
            location: Location::Postgres(url.to_owned()),
            depth: Cell::new(0),
        })
    }

    pub fn dialect(&self) -> Dialect {
        match self.backend {
            Backend::Sqlite(_) => Dialect::Sqlite,
            #[cfg(feature = "postgres")]
            Backend::Postgres(_) => Dialect::Postgres,
        }
    }

    pub fn location(&self) -> &Location {
        &self.location
    }

    /// The SQLite connection underneath, for what only SQLite has (pragmas, the file's header).
    pub fn sqlite(&self) -> Option<&rusqlite::Connection> {
        match &self.backend {
            Backend::Sqlite(connection) => Some(connection),
            #[cfg(feature = "postgres")]
            Backend::Postgres(_) => None,
        }
    }

    /// Runs one statement; returns the rows it changed.
    pub fn execute(&self, sql: &str, params: impl Params) -> Result<usize> {
        let values = params.values();
        match &self.backend {
            Backend::Sqlite(connection) => sqlite::execute(connection, sql, values),
            #[cfg(feature = "postgres")]
            Backend::Postgres(client) => client.borrow_mut().execute(sql, values),
        }
    }

    /// Runs statements separated by `;`, without parameters.
    pub fn execute_batch(&self, sql: &str) -> Result<()> {
        match &self.backend {
            Backend::Sqlite(connection) => connection.execute_batch(sql).map_err(Error::from),
            #[cfg(feature = "postgres")]
            Backend::Postgres(client) => client.borrow_mut().batch(sql),
        }
    }

    /// Every row of a query.
    pub fn query(&self, sql: &str, params: impl Params) -> Result<Vec<Row>> {
        let values = params.values();
        match &self.backend {
            Backend::Sqlite(connection) => sqlite::query(connection, sql, values),
            #[cfg(feature = "postgres")]
            Backend::Postgres(client) => client.borrow_mut().query(sql, values),
        }
    }

    /// Every row of a query, each read by `read`.
    pub fn query_map<T>(&self, sql: &str, params: impl Params, read: impl FnMut(&Row) -> Result<T>) -> Result<Vec<T>> {
        self.query(sql, params)?.iter().map(read).collect()
    }

    /// The first row of a query, read by `read`; [`Error::NoRows`] when there is none.
    pub fn query_row<T>(&self, sql: &str, params: impl Params, read: impl FnOnce(&Row) -> Result<T>) -> Result<T> {
        let rows = self.query(sql, params)?;
        read(rows.first().ok_or(Error::NoRows)?)
    }

    /// Runs an `INSERT` and returns the new row's `id` (the statement gets `RETURNING id`).
    pub fn insert(&self, sql: &str, params: impl Params) -> Result<i64> {
        self.query_row(&format!("{sql} RETURNING id"), params, |row| row.get(0))
    }

    /// Starts a transaction that writes: SQLite takes its write lock at once (`BEGIN IMMEDIATE`),
    /// so a read-then-write inside never fails half-way on another writer; PostgreSQL's row locks
    /// come from the statements (`FOR UPDATE`). Inside another transaction, a savepoint. Ends with
    /// [`Transaction::commit`]; dropped, it rolls back.
    pub fn transaction(&self) -> Result<Transaction<'_>> {
        self.begin("BEGIN IMMEDIATE", "BEGIN")
    }

    /// Starts a transaction that reads a consistent snapshot (several queries see one state).
    pub fn read_transaction(&self) -> Result<Transaction<'_>> {
        self.begin("BEGIN", "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
    }

    fn begin(&self, sqlite: &str, postgres: &str) -> Result<Transaction<'_>> {
        let depth = self.depth.get();
        let statement = match (depth, self.dialect()) {
            (0, Dialect::Sqlite) => sqlite.to_owned(),
            (0, Dialect::Postgres) => postgres.to_owned(),
            (n, _) => format!("SAVEPOINT othello_{n}"),
        };
        self.execute_batch(&statement)?;
        self.depth.set(depth + 1);
        Ok(Transaction { db: self, depth, done: false })
    }

    /// What ends a `SELECT` of rows a transaction is about to take (a job from a queue): on
    /// PostgreSQL `FOR UPDATE SKIP LOCKED`, so replicas claiming at once take different rows and
    /// none waits; nothing on SQLite, whose write transaction already excludes every other.
    pub fn skip_locked(&self) -> &'static str {
        match self.dialect() {
            Dialect::Sqlite => "",
            Dialect::Postgres => " FOR UPDATE SKIP LOCKED",
        }
    }

    /// What ends a `SELECT` of a row the transaction changes next, others waiting for it: on
    /// PostgreSQL `FOR UPDATE`; nothing on SQLite (as [`Db::skip_locked`]).
    pub fn for_update(&self) -> &'static str {
        match self.dialect() {
            Dialect::Sqlite => "",
            Dialect::Postgres => " FOR UPDATE",
        }
    }

    /// Whether a transaction is open on the connection.
    pub fn in_transaction(&self) -> bool {
        self.depth.get() > 0
    }
}

/// A transaction on a [`Db`]; it derefs to the connection for the statements inside.
pub struct Transaction<'a> {
    db: &'a Db,
    depth: u32,
    done: bool,
}

impl Transaction<'_> {
    pub fn commit(mut self) -> Result<()> {
        self.done = true;
        self.db.depth.set(self.depth);
        if self.depth == 0 {
            self.db.execute_batch("COMMIT")
        } else {
            self.db.execute_batch(&format!("RELEASE othello_{}", self.depth))
        }
    }
}

impl std::ops::Deref for Transaction<'_> {
    type Target = Db;
    fn deref(&self) -> &Db {
        self.db
    }
}

impl Drop for Transaction<'_> {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        self.db.depth.set(self.depth);
        // A failed rollback leaves nothing to do: the connection reports the error next time.
        let _ = if self.depth == 0 {
            self.db.execute_batch("ROLLBACK")
        } else {
            self.db.execute_batch(&format!("ROLLBACK TO othello_{0}; RELEASE othello_{0}", self.depth))
        };
    }
}

/// Opens a SQLite file as a plain `Db` (no checks of whose file it is: the ladder does those).
pub fn open_sqlite_file(path: &std::path::Path) -> Result<Db> {
    let connection = rusqlite::Connection::open(path)?;
    Ok(Db::from_sqlite(connection, Location::File(path.to_owned())))
}
