//! The PostgreSQL side: pooled connections with their prepared statements, parameters encoded
//! as the type the server inferred for them, columns read into the shared [`Value`]s.

use std::collections::HashMap;
use std::error::Error as StdError;
use std::sync::{Mutex, OnceLock};

use ::postgres::types::{IsNull, ToSql, Type, to_sql_checked};
use ::postgres::{Client, NoTls, Statement};
use bytes::BytesMut;

use crate::dialect::postgres_parameters;
use crate::{Error, Result, Row, Value};

/// Idle connections kept per database, per process.
const POOL_IDLE_CONNECTIONS: usize = 16;

struct Connection {
    client: Client,
    /// Prepared statements by the SQL text the code wrote.
    statements: HashMap<String, Statement>,
}

fn pool() -> &'static Mutex<HashMap<String, Vec<Connection>>> {
    static POOL: OnceLock<Mutex<HashMap<String, Vec<Connection>>>> = OnceLock::new();
    POOL.get_or_init(Default::default)
}

/// A connection taken from the pool; it goes back when dropped (unless broken).
pub struct Pooled {
    url: String,
    connection: Option<Connection>,
}

impl Pooled {
    pub fn connect(url: &str) -> Result<Pooled> {
        let idle = pool().lock().unwrap_or_else(|p| p.into_inner()).get_mut(url).and_then(Vec::pop);
        let connection = match idle {
            Some(connection) if !connection.client.is_closed() => connection,
            _ => Connection { client: Client::connect(url, NoTls)?, statements: HashMap::new() },
        };
        Ok(Pooled { url: url.to_owned(), connection: Some(connection) })
    }

    fn connection(&mut self) -> &mut Connection {
        self.connection.as_mut().expect("present until dropped")
    }

    fn statement(&mut self, sql: &str) -> Result<Statement> {
        let connection = self.connection();
        if let Some(statement) = connection.statements.get(sql) {
            return Ok(statement.clone());
        }
        let statement = connection.client.prepare(&postgres_parameters(sql)).map_err(|e| {
            // Which statement: the server's message alone does not say.
            let shown: String = sql.split_whitespace().collect::<Vec<_>>().join(" ").chars().take(300).collect();
            Error::Other(format!("{}, in: {shown}", Error::Postgres(e)))
        })?;
        connection.statements.insert(sql.to_owned(), statement.clone());
        Ok(statement)
    }

    pub fn execute(&mut self, sql: &str, values: Vec<Value>) -> Result<usize> {
        off_async_threads(|| {
            let statement = self.statement(sql)?;
            let params = parameters(&values);
            let changed = self.connection().client.execute(&statement, &params)?;
            Ok(changed as usize)
        })
    }

    pub fn batch(&mut self, sql: &str) -> Result<()> {
        off_async_threads(|| Ok(self.connection().client.batch_execute(sql)?))
    }

    pub fn query(&mut self, sql: &str, values: Vec<Value>) -> Result<Vec<Row>> {
        off_async_threads(|| {
            let statement = self.statement(sql)?;
            let params = parameters(&values);
            let rows = self.connection().client.query(&statement, &params)?;
            rows.iter().map(read_row).collect()
        })
    }
}

/// Runs `work` here, or on a thread of its own when this thread drives a tokio runtime: the
/// synchronous client runs a runtime of its own, which tokio refuses to start inside another.
/// The web side calls the store from blocking tasks; this keeps a stray call from an async
/// handler working rather than panicking.
fn off_async_threads<T: Send>(work: impl FnOnce() -> Result<T> + Send) -> Result<T> {
    if tokio::runtime::Handle::try_current().is_err() {
        return work();
    }
    std::thread::scope(|scope| {
        scope.spawn(work).join().unwrap_or_else(|_| Err(Error::Other("a database call panicked".to_owned())))
    })
}

impl Drop for Pooled {
    fn drop(&mut self) {
        let Some(connection) = self.connection.take() else { return };
        // Only a live connection goes back; none is inside a transaction here, as a
        // `Transaction` borrows its `Db` and rolls back when dropped.
        if connection.client.is_closed() {
            return;
        }
        let mut pool = pool().lock().unwrap_or_else(|p| p.into_inner());
        let idle = pool.entry(std::mem::take(&mut self.url)).or_default();
        if idle.len() < POOL_IDLE_CONNECTIONS {
            idle.push(connection);
        }
    }
}

fn parameters(values: &[Value]) -> Vec<&(dyn ToSql + Sync)> {
    values.iter().map(|value| value as &(dyn ToSql + Sync)).collect()
}

