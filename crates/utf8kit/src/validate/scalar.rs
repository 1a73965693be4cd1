//! The scalar kernel: a word-at-a-time ASCII skip and a tight, branchy
//! decoder for everything else.
//!
//! The hot loop only answers "is this sequence valid?" with as few branches as
//! the data allows. When it finds a bad sequence it hands the position to the
//! cold [`error_at`], which works out the exact `error_len` and the class of
//! the error. Keeping the two apart keeps the hot loop small.
//!
//! The grammar checked is RFC 3629's:
//!
//! ```text
//! UTF8-char = UTF8-1 / UTF8-2 / UTF8-3 / UTF8-4
//! UTF8-1    = %x00-7F
//! UTF8-2    = %xC2-DF UTF8-tail
//! UTF8-3    = %xE0 %xA0-BF UTF8-tail / %xE1-EC 2( UTF8-tail ) /
//!             %xED %x80-9F UTF8-tail / %xEE-EF 2( UTF8-tail )
//! UTF8-4    = %xF0 %x90-BF 2( UTF8-tail ) / %xF1-F3 3( UTF8-tail ) /
//!             %xF4 %x80-8F 2( UTF8-tail )
//! UTF8-tail = %x80-BF
//! ```

use crate::error::{Utf8Error, Utf8ErrorKind};

/// Bytes skipped per step of the ASCII fast path.
const ASCII_BLOCK: usize = 2 * core::mem::size_of::<u64>();

/// The high bit of every byte of a `u64`.
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// The range of second bytes a lead byte allows (inclusive), or `None` for a
/// byte that cannot start a multi-byte sequence. The exceptions to
/// `80..=BF` are where overlongs, surrogates and values above U+10FFFF are
/// excluded.
#[inline(always)]
const fn second_byte_range(lead: u8) -> (u8, u8) {
    match lead {
        0xE0 => (0xA0, 0xBF),
        0xED => (0x80, 0x9F),
        0xF0 => (0x90, 0xBF),
        0xF4 => (0x80, 0x8F),
        _ => (0x80, 0xBF),
    }
}

/// Length of the sequence a byte starts: 1 for ASCII, 2–4 for valid leads,
/// 0 for bytes that can never start a character (`80..=C1`, `F5..=FF`).
#[inline(always)]
pub(crate) const fn sequence_len(lead: u8) -> usize {
    match lead {
        0x00..=0x7F => 1,
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => 0,
    }
}

#[inline(always)]
const fn is_continuation(b: u8) -> bool {
    (b as i8) < -64
}

/// Validates `bytes`, returning the exact error on failure.
///
/// ```text
/// i = 0
/// loop:
///   if bytes[i] is ASCII: skip 16 bytes at a time while the block has no
///                         high bit, then one byte at a time
///   else: check one 2/3/4-byte sequence against the grammar, or go to error_at(i)
/// ```
pub(crate) fn validate(bytes: &[u8]) -> Result<(), Utf8Error> {
    match valid_prefix_len(bytes) {
        n if n == bytes.len() => Ok(()),
        n => Err(error_at(bytes, n)),
    }
}

/// The length of the longest valid prefix that ends where the first invalid
/// sequence starts (`bytes.len()` when all of it is valid).
#[inline]
pub(crate) fn valid_prefix_len(bytes: &[u8]) -> usize {
    let len = bytes.len();
    let mut i = 0;
    while i < len {
        let lead = bytes[i];
        if lead < 0x80 {
            // ASCII: skip whole blocks while they stay ASCII. Text with any
            // ASCII runs spends most of its time here.
            while i + ASCII_BLOCK <= len {
                let block = &bytes[i..i + ASCII_BLOCK];
                let lo = u64::from_le_bytes(block[..8].try_into().unwrap());
                let hi = u64::from_le_bytes(block[8..].try_into().unwrap());
                if (lo | hi) & HIGH_BITS != 0 {
                    // Step past the ASCII bytes in front of the first high bit.
                    let first = if lo & HIGH_BITS != 0 {
                        (lo & HIGH_BITS).trailing_zeros() / 8
                    } else {
                        8 + (hi & HIGH_BITS).trailing_zeros() / 8
                    };
                    i += first as usize;
                    break;
                }
                i += ASCII_BLOCK;
            }
            // Fewer than a block left, or we stopped just before a high byte.
            while i < len && bytes[i] < 0x80 {
                i += 1;
            }
            continue;
        }
        // Multi-byte sequence. `rest` starts at the lead byte.
        let rest = &bytes[i..];
        match lead {
            0xC2..=0xDF => {
                if rest.len() < 2 || !is_continuation(rest[1]) {
                    return i;
                }
                i += 2;
            }
            0xE0..=0xEF => {
                if rest.len() < 3 {
                    return i;
                }
                let (lo, hi) = second_byte_range(lead);
                if rest[1] < lo || rest[1] > hi || !is_continuation(rest[2]) {
                    return i;
                }
                i += 3;
            }
            0xF0..=0xF4 => {
                if rest.len() < 4 {
                    return i;
                }
                let (lo, hi) = second_byte_range(lead);
                if rest[1] < lo || rest[1] > hi || !is_continuation(rest[2]) || !is_continuation(rest[3]) {
                    return i;
                }
                i += 4;
            }
            _ => return i,
        }
    }
    len
}

