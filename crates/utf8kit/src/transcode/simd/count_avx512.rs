//! AVX-512 character counts (F and BW): the characters of UTF-8 and the
//! UTF-8 length of UTF-32.
//!
//! # Characters of UTF-8
//!
//! A byte starts a character unless it is a continuation byte, which as an
//! `i8` is `-128..=-65`: one compare against `-65` per 64 bytes gives a
//! mask of the lead bytes, and `popcnt` counts it. The last 1..=63 bytes
//! are read with a masked load and counted under the same mask.
//!
//! Per 64 bytes that is a compare into a mask register (port 5 on Intel),
//! a `kmovq` and a `popcnt`, each on a port of its own.
//!
//! # Tried and dropped
//!
//! Counting into byte counters (four registers, `vpsubb` of the lead mask,
//! `vpsadbw` every 63 steps), which this kernel used past 2 KiB until
//! 2026-11-27. LLVM turns the masked subtraction back into a vector
//! (`vpmovm2b`, port 5 again) and a `vpsubb`, so the compare and that
//! conversion share one port: on an Intel Xeon with AVX-512 FP16, 72–73 GB/s
//! at 64 KiB and 1 MiB, against 151–171 for the `popcnt` loop (and
//! `bytecount` 110–114, simdutf 85–89). It was the faster one on Zen 4 past
//! a few KiB, where the `popcnt` loop had been measured only up to 2 KiB.

use super::{PREFETCH_COUNT_MIN, load_upto64, prefetch_input};
use core::arch::x86_64::*;

/// The lead bytes (not `80..=BF`) among the lanes of `v` in `present`.
#[target_feature(enable = "avx512f,avx512bw,popcnt")]
#[inline]
fn leads(v: __m512i, present: u64) -> usize {
    _mm512_mask_cmpgt_epi8_mask(present, v, _mm512_set1_epi8(-65)).count_ones() as usize
}

/// The number of bytes of `bytes` that are not continuation bytes
/// (`80..=BF`): the number of characters of valid UTF-8. The lead mask of
/// each 64 bytes (the last ones masked to the bytes present), counted by
/// `popcnt`.
///
/// # Safety
///
/// * The CPU supports the enabled features.
#[target_feature(enable = "avx512f,avx512bw,bmi2,popcnt")]
pub(crate) unsafe fn count_chars(bytes: &[u8]) -> usize {
    if bytes.len() <= 64 {
        // One block, in a straight line (the loops' set-up and tests took
        // 64 bytes 1.8 times as long, 16 bytes 1.4 times, in a small
        // program on an Intel Xeon with AVX-512 FP16, 2026-11-28).
        let (v, present) = load_upto64(bytes);
        return leads(v, present);
    }
    if bytes.len() >= PREFETCH_COUNT_MIN {
        // SAFETY: the caller's contract.
        return unsafe { count_chars_long(bytes) };
    }
    count_chars_blocks::<false>(bytes)
}

/// [`count_chars`] of a long input, asking for it ahead (see
/// [`PREFETCH_COUNT_MIN`]).
///
/// # Safety
///
/// * The CPU supports the enabled features.
#[target_feature(enable = "avx512f,avx512bw,bmi2,popcnt")]
#[inline(never)]
unsafe fn count_chars_long(bytes: &[u8]) -> usize {
    count_chars_blocks::<true>(bytes)
}

/// The count of [`count_chars`], with the prefetch hint if `PREFETCH`.
#[target_feature(enable = "avx512f,avx512bw,bmi2,popcnt")]
#[inline]
fn count_chars_blocks<const PREFETCH: bool>(bytes: &[u8]) -> usize {
    let (blocks, tail) = bytes.as_chunks::<64>();
    let mut n = 0;
    for block in blocks {
        if PREFETCH {
            prefetch_input(block.as_ptr(), 0);
        }
        // SAFETY: `block` is 64 readable bytes.
        let v = unsafe { _mm512_loadu_si512(block.as_ptr().cast()) };
        n += leads(v, u64::MAX);
    }
    if !tail.is_empty() {
        let (v, present) = load_upto64(tail);
        n += leads(v, present);
    }
    n
}

/// Adds 1 to each 32-bit lane of `acc` whose bit is set in `k`.
#[target_feature(enable = "avx512f")]
#[inline]
fn add_where(acc: __m512i, k: u16) -> __m512i {
    _mm512_mask_sub_epi32(acc, k, acc, _mm512_set1_epi32(-1))
}

