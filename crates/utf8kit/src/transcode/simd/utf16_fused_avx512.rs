//! AVX-512 UTF-8 → UTF-16 that validates and converts in one pass.
//!
//! The loop is the converter's ([`utf16_avx512::block`]): 64 bytes per
//! step, each step starting where the previous one stopped (before its
//! last lead byte, so the start moves by 61 to 64 bytes). Before a block is
//! converted it is checked with the Keiser–Lemire lookup rules of the
//! validator (`validate::simd::lookup`), with one change that the moving
//! start asks for: the bytes one, two and three before each lane are
//! loaded from memory (the input is there, in L1) instead of being shifted
//! in from the previous register, so no state carries from step to step.
//!
//! * An all-ASCII block is widened and stored without any check: every
//!   byte before it was checked with the step before it (whose lanes reach
//!   at least to this block's first byte), and a sequence cut short by an
//!   ASCII byte is flagged at that byte, which was one of those lanes.
//! * Any other block gets the full check of all 64 lanes before it is
//!   converted. A flagged lane is at most three bytes after the start of
//!   the first invalid sequence (no earlier lane was flagged), so the exact
//!   error is found by the validator's scalar rescan from three bytes
//!   before it ([`locate`](crate::validate::locate)).
//! * The last step loads the rest of the input with a masked load: lanes
//!   after the end read as zero, which checks like ASCII, so a sequence cut
//!   short by the end is flagged there; only when the input ends with the
//!   register's last lane is the end checked on its own (`max_at_end`).
//!
//! Blocks are converted only after they passed, so the converter only
//! ever sees valid UTF-8. When a block's units do not fit, the kernel
//! stops at that block (a character boundary, everything before it valid)
//! and the caller finishes: the rest must still be checked (an invalid
//! input is `Invalid` even when the buffer is too small) and counted.

use super::Progress;
use super::utf16_avx512::{ROOM16, block};
use crate::validate::simd::Vector;
use crate::validate::simd::lookup::Consts;
use core::arch::x86_64::*;

/// How the fused kernel ended.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Fused {
    /// All of the input is valid and converted: this many units written.
    Done(usize),
    /// The input is invalid; the exact error is
    /// [`locate`](crate::validate::locate)`(src, at)`.
    Invalid(usize),
    /// The input is valid up to `read` (a character boundary), converted to
    /// `written` units; the next block's units do not fit.
    Full(Progress),
}

/// The bytes `k` lanes before each lane of the block at `i`, the lanes
/// before the start of `src` or from `len` on zero.
///
/// # Safety
///
/// * The CPU has AVX-512F and BW.
/// * `i <= src.len()`, `1 <= k <= 3`.
#[inline(always)]
unsafe fn prev_masked(src: &[u8], i: usize, k: usize) -> __m512i {
    let len = src.len();
    let end = len - i + k;
    let upto = if end >= 64 { u64::MAX } else { (1 << end) - 1 };
    let lanes = upto & (u64::MAX << k.saturating_sub(i));
    let at = src.as_ptr().wrapping_add(i).wrapping_sub(k);
    // SAFETY: lane `j` of `lanes` reads byte `i + j - k` of `src`, which
    // the mask keeps to `0..len`; masked-off lanes are neither read nor
    // able to fault (their addresses, possibly before `src`, are never
    // accessed). The caller guarantees the features.
    unsafe { _mm512_maskz_loadu_epi8(lanes, at.cast()) }
}

/// The error bits of block `v` given the bytes one, two and three lanes
/// before each lane (`p1`, `p2`, `p3`): the lookup rules of
/// `validate::simd::lookup`, `classes ^ must23`.
///
/// # Safety
///
/// * The CPU has AVX-512F, BW and VBMI.
#[inline(always)]
unsafe fn check(c: &Consts<__m512i>, v: __m512i, p1: __m512i, p2: __m512i, p3: __m512i) -> u64 {
    // SAFETY: the caller guarantees the features.
    unsafe {
        let prev = p1.lookup_prev(c.prev_high, c.prev_low);
        let cur = v.lookup_high_nibble(c.cur_high);
        // must23: bit 7 where the byte two back is >= E0 or the byte three
        // back >= F0 (a continuation byte is required there).
        let must23 = p2.saturating_sub(c.third).or_and(p3.saturating_sub(c.fourth), c.high_bit);
        // (prev & cur) ^ must23, one `vpternlogd`.
        let error = _mm512_ternarylogic_epi32::<{ (0xF0 & 0xCC) ^ 0xAA }>(prev, cur, must23);
        _mm512_test_epi8_mask(error, error)
    }
}

