//! Every write the module makes, one method each, ended the way Redis ends a core command
//! (`incrDecrCommand`, say): change the key, replicate the change as that core command, fire
//! its keyspace events, signal the key modified (WATCH, client-side caching). A call that
//! writes nothing signals nothing, as a core command that changes nothing does.

use std::os::raw::c_int;

use redis_module::raw;

use crate::core::bucket_ring;
use crate::core::counter_text::rewrite_count;
use crate::core::parse::format_int;
use crate::redis::api::{self, api, OwnedString};
use crate::redis::events::Event;
use crate::redis::key::{End, KeyKind, LowerBound, WriteKey};
use crate::redis::replicate::{self, StringList};

/// Members per replicated `ZADD`: a large `COST` is replicated as several commands (all in
/// the call's MULTI/EXEC), so neither this call nor a replica holds one huge argument list.
const MEMBERS_PER_ZADD: i64 = 1024;

impl WriteKey<'_> {
    /// `SET key value [PXAT at]`. A string of the same length is rewritten in place (nothing
    /// allocated); otherwise the key gets a new string of exactly `value`'s size.
    pub fn set_string(&mut self, value: &[u8], expire_at: Option<i64>) {
        let Some(at) = expire_at else {
            self.store_string(value);
            replicate::set_bytes(self.target(), value);
            self.notify(Event::Set);
            self.signal_modified();
            return;
        };
        let mut digits = [0u8; 20];
        let len = format_int(at, &mut digits);
        self.set_string_expiring(value, at, &digits[..len]);
    }

    /// `SET key value PXAT at`, with `at` given written as `at_text` too: a caller whose value
    /// holds those digits already spares writing them again.
    pub fn set_string_expiring(&mut self, value: &[u8], at: i64, at_text: &[u8]) {
        self.store_string(value);
        self.set_expiry_unreplicated(at);
        replicate::set_bytes_pxat(self.target(), value, at, at_text);
        self.notify(Event::Set);
        self.notify(Event::Expire);
        self.signal_modified();
    }

    /// Stores `value`: in place when the string has its length, else as a new string.
    /// Local only: the effect calling it replicates.
    fn store_string(&mut self, value: &[u8]) {
        // A missing key reads as an empty string and any other type as none, so a value of
        // the stored length (never empty) finds a string to rewrite.
        let same_length = !value.is_empty() && self.string_value().map(<[u8]>::len) == Some(value.len());
        if same_length {
            self.rewrite_in_place(|bytes| bytes.copy_from_slice(value));
        } else {
            let string = OwnedString::from_bytes(self.0.ctx, value);
            // SAFETY: a key open for writing and a live string, which the key now shares.
            unsafe { api!(RedisModule_StringSet(self.0.handle, string.as_ptr())) };
        }
    }

    /// `INCRBY key by`, leaving the counter at `count`: its decimal text rewritten in place,
    /// which keeps the key's expiry. The stored text is `count - by` as `format_int` writes
    /// it (the adapter read it so).
    pub fn incr_by(&mut self, by: i64, count: i64) {
        let mut written = false;
        self.rewrite_in_place(|bytes| written = rewrite_count(bytes, by, count));
        self.finish_incr_by(by, count, written);
    }

    /// The rest of `INCRBY` once the digits were rewritten in place, or not (`written`):
    /// a count that needs another number of digits is stored anew; then the effect is
    /// replicated, notified and signalled.
    pub(super) fn finish_incr_by(&mut self, by: i64, count: i64, written: bool) {
        if !written {
            let mut digits = [0u8; 20];
            let len = format_int(count, &mut digits);
            // SAFETY: a key open for writing that holds a string (the caller found one).
            unsafe { api!(RedisModule_StringTruncate(self.0.handle, len)) };
            // `copy_from_slice` checks the lengths agree (a panic the handler turns into an error).
            self.rewrite_in_place(|bytes| bytes.copy_from_slice(&digits[..len]));
        }
        replicate::incrby(self.target(), by);
        self.notify(Event::Incrby);
        self.signal_modified();
    }

    /// `BITFIELD key SET i64 #k value ...`: big-endian 64-bit words of the string, rewritten in
    /// place; a word past the end grows the string with zeros to hold it, as `BITFIELD` does.
    pub fn set_i64_words(&mut self, words: &[(usize, i64)]) {
        let needed = words.iter().map(|&(k, _)| (k + 1) * 8).max().unwrap_or(0);
        // Mostly the words are inside the string: one access writes them.
        let mut written = false;
        self.rewrite_in_place(|bytes| {
            if bytes.len() >= needed {
                bucket_ring::set_words(bytes, words);
                written = true;
            }
        });
        if !written {
            // SAFETY: a key open for writing that holds a string (`rewrite_in_place` found one).
            unsafe { api!(RedisModule_StringTruncate(self.0.handle, needed)) };
            self.rewrite_in_place(|bytes| bucket_ring::set_words(bytes, words));
        }
        replicate::bitfield_set_i64(self.target(), words);
        self.notify(Event::Setbit);
        self.signal_modified();
    }

    /// `PEXPIREAT key at`.
    pub fn expire_at(&mut self, at: i64) {
        self.set_expiry_unreplicated(at);
        replicate::pexpireat(self.target(), at);
        self.notify(Event::Expire);
        self.signal_modified();
    }

    /// `DEL key`.
    pub fn delete(&mut self) {
        // SAFETY: a key open for writing.
        unsafe { api!(RedisModule_DeleteKey(self.0.handle)) };
        replicate::del(self.target());
        self.notify(Event::Del);
        self.signal_modified();
    }

    /// `ZREMRANGEBYSCORE key -inf through`; nothing at all when no element is scored that low.
    pub fn zrem_through(&mut self, through: i64) {
        let mut stale = Vec::new();
        if let Some(mut range) = self.0.zset_range(f64::NEG_INFINITY, through as f64, LowerBound::Included, End::Oldest)
        {
            while let Some((_, member)) = range.current() {
                stale.push(member);
                if !range.step() {
                    break;
                }
            }
        }
        if stale.is_empty() {
            return;
        }
        for member in &stale {
            let mut deleted: c_int = 0;
            // SAFETY: a sorted set open for writing (it held `member`), with no range active
            // (the cursor above is dropped), a live member and a flag to write.
            unsafe { api!(RedisModule_ZsetRem(self.0.handle, member.as_ptr(), &mut deleted)) };
        }
        replicate::zremrangebyscore_through(self.target(), through);
        self.notify(Event::Zremrangebyscore);
        if self.kind() == KeyKind::Missing {
            self.notify(Event::Del);
        }
        self.signal_modified();
    }

    /// `ZADD key score member ...` with `count` new members: from `first`, each next one
    /// `next(previous)`, skipping any the set holds already (never overwriting a score).
    pub fn zadd_new(&mut self, score: i64, count: i64, first: i64, next: fn(i64) -> i64) {
        let ctx = self.0.ctx;
        let handle = self.0.handle;
        let mut candidate = first;
        let mut fresh_member = || loop {
            let member = OwnedString::from_i64(ctx, candidate);
            candidate = next(candidate);
            let mut flags = raw::REDISMODULE_ZADD_NX as c_int;
            // SAFETY: a key open for writing (missing or a sorted set: the adapter checked), a
            // live member and flags to read and write.
            let status = unsafe { api!(RedisModule_ZsetAdd(handle, score as f64, member.as_ptr(), &mut flags)) };
            assert!(status == raw::Status::Ok as c_int, "ZsetAdd refused a member");
            if flags & raw::REDISMODULE_ZADD_ADDED as c_int != 0 {
                return member;
            }
        };
        if count == 1 {
            // The common case, without building an argument vector.
            let member = fresh_member();
            replicate::zadd_one(self.target(), score, &member);
        } else {
            let score_string = OwnedString::from_i64(ctx, score);
            let mut left = count;
            while left > 0 {
                let chunk = left.min(MEMBERS_PER_ZADD);
                left -= chunk;
                let members: Vec<OwnedString> = (0..chunk).map(|_| fresh_member()).collect();
                let mut argv = StringList::with_capacity(members.len() * 2);
                for member in &members {
                    argv.push(&score_string);
                    argv.push(member);
                }
                replicate::with_args(self.target(), c"ZADD", &argv);
            }
        }
        self.notify(Event::Zadd);
        self.signal_modified();
    }

    /// `ZREM key member ...`, in commands of at most [`MEMBERS_PER_ZADD`] members; nothing
    /// at all for no members.
    pub fn zrem(&mut self, members: &[OwnedString]) {
        if members.is_empty() {
            return;
        }
        for member in members {
            let mut deleted: c_int = 0;
            // SAFETY: a sorted set open for writing (it held `member`), with no range active
            // (callers drop their cursors first), a live member and a flag to write.
            unsafe { api!(RedisModule_ZsetRem(self.0.handle, member.as_ptr(), &mut deleted)) };
        }
        for chunk in members.chunks(MEMBERS_PER_ZADD as usize) {
            let mut argv = StringList::with_capacity(chunk.len());
            for member in chunk {
                argv.push(member);
            }
            replicate::with_args(self.target(), c"ZREM", &argv);
        }
        self.notify(Event::Zrem);
        if self.kind() == KeyKind::Missing {
            self.notify(Event::Del);
        }
        self.signal_modified();
    }

    /// `ZADD key +inf member`: the block marker, after every entry.
    pub fn zadd_marker(&mut self, member: &[u8]) {
        let member = OwnedString::from_bytes(self.0.ctx, member);
        let mut flags: c_int = 0;
        // SAFETY: a key open for writing (missing or a sorted set: the adapter checked), a
        // live member and flags to read and write.
        let status = unsafe { api!(RedisModule_ZsetAdd(self.0.handle, f64::INFINITY, member.as_ptr(), &mut flags)) };
        assert!(status == raw::Status::Ok as c_int, "ZsetAdd refused the block marker");
        let score = OwnedString::from_bytes(self.0.ctx, b"+inf");
        let mut argv = StringList::with_capacity(2);
        argv.push(&score);
        argv.push(&member);
        replicate::with_args(self.target(), c"ZADD", &argv);
        self.notify(Event::Zadd);
        self.signal_modified();
    }

    /// Rewrites bytes of the string in place, keeping its length and expiry. Local only: the
    /// effect calling it replicates.
    fn rewrite_in_place(&mut self, write: impl FnOnce(&mut [u8])) {
        let mut len = 0usize;
        // SAFETY: a key open for writing and a length to write; DMA answers null for a
        // non-string.
        let ptr = unsafe { api!(RedisModule_StringDMA(self.0.handle, &mut len, raw::REDISMODULE_WRITE as c_int)) };
        assert!(!ptr.is_null(), "string DMA refused a write");
        // SAFETY: DMA gives `len` writable bytes at `ptr` while the key is open, and `&mut self`
        // keeps every other view of them away during `write`.
        write(unsafe { std::slice::from_raw_parts_mut(ptr.cast::<u8>(), len) });
    }

    /// Sets the absolute expiry. Local only: the effect calling it replicates a command that
    /// carries the expiry.
    fn set_expiry_unreplicated(&mut self, at: i64) {
        // SAFETY: reading a function pointer the server set at load time.
        if unsafe { raw::RedisModule_SetAbsExpire }.is_some() {
            // SAFETY: a key open for writing; the effects set expiries only on existing keys.
            unsafe { api!(RedisModule_SetAbsExpire(self.0.handle, at)) };
            return;
        }
        // Redis 6.2: only a time from now; retried until the clock did not tick around the
        // call, so the stored absolute time is exactly `at`, as on replicas.
        for _ in 0..4 {
            let before = api::milliseconds();
            // SAFETY: as above.
            unsafe { api!(RedisModule_SetExpire(self.0.handle, (at - before).max(1))) };
            if api::milliseconds() == before {
                break;
            }
        }
    }

    /// Fires a keyspace event for this key.
    fn notify(&self, event: Event) {
        let (ctx, name) = (self.0.ctx.as_ptr(), self.0.name.as_ptr());
        // SAFETY: the call's live context and key name, and a NUL-terminated event name.
        unsafe { api!(RedisModule_NotifyKeyspaceEvent(ctx, event.class(), event.name().as_ptr(), name)) };
    }

    /// Tells WATCH and client-side caching that the key changed. The module turns off
    /// Redis's implicit signal on closing a writable key, so only effects signal.
    fn signal_modified(&self) {
        // SAFETY: the call's live context and key name.
        unsafe { api!(RedisModule_SignalModifiedKey(self.0.ctx.as_ptr(), self.0.name.as_ptr())) };
    }
}
