//! Values crossing the layer: what a parameter is bound as and what a column is read as, the
//! same for both databases (SQLite's five storage classes; PostgreSQL's types map onto them).

use crate::Error;

/// One SQL value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Integer(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

/// A Rust value that can be bound as a parameter.
pub trait ToValue {
    fn to_value(&self) -> Value;
}

/// A Rust value a column can be read as.
pub trait FromValue: Sized {
    /// `None` when the value does not fit (the message names what it was).
    fn from_value(value: Value) -> Result<Self, String>;
}

macro_rules! integer_values {
    ($($int:ty),*) => {$(
        impl ToValue for $int {
            fn to_value(&self) -> Value {
                // Wider than i64 only for u64/usize past i64::MAX, which no column holds: saturate.
                Value::Integer(i64::try_from(*self).unwrap_or(i64::MAX))
            }
        }
        impl FromValue for $int {
            fn from_value(value: Value) -> Result<Self, String> {
                match value {
                    Value::Integer(n) => <$int>::try_from(n)
                        .map_err(|_| format!("{n} does not fit in {}", stringify!($int))),
                    other => Err(format!("expected an integer, found {}", other.kind())),
                }
            }
        }
    )*};
}
integer_values!(i8, i16, i32, i64, u8, u16, u32, u64, usize, isize);

impl ToValue for bool {
    fn to_value(&self) -> Value {
        Value::Integer(i64::from(*self))
    }
}
impl FromValue for bool {
    fn from_value(value: Value) -> Result<Self, String> {
        match value {
            Value::Integer(n) => Ok(n != 0),
            other => Err(format!("expected a boolean, found {}", other.kind())),
        }
    }
}

impl ToValue for f64 {
    fn to_value(&self) -> Value {
        Value::Real(*self)
    }
}
impl FromValue for f64 {
    fn from_value(value: Value) -> Result<Self, String> {
        match value {
            Value::Real(x) => Ok(x),
            // SQLite stores 1.0 in a REAL column as a real, but an expression may give an integer.
            Value::Integer(n) => Ok(n as f64),
            other => Err(format!("expected a number, found {}", other.kind())),
        }
    }
}

impl ToValue for str {
    fn to_value(&self) -> Value {
        Value::Text(self.to_owned())
    }
}
impl ToValue for std::borrow::Cow<'_, str> {
    fn to_value(&self) -> Value {
        Value::Text(self.to_string())
    }
}
impl ToValue for String {
    fn to_value(&self) -> Value {
        Value::Text(self.clone())
    }
}
impl FromValue for String {
    fn from_value(value: Value) -> Result<Self, String> {
        match value {
            Value::Text(text) => Ok(text),
            other => Err(format!("expected text, found {}", other.kind())),
        }
    }
}

impl ToValue for [u8] {
    fn to_value(&self) -> Value {
        Value::Blob(self.to_vec())
    }
}
impl ToValue for Vec<u8> {
    fn to_value(&self) -> Value {
        Value::Blob(self.clone())
    }
}
impl FromValue for Vec<u8> {
    fn from_value(value: Value) -> Result<Self, String> {
        match value {
            Value::Blob(bytes) => Ok(bytes),
            other => Err(format!("expected bytes, found {}", other.kind())),
        }
    }
}

impl<T: ToValue + ?Sized> ToValue for &T {
    fn to_value(&self) -> Value {
        (**self).to_value()
    }
}
impl<T: ToValue> ToValue for Option<T> {
    fn to_value(&self) -> Value {
        self.as_ref().map_or(Value::Null, ToValue::to_value)
    }
}
impl<T: FromValue> FromValue for Option<T> {
    fn from_value(value: Value) -> Result<Self, String> {
        match value {
            Value::Null => Ok(None),
            other => T::from_value(other).map(Some),
        }
    }
}
impl ToValue for Value {
    fn to_value(&self) -> Value {
        self.clone()
    }
}
impl FromValue for Value {
    fn from_value(value: Value) -> Result<Self, String> {
        Ok(value)
    }
}

impl Value {
    fn kind(&self) -> &'static str {
        match self {
            Value::Null => "NULL",
            Value::Integer(_) => "an integer",
            Value::Real(_) => "a real number",
            Value::Text(_) => "text",
            Value::Blob(_) => "bytes",
        }
    }
}

/// One result row, read whole.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub(crate) values: Vec<Value>,
}

impl Row {
    /// Column `index` (from 0) as a `T`.
    pub fn get<T: FromValue>(&self, index: usize) -> Result<T, Error> {
        let value = self.values.get(index).cloned().ok_or(Error::Type(format!("no column {index}")))?;
        T::from_value(value).map_err(|why| Error::Type(format!("column {index}: {why}")))
    }
}

/// The parameters of one statement: `[]`, `params![…]` or a slice of values.
pub trait Params {
    fn values(&self) -> Vec<Value>;
}

impl Params for [&dyn ToValue; 0] {
    fn values(&self) -> Vec<Value> {
        Vec::new()
    }
}
impl Params for &[&dyn ToValue] {
    fn values(&self) -> Vec<Value> {
        self.iter().map(|v| v.to_value()).collect()
    }
}
impl<const N: usize> Params for &[&dyn ToValue; N] {
    fn values(&self) -> Vec<Value> {
        self.iter().map(|v| v.to_value()).collect()
    }
}
/// `[a]`, `[a, b]`, …: parameters of one type (as rusqlite takes them).
macro_rules! array_params {
    ($($n:literal)*) => {$(
        impl<T: ToValue> Params for [T; $n] {
            fn values(&self) -> Vec<Value> {
                self.iter().map(ToValue::to_value).collect()
            }
        }
    )*};
}
array_params!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16);

impl Params for Vec<Value> {
    fn values(&self) -> Vec<Value> {
        self.clone()
    }
}

/// `params![a, b, c]`: the parameters `?1`, `?2`, `?3` of a statement.
#[macro_export]
macro_rules! params {
    () => { &[] as &[&dyn $crate::ToValue] };
    ($($value:expr),+ $(,)?) => { &[$(&$value as &dyn $crate::ToValue),+] as &[&dyn $crate::ToValue] };
}
