//! AVX-512 UTF-8 → UTF-32 that validates and converts in one pass.
//!
//! 64 bytes per step, always moving on by 64. A block is checked
//! ([`check_avx512`](super::check_avx512)) unless it is all ASCII and no
//! character of the block before reaches into it, then converted by the
//! valid kernel's steps: an ASCII block is widened, any other one converts
//! the characters whose leads lie in it ([`mixed_block`]), reading the
//! bytes of a last character that ends past the block from memory. The
//! next block then starts inside that character (its continuation bytes
//! are not leads and make no value) and is checked even if it is all
//! ASCII ([`unfinished_before`]): a character cut short is flagged at the
//! byte after it.
//!
//! One pass rather than the two of the other transcoders (validate a
//! chunk, then convert it) because text that mixes ASCII blocks with other
//! blocks at random (English with typographic quotes, say) mispredicts
//! the block's kind once per pass: on an Intel Xeon with AVX-512 FP16
//! (2026-11-27, 64 KiB of "sparse fresh", ÷ simdutf) the two passes ran at
//! 0.79 and this kernel at 1.33–1.34.
//!
//! The loop runs while 67 bytes are left (a block and the 3 bytes after
//! it that its last character may take) and 64 values fit; the steps
//! after it load the block with a masked load (lanes past the end read as
//! zero, which checks like ASCII, so a sequence cut short by the end is
//! flagged there) and store only the values that fit. Blocks are
//! converted only after they passed the check, so the converter only ever
//! sees valid UTF-8, except for the last character of a block, whose bytes
//! past the block the next step checks (and any error there discards the
//! output).

use super::check_avx512::{Fused, block_check, failed_at, tail_check, unfinished_before};
use super::utf32_avx512::{mixed_block, widen_ascii};
use super::{prefetch_input, prefetch_output};
use crate::validate::simd::lookup::Consts;
use core::arch::x86_64::*;

/// Input left from which the unmasked loop runs: a block and the 3 bytes
/// after it.
const AHEAD_MIN: usize = 64 + 3;

/// Validates UTF-8 `src` and converts it to UTF-32 at `dst`, in one pass,
/// from `from` on (`src[..from]` is ASCII, already widened to `from`
/// values); see the module docs.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `cap` values.
/// * `from <= src.len()`, `from <= cap`, and `from` is a character boundary
///   of `src` (ASCII before it).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
#[inline(never)]
pub(crate) unsafe fn utf8_to_utf32(src: &[u8], dst: *mut u32, cap: usize, from: usize) -> Fused {
    // SAFETY: as this function's contract.
    unsafe {
        if src.len() >= PREFETCH_MIN {
            fused::<true>(src, dst, cap, from)
        } else {
            fused::<false>(src, dst, cap, from)
        }
    }
}

/// Inputs at least this long (their output, up to 1 MiB and more, about to
/// leave L2) ask for the output's cache lines ahead of the stores
/// ([`prefetch_output`]), 4 lines (a block's 64 values at most) a block.
/// On an Intel Xeon with AVX-512 FP16 (2026-11-27, ÷ simdutf) that took
/// the lipsum files and the generated inputs from a geomean of 2.11–2.14
/// to 2.18–2.37 at 1 MiB and from 1.15–1.17 to 1.38–1.48 at 64 MiB; at 64
/// KiB (output in L2) it cost 0.06.
const PREFETCH_MIN: usize = 256 << 10;

