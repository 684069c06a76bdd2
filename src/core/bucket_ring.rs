//! How a bucketed log is stored: one string holding a fixed-layout ring of buckets, so a
//! call reads it in place and rewrites a few words of it instead of searching a hash.
//!
//! The string is a sequence of big-endian signed 64-bit words, the layout of `BITFIELD`'s
//! `i64` type, so word `k` is `BITFIELD key GET i64 #k` and a call's changes replicate as
//! one `BITFIELD key SET i64 #k value ...`:
//!
//! | word | holds |
//! |---|---|
//! | 0 | the bytes `wlbucket`, marking the format |
//! | 1 | `bucket_ms`, the bucket length the key was written with |
//! | 2 | `total`: units in the buckets from `oldest` to `newest`, `>= 1` |
//! | 3 | `oldest`: start of the oldest stored bucket |
//! | 4 | `newest`: start of the newest stored bucket |
//! | 5 + 2j, 6 + 2j | slot `j`: a bucket start and its units |
//!
//! The bucket starting at `s` lives in slot `(s / bucket_ms) mod slots`. A slot counts only
//! when its start is that `s` and lies between `oldest` and `newest`: a bucket that left the
//! window is dropped by moving `oldest` past it, and its slot is reused later. A new key has
//! one slot; when its buckets span more slots than it has, the ring is rebuilt with twice as
//! many, up to `ceil(W / bucket_ms) + 1` for the largest window `W` (every bucket that window
//! can count). Its size never depends on the limit.
//!
//! `BLOCK` adds one word after the last slot: the block's end in ms (a length of whole slots
//! plus one word). It is written by `BITFIELD key SET i64 #k end`, which grows the string by
//! that word on a replica too, and dropped when the ring is rebuilt after the block.

use crate::core::bucketed::{BucketPlan, BucketRefund, BucketView, Header, StoredError};

/// Word 0 of every bucketed log.
pub const MAGIC: [u8; 8] = *b"wlbucket";

const BUCKET_MS: usize = 1;
const TOTAL: usize = 2;
const OLDEST: usize = 3;
const NEWEST: usize = 4;
const HEADER_WORDS: usize = 5;
const WORD: usize = 8;

/// The most slots a ring is ever built with: the walks of [`crate::core::bucketed`] refuse
/// longer spans anyway.
const MAX_SLOTS: usize = crate::core::bucketed::MAX_WALK as usize;

/// The most words a ring winlimit writes can have.
pub const MAX_WORDS: usize = HEADER_WORDS + 2 * MAX_SLOTS;

/// The word holding slot `j`'s bucket start; its units are in the next word.
fn start_word(j: usize) -> usize {
    HEADER_WORDS + 2 * j
}

/// The most slots a key needs for a largest window of `window_ms`: every bucket it can count.
pub fn slots_for(window_ms: i64, bucket_ms: i64) -> usize {
    let b = bucket_ms.max(1);
    usize::try_from((window_ms.max(1) + b - 1) / b).unwrap_or(usize::MAX).saturating_add(1)
}

/// A stored ring, its layout checked; its header is checked by [`Ring::header`].
#[derive(Debug, Clone, Copy)]
pub struct Ring<'a> {
    bytes: &'a [u8],
}

impl<'a> Ring<'a> {
    /// Reads a string value as a ring: the marker, and a length of whole slots (at least one).
    pub fn parse(bytes: &'a [u8]) -> Result<Self, StoredError> {
        // Whole slots, perhaps with the block word after them.
        let whole_slots = bytes.len() >= (HEADER_WORDS + 2) * WORD;
        if !bytes.starts_with(&MAGIC) || bytes.len() % WORD != 0 || !whole_slots {
            return Err(StoredError::Invalid("the string is not a bucketed log".to_string()));
        }
        Ok(Ring { bytes })
    }

    pub fn slots(&self) -> usize {
        (self.bytes.len() / WORD - HEADER_WORDS) / 2
    }

    /// The word after the last slot, where a block's end is kept.
    fn block_word(&self) -> usize {
        start_word(self.slots())
    }

    /// The end of the stored block, if the ring has the block word.
    pub fn blocked_until(&self) -> Option<i64> {
        (self.bytes.len() / WORD > self.block_word()).then(|| self.word(self.block_word()))
    }

    fn word(&self, k: usize) -> i64 {
        let mut be = [0u8; WORD];
        be.copy_from_slice(&self.bytes[k * WORD..(k + 1) * WORD]);
        i64::from_be_bytes(be)
    }