/// How many of the lanes of `v` (enabled in `present`) need more than 1,
/// 2 and 3 bytes in UTF-8, each adding 1 to its lane of `acc`: a lane
/// `>= 80`, `>= 800`, and `10000..=10FFFF` (surrogates and values above
/// `10FFFF` count 3, the length of U+FFFD).
#[target_feature(enable = "avx512f")]
#[inline]
fn add_extra(acc: __m512i, v: __m512i, present: u16) -> __m512i {
    let two = _mm512_mask_cmpge_epu32_mask(present, v, _mm512_set1_epi32(0x80));
    let three = _mm512_mask_cmpge_epu32_mask(present, v, _mm512_set1_epi32(0x800));
    let four = _mm512_mask_cmplt_epu32_mask(
        present,
        _mm512_sub_epi32(v, _mm512_set1_epi32(0x1_0000)),
        _mm512_set1_epi32(0x10_0000),
    );
    add_where(add_where(add_where(acc, two), three), four)
}

/// Steps between two flushes of the 32-bit counters of
/// [`utf8_len_from_utf32`] (each gains at most 3 a step).
const FLUSH32: usize = 1 << 24;

/// The number of UTF-8 bytes `units` convert to, each value that is not a
/// scalar value counting 3 (U+FFFD), as the scalar
/// [`utf8_len_from_utf32`](crate::transcode::utf8_len_from_utf32).
///
/// # Safety
///
/// * The CPU supports the enabled features.
#[target_feature(enable = "avx512f,avx512bw")]
pub(crate) unsafe fn utf8_len_from_utf32(units: &[u32]) -> usize {
    if 4 * units.len() >= PREFETCH_COUNT_MIN {
        // SAFETY: the caller's contract.
        return unsafe { utf8_len_from_utf32_long(units) };
    }
    utf8_len_utf32_blocks::<false>(units)
}

/// [`utf8_len_from_utf32`] of a long input, asking for it ahead (see
/// [`PREFETCH_COUNT_MIN`]).
///
/// # Safety
///
/// * The CPU supports the enabled features.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline(never)]
unsafe fn utf8_len_from_utf32_long(units: &[u32]) -> usize {
    utf8_len_utf32_blocks::<true>(units)
}

/// The count of [`utf8_len_from_utf32`], with the prefetch hint (one per
/// 64-byte line) if `PREFETCH`.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn utf8_len_utf32_blocks<const PREFETCH: bool>(units: &[u32]) -> usize {
    let (blocks, tail) = units.as_chunks::<64>();
    let mut n = units.len();
    let sum = |v: __m512i| _mm512_reduce_add_epi32(v) as u32 as usize;
    for group in blocks.chunks(FLUSH32) {
        let zero = _mm512_setzero_si512();
        let (mut c0, mut c1, mut c2, mut c3) = (zero, zero, zero, zero);
        for block in group {
            let p = block.as_ptr();
            if PREFETCH {
                for line in 0..4 {
                    prefetch_input(p.cast(), 64 * line);
                }
            }
            // SAFETY: `block` is 64 readable values.
            let (v0, v1, v2, v3) = unsafe {
                (
                    _mm512_loadu_si512(p.cast()),
                    _mm512_loadu_si512(p.add(16).cast()),
                    _mm512_loadu_si512(p.add(32).cast()),
                    _mm512_loadu_si512(p.add(48).cast()),
                )
            };
            c0 = add_extra(c0, v0, u16::MAX);
            c1 = add_extra(c1, v1, u16::MAX);
            c2 = add_extra(c2, v2, u16::MAX);
            c3 = add_extra(c3, v3, u16::MAX);
        }
        // Each lane is at most 3 * 2^24, a counter's sum at most 3 * 2^28.
        n += sum(c0) + sum(c1) + sum(c2) + sum(c3);
    }
    let mut acc = _mm512_setzero_si512();
    for part in tail.chunks(16) {
        let present = !(u32::MAX << part.len()) as u16;
        // SAFETY: the mask enables the `part.len() <= 16` readable values
        // only; masked-off lanes are not read and cannot fault.
        let v = unsafe { _mm512_maskz_loadu_epi32(present, part.as_ptr().cast()) };
        acc = add_extra(acc, v, present);
    }
    n + sum(acc)
}
