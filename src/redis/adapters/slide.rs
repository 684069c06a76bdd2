//! `WINLIMIT.SLIDE` on Redis: the exact log is a sorted set whose scores are acceptance
//! times in ms, read through the key's range cursor and replicated as `ZADD`,
//! `ZREMRANGEBYSCORE`, `PEXPIREAT` and `DEL`.

use crate::core::parse::parse_int;
use crate::core::slide::{self, next_member, Entry, LogView, SlidePlan, SlideRequest};
use crate::core::verdict::Verdict;
use crate::redis::adapters::{bucketed, Adapter};
use crate::redis::call::{Call, CommandError};
use crate::redis::config;
use crate::redis::key::{Key, KeyKind, Opened, WriteKey};

/// `WINLIMIT.SLIDE` and `WINLIMIT.SLIDE_RO`.
pub struct Slide;

impl Adapter for Slide {
    type Request = SlideRequest;

    fn parse(args: &[&[u8]]) -> Result<SlideRequest, CommandError> {
        Ok(slide::parse(args, config::max_limit())?)
    }

    /// Reads the log, decides, writes. With `BUCKET` the bucketed log takes the call.
    fn run(call: &Call, mut opened: Opened<'_>, request: &SlideRequest) -> Result<Verdict, CommandError> {
        if request.bucket_ms.is_some() {
            return bucketed::run(call, opened, request);
        }
        if !matches!(opened.view().kind(), KeyKind::Missing | KeyKind::SortedSet) {
            return Err(CommandError::WrongType);
        }
        let plan = slide::decide(call.now(), request, call.mode, &mut SortedSetLog::new(opened.view_mut()));
        if let Some(key) = opened.writer() {
            apply(key, &plan);
        }
        Ok(plan.verdict)
    }
}

/// The log as the core sees it, read through the key's range cursor (so it holds the key
/// mutably). Counting walks the cursor without materialising members; only single elements
/// are ever read out.
pub struct SortedSetLog<'k, 'a> {
    key: &'k mut Key<'a>,
}

impl<'k, 'a> SortedSetLog<'k, 'a> {
    /// The caller has checked the key is missing or a sorted set.
    pub fn new(key: &'k mut Key<'a>) -> Self {
        SortedSetLog { key }
    }

    /// Counts the elements scored in the range, stepping from its oldest or newest end and
    /// stopping at `cap`.
    fn count_range(&mut self, (min, max, exclude_min): (f64, f64, bool), from_newest: bool, cap: u64) -> u64 {
        if cap == 0 {
            return 0;
        }
        let Some(mut range) = self.key.zset_range(min, max, exclude_min, from_newest) else { return 0 };
        let mut count = 1;
        while count < cap && range.step(from_newest) {
            count += 1;
        }
        count
    }

    /// The score of the `n`-th (from 0) element of the range from its oldest or newest end.
    fn nth_in_range(&mut self, (min, max, exclude_min): (f64, f64, bool), from_newest: bool, n: u64) -> Option<i64> {
        let mut range = self.key.zset_range(min, max, exclude_min, from_newest)?;
        for _ in 0..n {
            if !range.step(from_newest) {
                return None;
            }
        }
        range.current().map(|(score, _)| to_ms(score))
    }
}

const EVERYTHING: (f64, f64, bool) = (f64::NEG_INFINITY, f64::INFINITY, false);

impl LogView for SortedSetLog<'_, '_> {
    fn len(&self) -> u64 {
        self.key.zset_len()
    }

    fn newest(&mut self) -> Option<Entry> {
        let range = self.key.zset_range(f64::NEG_INFINITY, f64::INFINITY, false, true)?;
        range.current().map(|(score, member)| Entry { score: to_ms(score), member: parse_int(member.bytes()) })
    }

    fn expires_at(&self) -> Option<i64> {
        self.key.expires_at()
    }

    fn count_through(&mut self, cutoff: i64) -> u64 {
        self.count_range((f64::NEG_INFINITY, cutoff as f64, false), false, u64::MAX)
    }

    fn nth_after(&mut self, cutoff: i64, n: u64) -> Option<i64> {
        self.nth_in_range((cutoff as f64, f64::INFINITY, true), false, n)
    }

    fn count_between(&mut self, after: i64, through: i64, cap: u64) -> u64 {
        if through <= after {
            return 0;
        }
        self.count_range((after as f64, through as f64, true), false, cap)
    }

    fn nth_oldest(&mut self, n: u64) -> Option<i64> {
        self.nth_in_range(EVERYTHING, false, n)
    }

    fn count_after_from_newest(&mut self, cutoff: i64, cap: u64) -> u64 {
        self.count_range((cutoff as f64, f64::INFINITY, true), true, cap)
    }

    fn nth_newest(&mut self, n: u64) -> Option<i64> {
        self.nth_in_range(EVERYTHING, true, n)
    }
}

/// A stored score as a whole ms. A fractional score counts until its ceiling, which keeps
/// `now - t < window` exact for integer `now`; `as` saturates infinities and maps NaN to 0.
fn to_ms(score: f64) -> i64 {
    score.ceil() as i64
}

/// Carries out a plan: each effect replicates itself and fires its events.
fn apply(key: &mut WriteKey<'_>, plan: &SlidePlan) {
    if plan.is_noop() {
        return;
    }
    if plan.discard {
        key.delete();
    }
    if let Some(cutoff) = plan.trim_through {
        key.zrem_through(cutoff);
    }
    if let Some(append) = plan.append {
        key.zadd_new(append.score, append.count, append.first_member, next_member);
    }
    if let Some(at) = plan.expire_at {
        if key.kind() != KeyKind::Missing {
            key.expire_at(at);
        }
    }
}
