//! The SQLite side: statements from the connection's cache, values as SQLite's storage classes.

use rusqlite::types::{Value as SqliteValue, ValueRef};

use crate::{Result, Row, Value};

fn bind(values: Vec<Value>) -> Vec<SqliteValue> {
    values
        .into_iter()
        .map(|value| match value {
            Value::Null => SqliteValue::Null,
            Value::Integer(n) => SqliteValue::Integer(n),
            Value::Real(x) => SqliteValue::Real(x),
            Value::Text(text) => SqliteValue::Text(text),
            Value::Blob(bytes) => SqliteValue::Blob(bytes),
        })
        .collect()
}

pub fn execute(connection: &rusqlite::Connection, sql: &str, values: Vec<Value>) -> Result<usize> {
    let mut statement = connection.prepare_cached(sql)?;
    Ok(statement.execute(rusqlite::params_from_iter(bind(values)))?)
}

pub fn query(connection: &rusqlite::Connection, sql: &str, values: Vec<Value>) -> Result<Vec<Row>> {
    let mut statement = connection.prepare_cached(sql)?;
    let columns = statement.column_count();
    let mut rows = statement.query(rusqlite::params_from_iter(bind(values)))?;
    let mut read = Vec::new();
    while let Some(row) = rows.next()? {
        let values = (0..columns)
            .map(|i| {
                Ok(match row.get_ref(i)? {
                    ValueRef::Null => Value::Null,
                    ValueRef::Integer(n) => Value::Integer(n),
                    ValueRef::Real(x) => Value::Real(x),
                    ValueRef::Text(text) => Value::Text(String::from_utf8_lossy(text).into_owned()),
                    ValueRef::Blob(bytes) => Value::Blob(bytes.to_vec()),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        read.push(Row { values });
    }
    Ok(read)
}
