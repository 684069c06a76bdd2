//! `WINLIMIT.SLIDE` on Redis: the exact log is a sorted set whose scores are acceptance
//! times in ms, read through the key's range cursor and replicated as `ZADD`,
//! `ZREMRANGEBYSCORE`, `ZREM` (refunds, an ended block's marker), `PEXPIREAT` and `DEL`. A
//! block is the member `block:<end_ms>` scored `+inf`, which every count leaves out.

use crate::core::parse::parse_int;
use crate::core::request::Mode;
use crate::core::slide::{self, next_member, Entry, LogView, SlidePlan, SlideRequest};
use crate::core::verdict::Verdict;
use crate::redis::adapters::{bucketed, Adapter};
use crate::redis::api::OwnedString;
use crate::redis::call::{Call, CommandError};
use crate::redis::config;
use crate::redis::key::{End, Key, KeyKind, LowerBound, Opened, WriteKey};

/// `WINLIMIT.SLIDE` and `WINLIMIT.SLIDE_RO`.
pub struct Slide;

impl Adapter for Slide {
    type Request = SlideRequest;

    fn parse(args: &[&[u8]], mode: Mode) -> Result<SlideRequest, CommandError> {
        let request = slide::parse(args, config::max_limit())?;
        request.extras.check_mode(mode)?;
        Ok(request)
    }

    /// Reads the log, decides, writes. With `BUCKET` the bucketed log takes the call.
    fn run(call: &Call, mut opened: Opened<'_>, request: &SlideRequest) -> Result<Verdict, CommandError> {
        if request.bucket_ms.is_some() {
            return bucketed::run(call, opened, request);
        }
        if !matches!(opened.view().kind(), KeyKind::Missing | KeyKind::SortedSet) {
            return Err(CommandError::WrongType);
        }
        let now = call.now();
        if let (Some(n), Some(key)) = (request.extras.refund, opened.writer()) {
            refund(now, request, n, key);
            return Ok(slide::decide(
                now,
                &slide::peek_of(request),
                Mode::Peek,
                &mut SortedSetLog::new(opened.view_mut()),
            )
            .verdict);
        }
        let plan = slide::decide(now, request, call.mode, &mut SortedSetLog::new(opened.view_mut()));
        if let Some(key) = opened.writer() {
            apply(key, &plan);
        }
        Ok(plan.verdict)
    }
}

/// `REFUND n`: the newest entries the core picks go, replicated as `ZREM`.
fn refund(now: i64, request: &SlideRequest, n: i64, key: &mut WriteKey<'_>) {
    let take = slide::refund_take(now, request, n, &mut SortedSetLog::new(key.view_mut()));
    let mut members = Vec::new();
    if let Some(mut range) = key.view_mut().zset_range(f64::NEG_INFINITY, f64::MAX, LowerBound::Included, End::Newest) {
        while members.len() < usize::try_from(take).unwrap_or(0) {
            let Some((_, member)) = range.current() else { break };
            members.push(member);
            if !range.step() {
                break;
            }
        }
    }
    key.zrem(&members);
}

/// The log as the core sees it, read through the key's range cursor (so it holds the key
/// mutably). Counting walks the cursor without materialising members; only single elements
/// are ever read out.
pub struct SortedSetLog<'k, 'a> {
    key: &'k mut Key<'a>,
    /// Elements scored `+inf`: the block marker, which is no entry.
    markers: u64,
    blocked_until: Option<i64>,
    /// The newest entry, when the element read first (the last of the set) was one.
    newest: Option<Entry>,
}

impl<'k, 'a> SortedSetLog<'k, 'a> {
    /// The caller has checked the key is missing or a sorted set. Reads the last element:
    /// the block marker if the key has one, else the newest entry, which the call reads
    /// anyway (so a key without a block costs no extra lookup).
    pub fn new(key: &'k mut Key<'a>) -> Self {
        let last = key
            .zset_range(f64::NEG_INFINITY, f64::INFINITY, LowerBound::Included, End::Newest)
            .and_then(|range| range.current());
        let mut log = SortedSetLog { key, markers: 0, blocked_until: None, newest: None };
        match last {
            Some((score, member)) if score == f64::INFINITY => {
                log.markers =
                    log.count_range((f64::INFINITY, f64::INFINITY, LowerBound::Included), End::Oldest, u64::MAX);
                log.blocked_until = slide::parse_block_member(member.bytes());
            }
            Some((score, member)) => {
                log.newest = Some(Entry { score: to_ms(score), member: parse_int(member.bytes()) })
            }
            None => {}
        }
        log
    }