/// [`utf8_to_utf32`], asking for the output's lines ahead if `PREFETCH`.
///
/// # Safety
///
/// * As [`utf8_to_utf32`].
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
#[inline]
unsafe fn fused<const PREFETCH: bool>(src: &[u8], dst: *mut u32, cap: usize, from: usize) -> Fused {
    let len = src.len();
    let ptr = src.as_ptr();
    // SAFETY: the features are enabled.
    let c = unsafe { Consts::<__m512i>::new() };
    let mut i = from;
    let mut o = from;
    // Invariants: `i <= len`, `o <= cap`; the blocks before `i` passed
    // their checks and are converted to `o` values (the last one's
    // character too, which may end past `i`: then `after_mixed`).
    let mut after_mixed = false;
    while len - i >= AHEAD_MIN && cap - o >= 64 {
        prefetch_input(ptr, i);
        // SAFETY: `i + 64 < len`: the block is readable.
        let v = unsafe { _mm512_loadu_si512(ptr.add(i).cast()) };
        let ascii = _mm512_movepi8_mask(v) == 0;
        if !ascii || (after_mixed && unfinished_before(src, i)) {
            // SAFETY: the features are enabled; `i + 64 < len`.
            let flagged = unsafe { block_check(&c, src, i, v) };
            if flagged != 0 {
                return Fused::invalid(failed_at(i, flagged));
            }
        }
        if PREFETCH {
            prefetch_output::<4>(dst.cast(), 4 * o, 4 * cap);
        }
        // SAFETY: `o + 64 <= cap`: 64 values at `dst + o` are writable.
        let out = unsafe { dst.add(o) };
        if ascii {
            // SAFETY: 64 values at `out` are writable. (Widening straight
            // from memory, as the valid kernel's ASCII loop does, measured
            // no different here, where the block is loaded anyway.)
            unsafe { widen_ascii(v, 64, out) };
            i += 64;
            o += 64;
            after_mixed = false;
            continue;
        }
        // Lead bytes: not 80..=BF (as i8, -128..=-65).
        let leads = _mm512_cmpgt_epi8_mask(v, _mm512_set1_epi8(-65));
        let n = leads.count_ones() as usize;
        // SAFETY: `len - i` bytes from `ptr + i` are readable; `leads` is
        // of the block's 64 bytes; `n <= 64` values at `out` are writable.
        unsafe { mixed_block(v, leads, ptr.add(i), len - i, out, n) };
        i += 64;
        o += n;
        after_mixed = true;
    }
    while i < len {
        let left = len - i;
        let lanes = _bzhi_u64(u64::MAX, left.min(64) as u32);
        // SAFETY: `lanes` enables only the `min(left, 64)` bytes from `i`,
        // inside `src`; masked-off lanes are not read.
        let v = unsafe { _mm512_maskz_loadu_epi8(lanes, ptr.add(i).cast()) };
        let ascii = _mm512_movepi8_mask(v) == 0;
        if !ascii || after_mixed {
            // SAFETY: `i < len`; the features are enabled.
            let flagged = unsafe { tail_check(src, i, v, left) };
            if flagged != 0 {
                return Fused::invalid(failed_at(i, flagged));
            }
        }
        let room = cap - o;
        // SAFETY: `o <= cap`; the stores below write at most `room` values.
        let out = unsafe { dst.add(o) };
        let step = left.min(64);
        if ascii {
            let keep = step.min(room);
            // SAFETY: `keep <= room` values at `out` are writable.
            unsafe { widen_ascii(v, keep, out) };
            if keep < step {
                // (An ASCII byte is a character boundary.)
                return Fused::full(i + keep, o + keep);
            }
            i += step;
            o += step;
            after_mixed = false;
            continue;
        }
        let leads = _mm512_mask_cmpgt_epi8_mask(lanes, v, _mm512_set1_epi8(-65));
        let n = leads.count_ones() as usize;
        let keep = n.min(room);
        // SAFETY: `left` bytes from `ptr + i` are readable; `leads` is of
        // the bytes present; `keep <= room` values at `out` are writable.
        unsafe { mixed_block(v, leads, ptr.add(i), left, out, keep) };
        if keep < n {
            // Stop at the lead of the first character left out.
            let at = _pdep_u64(1 << keep, leads).trailing_zeros() as usize;
            return Fused::full(i + at, o + keep);
        }
        i += step;
        o += n;
        after_mixed = true;
    }
    Fused::done(len, o)
}