/// Where the rescan for the exact error starts, given the first flagged
/// lane `lane` of the block at `i`.
#[inline(always)]
fn failed_at(i: usize, flagged: u64) -> usize {
    (i + flagged.trailing_zeros() as usize).saturating_sub(3)
}

/// Validates UTF-8 `src` and converts it to UTF-16 (little-endian bytes,
/// or big-endian if `BE`) at `dst`, in one pass; see the module docs.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `2 * cap` bytes (`cap` units).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
pub(crate) unsafe fn utf8_to_utf16<const BE: bool>(src: &[u8], dst: *mut u8, cap: usize) -> Fused {
    let len = src.len();
    let ptr = src.as_ptr();
    // SAFETY: the features are enabled.
    let c = unsafe { Consts::<__m512i>::new() };
    let mut i = 0;
    let mut o = 0;
    // Invariants: `i <= len`, `o <= cap`, `src[..i]` is valid and
    // converted to `o` units, and every lane of the blocks checked so far
    // passed.
    while len - i > 64 && cap - o >= ROOM16 {
        // SAFETY: `i + 64 < len`: the block is readable.
        let v = unsafe { _mm512_loadu_si512(ptr.add(i).cast()) };
        if _mm512_movepi8_mask(v) != 0 {
            let (p1, p2, p3) = if i >= 3 {
                // SAFETY: `i - 3 + 64 < len`: the three blocks are readable.
                unsafe {
                    (
                        _mm512_loadu_si512(ptr.add(i - 1).cast()),
                        _mm512_loadu_si512(ptr.add(i - 2).cast()),
                        _mm512_loadu_si512(ptr.add(i - 3).cast()),
                    )
                }
            } else {
                // SAFETY: `i <= len`; the features are enabled.
                unsafe {
                    (
                        prev_masked(src, i, 1),
                        prev_masked(src, i, 2),
                        prev_masked(src, i, 3),
                    )
                }
            };
            // SAFETY: the features are enabled.
            let flagged = unsafe { check(&c, v, p1, p2, p3) };
            if flagged != 0 {
                return Fused::Invalid(failed_at(i, flagged));
            }
        }
        // SAFETY: `o + ROOM16 <= cap`: `2 * ROOM16` bytes at `dst + 2 * o`
        // are writable, which covers every store of a plain step.
        match unsafe { block::<BE, false>(v, u64::MAX, false, dst.add(2 * o), ROOM16) } {
            Some((read, written)) => {
                i += read;
                o += written;
            }
            // Only for lack of room (the block is valid, so it has a lead
            // after its first byte): the masked steps decide.
            None => break,
        }
    }
    while i < len {
        let left = len - i;
        let last = left <= 64;
        let lanes = if last {
            _bzhi_u64(u64::MAX, left as u32)
        } else {
            u64::MAX
        };
        // SAFETY: `lanes` enables only the `min(left, 64)` bytes from `i`,
        // which are inside `src`; masked-off lanes are not read.
        let v = unsafe { _mm512_maskz_loadu_epi8(lanes, ptr.add(i).cast()) };
        if _mm512_movepi8_mask(v) != 0 {
            // SAFETY: `i < len`; the features are enabled.
            let mut flagged = unsafe {
                check(
                    &c,
                    v,
                    prev_masked(src, i, 1),
                    prev_masked(src, i, 2),
                    prev_masked(src, i, 3),
                )
            };
            if left == 64 {
                // The input ends with the register: no lead may be among
                // the last 1, 2 or 3 bytes that it cannot finish.
                // SAFETY: the features are enabled.
                let cut = unsafe { v.saturating_sub(c.max_at_end) };
                flagged |= _mm512_test_epi8_mask(cut, cut);
            }
            if flagged != 0 {
                return Fused::Invalid(failed_at(i, flagged));
            }
        }
        // SAFETY: `o <= cap`: `2 * (cap - o)` bytes at `dst + 2 * o` are
        // writable, and a masked step writes at most that many.
        match unsafe { block::<BE, true>(v, lanes, last, dst.add(2 * o), cap - o) } {
            Some((read, written)) => {
                i += read;
                o += written;
            }
            None => {
                return Fused::Full(Progress {
                    read: i,
                    written: o,
                });
            }
        }
    }
    Fused::Done(o)
}
