//! Pieces every command's argument parser is made of: Redis's integer syntax, the
//! `window_ms limit` pairs, and error lines that name the argument.
//!
//! Each algorithm's own grammar (its options and bounds) lives in its core file and is
//! built from these.

use std::fmt;

use crate::core::request::{Mode, Window, Windows, MAX_WINDOWS, MAX_WINDOW_MS};

/// Why the arguments were refused; `Display` is the exact error reply, `ERR ...`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgError(String);

impl ArgError {
    /// An error whose text follows `ERR `.
    pub fn new(text: impl fmt::Display) -> Self {
        ArgError(format!("ERR {text}"))
    }

    /// `ERR <name> must be an integer between <min> and <max>`.
    pub fn range(name: &str, min: i64, max: i64) -> Self {
        ArgError::new(format_args!("{name} must be an integer between {min} and {max}"))
    }

    pub fn unknown_option(given: &[u8]) -> Self {
        ArgError::new(format_args!("unknown option '{}'", printable(given)))
    }

    pub fn repeated(name: &str) -> Self {
        ArgError::new(format_args!("option '{name}' given more than once"))
    }

    pub fn missing_value(name: &str) -> Self {
        ArgError::new(format_args!("{name} needs a value"))
    }

    /// An option word that is an integer: a pair given after the options.
    pub fn pair_after_options(given: &[u8]) -> Self {
        ArgError::new(format_args!(
            "'{}' where an option was expected: window_ms limit pairs come before the options",
            printable(given)
        ))
    }
}

impl fmt::Display for ArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ArgError {}

/// Keyword options after the positional arguments: case-insensitive, in any order, each
/// at most once.
pub struct Options<'a> {
    rest: std::slice::Iter<'a, &'a [u8]>,
    /// Names given so far; a command has a handful of options, and parsing allocates nothing.
    seen: [&'static str; 8],
    seen_len: usize,
}

impl<'a> Options<'a> {
    pub fn new(args: &'a [&'a [u8]]) -> Self {
        Options { rest: args.iter(), seen: [""; 8], seen_len: 0 }
    }

    /// The next option word, if any.
    pub fn next_word(&mut self) -> Option<&'a [u8]> {
        self.rest.next().copied()
    }

    /// Marks `name` as given; a second time is an error.
    pub fn once(&mut self, name: &'static str) -> Result<(), ArgError> {
        if self.seen[..self.seen_len].contains(&name) {
            return Err(ArgError::repeated(name));
        }
        // More distinct names than slots is a parser bug, not user input: it only forgets.
        if let Some(slot) = self.seen.get_mut(self.seen_len) {
            *slot = name;
            self.seen_len += 1;
        }
        Ok(())
    }

    /// The value after option `name`, which is then marked as given.
    pub fn value(&mut self, name: &'static str) -> Result<&'a [u8], ArgError> {
        self.once(name)?;
        self.rest.next().copied().ok_or_else(|| ArgError::missing_value(name))
    }
}

/// `COST n`: a positive integer.
pub fn cost(value: &[u8]) -> Result<i64, ArgError> {
    parse_int(value).filter(|c| *c >= 1).ok_or_else(|| ArgError::new("COST must be a positive integer"))
}

/// `REFUND n` and `BLOCK ms`, the options the recording commands of SLIDE, FIXED and GCRA
/// share: give units back, or block the key for `ms` when a call is rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Extras {
    /// `REFUND n`: take back up to `n` units instead of taking any.
    pub refund: Option<i64>,
    /// `BLOCK ms`: a rejection blocks the key for `ms`.
    pub block_ms: Option<i64>,
}

/// The longest block, as the longest window.
pub const MAX_BLOCK_MS: i64 = MAX_WINDOW_MS;

impl Extras {
    /// Takes `word` (and its value) when it is `REFUND` or `BLOCK`; false for any other word.
    pub fn take(&mut self, word: &[u8], options: &mut Options<'_>) -> Result<bool, ArgError> {
        if word.eq_ignore_ascii_case(b"REFUND") {
            let value = options.value("REFUND")?;
            let n = parse_int(value).filter(|n| *n >= 1);
            self.refund = Some(n.ok_or_else(|| ArgError::new("REFUND must be a positive integer"))?);
        } else if word.eq_ignore_ascii_case(b"BLOCK") {
            let value = options.value("BLOCK")?;
            let ms = parse_int(value).filter(|ms| (1..=MAX_BLOCK_MS).contains(ms));
            self.block_ms = Some(ms.ok_or_else(|| ArgError::range("BLOCK", 1, MAX_BLOCK_MS))?);
        } else {
            return Ok(false);
        }
        Ok(true)
    }

