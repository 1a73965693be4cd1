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

/// Length of the UTF-8 sequence a byte starts: 1 for ASCII, 2–4 for valid
/// leads, 0 for bytes that can never start a character (`80..=C1`, `F5..=FF`).
///
/// ```
/// assert_eq!(utf8kit::sequence_len(b'a'), 1);
/// assert_eq!(utf8kit::sequence_len(0xE4), 3); // 世 is E4 B8 96
/// assert_eq!(utf8kit::sequence_len(0x80), 0); // a continuation byte
/// ```
#[inline(always)]
pub const fn sequence_len(lead: u8) -> usize {
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
pub(crate) fn validate(bytes: &[u8]) -> Result<(), Utf8Error> {
    match valid_prefix_len(bytes) {
        n if n == bytes.len() => Ok(()),
        n => Err(error_at(bytes, n)),
    }
}

/// The length of the longest valid prefix that ends where the first invalid
/// sequence starts (`bytes.len()` when all of it is valid).
///
/// ```text
/// i = 0
/// while i < len:
///   for each 8-byte word from i, at a fixed stride:
///     all ASCII:                     skip it, then 32 bytes per step while ASCII
///     only ASCII, continuation bytes and 2-byte leads, each continuation
///     right after a lead (the last lead's continuation may open the next
///     word), no C0/C1:               skip it
///     otherwise: step over its valid ASCII/2-byte prefix and stop
///   one character the careful way; after a 3- or 4-byte character keep
///   going while the next lead has the same length (CJK, emoji)
///   on a bad sequence: return i
/// ```
///
/// Why this shape: text in one script repeats the same sequence lengths.
/// Latin is all-ASCII words; Cyrillic, Greek, Arabic and Hebrew mix 2-byte
/// letters with ASCII spaces and punctuation, which the word loop checks
/// eight bytes at a time with no branch that depends on where characters
/// start (the stride is fixed, only a one-bit carry links two words); CJK
/// and emoji are runs of 3- and 4-byte characters whose branches the CPU
/// predicts well.
#[inline]
pub(crate) fn valid_prefix_len(bytes: &[u8]) -> usize {
    let len = bytes.len();
    let mut i = 0;
    while i < len {
        // `carry` is 0x80 when the previous word ended with a 2-byte lead,
        // whose continuation byte is then the first byte of this word.
        let mut carry = 0;
        while let Some(word) = load_u64(bytes, i) {
            if word & HIGH_BITS == 0 && carry == 0 {
                i = skip_ascii_blocks(bytes, i + 8);
                continue;
            }
            let class = Classes::of(word);
            let bad = (class.cont ^ ((class.lead2 << 8) | carry)) | class.overlong | class.long;
            if bad != 0 {
                if carry != 0 {
                    // Back to the lead at the end of the previous word; the
                    // careful path below takes it.
                    i -= 1;
                    carry = 0;
                } else {
                    i += class.valid_prefix();
                }
                break;
            }
            carry = (class.lead2 >> 56) & 0x80;
            i += 8;
        }
        if carry != 0 {
            // Out of whole words right after a lead.
            i -= 1;
        }
        // One character the careful way.
        let Some(&lead) = bytes.get(i) else { break };
        let rest = &bytes[i..];
        match lead {
            0x00..=0x7F => i += 1,
            0xC2..=0xDF => {
                if rest.len() < 2 || !is_continuation(rest[1]) {
                    return i;
                }
                i += 2;
            }
            0xE0..=0xEF => loop {
                // Runs of 3-byte characters (CJK, Indic scripts, Hangul),
                // possibly with one or two ASCII bytes between words: per
                // 8-byte word, two characters, or one and its ASCII bytes.
                while let Some(word) = load_u64(bytes, i) {
                    let [lead0, second0, _, lead1, second1, ..] = word.to_le_bytes();
                    if word & 0x00C0_C0F0 != 0x0080_80E0 || !second_byte_ok(lead0, second0) {
                        break;
                    }
                    if word & 0xC0C0_F000_0000 == 0x8080_E000_0000 && second_byte_ok(lead1, second1)
                    {
                        i += 6;
                    } else if lead1 < 0x80 {
                        // One ASCII byte, or two (", " and ". ").
                        i += 4 + (second1 < 0x80) as usize;
                    } else {
                        i += 3;
                        break;
                    }
                }
                if !matches!(bytes.get(i), Some(0xE0..=0xEF)) {
                    break;
                }
                let rest = &bytes[i..];
                if rest.len() < 3 || !second_byte_ok(rest[0], rest[1]) || !is_continuation(rest[2])
                {
                    return i;
                }
                i += 3;
                match bytes.get(i) {
                    Some(0xE0..=0xEF) => {}
                    // A single space or mark between words.
                    Some(0x00..=0x7F) if matches!(bytes.get(i + 1), Some(0xE0..=0xEF)) => i += 1,
                    _ => break,
                }
            },
            0xF0..=0xF4 => loop {
                let rest = &bytes[i..];
                if rest.len() < 4 || !second_byte_ok(rest[0], rest[1]) {
                    return i;
                }
                let tail = u16::from_le_bytes([rest[2], rest[3]]);
                if tail & 0xC0C0 != 0x8080 {
                    return i;
                }
                i += 4;
                if !matches!(bytes.get(i), Some(0xF0..=0xF4)) {
                    break;
                }
            },
            _ => return i,
        }
    }
    len
}

/// Skips 32-byte blocks of ASCII starting at `i`; returns where the first
/// block with a high bit (or the tail) begins.
#[inline(always)]
fn skip_ascii_blocks(bytes: &[u8], mut i: usize) -> usize {
    while let Some(block) = bytes.get(i..i + ASCII_BLOCK) {
        let mut any = 0;
        for word in block.chunks_exact(8) {
            any |= u64::from_le_bytes(word.try_into().unwrap());
        }
        if any & HIGH_BITS != 0 {
            break;
        }
        i += ASCII_BLOCK;
    }
    i
}

/// The eight bytes of a word classified by their top three bits, each
/// class a mask with bit 7 of every member byte set: continuation
/// `10xxxxxx`, 2-byte lead `110xxxxx`, and "long" `111xxxxx` (3- and 4-byte
/// leads, and bytes never valid); ASCII `0xxxxxxx` is what is left.
struct Classes {
    cont: u64,
    lead2: u64,
    long: u64,
    /// 2-byte leads `C0`/`C1`, which could only encode ASCII.
    overlong: u64,
}

impl Classes {
    #[inline(always)]
    const fn of(word: u64) -> Classes {
        const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
        let bit7 = word & HIGH_BITS;
        let bit6 = (word << 1) & HIGH_BITS;
        let bit5 = (word << 2) & HIGH_BITS;
        let lead2 = bit7 & bit6 & !bit5;
        // `C0`/`C1` are the 2-byte leads with bits 1..=4 clear. Adding 0x7F
        // to a byte holding at most 0x1E sets its top bit exactly when it is
        // not zero, and never carries into the next byte.
        let overlong = lead2 & !((word & 0x1E1E_1E1E_1E1E_1E1E) + LOW7);
        Classes {
            cont: bit7 & !bit6,
            lead2,
            long: bit7 & bit6 & bit5,
            overlong,
        }
    }

    /// How many bytes at the start of the word (which starts at a character
    /// boundary) are complete, valid ASCII and 2-byte characters, stopping
    /// before the first long byte or error; 0 lets the careful path decide.
    #[inline(always)]
    const fn valid_prefix(&self) -> usize {
        // Bytes before the first long byte (8 if none).
        let limit = self.long.trailing_zeros() / 8;
        // Check those bytes and the one after them: a 2-byte lead right
        // before a long byte shows up as a missing continuation there.
        let region = u64::MAX >> 56u32.saturating_sub(8 * limit);
        let bad = ((self.cont ^ (self.lead2 << 8)) | self.overlong) & region;
        if bad != 0 {
            0
        } else if limit == 8 {
            // A lead in the last byte has its continuation in the next word.
            8 - (self.lead2 >> 63) as usize
        } else {
            limit as usize
        }
    }
}

/// Eight bytes at `i`, if there are eight.
#[inline(always)]
fn load_u64(bytes: &[u8], i: usize) -> Option<u64> {
    let word = bytes.get(i..i + 8)?;
    Some(u64::from_le_bytes(word.try_into().unwrap()))
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
#[inline]
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
    match bytes
        .get(at..)
        .filter(|rest| !rest.is_empty())
        .map(decode_first)
    {
        Some(Sequence::Invalid(len, kind)) => Utf8Error::new(at, len, kind),
        _ => unreachable_valid(at),
    }
}

/// The first error of `bytes` at or after `start`, with offsets into
/// `bytes`. `start` must be a character boundary of a valid prefix, and
/// `bytes[start..]` must hold an error; SIMD kernels use this to resolve an
/// error found somewhere after `start`.
#[cold]
#[inline(never)]
pub(crate) fn first_error_from(bytes: &[u8], start: usize) -> Utf8Error {
    let rest = bytes.get(start..).unwrap_or_default();
    error_at(bytes, start + valid_prefix_len(rest))
}

/// Validates `bytes[start..]` one sequence at a time, reporting errors
/// with offsets into `bytes`: for an error known to be a few bytes after
/// `start` (a character boundary of a valid prefix), where the word loop of
/// [`valid_prefix_len`] would cost more than it saves. The SIMD kernels'
/// per-block check resolves errors with this.
#[inline(never)]
pub(crate) fn validate_near(bytes: &[u8], start: usize) -> Result<(), Utf8Error> {
    match first_invalid_near(bytes, start) {
        Some((at, len, kind)) => Err(Utf8Error::new(at, len, kind)),
        None => Ok(()),
    }
}

/// The loop of [`validate_near`], inline (the SIMD lossy loop resolves its
/// errors with it without leaving the kernel): the first invalid sequence
/// at or after `start` as its offset into `bytes`, `error_len` and class,
/// or `None` if there is none.
#[inline(always)]
pub(crate) fn first_invalid_near(
    bytes: &[u8],
    start: usize,
) -> Option<(usize, Option<usize>, Utf8ErrorKind)> {
    let mut i = start;
    while let Some(rest) = bytes.get(i..).filter(|r| !r.is_empty()) {
        if rest[0] < 0x80 {
            i += 1;
            continue;
        }
        match decode_first(rest) {
            Sequence::Valid(_, n) => i += n,
            Sequence::Invalid(len, kind) => return Some((i, len, kind)),
        }
    }
    None
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

    /// The offset and length of the first invalid sequence, by std.
    fn std_span(input: &[u8]) -> Option<(usize, Option<usize>)> {
        core::str::from_utf8(input)
            .err()
            .map(|e| (e.valid_up_to(), e.error_len()))
    }

    /// The same by [`first_invalid_near`] from `start` (what the SIMD lossy
    /// loop resolves its errors with).
    fn near_span(bytes: &[u8], start: usize) -> Option<(usize, Option<usize>)> {
        first_invalid_near(bytes, start).map(|(at, len, _)| (at, len))
    }

    #[test]
    fn first_invalid_near_agrees_with_std_on_every_input_up_to_three_bytes() {
        assert_eq!(near_span(b"", 0), None);
        for a in 0..=255u8 {
            assert_eq!(near_span(&[a], 0), std_span(&[a]), "{a:02X}");
            for b in 0..=255u8 {
                let two = [a, b];
                assert_eq!(near_span(&two, 0), std_span(&two), "{two:02X?}");
                for c in 0..=255u8 {
                    let three = [a, b, c];
                    assert_eq!(near_span(&three, 0), std_span(&three), "{three:02X?}");
                }
            }
        }
    }

    #[test]
    fn first_invalid_near_agrees_with_std_on_four_byte_leads() {
        // Every second and third byte, the fourth from the bytes where the
        // grammar changes; after ASCII and a 2-byte character, from `start`
        // on both.
        let edges = [
            0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xE0, 0xF0, 0xF4,
            0xF5, 0xFF,
        ];
        for lead in 0xF0..=0xF7u8 {
            for b in 0..=255u8 {
                for c in 0..=255u8 {
                    for d in edges {
                        for prefix in [&b""[..], b"a", b"\xC3\xA9"] {
                            let mut v = prefix.to_vec();
                            v.extend([lead, b, c, d]);
                            let want = std_span(&v);
                            assert_eq!(near_span(&v, 0), want, "{v:02X?}");
                            assert_eq!(near_span(&v, prefix.len()), want, "{v:02X?}");
                        }
                    }
                }
            }
        }
    }

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
                        assert!(
                            matches!(ours, Sequence::Invalid(len, _) if len == e.error_len()),
                            "{input:02X?}"
                        )
                    }
                    Err(_) => assert_eq!(ours, Sequence::Valid(a as char, 1)),
                }
            }
        }
    }
}
