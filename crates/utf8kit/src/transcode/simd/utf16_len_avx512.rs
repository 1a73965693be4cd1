//! AVX-512 output lengths: UTF-16 units for UTF-8 input, UTF-8 bytes for
//! UTF-16 input. Both count with mask registers and `popcnt`.

use super::utf16_avx512::load_units;
use super::{PREFETCH_COUNT_MIN, load_upto64, prefetch_input};
use core::arch::x86_64::*;

/// The number of UTF-16 units `bytes` converts to if valid: one per byte
/// that is not a continuation byte, one more per byte `F0..=FF` (the same
/// formula as the scalar [`utf16_len_from_utf8`](crate::transcode::utf16_len_from_utf8)).
///
/// # Safety
///
/// * The CPU supports the enabled features.
#[target_feature(enable = "avx512f,avx512bw,bmi2,popcnt")]
pub(crate) unsafe fn utf16_len_from_utf8(bytes: &[u8]) -> usize {
    if bytes.len() <= 64 {
        // One block, in a straight line (as the char count).
        let (v, present) = load_upto64(bytes);
        return utf16_len_count(v, present);
    }
    if bytes.len() >= PREFETCH_COUNT_MIN {
        // SAFETY: the caller's contract.
        return unsafe { utf16_len_from_utf8_long(bytes) };
    }
    utf16_len_blocks::<false>(bytes)
}

/// The units of the bytes of `v` in `present`: one per lead, one more
/// per `F0..=FF`.
#[target_feature(enable = "avx512f,avx512bw,popcnt")]
#[inline]
fn utf16_len_count(v: __m512i, present: u64) -> usize {
    // Continuation bytes are -128..=-65 as `i8`.
    let lead = _mm512_mask_cmpgt_epi8_mask(present, v, _mm512_set1_epi8(-65));
    let four = _mm512_mask_cmpge_epu8_mask(present, v, _mm512_set1_epi8(0xF0u8 as i8));
    (lead.count_ones() + four.count_ones()) as usize
}

/// [`utf16_len_from_utf8`] of a long input, asking for it ahead (see
/// [`PREFETCH_COUNT_MIN`]).
///
/// # Safety
///
/// * The CPU supports the enabled features.
#[target_feature(enable = "avx512f,avx512bw,bmi2,popcnt")]
#[inline(never)]
unsafe fn utf16_len_from_utf8_long(bytes: &[u8]) -> usize {
    utf16_len_blocks::<true>(bytes)
}

/// The count of [`utf16_len_from_utf8`], with the prefetch hint if
/// `PREFETCH`.
#[target_feature(enable = "avx512f,avx512bw,bmi2,popcnt")]
#[inline]
fn utf16_len_blocks<const PREFETCH: bool>(bytes: &[u8]) -> usize {
    let (blocks, tail) = bytes.as_chunks::<64>();
    let mut n = 0;
    for block in blocks {
        if PREFETCH {
            prefetch_input(block.as_ptr(), 0);
        }
        // SAFETY: `block` is 64 readable bytes.
        let v = unsafe { _mm512_loadu_si512(block.as_ptr().cast()) };
        n += utf16_len_count(v, u64::MAX);
    }
    let (v, present) = load_upto64(tail);
    n + utf16_len_count(v, present)
}

