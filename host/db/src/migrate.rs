//! One set of migrations for both databases: numbered SQL scripts per set (the ladder's, the
//! server's), each applied once, in order, in one transaction with the record of it in
//! `schema_migrations`. Several processes starting at once apply each script once: SQLite's
//! write lock, PostgreSQL's advisory lock.

use crate::dialect::postgres_schema;
use crate::{Db, Dialect, Error, Result, params};

/// One numbered schema change, written in SQLite's DDL (translated for PostgreSQL).
#[derive(Debug, Clone, Copy)]
pub struct Migration {
    pub version: i64,
    pub name: &'static str,
    pub sql: &'static str,
}

const MIGRATIONS_TABLE: &str = "CREATE TABLE IF NOT EXISTS schema_migrations (
    set_name TEXT NOT NULL,
    version INTEGER NOT NULL,
    name TEXT NOT NULL,
    applied_at INTEGER NOT NULL,
    PRIMARY KEY (set_name, version)
)";

/// The advisory lock key of migrations on PostgreSQL ("OTMG").
const MIGRATION_LOCK: i64 = 0x4F54_4D47;

impl Db {
    /// Brings the set `set` up to its newest migration; returns the version it is at.
    ///
    /// `baseline` runs when the set has no record yet: it says which version the database's
    /// tables already match (a file written before migrations were recorded: it may bring the
    /// tables there itself), or `None` for a database without them.
    pub fn migrate(
        &self,
        set: &str,
        migrations: &[Migration],
        baseline: impl FnOnce(&Db) -> Result<Option<i64>>,
    ) -> Result<i64> {
        let transaction = self.transaction()?;
        if self.dialect() == Dialect::Postgres {
            // Held to the transaction's end: replicas starting together migrate one at a time.
            self.query_row("SELECT pg_advisory_xact_lock(?1)::TEXT", params![MIGRATION_LOCK], |_| Ok(()))?;
        }
        self.execute_batch(&self.schema_sql(MIGRATIONS_TABLE))?;
        let applied: Vec<i64> =
            self.query_map("SELECT version FROM schema_migrations WHERE set_name = ?1", params![set], |row| {
                row.get(0)
            })?;
        let newest_known = migrations.iter().map(|m| m.version).max().unwrap_or(0);
        if let Some(&newest) = applied.iter().max()
            && newest > newest_known
        {
            return Err(Error::Other(format!(
                "its {set} tables were written by a newer othello (schema {newest}; this one knows up to \
                 {newest_known}): use that version or a newer one"
            )));
        }
        let mut at = applied.iter().copied().max().unwrap_or(0);
        if applied.is_empty()
            && let Some(version) = baseline(self)?
        {
            for migration in migrations.iter().filter(|m| m.version <= version) {
                self.record(set, migration)?;
            }
            at = version;
        }
        let from = at;
        for migration in migrations.iter().filter(|m| m.version > from) {
            self.execute_batch(&self.schema_sql(migration.sql)).map_err(|e| {
                Error::Other(format!("migration {set} {} ({}): {e}", migration.version, migration.name))
            })?;
            self.record(set, migration)?;
            at = migration.version;
        }
        transaction.commit()?;
        Ok(at)
    }

    fn record(&self, set: &str, migration: &Migration) -> Result<()> {
        self.execute(
            "INSERT INTO schema_migrations (set_name, version, name, applied_at) VALUES (?1, ?2, ?3, ?4)",
            params![set, migration.version, migration.name, unix_now()],
        )?;
        Ok(())
    }

    /// DDL written for SQLite, in this database's dialect.
    pub fn schema_sql(&self, sql: &str) -> String {
        match self.dialect() {
            Dialect::Sqlite => sql.to_owned(),
            Dialect::Postgres => postgres_schema(sql),
        }
    }

    /// Whether a table of that name exists.
    pub fn has_table(&self, name: &str) -> Result<bool> {
        let sql = match self.dialect() {
            Dialect::Sqlite => "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
            Dialect::Postgres => {
                "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ?1"
            }
        };
        Ok(self.query_row(sql, params![name], |row| row.get::<i64>(0))? > 0)
    }
}

fn unix_now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}
