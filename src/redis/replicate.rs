//! Typed replication of effects as core commands, with absolute times.
//!
//! A call never replicates itself: a replica re-running it would decide on its own clock.
//! It replicates what it changed, so replicas and AOF replays end with the same members,
//! scores, values and expiries, even on a server without the module.

use std::marker::PhantomData;
use std::os::raw::{c_char, c_int};
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

use redis_module::raw;

use crate::core::bucket_ring;
use crate::core::parse::format_int;
use crate::redis::api::{api, Ctx, OwnedString, ServerString};

/// The call's context and the key a replicated command names.
#[derive(Clone, Copy)]
pub struct Target<'a> {
    pub ctx: Ctx<'a>,
    pub name: ServerString<'a>,
}

type Replicate = unsafe extern "C" fn(*mut raw::RedisModuleCtx, *const c_char, *const c_char, ...) -> c_int;

/// `RedisModule_Replicate`, called directly because it is variadic.
fn replicate() -> Replicate {
    // SAFETY: reading a function pointer the server set at load time.
    unsafe { raw::RedisModule_Replicate }.expect("RedisModule_Replicate is not available on this server")
}

/// An argument replicated the same on every call. Passed as a module string it costs the
/// server a reference count; as a C string, an allocation and a free on every call.
struct Word {
    text: &'static [u8],
    string: AtomicPtr<raw::RedisModuleString>,
}

impl Word {
    const fn new(text: &'static [u8]) -> Self {
        Word { text, string: AtomicPtr::new(std::ptr::null_mut()) }
    }

    fn get(&self) -> *mut raw::RedisModuleString {
        shared(&self.string, || self.text)
    }
}

/// The module string in `slot`, made from `text` on first use (commands run on the main
/// thread) and kept for the server's life.
fn shared<T: AsRef<[u8]>>(
    slot: &AtomicPtr<raw::RedisModuleString>,
    text: impl FnOnce() -> T,
) -> *mut raw::RedisModuleString {
    let mut string = slot.load(Ordering::Relaxed);
    if string.is_null() {
        let text = text();
        let text = text.as_ref();
        // SAFETY: `text.len()` readable bytes, copied into a string that no context owns.
        string = unsafe { api!(RedisModule_CreateString(std::ptr::null_mut(), text.as_ptr().cast(), text.len())) };
        slot.store(string, Ordering::Relaxed);
    }
    string
}

static PXAT: Word = Word::new(b"PXAT");
static MINUS_INF: Word = Word::new(b"-inf");
static SET: Word = Word::new(b"SET");
static I64: Word = Word::new(b"i64");

/// A number as the decimal text a replicated command carries: a buffer costs the server one
/// allocation where a long long costs two.
#[derive(Default)]
struct Decimal {
    text: [u8; 21],
    len: usize,
}

impl Decimal {
    fn new(value: i64) -> Self {
        let mut decimal = Decimal::default();
        decimal.set(value);
        decimal
    }

    /// Rewritten in place (an array of them is not moved about).
    fn set(&mut self, value: i64) {
        self.len = format_int(value, &mut self.text);
    }

    /// `#k`, `BITFIELD`'s offset of the k-th word of its type.
    fn word_offset(k: usize) -> Self {
        let mut text = [b'#'; 21];
        let len = 1 + format_int(i64::try_from(k).unwrap_or(i64::MAX), &mut text[1..]);
        Decimal { text, len }
    }

    fn ptr(&self) -> *const c_char {
        self.text.as_ptr().cast()
    }
}

impl AsRef<[u8]> for Decimal {
    fn as_ref(&self) -> &[u8] {
        &self.text[..self.len]
    }
}

/// `PEXPIREAT key at`.
pub fn pexpireat(key: Target<'_>, at: i64) {
    let at = Decimal::new(at);
    // SAFETY: "sb" is a module string, then a buffer and its length.
    unsafe {
        replicate()(key.ctx.as_ptr(), c"PEXPIREAT".as_ptr(), c"sb".as_ptr(), key.name.as_ptr(), at.ptr(), at.len)
    };
}

/// `DEL key`.
pub fn del(key: Target<'_>) {
    // SAFETY: "s" is one module string.
    unsafe { replicate()(key.ctx.as_ptr(), c"DEL".as_ptr(), c"s".as_ptr(), key.name.as_ptr()) };
}

/// Whether this server's `SET` takes `PXAT` (Redis 6.2+, Valkey): probed once at load.
static SET_HAS_PXAT: AtomicBool = AtomicBool::new(true);