/// The number of UTF-8 bytes the `len` UTF-16 units at `src`
/// (little-endian, or big-endian if `BE`) convert to, unpaired surrogates
/// counting 3; returns `(len, bytes)` (every unit is counted here).
///
/// Every unit counts 1 + (`>= 80`) + (`>= 800`): 3 for a surrogate, right
/// for an unpaired one; a pair (6) is 2 too many, and is counted at its
/// high unit. In the loop, the low units one on are loaded and tested only
/// where the block has a high surrogate: three compares a block elsewhere
/// instead of four (each on port 5 on Intel). From such a block on,
/// [`paired_run`] takes over while the blocks have pairs: it tests the
/// pair's two tags in one compare (the tags' differences from `D800` and
/// `DC00` merged by a bit select), three compares a block again. The
/// last 1 to 32 units are
/// one masked block, whose pairs are found within it (a high unit in its
/// last lane is unpaired); a pair across its start was counted by the
/// loop's look one unit on.
///
/// Intel Xeon with AVX-512 FP16, 2026-11-27, ÷ simdutf at 1 MiB: the look
/// one unit on only where needed took the lipsum files without surrogates
/// from 0.67 to 1.05–1.13. 2026-11-28: the masked last block, instead of
/// the scalar count for the last 33 to 64 units, took every 1 KiB input
/// from 0.48–0.87 to 0.74–1.21. (Finding the pairs in the loop from the
/// block's own masks, with the high unit of its last lane carried to the
/// next block, saved the second load but measured 3–5 % slower on the
/// inputs with surrogates: the mask arithmetic it adds competes with the
/// compares' `kmov`s.) 2026-11-28, the same Xeon, [`paired_run`], in the
/// harness in the same rounds: Emoji 0.72–0.79 → 0.84–0.90 at 1 KiB to 1
/// MiB, random 0.75–0.82 → 0.85–0.90, the rest unchanged. The same test
/// in every block (no look for a high unit first) was 0.93 on Emoji but
/// 0.90–0.95 on everything else (1.17–1.30 before); its loop inline,
/// instead of out of line and cold, cost the other inputs 2–15 % (the
/// constants left their registers, or the code moved).
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `src` is valid for reads of `2 * len` bytes.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,bmi2,popcnt")]
pub(crate) unsafe fn utf8_len_from_utf16<const BE: bool>(
    src: *const u8,
    len: usize,
) -> (usize, usize) {
    if 2 * len >= PREFETCH_COUNT_MIN {
        // SAFETY: the caller's contract.
        return unsafe { utf8_len_from_utf16_long::<BE>(src, len) };
    }
    // SAFETY: the caller's contract.
    unsafe { utf8_len_units::<BE, false>(src, len) }
}

/// [`utf8_len_from_utf16`] of a long input, asking for it ahead (see
/// [`PREFETCH_COUNT_MIN`]).
///
/// # Safety
///
/// As [`utf8_len_from_utf16`].
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,bmi2,popcnt")]
#[inline(never)]
unsafe fn utf8_len_from_utf16_long<const BE: bool>(src: *const u8, len: usize) -> (usize, usize) {
    // SAFETY: the caller's contract.
    unsafe { utf8_len_units::<BE, true>(src, len) }
}

/// The UTF-8 bytes the units of `v` make past one each: one more per unit
/// `>= 80`, another per unit `>= 800` (3 for every surrogate).
#[target_feature(enable = "avx512f,avx512bw,popcnt")]
#[inline]
fn extra_bytes(v: __m512i) -> usize {
    let wide = _mm512_cmpge_epu16_mask(v, _mm512_set1_epi16(0x80));
    let three = _mm512_cmpge_epu16_mask(v, _mm512_set1_epi16(0x800));
    (wide.count_ones() + three.count_ones()) as usize
}

/// [`extra_bytes`] of `v`, and the units of `v` that start a surrogate
/// pair (`next`: the units one on).
#[target_feature(enable = "avx512f,avx512bw,popcnt")]
#[inline]
fn pair_count(v: __m512i, next: __m512i) -> (usize, u32) {
    // A pair starts at a unit whose top six bits are 110110 (D800)
    // followed by one whose are 110111 (DC00): where
    // `(unit ^ D800) | (next ^ DC00)` has none of the tag bits set.
    let high_apart = _mm512_xor_si512(v, _mm512_set1_epi16(0xD800u16 as i16));
    let apart = _mm512_ternarylogic_epi32::<{ (0xF0 ^ 0xAA) | 0xCC }>(
        next,
        high_apart,
        _mm512_set1_epi16(0xDC00u16 as i16),
    );
    let pairs = _mm512_testn_epi16_mask(apart, _mm512_set1_epi16(0xFC00u16 as i16));
    (extra_bytes(v), pairs)
}

