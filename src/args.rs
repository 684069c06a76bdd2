//! Parsing and validating `window_ms limit [COST n] [ALIGN]`.
//!
//! The grammar is positional pairs first, then keyword options. Today exactly one
//! `window_ms limit` pair is accepted; a later version may take several pairs before the
//! options without breaking any call that works now.

use std::fmt;

use crate::request::Request;

/// The largest accepted window: 10^12 ms (about 31.7 years). It keeps `now + window`,
/// aligned window ends and member numbers far inside `i64`.
pub const MAX_WINDOW_MS: i64 = 1_000_000_000_000;

/// Which command is being parsed: only FIXED takes `ALIGN`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algorithm {
    Slide,
    Fixed,
}

/// Why the arguments were refused. `Display` gives the exact error reply text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgError {
    Window,
    Limit { max_limit: i64 },
    Cost,
    CostMissing,
    UnknownOption(String),
    RepeatedOption(&'static str),
}

impl fmt::Display for ArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgError::Window => {
                write!(f, "ERR window_ms must be an integer between 1 and {MAX_WINDOW_MS}")
            }
            ArgError::Limit { max_limit } => {
                write!(f, "ERR limit must be an integer between 0 and {max_limit}")
            }
            ArgError::Cost => f.write_str("ERR COST must be a positive integer"),
            ArgError::CostMissing => f.write_str("ERR COST needs a value"),
            ArgError::UnknownOption(given) => write!(f, "ERR unknown option '{given}'"),
            ArgError::RepeatedOption(name) => write!(f, "ERR option '{name}' given more than once"),
        }
    }
}

impl std::error::Error for ArgError {}

/// Parses the arguments after the key. `max_limit` is the `winlimit.max-limit` setting.
pub fn parse(args: &[&[u8]], algorithm: Algorithm, max_limit: i64) -> Result<Request, ArgError> {
    let [window, limit, options @ ..] = args else {
        // The caller checks arity first; treat a short list as a missing window.
        return Err(ArgError::Window);
    };
    let window_ms = parse_int(window).filter(|w| (1..=MAX_WINDOW_MS).contains(w)).ok_or(ArgError::Window)?;
    let limit = parse_int(limit).filter(|l| (0..=max_limit).contains(l)).ok_or(ArgError::Limit { max_limit })?;

    let mut cost = None;
    let mut align = false;
    let mut rest = options.iter();
    while let Some(option) = rest.next() {
        if option.eq_ignore_ascii_case(b"COST") {
            if cost.is_some() {
                return Err(ArgError::RepeatedOption("COST"));
            }
            let value = rest.next().ok_or(ArgError::CostMissing)?;
            cost = Some(parse_int(value).filter(|c| *c >= 1).ok_or(ArgError::Cost)?);
        } else if algorithm == Algorithm::Fixed && option.eq_ignore_ascii_case(b"ALIGN") {
            if align {
                return Err(ArgError::RepeatedOption("ALIGN"));
            }
            align = true;
        } else {
            return Err(ArgError::UnknownOption(printable(option)));
        }
    }

    Ok(Request { window_ms, limit, cost: cost.unwrap_or(1), align })
}

/// An argument fit to echo in an error line: control characters replaced, length capped.
fn printable(arg: &[u8]) -> String {
    const MAX_CHARS: usize = 64;
    let text = String::from_utf8_lossy(arg);
    let mut shown: String = text.chars().take(MAX_CHARS).map(|c| if c.is_control() { '?' } else { c }).collect();
    if text.chars().count() > MAX_CHARS {
        shown.push_str("...");
    }
    shown
}