/// Redis before 6.2 refuses `SET ... PXAT`: replicas and AOF replays would drop the write.
/// There the same effect replicates as `SET` then `PEXPIREAT`, inside the call's MULTI/EXEC.
pub fn probe_set_pxat() -> bool {
    // SAFETY: reading a function pointer the server set at load time.
    let version = unsafe { raw::RedisModule_GetServerVersion }.map(|get| {
        // SAFETY: takes no arguments; answers the server's version as 0x00MMmmpp.
        unsafe { get() }
    });
    // No GetServerVersion is Redis 6.0.8 or older, which has no PXAT either.
    let has = version.is_some_and(|v| v >= 0x00_06_02_00);
    SET_HAS_PXAT.store(has, Ordering::Relaxed);
    has
}

/// `SET key value PXAT at` (or, before Redis 6.2, `SET key value` and `PEXPIREAT key at`), the
/// value and `at` (written as `at_text`) given as bytes (no module string to create).
pub fn set_bytes_pxat(key: Target<'_>, value: &[u8], at: i64, at_text: &[u8]) {
    if !SET_HAS_PXAT.load(Ordering::Relaxed) {
        set_bytes(key, value);
        pexpireat(key, at);
        return;
    }
    // SAFETY: "sbsb" is a module string, a buffer and its length, a module string, a buffer
    // and its length.
    unsafe {
        replicate()(
            key.ctx.as_ptr(),
            c"SET".as_ptr(),
            c"sbsb".as_ptr(),
            key.name.as_ptr(),
            value.as_ptr().cast::<c_char>(),
            value.len(),
            PXAT.get(),
            at_text.as_ptr().cast::<c_char>(),
            at_text.len(),
        )
    };
}

/// `SET key value`, the value given as bytes.
pub fn set_bytes(key: Target<'_>, value: &[u8]) {
    // SAFETY: "sb" is a module string, then a buffer and its length.
    unsafe {
        replicate()(
            key.ctx.as_ptr(),
            c"SET".as_ptr(),
            c"sb".as_ptr(),
            key.name.as_ptr(),
            value.as_ptr().cast::<c_char>(),
            value.len(),
        )
    };
}

/// `#k`, `BITFIELD`'s offset of the k-th i64, for every word a ring can have: shared as Redis
/// shares its small integers, so an offset costs a reference count, not a string.
static WORD_OFFSETS: [AtomicPtr<raw::RedisModuleString>; bucket_ring::MAX_WORDS] =
    [const { AtomicPtr::new(std::ptr::null_mut()) }; bucket_ring::MAX_WORDS];

/// `#k` as a module string: shared, or made for this call beyond a ring's largest size
/// (a value winlimit never wrote).
fn word_offset(ctx: Ctx<'_>, k: usize, owned: &mut Option<OwnedString>) -> *mut raw::RedisModuleString {
    let text = || Decimal::word_offset(k);
    match WORD_OFFSETS.get(k) {
        Some(slot) => shared(slot, text),
        None => owned.insert(OwnedString::from_bytes(ctx, text().as_ref())).as_ptr(),
    }
}

/// Integers below this are replicated as module strings made once and shared, as Redis
/// shares its own small integers: a bucket's units, a ring's total and a `COST` mostly are.
/// A shared string costs the server a reference count; a buffer, an allocation and a free.
const SHARED_INTEGERS: usize = 1024;

static INTEGERS: [AtomicPtr<raw::RedisModuleString>; SHARED_INTEGERS] =
    [const { AtomicPtr::new(std::ptr::null_mut()) }; SHARED_INTEGERS];

/// `value` as a module string: shared when small, or made for this call in `owned`.
fn integer(ctx: Ctx<'_>, value: i64, owned: &mut Option<OwnedString>) -> *mut raw::RedisModuleString {
    match usize::try_from(value).ok().and_then(|i| INTEGERS.get(i)) {
        Some(slot) => shared(slot, || Decimal::new(value)),
        None => owned.insert(OwnedString::from_bytes(ctx, Decimal::new(value).as_ref())).as_ptr(),
    }
}

/// Words per replicated `BITFIELD`: all that one bucketed call changes.
const WORDS_PER_BITFIELD: usize = 5;