    /// The combinations refused by every parser: `REFUND` with `COST` (a refund takes
    /// nothing) or with `BLOCK` (a refund is never rejected).
    pub fn check(&self, cost_given: bool) -> Result<(), ArgError> {
        if self.refund.is_some() && cost_given {
            return Err(ArgError::new("REFUND cannot be combined with COST"));
        }
        if self.refund.is_some() && self.block_ms.is_some() {
            return Err(ArgError::new("REFUND cannot be combined with BLOCK"));
        }
        Ok(())
    }

    /// Both options are refused on the peeking (`_RO`) commands, which write nothing.
    pub fn check_mode(&self, mode: Mode) -> Result<(), ArgError> {
        for (name, given) in [("REFUND", self.refund.is_some()), ("BLOCK", self.block_ms.is_some())] {
            if given && mode == Mode::Peek {
                return Err(ArgError::new(format_args!("{name} is an option of the recording commands, not of _RO")));
            }
        }
        Ok(())
    }
}

/// `window_ms` within 1..=[`MAX_WINDOW_MS`].
pub fn window_ms(value: &[u8]) -> Result<i64, ArgError> {
    parse_int(value)
        .filter(|w| (1..=MAX_WINDOW_MS).contains(w))
        .ok_or_else(|| ArgError::range("window_ms", 1, MAX_WINDOW_MS))
}

/// `window_ms limit [window_ms limit ...]` at the front of `args`, up to [`MAX_WINDOWS`]
/// pairs. After each pair an argument written as an integer starts another pair; anything
/// else starts the options, which are returned unparsed.
///
/// `max_limit` bounds every limit; the caller knows it only after reading the options, so
/// it passes a function of them.
pub fn windows<'a>(
    args: &'a [&'a [u8]],
    max_limit: impl FnOnce(&'a [&'a [u8]]) -> i64,
) -> Result<(Windows, &'a [&'a [u8]]), ArgError> {
    // The first limit is positional: whatever it is, it is read as a limit.
    let [first_window, first_limit, rest @ ..] = args else {
        return Err(ArgError::range("window_ms", 1, MAX_WINDOW_MS));
    };
    // Pairs as given, on the stack; one more than allowed is enough to refuse the call.
    let mut raw: [(i64, &[u8]); MAX_WINDOWS + 1] = [(0, &[]); MAX_WINDOWS + 1];
    raw[0] = (window_ms(first_window)?, *first_limit);
    let mut count = 1;
    let mut rest: &'a [&'a [u8]] = rest;
    while let [next, after @ ..] = rest {
        if count > MAX_WINDOWS {
            return Err(ArgError::new(format_args!("at most {MAX_WINDOWS} window_ms limit pairs are allowed")));
        }
        if !looks_like_integer(next) {
            break;
        }
        let window = window_ms(next)?;
        let [limit, after @ ..] = after else {
            return Err(ArgError::new(format_args!("window_ms {window} has no limit after it")));
        };
        if !looks_like_integer(limit) {
            return Err(ArgError::new(format_args!("window_ms {window} has no limit after it")));
        }
        raw[count] = (window, *limit);
        count += 1;
        rest = after;
    }
    if count > MAX_WINDOWS {
        return Err(ArgError::new(format_args!("at most {MAX_WINDOWS} window_ms limit pairs are allowed")));
    }
    let bound = max_limit(rest);
    let mut windows = Windows::default();
    for &(window_ms, limit) in &raw[..count] {
        let limit =
            parse_int(limit).filter(|l| (0..=bound).contains(l)).ok_or_else(|| ArgError::range("limit", 0, bound))?;
        if !windows.insert(Window { window_ms, limit }) {
            return Err(ArgError::new(format_args!("window_ms {window_ms} given more than once")));
        }
    }
    Ok((windows, rest))
}

/// Written as an integer, whatever its size: an optional `-`, then digits.
pub fn looks_like_integer(arg: &[u8]) -> bool {
    let digits = arg.strip_prefix(b"-").unwrap_or(arg);
    !digits.is_empty() && digits.iter().all(u8::is_ascii_digit)
}

/// An argument fit to echo in an error line: control characters replaced, length capped.
pub fn printable(arg: &[u8]) -> String {
    const MAX_CHARS: usize = 64;
    let text = String::from_utf8_lossy(arg);
    let mut shown: String = text.chars().take(MAX_CHARS).map(|c| if c.is_control() { '?' } else { c }).collect();
    if text.chars().count() > MAX_CHARS {
        shown.push_str("...");
    }
    shown
}