    /// The bookkeeping, validated as winlimit writes it.
    pub fn header(&self) -> Result<Header, StoredError> {
        let h = Header {
            bucket_ms: self.word(BUCKET_MS),
            total: self.word(TOTAL),
            oldest: self.word(OLDEST),
            newest: self.word(NEWEST),
        };
        let invalid = |what: &str| Err(StoredError::Invalid(what.to_string()));
        if h.bucket_ms < 1 {
            return invalid("bucket_ms is not positive");
        }
        if h.total < 1 {
            return invalid("total is not positive");
        }
        if h.oldest.rem_euclid(h.bucket_ms) != 0 || h.newest.rem_euclid(h.bucket_ms) != 0 || h.oldest > h.newest {
            return invalid("oldest and newest are not bucket starts in order");
        }
        if span(&h) > self.slots() as i64 {
            return invalid("its buckets span more slots than it holds");
        }
        Ok(h)
    }

    /// The slot of the bucket starting at `start`.
    fn slot_of(&self, start: i64, bucket_ms: i64) -> usize {
        slot_index(start, bucket_ms, self.slots())
    }

    /// Units of the bucket starting at `start`, under the validated header `h`.
    pub fn units(&self, h: &Header, start: i64) -> Result<i64, StoredError> {
        if start < h.oldest || start > h.newest {
            return Ok(0);
        }
        let j = self.slot_of(start, h.bucket_ms);
        if self.word(start_word(j)) != start {
            return Ok(0);
        }
        match self.word(start_word(j) + 1) {
            units if units >= 0 => Ok(units),
            units => Err(StoredError::Invalid(format!("bucket {start} holds {units}, not a count"))),
        }
    }
}

/// The slot of the bucket starting at `start` in a ring of `slots` (at least 1).
fn slot_index(start: i64, bucket_ms: i64, slots: usize) -> usize {
    // `slots` is the length of a string over 16 and fits in i64; the remainder is below it.
    start.div_euclid(bucket_ms).rem_euclid(slots as i64) as usize
}

/// Buckets from `oldest` to `newest`, inclusive (saturating: a hostile header may hold any
/// words).
fn span(h: &Header) -> i64 {
    (h.newest.saturating_sub(h.oldest) / h.bucket_ms.max(1)).saturating_add(1)
}

/// A stored value (or none) as the decision reads it, with the key's expiry. The value is
/// parsed and its header checked once, and an error is reported only when the decision
/// reads the value: a key whose expiry has passed reads as empty, whatever it holds.
pub struct RingView<'a> {
    stored: Result<Option<(Ring<'a>, Header)>, StoredError>,
    expires_at: Option<i64>,
}

impl<'a> RingView<'a> {
    /// `bytes` is the key's value, `None` for a missing key.
    pub fn new(bytes: Option<&'a [u8]>, expires_at: Option<i64>) -> Self {
        let stored = bytes
            .map(|bytes| {
                let ring = Ring::parse(bytes)?;
                Ok((ring, ring.header()?))
            })
            .transpose();
        RingView { stored, expires_at }
    }

    /// The stored ring, `None` for a missing key.
    pub fn ring(&self) -> Result<Option<Ring<'a>>, StoredError> {
        self.stored.clone().map(|stored| stored.map(|(ring, _)| ring))
    }
}

impl BucketView for RingView<'_> {
    fn header(&self) -> Result<Option<Header>, StoredError> {
        self.stored.clone().map(|stored| stored.map(|(_, header)| header))
    }

    fn expires_at(&self) -> Option<i64> {
        self.expires_at
    }

    fn units(&self, start: i64) -> Result<i64, StoredError> {
        match &self.stored {
            Ok(None) => Ok(0),
            Ok(Some((ring, header))) => ring.units(header, start),
            Err(error) => Err(error.clone()),
        }
    }

    fn blocked_until(&self) -> Option<i64> {
        self.stored.as_ref().ok().and_then(|stored| stored.as_ref()).and_then(|(ring, _)| ring.blocked_until())
    }
}

/// The words a refund changes in `ring`: the buckets' units and the header's.
pub fn refund_words(ring: &Ring, change: &BucketRefund) -> Vec<(usize, i64)> {
    let mut words = Vec::with_capacity(change.buckets.len() + 3);
    let Some(after) = change.header else { return words };
    for &(start, units) in &change.buckets {
        words.push((start_word(ring.slot_of(start, after.bucket_ms)) + 1, units));
    }
    words.extend(header_changes(change.stored, after));
    words
}

/// The most words one call changes in place: three header words, a slot's start and units, the block word.
pub const MAX_CHANGED_WORDS: usize = 6;