/// A value is encoded as whatever the server inferred its parameter to be, as SQLite would
/// convert it: the code binds an `i64` whether the column is `BIGINT` or a `LIMIT`.
impl ToSql for Value {
    fn to_sql(&self, ty: &Type, out: &mut BytesMut) -> Result<IsNull, Box<dyn StdError + Sync + Send>> {
        let mismatch = || -> Box<dyn StdError + Sync + Send> {
            format!("cannot bind {self:?} as a parameter of type {ty}").into()
        };
        match self {
            Value::Null => Ok(IsNull::Yes),
            Value::Integer(n) => match *ty {
                Type::INT8 => n.to_sql(ty, out),
                Type::INT4 => i32::try_from(*n)?.to_sql(ty, out),
                Type::INT2 => i16::try_from(*n)?.to_sql(ty, out),
                Type::FLOAT8 => (*n as f64).to_sql(ty, out),
                Type::FLOAT4 => (*n as f32).to_sql(ty, out),
                Type::BOOL => (*n != 0).to_sql(ty, out),
                Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME => n.to_string().to_sql(ty, out),
                _ => Err(mismatch()),
            },
            Value::Real(x) => match *ty {
                Type::FLOAT8 => x.to_sql(ty, out),
                Type::FLOAT4 => (*x as f32).to_sql(ty, out),
                Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME => x.to_string().to_sql(ty, out),
                _ => Err(mismatch()),
            },
            Value::Text(text) => match *ty {
                Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::UNKNOWN => text.to_sql(ty, out),
                Type::INT8 => text.parse::<i64>()?.to_sql(ty, out),
                _ => Err(mismatch()),
            },
            Value::Blob(bytes) => match *ty {
                Type::BYTEA => bytes.to_sql(ty, out),
                _ => Err(mismatch()),
            },
        }
    }

    fn accepts(ty: &Type) -> bool {
        [
            Type::INT8,
            Type::INT4,
            Type::INT2,
            Type::FLOAT8,
            Type::FLOAT4,
            Type::BOOL,
            Type::TEXT,
            Type::VARCHAR,
            Type::BPCHAR,
            Type::NAME,
            Type::UNKNOWN,
            Type::BYTEA,
        ]
        .contains(ty)
    }

    to_sql_checked!();
}

fn read_row(row: &::postgres::Row) -> Result<Row> {
    let values = row
        .columns()
        .iter()
        .enumerate()
        .map(|(i, column)| {
            let ty = column.type_();
            let value = match *ty {
                Type::BOOL => row.try_get::<_, Option<bool>>(i)?.map(|b| Value::Integer(i64::from(b))),
                Type::INT2 => row.try_get::<_, Option<i16>>(i)?.map(|n| Value::Integer(n.into())),
                Type::INT4 => row.try_get::<_, Option<i32>>(i)?.map(|n| Value::Integer(n.into())),
                Type::INT8 => row.try_get::<_, Option<i64>>(i)?.map(Value::Integer),
                Type::FLOAT4 => row.try_get::<_, Option<f32>>(i)?.map(|x| Value::Real(x.into())),
                Type::FLOAT8 => row.try_get::<_, Option<f64>>(i)?.map(Value::Real),
                Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::UNKNOWN => {
                    row.try_get::<_, Option<String>>(i)?.map(Value::Text)
                }
                Type::BYTEA => row.try_get::<_, Option<Vec<u8>>>(i)?.map(Value::Blob),
                // `sum` of a BIGINT and `avg` give NUMERIC: read as SQLite would give them.
                Type::NUMERIC => row.try_get::<_, Option<Numeric>>(i)?.map(|n| n.0),
                _ => {
                    return Err(Error::Type(format!(
                        "column {} is of type {ty}, which this program does not read (cast it to BIGINT, \
                         DOUBLE PRECISION or TEXT)",
                        column.name()
                    )));
                }
            };
            Ok(value.unwrap_or(Value::Null))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Row { values })
}

/// A NUMERIC read as an integer when it is whole and fits, else as a real number.
struct Numeric(Value);

impl<'a> ::postgres::types::FromSql<'a> for Numeric {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Numeric, Box<dyn StdError + Sync + Send>> {
        // Binary NUMERIC: digit count, weight (of the first digit, in powers of 10000), sign,
        // display scale, then the base-10000 digits.
        let field = |at: usize| -> Result<u16, Box<dyn StdError + Sync + Send>> {
            Ok(u16::from_be_bytes(raw.get(at..at + 2).ok_or("a truncated NUMERIC")?.try_into()?))
        };
        let (digits, weight, sign, scale) = (field(0)?, field(2)? as i16, field(4)?, field(6)?);
        const NEGATIVE: u16 = 0x4000;
        const NAN: u16 = 0xC000;
        if sign == NAN {
            return Ok(Numeric(Value::Real(f64::NAN)));
        }
        let mut whole: Option<i128> = Some(0);
        let mut real = 0.0f64;
        for k in 0..digits as usize {
            let digit = field(8 + 2 * k)?;
            let power = i32::from(weight) - k as i32;
            real += f64::from(digit) * 10000f64.powi(power);
            whole = match (whole, power) {
                (Some(sum), p) if p >= 0 => {
                    10000i128.checked_pow(p as u32).and_then(|m| sum.checked_add(i128::from(digit) * m))
                }
                (_, _) if digit == 0 => whole,
                _ => None,
            };
        }
        let negative = sign == NEGATIVE;
        let value = match whole.and_then(|w| i64::try_from(if negative { -w } else { w }).ok()) {
            Some(n) if scale == 0 => Value::Integer(n),
            _ => Value::Real(if negative { -real } else { real }),
        };
        Ok(Numeric(value))
    }

    fn accepts(ty: &Type) -> bool {
        *ty == Type::NUMERIC
    }
}