/// "00" to "99": decimal digits are written two per division.
const DIGIT_PAIRS: [u8; 200] = {
    let mut pairs = [0u8; 200];
    let mut i = 0;
    while i < 100 {
        pairs[2 * i] = b'0' + (i / 10) as u8;
        pairs[2 * i + 1] = b'0' + (i % 10) as u8;
        i += 1;
    }
    pairs
};

/// Writes `value` in decimal at the start of `buf`, without allocating; returns the length
/// (0, writing nothing, when `buf` is too short).
pub fn format_int(value: i64, buf: &mut [u8]) -> usize {
    let sign = usize::from(value < 0);
    let mut n = value.unsigned_abs();
    // Written in place from the last digit back: no scratch copy (a `memcpy` call).
    let len = sign + n.checked_ilog10().map_or(1, |log| log as usize + 1);
    let Some(out) = buf.get_mut(..len) else { return 0 };
    let mut end = len;
    while n >= 10 {
        let pair = 2 * (n % 100) as usize;
        n /= 100;
        end -= 2;
        out[end..end + 2].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
    }
    // The one digit left when the count is odd (or a lone zero).
    if end > sign {
        out[sign] = b'0' + n as u8;
    }
    if sign == 1 {
        out[0] = b'-';
    }
    len
}

/// A decimal integer exactly as Redis's own `string2ll` takes it: `0`, or an optional `-`
/// and digits without leading zeros, within `i64`. `007`, `-0` and `+1` are not integers to
/// Redis (`INCRBY` refuses them), so they are not to winlimit either.
pub fn parse_int(bytes: &[u8]) -> Option<i64> {
    let (negative, digits) = match bytes {
        [b'-', rest @ ..] => (true, rest),
        _ => (false, bytes),
    };
    match digits {
        [] => return None,
        [b'0'] => return (!negative).then_some(0),
        [b'0', ..] => return None,
        _ => {}
    }
    // Up to 18 digits the value stays below 10^18, far inside i64: no overflow check per
    // digit (arguments and stored counts are this short; a check doubles a digit's cost).
    if digits.len() <= 18 {
        let mut value: i64 = 0;
        for &byte in digits {
            let digit = byte.wrapping_sub(b'0');
            if digit > 9 {
                return None;
            }
            value = value.wrapping_mul(10).wrapping_add(i64::from(digit));
        }
        return Some(if negative { -value } else { value });
    }
    // Accumulate negatively so that i64::MIN parses too.
    let mut value: i64 = 0;
    for &byte in digits {
        let digit = byte.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        value = value.checked_mul(10)?.checked_sub(i64::from(digit))?;
    }
    if negative {
        Some(value)
    } else {
        value.checked_neg()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn pairs(args: &[&str], bound: i64) -> Result<(Vec<(i64, i64)>, usize), String> {
        let bytes: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
        windows(&bytes, |_| bound)
            .map(|(w, rest)| (w.iter().map(|w| (w.window_ms, w.limit)).collect(), rest.len()))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn format_int_writes_what_parse_int_reads() {
        for n in [0, 7, -15, 10, 1_763_812_345_000, i64::MIN, i64::MAX] {
            let mut buf = [0u8; 20];
            let len = format_int(n, &mut buf);
            assert_eq!(&buf[..len], n.to_string().as_bytes());
        }
        assert_eq!(format_int(123, &mut [0u8; 2]), 0, "too small a buffer writes nothing");
    }

    #[test]
    fn parse_int_takes_the_full_i64_range() {
        assert_eq!(parse_int(b"9223372036854775807"), Some(i64::MAX));
        assert_eq!(parse_int(b"-9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_int(b"0"), Some(0));
        assert_eq!(parse_int(b"-12"), Some(-12));
    }

    #[test]
    fn parse_int_refuses_what_redis_refuses() {
        for bad in [
            &b"9223372036854775808"[..],
            b"-",
            b"",
            b"1 ",
            b" 1",
            b"+1",
            b"1e3",
            b"--1",
            b"007",
            b"-0",
            b"00",
            b"000000000000000000001",
            b"-01",
        ] {
            assert_eq!(parse_int(bad), None, "{:?}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn one_pair_then_options() {
        assert_eq!(pairs(&["1000", "3", "COST", "2"], 10), Ok((vec![(1000, 3)], 2)));
    }

    #[test]
    fn several_pairs_come_out_shortest_window_first() {
        assert_eq!(pairs(&["60000", "100", "1000", "10"], 1000), Ok((vec![(1000, 10), (60000, 100)], 0)));
    }

    #[test]
    fn a_window_without_a_limit_is_named() {
        let expected = Err("ERR window_ms 60000 has no limit after it".to_string());
        assert_eq!(pairs(&["1000", "10", "60000"], 100), expected);
        assert_eq!(pairs(&["1000", "10", "60000", "COST", "1"], 100), expected);
    }

    #[test]
    fn a_repeated_window_is_refused() {
        assert_eq!(pairs(&["1000", "10", "1000", "5"], 100), Err("ERR window_ms 1000 given more than once".into()));
    }

    #[test]
    fn at_most_eight_pairs() {
        let nine: Vec<String> = (1..=9).flat_map(|i| [(i * 1000).to_string(), "5".to_string()]).collect();
        let args: Vec<&str> = nine.iter().map(String::as_str).collect();
        assert_eq!(pairs(&args, 100), Err("ERR at most 8 window_ms limit pairs are allowed".into()));
        assert!(pairs(&args[..16], 100).is_ok());
    }

    #[test]
    fn limits_are_checked_against_the_bound_that_applies() {
        assert_eq!(pairs(&["1000", "11"], 10), Err("ERR limit must be an integer between 0 and 10".into()));
        assert_eq!(pairs(&["1000", "x"], 10), Err("ERR limit must be an integer between 0 and 10".into()));
        assert_eq!(
            pairs(&["1000", "10", "2000", "-1"], 10),
            Err("ERR limit must be an integer between 0 and 10".into())
        );
    }

    #[test]
    fn a_bad_later_window_is_a_window_error() {
        assert_eq!(
            pairs(&["1000", "10", "0", "5"], 10),
            Err("ERR window_ms must be an integer between 1 and 1000000000000".into())
        );
    }

    #[test]
    fn options_repeat_and_missing_values_are_errors() {
        let args: [&[u8]; 3] = [b"COST", b"1", b"cost"];
        let mut options = Options::new(&args);
        assert_eq!(options.next_word(), Some(&b"COST"[..]));
        assert_eq!(options.value("COST"), Ok(&b"1"[..]));
        assert_eq!(options.next_word(), Some(&b"cost"[..]));
        assert_eq!(options.value("COST"), Err(ArgError::repeated("COST")));
        let args: [&[u8]; 1] = [b"COST"];
        let mut options = Options::new(&args);
        options.next_word();
        assert_eq!(options.value("COST").unwrap_err().to_string(), "ERR COST needs a value");
    }

    #[test]
    fn echoed_arguments_stay_on_one_short_line() {
        assert_eq!(printable("x".repeat(100).as_bytes()), format!("{}...", "x".repeat(64)));
        assert_eq!(printable(b"a\r\nb\0"), "a??b?");
    }

    proptest! {
        #[test]
        fn parse_int_agrees_with_decimal_formatting(n: i64) {
            prop_assert_eq!(parse_int(n.to_string().as_bytes()), Some(n));
        }

        #[test]
        fn format_int_writes_what_to_string_does(n in any::<i64>(), digits in 0u32..19) {
            for n in [n, 10i64.pow(digits), 10i64.pow(digits) - 1] {
                let mut buf = [0u8; 20];
                let len = format_int(n, &mut buf);
                let expected = n.to_string();
                prop_assert_eq!(&buf[..len], expected.as_bytes());
            }
        }

        #[test]
        fn parse_int_accepts_only_canonical_text(bytes in proptest::collection::vec(any::<u8>(), 0..24)) {
            if let Some(n) = parse_int(&bytes) {
                let text = n.to_string();
                prop_assert_eq!(text.as_bytes(), &bytes[..]);
            }
        }

        #[test]
        fn parse_int_agrees_with_a_digit_by_digit_model(
            text in proptest::collection::vec(prop_oneof![8 => b'0'..=b'9', 1 => any::<u8>()], 0..21),
            sign in proptest::bool::ANY,
        ) {
            // Mostly digits, now and then any byte: each length, sign and stray byte.
            let bytes = if sign { [&b"-"[..], &text].concat() } else { text };
            let model = std::str::from_utf8(&bytes).ok().and_then(|t| t.parse::<i64>().ok())
                .filter(|n| n.to_string().as_bytes() == &bytes[..]);
            prop_assert_eq!(parse_int(&bytes), model);
        }

        #[test]
        fn fuzz_windows_never_panics(args in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..24), 0..20)) {
            let views: Vec<&[u8]> = args.iter().map(Vec::as_slice).collect();
            if let Ok((windows, _)) = windows(&views, |_| 1000) {
                prop_assert!(windows.len() >= 1 && windows.len() <= MAX_WINDOWS);
                for pair in windows.iter() {
                    prop_assert!((1..=MAX_WINDOW_MS).contains(&pair.window_ms));
                    prop_assert!((0..=1000).contains(&pair.limit));
                }
            }
        }
    }
}
