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
const ASCII_BLOCK: usize = 4 * core::mem::size_of::<u64>();

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
            // ASCII. One word tells how long the run is: a short run (a
            // space between words of another script) is stepped over at
            // once, a long one enters the block loop.
            let Some(word) = load_u64(bytes, i) else {
                i += 1;
                continue;
            };
            let high = word & HIGH_BITS;
            if high != 0 {
                i += (high.trailing_zeros() / 8) as usize;
                continue;
            }
            i += 8;
            while i + ASCII_BLOCK <= len {
                let block = &bytes[i..i + ASCII_BLOCK];
                let mut any = 0;
                for word in block.chunks_exact(8) {
                    any |= u64::from_le_bytes(word.try_into().unwrap());
                }
                if any & HIGH_BITS != 0 {
                    break;
                }
                i += ASCII_BLOCK;
            }
            continue;
        }
        // Multi-byte sequence. The length is predictable within a script,
        // so these branches are cheap; each arm checks its bytes with as
        // few comparisons as possible.
        let rest = &bytes[i..];
        match lead {
            0xC2..=0xDF => {
                // Scripts written with 2-byte characters (Cyrillic, Greek,
                // Arabic, Hebrew) come in runs: check four characters per
                // 8-byte word while the run lasts.
                let start = i;
                while let Some(word) = load_u64(bytes, i) {
                    if bad_two_byte_lanes(word) != 0 {
                        break;
                    }
                    i += 8;
                }
                if i != start {
                    continue;
                }
                // A short run: one character at a time.
                if rest.len() < 2 || !is_continuation(rest[1]) {
                    return i;
                }
                i += 2;
            }
            0xE0..=0xEF => {
                if rest.len() < 3 || !second_byte_ok(lead, rest[1]) || !is_continuation(rest[2]) {
                    return i;
                }
                i += 3;
            }
            0xF0..=0xF4 => {
                if rest.len() < 4 || !second_byte_ok(lead, rest[1]) {
                    return i;
                }
                let tail = u16::from_le_bytes([rest[2], rest[3]]);
                if tail & 0xC0C0 != 0x8080 {
                    return i;
                }
                i += 4;
            }
            _ => return i,
        }
    }
    len
}

/// Eight bytes at `i`, if there are eight.
#[inline(always)]
fn load_u64(bytes: &[u8], i: usize) -> Option<u64> {
    let word = bytes.get(i..i + 8)?;
    Some(u64::from_le_bytes(word.try_into().unwrap()))
}

/// Splits `word` (eight bytes, little-endian) into four 16-bit lanes and
/// returns a mask with bit 15 of each lane set when that lane is NOT one
/// 2-byte character (a lead `C2..=DF` followed by a continuation byte).
#[inline(always)]
const fn bad_two_byte_lanes(word: u64) -> u64 {
    const SHAPE_MASK: u64 = 0xC0E0_C0E0_C0E0_C0E0;
    const SHAPE: u64 = 0x80C0_80C0_80C0_80C0;
    const LOW15: u64 = 0x7FFF_7FFF_7FFF_7FFF;
    const TOP: u64 = 0x8000_8000_8000_8000;
    // Lanes whose bits differ from 110xxxxx 10xxxxxx.
    let shape = (word & SHAPE_MASK) ^ SHAPE;
    let bad_shape = (((shape & LOW15) + LOW15) | shape) & TOP;
    // C0 and C1 are the 2-byte leads whose bits 1..=4 are all zero. Adding
    // 0x7FFF to a lane holding at most 0x1E sets its top bit exactly when
    // the lane is not zero, and never carries into the next lane.
    let payload = word & 0x001E_001E_001E_001E;
    let overlong = !(payload + LOW15) & TOP;
    bad_shape | overlong
}

/// For each lead byte, the smallest allowed second byte and the width of the
/// allowed range, so that one subtraction and one comparison check it.
const SECOND_BYTE: [(u8, u8); 256] = {
    let mut table = [(0xFF, 0); 256];
    let mut lead = 0xC2;
    while lead <= 0xF4 {
        let (lo, hi) = second_byte_range(lead as u8);
        table[lead] = (lo, hi - lo);
        lead += 1;
    }
    table
};

/// Whether `second` may follow the lead byte `lead` (a 3- or 4-byte lead).
#[inline(always)]
fn second_byte_ok(lead: u8, second: u8) -> bool {
    let (lo, span) = SECOND_BYTE[lead as usize];
    second.wrapping_sub(lo) <= span
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
