//! One command call as an algorithm's adapter sees it, and why it may fail.

use crate::core::parse::ArgError;
use crate::core::request::Mode;
use crate::redis::api;

/// The call being served: the arguments after the key, and whether it records or only
/// peeks. The key reaches the adapter opened (see [`crate::redis::adapters::serve`]).
pub struct Call<'a> {
    pub args: &'a [&'a [u8]],
    pub mode: Mode,
}

impl Call<'_> {
    /// The server's clock in ms, read once per call.
    pub fn now(&self) -> i64 {
        api::milliseconds()
    }
}

/// Why a call failed. Every failure happens before the first write.
#[derive(Debug)]
pub enum CommandError {
    Arity,
    Args(ArgError),
    WrongType,
    /// The key holds a value of the right type that this command does not read as its
    /// state; the text is the whole error line.
    Stored(String),
    /// A bug caught before it could take the server down.
    Internal,
}

impl From<ArgError> for CommandError {
    fn from(error: ArgError) -> Self {
        CommandError::Args(error)
    }
}

impl CommandError {
    /// `INCR`'s own error for a value that is not a canonical integer.
    pub fn not_an_integer() -> Self {
        CommandError::Stored("ERR value is not an integer or out of range".to_string())
    }
}
