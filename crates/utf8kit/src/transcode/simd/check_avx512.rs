//! The block check of the fused AVX-512 kernels (`utf16_fused_avx512`,
//! `utf32_fused_avx512`), which validate UTF-8 as they convert it.
//!
//! A block is checked with the Keiser–Lemire lookup rules of the validator
//! (`validate::simd::lookup`), with one change that the converters' moving
//! start asks for: the bytes one, two and three before each lane are
//! loaded from memory (the input is there, in L1) instead of being shifted
//! in from the previous register, so no state carries from step to step.
//! A flagged lane is at most three bytes after the start of the first
//! invalid sequence (when no earlier lane was flagged), so the exact error
//! is found by the validator's scalar rescan from three bytes before it
//! ([`locate`](crate::validate::locate)).

use crate::validate::simd::Vector;
use crate::validate::simd::lookup::Consts;
use core::arch::x86_64::*;

/// How a fused kernel ended, in two words (returned in registers); units
/// are UTF-16 units or UTF-32 values:
///
/// * `read == src.len()`: all of the input is valid and converted to
///   `written` units;
/// * `written == Fused::INVALID`: the input is invalid; the exact error is
///   [`locate`](crate::validate::locate)`(src, read)`;
/// * else the input is valid up to `read` (a character boundary),
///   converted to `written` units, and the units after them do not fit.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fused {
    pub(crate) read: usize,
    pub(crate) written: usize,
}

impl Fused {
    /// The `written` of an invalid input (no buffer holds that many units).
    pub(crate) const INVALID: usize = usize::MAX;

    /// All `len` bytes converted to `written` units.
    #[inline(always)]
    pub(crate) fn done(len: usize, written: usize) -> Fused {
        Fused { read: len, written }
    }

    /// Invalid; the rescan starts at `at`.
    #[inline(always)]
    pub(crate) fn invalid(at: usize) -> Fused {
        Fused {
            read: at,
            written: Fused::INVALID,
        }
    }

    /// Out of room at `read` (`< len`), `written` units so far.
    #[inline(always)]
    pub(crate) fn full(read: usize, written: usize) -> Fused {
        Fused { read, written }
    }

    /// The units written, if the kernel converted all `len` bytes of its
    /// input (which it then also found valid).
    #[inline(always)]
    pub(crate) fn all_of(self, len: usize) -> Option<usize> {
        (self.read == len && self.written != Fused::INVALID).then_some(self.written)
    }
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
        let must23 = p2
            .saturating_sub(c.third)
            .or_and(p3.saturating_sub(c.fourth), c.high_bit);
        // (prev & cur) ^ must23, one `vpternlogd`.
        let error = _mm512_ternarylogic_epi32::<{ (0xF0 & 0xCC) ^ 0xAA }>(prev, cur, must23);
        _mm512_test_epi8_mask(error, error)
    }
}

/// The error bits of the whole block `v` at `i` (64 bytes of `src`), the bytes before each lane loaded from
/// memory: plain loads, or masked ones for the first 3 bytes of `src`.
///
/// # Safety
///
/// * The CPU has AVX-512F, BW and VBMI.
/// * `i + 64 <= src.len()`.
#[inline(always)]
pub(crate) unsafe fn block_check(c: &Consts<__m512i>, src: &[u8], i: usize, v: __m512i) -> u64 {
    let ptr = src.as_ptr();
    // SAFETY: the caller guarantees the features and `i + 64 <= len`.
    unsafe {
        let (p1, p2, p3) = if i >= 3 {
            // `i - 3 + 64 < len`: the three blocks are readable.
            (
                _mm512_loadu_si512(ptr.add(i - 1).cast()),
                _mm512_loadu_si512(ptr.add(i - 2).cast()),
                _mm512_loadu_si512(ptr.add(i - 3).cast()),
            )
        } else {
            (
                prev_masked(src, i, 1),
                prev_masked(src, i, 2),
                prev_masked(src, i, 3),
            )
        };
        check(c, v, p1, p2, p3)
    }
}

/// Whether a character that starts in the three bytes before `i` ends at
/// or past `i`: a lead `C0..=FF` right before it, `E0..=FF` two before,
/// `F0..=FF` three before. `false` if fewer than four bytes precede `i`
/// (the callers have converted a whole block before it).
///
/// After a `whole_block` of `utf16_fused_avx512` or a mixed block of
/// `utf32_fused_avx512`, whose last character may take bytes of the
/// next block, an all-ASCII next block needs the lookup check only if this
/// holds (it is then invalid: an ASCII byte cuts the character short), as
/// the check of an ASCII block flags nothing else. (In UTF-32 a 4-byte
/// character may end a mixed block; in UTF-16 a `whole_block` has none.)
/// Skipping that check took `sparse` text to UTF-32 at 1 KiB from 1.35 to
/// 1.43 × simdutf (harness, two rounds). To UTF-16, widening such a block right away,
/// where until 2026-11-28 it was checked and converted as a mixed one,
/// took `sparse` text (about half its blocks follow a mixed one) from
/// 0.83–0.91 to 1.09–1.24 × simdutf at 512 B to 2 KiB (a small program),
/// and in the harness from 0.95–0.99 to 1.24–1.35 at 1 KiB and from
/// 1.02–1.06 to 1.65–1.83 at 64 KiB (both byte orders); the Emoji file,
/// where no block is ASCII, went from 1.39–1.51 to 1.32–1.40 and random
/// text lost about 3 % (Intel Xeon with AVX-512 FP16, two rounds each):
/// the loop's code, not its work, changed for them.
#[inline(always)]
pub(crate) fn unfinished_before(src: &[u8], i: usize) -> bool {
    // The four bytes before `i` in one word (no branch per byte).
    let before = i
        .checked_sub(4)
        .and_then(|j| src.get(j..i))
        .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    (before >= 0xC000_0000) | (before & 0x00FF_0000 >= 0x00E0_0000) | (before & 0xFF00 >= 0xF000)
}

/// Where the rescan for the exact error starts, given the first flagged
/// lane `lane` of the block at `i`.
#[inline(always)]
pub(crate) fn failed_at(i: usize, flagged: u64) -> usize {
    (i + flagged.trailing_zeros() as usize).saturating_sub(3)
}

/// The error bits of the block `v` at `i` of which `left` bytes are in
/// `src` (the others zero), the end of input included if `left <= 64`.
///
/// # Safety
///
/// * The CPU has AVX-512F, BW and VBMI.
/// * `i <= src.len()`, `left == src.len() - i`.
#[inline(always)]
pub(crate) unsafe fn tail_check(src: &[u8], i: usize, v: __m512i, left: usize) -> u64 {
    // SAFETY: the caller guarantees the features and `i <= len`.
    unsafe {
        let c = Consts::<__m512i>::new();
        let mut flagged = check(
            &c,
            v,
            prev_masked(src, i, 1),
            prev_masked(src, i, 2),
            prev_masked(src, i, 3),
        );
        if left == 64 {
            // The input ends with the register: no lead may be among the
            // last 1, 2 or 3 bytes that it cannot finish.
            let cut = v.saturating_sub(c.max_at_end);
            flagged |= _mm512_test_epi8_mask(cut, cut);
        }
        flagged
    }
}