/// Words (index, value) to set in place, on the stack: a call never changes more than
/// [`MAX_CHANGED_WORDS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ChangedWords {
    words: [(usize, i64); MAX_CHANGED_WORDS],
    len: usize,
}

impl ChangedWords {
    fn push(&mut self, word: (usize, i64)) {
        self.words[self.len] = word;
        self.len += 1;
    }
}

impl std::ops::Deref for ChangedWords {
    type Target = [(usize, i64)];

    fn deref(&self) -> &Self::Target {
        &self.words[..self.len]
    }
}

/// How a plan changes the stored string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RingWrite {
    /// Nothing to write (or only the key to delete, which the plan says).
    Nothing,
    /// Set these words of the stored ring in place.
    Words(ChangedWords),
    /// Store this whole value: a new key, or a ring grown for a larger window.
    Whole(Vec<u8>),
}

/// The write that carries `plan` out on `stored` (the ring before the call, `None` for a
/// missing key), for a call whose largest window is `window_ms`.
pub fn write_for(plan: &BucketPlan, stored: Option<&Ring>, window_ms: i64) -> Result<RingWrite, StoredError> {
    let live = if plan.discard { None } else { stored.zip(plan.stored) };
    let Some(after) = plan.header else {
        // A block on a ring whose header stays: its word alone.
        return Ok(match (plan.block, live) {
            (Some(_), Some((ring, before))) => RingWrite::Words(in_place(plan, ring, before, before)),
            _ => RingWrite::Nothing,
        });
    };
    match live {
        Some((ring, before)) if span(&after) <= ring.slots() as i64 => {
            Ok(RingWrite::Words(in_place(plan, ring, before, after)))
        }
        _ => {
            // Grown by doubling, so a key that sees few buckets stays small and a busy one
            // is rebuilt a handful of times on its way to the window's size.
            let span = usize::try_from(span(&after)).unwrap_or(usize::MAX);
            if span > MAX_SLOTS {
                return Err(StoredError::Invalid("its buckets span more than winlimit writes".to_string()));
            }
            let slots = span.next_power_of_two().min(slots_for(window_ms, after.bucket_ms).max(span));
            let mut words = vec![
                (BUCKET_MS, after.bucket_ms),
                (TOTAL, after.total),
                (OLDEST, after.oldest),
                (NEWEST, after.newest),
            ];
            // `oldest + (span - 1) * bucket_ms` is `newest`: no step past it to overflow.
            for s in (0..span as i64).map(|i| after.oldest + i * after.bucket_ms) {
                let units = match (plan.record, live) {
                    (Some((at, units)), _) if at == s => units,
                    (_, Some((ring, before))) => ring.units(&before, s)?,
                    (_, None) => 0,
                };
                if units > 0 {
                    let j = slot_index(s, after.bucket_ms, slots);
                    words.extend([(start_word(j), s), (start_word(j) + 1, units)]);
                }
            }
            let mut bytes = vec![0u8; (HEADER_WORDS + 2 * slots) * WORD];
            bytes[..WORD].copy_from_slice(&MAGIC);
            set_words(&mut bytes, &words);
            Ok(RingWrite::Whole(bytes))
        }
    }
}

/// The words `plan` changes in `ring`, whose header goes from `before` to `after`.
fn in_place(plan: &BucketPlan, ring: &Ring, before: Header, after: Header) -> ChangedWords {
    let mut words = ChangedWords::default();
    for word in header_changes(before, after) {
        words.push(word);
    }
    if let Some((start, units)) = plan.record {
        let j = ring.slot_of(start, after.bucket_ms);
        if ring.word(start_word(j)) != start {
            words.push((start_word(j), start));
        }
        words.push((start_word(j) + 1, units));
    }
    if let Some(until) = plan.block {
        words.push((ring.block_word(), until));
    }
    words
}

/// The header words that differ between `before` and `after`.
fn header_changes(before: Header, after: Header) -> impl Iterator<Item = (usize, i64)> {
    [(TOTAL, after.total, before.total), (OLDEST, after.oldest, before.oldest), (NEWEST, after.newest, before.newest)]
        .into_iter()
        .filter(|(_, new, old)| new != old)
        .map(|(k, new, _)| (k, new))
}

/// Applies `words` to a stored ring's bytes, as the server does in place.
pub fn set_words(bytes: &mut [u8], words: &[(usize, i64)]) {
    for &(k, value) in words {
        if let Some(word) = bytes.get_mut(k * WORD..(k + 1) * WORD) {
            word.copy_from_slice(&value.to_be_bytes());
        }
    }
}

#[cfg(test)]
mod tests;