/// The count of [`utf8_len_units`] from unit `i` on, `n` so far, in text
/// with surrogates: two blocks a step, with the pairs' own test, while one
/// of the two has a pair; returns the new `(i, n)`. (Out of line and
/// `#[cold]`, though Emoji text lives here: the hint keeps the caller's
/// constants in registers across its loop, the call being the path that
/// gives them up.)
///
/// # Safety
///
/// As [`utf8_len_from_utf16`].
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,bmi2,popcnt")]
#[cold]
#[inline(never)]
unsafe fn paired_run<const BE: bool, const PREFETCH: bool>(
    src: *const u8,
    len: usize,
    mut i: usize,
    mut n: usize,
) -> (usize, usize) {
    // SAFETY: the loop reads units `at..at + 32` with `at + 32 <= len`.
    let load = |at: usize| unsafe { load_units::<BE>(src.add(2 * at), u32::MAX) };
    // Two blocks and the unit after them.
    while len - i > 64 {
        if PREFETCH {
            prefetch_input(src, 2 * i);
        }
        let (units_a, pairs_a) = pair_count(load(i), load(i + 1));
        let (units_b, pairs_b) = pair_count(load(i + 32), load(i + 33));
        n += units_a + units_b;
        n -= 2 * (pairs_a.count_ones() + pairs_b.count_ones()) as usize;
        i += 64;
        if pairs_a | pairs_b == 0 {
            break;
        }
    }
    (i, n)
}

/// The count of [`utf8_len_from_utf16`], with the prefetch hint if
/// `PREFETCH`.
///
/// # Safety
///
/// As [`utf8_len_from_utf16`].
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,bmi2,popcnt")]
#[inline]
unsafe fn utf8_len_units<const BE: bool, const PREFETCH: bool>(
    src: *const u8,
    len: usize,
) -> (usize, usize) {
    // SAFETY: the loop reads units `at..at + 32` with `at + 32 <= len`.
    let load = |at: usize| unsafe { load_units::<BE>(src.add(2 * at), u32::MAX) };
    let tag_mask = _mm512_set1_epi16(0xFC00u16 as i16);
    let mut i = 0;
    let mut n = len;
    while len - i >= 33 {
        if PREFETCH {
            prefetch_input(src, 2 * i);
        }
        let v = load(i);
        let next = i + 1;
        let high = _mm512_cmpeq_epi16_mask(
            _mm512_and_si512(v, tag_mask),
            _mm512_set1_epi16(0xD800u16 as i16),
        );
        n += extra_bytes(v);
        i += 32;
        if high != 0 {
            let low_next = _mm512_cmpeq_epi16_mask(
                _mm512_and_si512(load(next), tag_mask),
                _mm512_set1_epi16(0xDC00u16 as i16),
            );
            n -= 2 * (high & low_next).count_ones() as usize;
            // SAFETY: the caller's contract.
            (i, n) = unsafe { paired_run::<BE, PREFETCH>(src, len, i, n) };
        }
    }
    if i < len {
        let present = _bzhi_u32(u32::MAX, (len - i) as u32);
        // SAFETY: the mask enables the `len - i <= 32` units left, inside
        // the input.
        let v = unsafe { load_units::<BE>(src.add(2 * i), present) };
        let wide = _mm512_mask_cmpge_epu16_mask(present, v, _mm512_set1_epi16(0x80));
        let three = _mm512_mask_cmpge_epu16_mask(present, v, _mm512_set1_epi16(0x800));
        let tags = _mm512_and_si512(v, tag_mask);
        let high = _mm512_mask_cmpeq_epi16_mask(present, tags, _mm512_set1_epi16(0xD800u16 as i16));
        let low = _mm512_mask_cmpeq_epi16_mask(present, tags, _mm512_set1_epi16(0xDC00u16 as i16));
        n += (wide.count_ones() + three.count_ones()) as usize;
        n -= 2 * (high & (low >> 1)).count_ones() as usize;
    }
    (len, n)
}
