//! One character at a time: the UTF-8 decoding and encoding steps shared by
//! the scalar kernels, and the bounded store they all write through.
//!
//! Every kernel writes with [`put`], which stores only inside the output
//! slice and ignores positions past its end. A kernel therefore keeps
//! counting (and checking the input) when the buffer is full, and returns the
//! exact length the whole output needs; the wrappers turn a length larger than
//! the buffer into [`TranscodeError::BufferTooSmall`](super::TranscodeError).
//! The check costs what a bounds check costs, and no input can make a kernel
//! write out of bounds or panic.

use crate::Utf8ErrorKind;
use crate::validate::scalar::{Sequence, decode_first};

/// The high bit of every byte of a `u64`.
pub(super) const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// Stores `value` at `dst[at]` if that position exists.
#[inline(always)]
pub(super) fn put<T>(dst: &mut [T], at: usize, value: T) {
    if let Some(slot) = dst.get_mut(at) {
        *slot = value;
    }
}

/// Whether `b` is a UTF-8 continuation byte (`80..=BF`).
#[inline(always)]
pub(super) const fn is_continuation(b: u8) -> bool {
    (b as i8) < -64
}

/// Whether `second` may follow the 3- or 4-byte lead `lead`. The exceptions
/// to `80..=BF` exclude overlongs (`E0`, `F0`), surrogates (`ED`) and values
/// above U+10FFFF (`F4`).
#[inline(always)]
const fn second_ok(lead: u8, second: u8) -> bool {
    match lead {
        0xE0 => matches!(second, 0xA0..=0xBF),
        0xED => matches!(second, 0x80..=0x9F),
        0xF0 => matches!(second, 0x90..=0xBF),
        0xF4 => matches!(second, 0x80..=0x8F),
        _ => is_continuation(second),
    }
}

/// Decodes the character at the start of `rest`: its scalar value and its
/// length in bytes, or the `error_len` and class of the invalid sequence there
/// (exactly as [`validate`](crate::validate()) reports them).
///
/// The match is the hot path for well-formed input; everything it does not
/// accept goes to the validator's exact (and cold) classifier, so the two can
/// never disagree about what an error is.
#[inline(always)]
pub(super) fn decode_utf8(rest: &[u8]) -> Result<(u32, usize), (Option<usize>, Utf8ErrorKind)> {
    match *rest {
        [a, ..] if a < 0x80 => Ok((u32::from(a), 1)),
        [a @ 0xC2..=0xDF, b, ..] if is_continuation(b) => {
            Ok(((u32::from(a & 0x1F) << 6) | u32::from(b & 0x3F), 2))
        }
        [a @ 0xE0..=0xEF, b, c, ..] if second_ok(a, b) && is_continuation(c) => Ok((
            (u32::from(a & 0x0F) << 12) | (u32::from(b & 0x3F) << 6) | u32::from(c & 0x3F),
            3,
        )),
        [a @ 0xF0..=0xF4, b, c, d, ..]
            if second_ok(a, b) && is_continuation(c) && is_continuation(d) =>
        {
            Ok((
                (u32::from(a & 0x07) << 18)
                    | (u32::from(b & 0x3F) << 12)
                    | (u32::from(c & 0x3F) << 6)
                    | u32::from(d & 0x3F),
                4,
            ))
        }
        [] => Err((None, Utf8ErrorKind::Incomplete)),
        _ => slow_decode(rest),
    }
}

#[cold]
#[inline(never)]
fn slow_decode(rest: &[u8]) -> Result<(u32, usize), (Option<usize>, Utf8ErrorKind)> {
    match decode_first(rest) {
        Sequence::Valid(c, n) => Ok((u32::from(c), n)),
        Sequence::Invalid(len, kind) => Err((len, kind)),
    }
}

/// Writes the UTF-8 encoding of the scalar value `cp` at `dst[at..]` (as far
/// as it fits) and returns its length. `cp` must be a scalar value; the
/// kernels only call this after checking it, and the `String` wrappers rely
/// on it (see [`super::string_from_kernel`]).
#[inline(always)]
pub(super) fn put_utf8(dst: &mut [u8], at: usize, cp: u32) -> usize {
    debug_assert!(char::from_u32(cp).is_some(), "put_utf8({cp:#X})");
    // The `as u8` casts keep the low bits on purpose: each byte is a
    // marker plus six (or fewer) payload bits, masked first.
    if cp < 0x80 {
        put(dst, at, cp as u8);
        1
    } else if cp < 0x800 {
        put(dst, at, 0xC0 | (cp >> 6) as u8);
        put(dst, at + 1, 0x80 | (cp & 0x3F) as u8);
        2
    } else if cp < 0x1_0000 {
        put(dst, at, 0xE0 | (cp >> 12) as u8);
        put(dst, at + 1, 0x80 | ((cp >> 6) & 0x3F) as u8);
        put(dst, at + 2, 0x80 | (cp & 0x3F) as u8);
        3
    } else {
        put(dst, at, 0xF0 | (cp >> 18) as u8);
        put(dst, at + 1, 0x80 | ((cp >> 12) & 0x3F) as u8);
        put(dst, at + 2, 0x80 | ((cp >> 6) & 0x3F) as u8);
        put(dst, at + 3, 0x80 | (cp & 0x3F) as u8);
        4
    }
}

/// Writes U+FFFD REPLACEMENT CHARACTER at `dst[at..]` and returns 3.
#[inline(always)]
pub(super) fn put_replacement(dst: &mut [u8], at: usize) -> usize {
    put(dst, at, 0xEF);
    put(dst, at + 1, 0xBF);
    put(dst, at + 2, 0xBD);
    3
}

/// Copies the ASCII bytes at the start of `src` to the start of `dst`,
/// widened by `unit`, eight at most and only when both have room for eight
/// (else none); returns how many. Eight means the whole word was ASCII; fewer
/// means `src[returned]` is the first non-ASCII byte, or there was no room.
/// The scalar UTF-8 decoders' fast path.
#[inline(always)]
pub(super) fn copy_ascii_word<T>(src: &[u8], dst: &mut [T], unit: impl Fn(u8) -> T) -> usize {
    let (Some(word), Some(out)) = (src.first_chunk::<8>(), dst.first_chunk_mut::<8>()) else {
        return 0;
    };
    let w = u64::from_le_bytes(*word);
    let ascii = if w & HIGH_BITS == 0 {
        8
    } else {
        ascii_prefix(w)
    };
    for (d, &s) in out.iter_mut().zip(word).take(ascii) {
        *d = unit(s);
    }
    ascii
}

/// The number of leading ASCII bytes of a little-endian word that is not all
/// ASCII.
#[inline(always)]
const fn ascii_prefix(word_le: u64) -> usize {
    ((word_le & HIGH_BITS).trailing_zeros() / 8) as usize
}
