//! The layer's error: what went wrong, said the same way for both databases.

use std::fmt;

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug)]
pub enum Error {
    /// A query that had to return a row returned none.
    NoRows,
    /// A column did not hold what the code reads it as.
    Type(String),
    Sqlite(rusqlite::Error),
    #[cfg(feature = "postgres")]
    Postgres(::postgres::Error),
    /// Anything else (a URL that is not one, a schema written by a newer program, …).
    Other(String),
}

impl Error {
    /// A `UNIQUE` or primary key would have been broken.
    pub fn is_unique_violation(&self) -> bool {
        match self {
            Error::Sqlite(rusqlite::Error::SqliteFailure(e, _)) => {
                e.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
                    || e.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY
            }
            #[cfg(feature = "postgres")]
            Error::Postgres(e) => e.code() == Some(&::postgres::error::SqlState::UNIQUE_VIOLATION),
            _ => false,
        }
    }

    /// Another writer held the database too long, or PostgreSQL gave up a transaction to let
    /// another go on (serialization failure, deadlock): trying again may work.
    pub fn is_contention(&self) -> bool {
        match self {
            Error::Sqlite(rusqlite::Error::SqliteFailure(e, _)) => {
                matches!(e.code, rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
            }
            #[cfg(feature = "postgres")]
            Error::Postgres(e) => matches!(
                e.code(),
                Some(&::postgres::error::SqlState::T_R_SERIALIZATION_FAILURE)
                    | Some(&::postgres::error::SqlState::T_R_DEADLOCK_DETECTED)
            ),
            _ => false,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NoRows => f.write_str("no row was found"),
            Error::Type(why) | Error::Other(why) => f.write_str(why),
            Error::Sqlite(e) => write!(f, "{e}"),
            #[cfg(feature = "postgres")]
            Error::Postgres(e) => match e.as_db_error() {
                // The server's own words (the default Display says only "db error").
                Some(db) => write!(f, "{}: {}", db.severity(), db.message()),
                None => write!(f, "{e}"),
            },
        }
    }
}

impl std::error::Error for Error {}

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Error {
        match e {
            rusqlite::Error::QueryReturnedNoRows => Error::NoRows,
            e => Error::Sqlite(e),
        }
    }
}

#[cfg(feature = "postgres")]
impl From<::postgres::Error> for Error {
    fn from(e: ::postgres::Error) -> Error {
        Error::Postgres(e)
    }
}

impl From<Error> for String {
    fn from(e: Error) -> String {
        e.to_string()
    }
}

/// `.optional()` on a query that may find no row.
pub trait OptionalExtension<T> {
    fn optional(self) -> Result<Option<T>>;
}

impl<T> OptionalExtension<T> for Result<T> {
    fn optional(self) -> Result<Option<T>> {
        match self {
            Ok(value) => Ok(Some(value)),
            Err(Error::NoRows) => Ok(None),
            Err(e) => Err(e),
        }
    }
}