/// `BITFIELD key SET i64 #k value ...`: 64-bit words of a string, five per command (more are
/// replicated as several, all in the call's MULTI/EXEC). Every argument is a module string,
/// with one fixed format per word count.
pub fn bitfield_set_i64(key: Target<'_>, words: &[(usize, i64)]) {
    let (set, ty) = (SET.get(), I64.get());
    for chunk in words.chunks(WORDS_PER_BITFIELD) {
        let mut owned: [Option<OwnedString>; 2 * WORDS_PER_BITFIELD] = Default::default();
        let (owned_offsets, owned_values) = owned.split_at_mut(WORDS_PER_BITFIELD);
        let mut o = [std::ptr::null_mut(); WORDS_PER_BITFIELD];
        let mut v = [std::ptr::null_mut(); WORDS_PER_BITFIELD];
        for (i, &(k, value)) in chunk.iter().enumerate() {
            o[i] = word_offset(key.ctx, k, &mut owned_offsets[i]);
            v[i] = integer(key.ctx, value, &mut owned_values[i]);
        }
        macro_rules! bitfield {
            ($format:literal; $($i:literal)+) => {
                // SAFETY: the format is a module string, then per word four module strings,
                // as the arguments that follow; `owned` keeps the ones made here alive.
                unsafe {
                    replicate()(
                        key.ctx.as_ptr(),
                        c"BITFIELD".as_ptr(),
                        $format.as_ptr(),
                        key.name.as_ptr()
                        $(, set, ty, o[$i], v[$i])+
                    )
                }
            };
        }
        match chunk.len() {
            1 => bitfield!(c"sssss"; 0),
            2 => bitfield!(c"sssssssss"; 0 1),
            3 => bitfield!(c"sssssssssssss"; 0 1 2),
            4 => bitfield!(c"sssssssssssssssss"; 0 1 2 3),
            _ => bitfield!(c"sssssssssssssssssssss"; 0 1 2 3 4),
        };
    }
}

/// `INCRBY key by`, or `INCR key` for one (what Redis replicates for `INCR`: the same effect
/// and event in fewer bytes).
pub fn incrby(key: Target<'_>, by: i64) {
    if by == 1 {
        // SAFETY: "s" is one module string.
        unsafe { replicate()(key.ctx.as_ptr(), c"INCR".as_ptr(), c"s".as_ptr(), key.name.as_ptr()) };
        return;
    }
    let mut owned = None;
    let by = integer(key.ctx, by, &mut owned);
    // SAFETY: "ss" is two module strings; `owned` keeps one made here alive.
    unsafe { replicate()(key.ctx.as_ptr(), c"INCRBY".as_ptr(), c"ss".as_ptr(), key.name.as_ptr(), by) };
}

/// `ZREMRANGEBYSCORE key -inf through`.
pub fn zremrangebyscore_through(key: Target<'_>, through: i64) {
    let through = Decimal::new(through);
    // SAFETY: "ssb" is two module strings, then a buffer and its length.
    unsafe {
        replicate()(
            key.ctx.as_ptr(),
            c"ZREMRANGEBYSCORE".as_ptr(),
            c"ssb".as_ptr(),
            key.name.as_ptr(),
            MINUS_INF.get(),
            through.ptr(),
            through.len,
        )
    };
}

/// `ZADD key score member`.
pub fn zadd_one(key: Target<'_>, score: i64, member: &OwnedString) {
    let score = Decimal::new(score);
    // SAFETY: "sbs" is a module string, a buffer and its length, and a module string.
    unsafe {
        replicate()(
            key.ctx.as_ptr(),
            c"ZADD".as_ptr(),
            c"sbs".as_ptr(),
            key.name.as_ptr(),
            score.ptr(),
            score.len,
            member.as_ptr(),
        )
    };
}

/// A replicated command's arguments after the key, built at run time: module strings, each
/// borrowed for as long as the list.
pub struct StringList<'s> {
    strings: Vec<*mut raw::RedisModuleString>,
    _borrowed: PhantomData<&'s OwnedString>,
}

impl<'s> StringList<'s> {
    pub fn with_capacity(capacity: usize) -> Self {
        StringList { strings: Vec::with_capacity(capacity), _borrowed: PhantomData }
    }

    pub fn push(&mut self, string: &'s OwnedString) {
        self.strings.push(string.as_ptr());
    }
}

/// `<command> key args...`, for commands whose argument list is built at run time (`ZADD`
/// with many members).
pub fn with_args(key: Target<'_>, command: &std::ffi::CStr, args: &StringList<'_>) {
    let args = &args.strings;
    // SAFETY: "sv" is a module string, then an array of module strings and its length.
    unsafe {
        replicate()(key.ctx.as_ptr(), command.as_ptr(), c"sv".as_ptr(), key.name.as_ptr(), args.as_ptr(), args.len())
    };
}