/// What one sequence at the start of a slice is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sequence {
    /// A valid character: its scalar value and its length in bytes.
    Valid(char, usize),
    /// An invalid sequence: its `error_len` (as std reports it) and class.
    Invalid(Option<usize>, Utf8ErrorKind),
}

/// Decodes or classifies the sequence at the start of `bytes` (which must not
/// be empty), following std's maximal-subpart rule for the length.
pub(crate) fn decode_first(bytes: &[u8]) -> Sequence {
    let lead = bytes[0];
    let want = sequence_len(lead);
    match want {
        1 => return Sequence::Valid(lead as char, 1),
        0 => {
            let kind = match lead {
                0x80..=0xBF => Utf8ErrorKind::UnexpectedContinuation,
                0xC0 | 0xC1 => Utf8ErrorKind::Overlong,
                0xF5..=0xF7 => Utf8ErrorKind::OutOfRange,
                _ => Utf8ErrorKind::InvalidByte,
            };
            return Sequence::Invalid(Some(1), kind);
        }
        _ => {}
    }
    // Second byte: the only place where the finer classes are decided.
    let Some(&second) = bytes.get(1) else {
        return Sequence::Invalid(None, Utf8ErrorKind::Incomplete);
    };
    let (lo, hi) = second_byte_range(lead);
    if !(lo..=hi).contains(&second) {
        let kind = if !is_continuation(second) {
            Utf8ErrorKind::Incomplete
        } else {
            match lead {
                0xE0 | 0xF0 => Utf8ErrorKind::Overlong,
                0xED => Utf8ErrorKind::Surrogate,
                _ => Utf8ErrorKind::OutOfRange, // 0xF4
            }
        };
        return Sequence::Invalid(Some(1), kind);
    }
    let mut value = u32::from(lead) & (0x7F >> want);
    value = (value << 6) | u32::from(second & 0x3F);
    for k in 2..want {
        match bytes.get(k) {
            None => return Sequence::Invalid(None, Utf8ErrorKind::Incomplete),
            Some(&b) if is_continuation(b) => value = (value << 6) | u32::from(b & 0x3F),
            Some(_) => return Sequence::Invalid(Some(k), Utf8ErrorKind::Incomplete),
        }
    }
    match char::from_u32(value) {
        Some(c) => Sequence::Valid(c, want),
        // Unreachable: the grammar above admits only scalar values.
        None => Sequence::Invalid(Some(1), Utf8ErrorKind::Surrogate),
    }
}

/// The exact error for the invalid sequence starting at `at`, where
/// `bytes[..at]` is known to be valid and `valid_prefix_len(&bytes[at..])`
/// is 0.
#[cold]
#[inline(never)]
pub(crate) fn error_at(bytes: &[u8], at: usize) -> Utf8Error {
    match decode_first(&bytes[at..]) {
        Sequence::Invalid(len, kind) => Utf8Error::new(at, len, kind),
        Sequence::Valid(..) => unreachable_valid(at),
    }
}

/// Validates `bytes[start..]`, reporting errors with offsets into `bytes`.
/// `start` must be a character boundary of a valid prefix; SIMD kernels use
/// this to resolve an error found somewhere after `start`.
#[cold]
#[inline(never)]
pub(crate) fn validate_from(bytes: &[u8], start: usize) -> Result<(), Utf8Error> {
    let n = start + valid_prefix_len(&bytes[start..]);
    if n == bytes.len() { Ok(()) } else { Err(error_at(bytes, n)) }
}

/// `error_at` was called on a valid sequence: a bug in the caller. Report it
/// loudly in tests; in release, a conservative answer is better than a panic.
#[cold]
fn unreachable_valid(at: usize) -> Utf8Error {
    debug_assert!(false, "error_at({at}) called on a valid sequence");
    Utf8Error::new(at, Some(1), Utf8ErrorKind::InvalidByte)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_first_agrees_with_std_on_all_two_byte_inputs() {
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                let input = [a, b];
                let ours = decode_first(&input);
                match core::str::from_utf8(&input) {
                    Ok(s) => {
                        let c = s.chars().next().unwrap();
                        assert_eq!(ours, Sequence::Valid(c, c.len_utf8()), "{input:02X?}");
                    }
                    Err(e) if e.valid_up_to() == 0 => {
                        assert!(matches!(ours, Sequence::Invalid(len, _) if len == e.error_len()), "{input:02X?}")
                    }
                    Err(_) => assert_eq!(ours, Sequence::Valid(a as char, 1)),
                }
            }
        }
    }
}