    /// Counts the elements scored in the range, stepping from its oldest or newest end and
    /// stopping at `cap`.
    fn count_range(&mut self, (min, max, lower): ScoreRange, start: End, cap: u64) -> u64 {
        if cap == 0 {
            return 0;
        }
        let Some(mut range) = self.key.zset_range(min, max, lower, start) else { return 0 };
        let mut count = 1;
        while count < cap && range.step() {
            count += 1;
        }
        count
    }

    /// The score of the `n`-th (from 0) element of the range from its oldest or newest end.
    fn nth_in_range(&mut self, (min, max, lower): ScoreRange, start: End, n: u64) -> Option<i64> {
        let mut range = self.key.zset_range(min, max, lower, start)?;
        for _ in 0..n {
            if !range.step() {
                return None;
            }
        }
        range.current().map(|(score, _)| to_ms(score))
    }
}

/// Scores from `min` to `max`, `min` itself included or not.
type ScoreRange = (f64, f64, LowerBound);

/// Every entry: the block marker, scored `+inf`, is above the largest finite score.
const EVERYTHING: ScoreRange = (f64::NEG_INFINITY, f64::MAX, LowerBound::Included);

impl LogView for SortedSetLog<'_, '_> {
    fn len(&self) -> u64 {
        self.key.zset_len() - self.markers.min(self.key.zset_len())
    }

    fn blocked_until(&self) -> Option<i64> {
        self.blocked_until
    }

    fn newest(&mut self) -> Option<Entry> {
        if self.newest.is_some() {
            return self.newest;
        }
        let range = self.key.zset_range(f64::NEG_INFINITY, f64::MAX, LowerBound::Included, End::Newest)?;
        range.current().map(|(score, member)| Entry { score: to_ms(score), member: parse_int(member.bytes()) })
    }

    fn expires_at(&self) -> Option<i64> {
        self.key.expires_at()
    }

    fn count_through(&mut self, cutoff: i64) -> u64 {
        self.count_range((f64::NEG_INFINITY, cutoff as f64, LowerBound::Included), End::Oldest, u64::MAX)
    }

    fn nth_after(&mut self, cutoff: i64, n: u64) -> Option<i64> {
        self.nth_in_range((cutoff as f64, f64::MAX, LowerBound::Excluded), End::Oldest, n)
    }

    fn count_between(&mut self, after: i64, through: i64, cap: u64) -> u64 {
        if through <= after {
            return 0;
        }
        self.count_range((after as f64, through as f64, LowerBound::Excluded), End::Oldest, cap)
    }

    fn nth_oldest(&mut self, n: u64) -> Option<i64> {
        self.nth_in_range(EVERYTHING, End::Oldest, n)
    }

    fn count_after_from_newest(&mut self, cutoff: i64, cap: u64) -> u64 {
        self.count_range((cutoff as f64, f64::MAX, LowerBound::Excluded), End::Newest, cap)
    }

    fn nth_newest(&mut self, n: u64) -> Option<i64> {
        self.nth_in_range(EVERYTHING, End::Newest, n)
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
    if let Some(ended) = plan.unblock {
        let mut old = [0u8; 26];
        key.zrem(&[OwnedString::from_bytes(key.ctx(), slide::block_member(ended, &mut old))]);
    }
    if let Some(until) = plan.block {
        let mut member = [0u8; 26];
        key.zadd_marker(slide::block_member(until, &mut member));
    }
    if let Some(at) = plan.expire_at {
        if key.kind() != KeyKind::Missing {
            key.expire_at(at);
        }
    }
}
