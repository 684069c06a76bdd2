//! A fixed counter's stored decimal text, rewritten in place: `count - by` as stored becomes
//! `count` without formatting a number in the usual case (one more), and without touching the
//! key when the number of digits is unchanged.

use crate::core::parse::format_int;

/// Rewrites a counter's decimal digits, `count - by` as stored, to `count` in place; false when
/// `count` needs another number of digits. Mostly it keeps its length; by one (`COST 1`, the
/// usual call) the digits are carried in place, nothing formatted.
pub fn rewrite_count(digits: &mut [u8], by: i64, count: i64) -> bool {
    if by == 1 {
        return increment_decimal(digits);
    }
    let mut text = [0u8; 20];
    let len = format_int(count, &mut text);
    if digits.len() != len {
        return false;
    }
    digits.copy_from_slice(&text[..len]);
    true
}

/// Adds one to decimal digits in place; false when the sum needs one digit more (the digits,
/// all nines, are zeros now).
fn increment_decimal(digits: &mut [u8]) -> bool {
    for digit in digits.iter_mut().rev() {
        if *digit == b'9' {
            *digit = b'0';
        } else {
            *digit += 1;
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::increment_decimal;

    #[test]
    fn increment_decimal_carries_and_says_when_a_digit_is_needed() {
        let mut text = *b"1299";
        assert!(increment_decimal(&mut text));
        assert_eq!(&text, b"1300");
        let mut nines = *b"99";
        assert!(!increment_decimal(&mut nines));
        assert_eq!(&nines, b"00");
        assert!(!increment_decimal(&mut []));
    }
}