/// A decimal integer as Redis writes them: optional `-`, then digits, nothing else.
/// Accumulates negatively so that `i64::MIN` parses too.
pub fn parse_int(bytes: &[u8]) -> Option<i64> {
    let (negative, digits) = match bytes {
        [b'-', rest @ ..] => (true, rest),
        _ => (false, bytes),
    };
    if digits.is_empty() {
        return None;
    }
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

    const MAX: i64 = 1_000_000;

    fn slide(args: &[&str]) -> Result<Request, ArgError> {
        let bytes: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
        parse(&bytes, Algorithm::Slide, MAX)
    }

    fn fixed(args: &[&str]) -> Result<Request, ArgError> {
        let bytes: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
        parse(&bytes, Algorithm::Fixed, MAX)
    }

    #[test]
    fn window_and_limit_with_default_cost() {
        assert_eq!(slide(&["1000", "3"]), Ok(Request { window_ms: 1000, limit: 3, cost: 1, align: false }));
    }

    #[test]
    fn options_are_case_insensitive_and_in_any_order() {
        let expected = Ok(Request { window_ms: 60, limit: 5, cost: 2, align: true });
        assert_eq!(fixed(&["60", "5", "align", "cost", "2"]), expected);
        assert_eq!(fixed(&["60", "5", "CoSt", "2", "ALIGN"]), expected);
    }

    #[test]
    fn window_must_be_positive_and_bounded() {
        for bad in ["0", "-1", "1.5", "abc", "", "+5", "1000000000001", "99999999999999999999"] {
            assert_eq!(slide(&[bad, "1"]), Err(ArgError::Window), "window {bad:?}");
        }
        assert!(slide(&["1000000000000", "1"]).is_ok());
    }

    #[test]
    fn limit_zero_is_valid_but_negative_and_too_large_are_not() {
        assert_eq!(slide(&["10", "0"]).map(|r| r.limit), Ok(0));
        for bad in ["-1", "x", "1000001"] {
            assert_eq!(slide(&["10", bad]), Err(ArgError::Limit { max_limit: MAX }), "limit {bad:?}");
        }
    }

    #[test]
    fn cost_must_be_a_positive_integer() {
        for bad in ["0", "-2", "two"] {
            assert_eq!(slide(&["10", "1", "COST", bad]), Err(ArgError::Cost), "cost {bad:?}");
        }
        assert_eq!(slide(&["10", "1", "COST"]), Err(ArgError::CostMissing));
    }

    #[test]
    fn options_may_not_repeat() {
        assert_eq!(slide(&["10", "1", "COST", "1", "cost", "1"]), Err(ArgError::RepeatedOption("COST")));
        assert_eq!(fixed(&["10", "1", "ALIGN", "align"]), Err(ArgError::RepeatedOption("ALIGN")));
    }

    #[test]
    fn align_is_unknown_to_slide() {
        assert_eq!(slide(&["10", "1", "ALIGN"]), Err(ArgError::UnknownOption("ALIGN".into())));
    }

    #[test]
    fn extra_words_are_unknown_options_named_as_given() {
        assert_eq!(fixed(&["10", "1", "Burst"]), Err(ArgError::UnknownOption("Burst".into())));
        assert_eq!(fixed(&["10", "1", "20"]), Err(ArgError::UnknownOption("20".into())));
    }

    #[test]
    fn echoed_options_stay_on_one_short_line() {
        let long = "x".repeat(100);
        let Err(ArgError::UnknownOption(shown)) = slide(&["10", "1", &long]) else { panic!() };
        assert_eq!(shown, format!("{}...", "x".repeat(64)));
        let Err(ArgError::UnknownOption(shown)) = slide(&["10", "1", "a\r\nb\0"]) else { panic!() };
        assert_eq!(shown, "a??b?");
    }

    #[test]
    fn error_texts_name_the_argument() {
        assert_eq!(ArgError::Window.to_string(), "ERR window_ms must be an integer between 1 and 1000000000000");
        assert_eq!(ArgError::Limit { max_limit: 7 }.to_string(), "ERR limit must be an integer between 0 and 7");
        assert_eq!(ArgError::RepeatedOption("COST").to_string(), "ERR option 'COST' given more than once");
    }

    #[test]
    fn parse_int_takes_the_full_i64_range_and_nothing_else() {
        assert_eq!(parse_int(b"9223372036854775807"), Some(i64::MAX));
        assert_eq!(parse_int(b"-9223372036854775808"), Some(i64::MIN));
        for bad in [&b"9223372036854775808"[..], b"-", b"", b"1 ", b" 1", b"+1", b"1e3", b"--1"] {
            assert_eq!(parse_int(bad), None, "{:?}", String::from_utf8_lossy(bad));
        }
    }

    proptest! {
        #[test]
        fn parse_int_agrees_with_decimal_formatting(n: i64) {
            prop_assert_eq!(parse_int(n.to_string().as_bytes()), Some(n));
        }

        #[test]
        fn fuzz_parse_never_panics(args in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..24), 0..8)) {
            let views: Vec<&[u8]> = args.iter().map(Vec::as_slice).collect();
            for algorithm in [Algorithm::Slide, Algorithm::Fixed] {
                if let Ok(request) = parse(&views, algorithm, MAX) {
                    prop_assert!((1..=MAX_WINDOW_MS).contains(&request.window_ms));
                    prop_assert!((0..=MAX).contains(&request.limit));
                    prop_assert!(request.cost >= 1);
                }
            }
        }
    }
}
