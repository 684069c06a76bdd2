//! Keyspace events, typed: each is the event the core command a write replicates as fires.

use std::ffi::CStr;
use std::os::raw::c_int;

use redis_module::raw;

/// An event the module fires for a key it changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// `SET`.
    Set,
    /// `INCRBY`.
    Incrby,
    /// `BITFIELD ... SET`.
    Setbit,
    /// `PEXPIREAT`, and the expiry `SET ... PXAT` sets.
    Expire,
    /// `DEL`, and a sorted set emptied by `ZREMRANGEBYSCORE`.
    Del,
    /// `ZADD`.
    Zadd,
    /// `ZREMRANGEBYSCORE`.
    Zremrangebyscore,
    /// `ZREM`.
    Zrem,
}

impl Event {
    /// The event's class, as `notify-keyspace-events` selects it.
    pub fn class(self) -> c_int {
        let class = match self {
            Event::Set | Event::Incrby | Event::Setbit => raw::REDISMODULE_NOTIFY_STRING,
            Event::Expire | Event::Del => raw::REDISMODULE_NOTIFY_GENERIC,
            Event::Zadd | Event::Zremrangebyscore | Event::Zrem => raw::REDISMODULE_NOTIFY_ZSET,
        };
        class as c_int
    }

    /// The event's name, as subscribers see it.
    pub fn name(self) -> &'static CStr {
        match self {
            Event::Set => c"set",
            Event::Incrby => c"incrby",
            Event::Setbit => c"setbit",
            Event::Expire => c"expire",
            Event::Del => c"del",
            Event::Zadd => c"zadd",
            Event::Zremrangebyscore => c"zremrangebyscore",
            Event::Zrem => c"zrem",
        }
    }
}
