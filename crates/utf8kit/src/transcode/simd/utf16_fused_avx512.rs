//! AVX-512 UTF-8 → UTF-16 that validates and converts in one pass.
//!
//! 64 bytes per step. A block without 4-byte characters is converted whole
//! by [`whole_block`], which
//! reads the bytes of a last character that ends past the block from
//! memory, and the next step starts 64 bytes on (maybe inside that
//! character, whose continuation bytes are then not leads and make no
//! unit). Any other block goes through the converter's step
//! ([`utf16_avx512::block`](super::utf16_avx512::block)), which ends
//! before its last lead byte (the start then moves by 61 to 64 bytes).
//! Before a block is converted it is checked
//! ([`check_avx512`](super::check_avx512): the validator's lookup rules,
//! with the bytes before each lane loaded from memory, so that no state
//! carries from step to step and the start may move by any amount).
//!
//! Why the fixed stride: a step that ends before its last lead makes the
//! next load wait for this block's lead mask (a compare into a mask, a
//! mask move, a `lzcnt`), one block after the other. On an Intel Xeon with
//! AVX-512 FP16 (2026-11-27, 1 MiB, ÷ simdutf) the 2-byte scripts went
//! from 0.85–0.98 to 1.00–1.10 (Arabic, Hebrew, Russian) and the CJK and
//! Hindi files from 1.20–1.27 to 1.46–1.53; skipping the third byte in
//! blocks without 3-byte characters then brought the 2-byte scripts to
//! 1.20–1.27 (CJK and Hindi 1.42–1.45).
//!
//! * An all-ASCII block is widened and stored without any check: every
//!   byte before it was checked with the step before it (whose lanes reach
//!   at least to this block's first byte), and a sequence cut short by an
//!   ASCII byte is flagged at that byte, which was one of those lanes.
//!   After a `whole_block`, whose lanes end where this block starts, only
//!   if no character of its last three bytes reaches into this block
//!   ([`unfinished_before`]); one that does is cut short by this block's
//!   first bytes, so this block is checked (and found invalid).
//! * When the loop ends (for room, or 96 bytes before the end of the
//!   input) inside a character that its last block converted, the masked
//!   steps start again at that character's lead, one unit back, so that
//!   its continuation bytes are checked and every stop is at a character
//!   boundary.
//! * Any other block gets the full check of all 64 lanes before it is
//!   converted. A flagged lane is at most three bytes after the start of
//!   the first invalid sequence (no earlier lane was flagged), so the exact
//!   error is found by the validator's scalar rescan from three bytes
//!   before it ([`locate`](crate::validate::locate)).
//! * The last step loads the rest of the input with a masked load: lanes
//!   after the end read as zero, which checks like ASCII, so a sequence cut
//!   short by the end is flagged there; only when the input ends with the
//!   register's last lane is the end checked on its own (`max_at_end`).
//! * An input whose non-ASCII part fits in its last block (every input of
//!   at most 64 bytes) is checked by [`last_block_checked`] instead: the
//!   continuation bytes must be exactly those the leads ask for, and the
//!   units the conversion makes anyway must be in range. That needs none
//!   of the lookup rules' constants nor the three loads of the bytes
//!   before each lane, which a one-block call waits for. When it is unsure
//!   (the block is invalid), the lookup rules decide and find the error.
//!   Intel Xeon with AVX-512 FP16, 2026-11-28, 64 bytes ÷ simdutf (with
//!   the 16-bit decode of [`general_block`](super::utf16_avx512)): random
//!   0.70 → 1.09, Cyrillic 1.00 → 1.13, CJK 0.70 → 0.79, emoji 0.91 →
//!   1.09. The loop's masked last step keeps the lookup rules: there the
//!   quick check moved `sparse` text at 1 KiB from 0.96 to 0.82–0.86
//!   (inlined or not), another effect of code placement on that row.
//! * 65 to [`QUICK_MAX`] bytes after the ASCII prefix are first tried by
//!   [`quick_blocks_checked`]: the same quick check block by block, at a
//!   fixed stride of 64 (the continuation bytes a block's last leads ask
//!   for carried into the next), every lead's character converted whole
//!   as [`whole_block`] does. Before it, such an input took the masked
//!   steps, each waiting for the one before (it starts at that one's last
//!   lead) and each costing about 12 ns on the Xeon below, one after the
//!   other, whatever the work in it: 65 bytes of Cyrillic took 24 ns,
//!   63 bytes 11 ns. Intel Xeon with AVX-512 FP16, 2026-11-28, a small
//!   program, ÷ simdutf before → after: Cyrillic 65 B 0.37 → 0.59, 95 B
//!   0.63 → 0.97, 127 B 0.67 → 1.14, 160 B 0.55 → 0.95, 200 B 0.49 →
//!   0.83, 256 B 0.64 → 1.18; CJK 128 B 0.57 → 0.81, 200 B 0.72 → 1.01,
//!   256 B 1.06 → 1.29. Text with 4-byte characters falls back (random
//!   text at 200 B 1.08 → 1.02, the cost of the try; testing the first
//!   block for `F0..=FF` before the call won that back, 65 / 128 / 200 B
//!   0.57 / 0.89 / 1.01 → 0.62 / 0.95 / 1.08, but cost Cyrillic and CJK
//!   3–5 %, and was not kept). Up to 512 bytes,
//!   Cyrillic went on gaining (300–512 B 0.73–0.97 → 1.0–1.22) but CJK
//!   lost (300 and 512 B 0.90 and 1.21 → 0.79 and 0.81): the fused loop's
//!   lookup check is cheaper than the quick check's range test of 3-byte
//!   units. Feeding the two blocks of 65 to 128 bytes in one straight
//!   line instead of the loop: 0.54 / 0.89 / 1.04 at 65 / 95 / 127 bytes
//!   of Cyrillic, before the loop skipped the range test in blocks
//!   without 3-byte characters.
//! * The end of a longer input (what the fused loop leaves, from the lead
//!   [`back_to_lead`] goes back to) is tried the same way, and an all-ASCII
//!   block that no character of the block before reaches into is widened
//!   there without the check. Harness A/B, 1 KiB ÷ simdutf: Hebrew
//!   0.91–0.93 → 1.04, Chinese 1.13 → 1.20, `sparse` 0.99–1.04 → 1.01 (1.01 →
//!   0.95 without the ASCII shortcut), the rest within the noise; Cyrillic
//!   in a small program, 300 B 0.73 → 0.81, 1 KiB 0.93 → 1.01, `sparse`
//!   300 B 0.79 → 0.89.
//!
//! Blocks are converted only after they passed, so the converter only
//! ever sees valid UTF-8. When a block's units do not fit, the kernel
//! stops at that block (a character boundary, everything before it valid)
//! and the caller finishes: the rest must still be checked (an invalid
//! input is `Invalid` even when the buffer is too small) and counted.

use super::check_avx512::{Fused, block_check, failed_at, tail_check, unfinished_before};
use super::prefetch_input;
use super::utf16_ascii_avx512::{ascii_prefix, widen, widen_if_ascii};
use super::utf16_avx512::{
    Checked, ROOM16, back_to_lead, block, last_block_checked, quick_blocks_checked, whole_block,
};
use crate::validate::simd::lookup::Consts;
use core::arch::x86_64::*;

/// Validates UTF-8 `src` and converts it to UTF-16 (little-endian bytes,
/// or big-endian if `BE`) at `dst`, in one pass; see the module docs.
///
/// The all-ASCII blocks at the start are widened before anything else,
/// so that ASCII input (and a short ASCII call) never loads the check's
/// and the converter's constant registers.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `2 * cap` bytes (`cap` units).
///
/// An ASCII input of at most 64 bytes that fits is one straight line here
/// (a masked load, a test, two masked stores), with no register saved;
/// everything else goes on in [`utf8_to_utf16_long`].
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
pub(crate) unsafe fn utf8_to_utf16<const BE: bool>(src: &[u8], dst: *mut u8, cap: usize) -> Fused {
    let len = src.len();
    if len <= 64 && len <= cap {
        // SAFETY: `len <= 64`, and `len <= cap` units at `dst` are
        // writable.
        if unsafe { widen_if_ascii::<BE>(src, dst) } {
            return Fused::done(len, len);
        }
        // SAFETY: as this function's contract; `len <= 64`.
        return unsafe { one_block::<BE>(src, dst, cap) };
    }
    // SAFETY: as this function's contract.
    unsafe { utf8_to_utf16_long::<BE>(src, dst, cap) }
}

/// [`utf8_to_utf16`] of an input of one block (`len <= 64`) that is not
/// all ASCII.
///
/// The block is loaded again rather than passed: a vector argument goes
/// through memory, and its store and reload would come before every
/// other step.
///
/// # Safety
///
/// * As [`utf8_to_utf16`]; `src.len() <= 64`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
#[inline(never)]
unsafe fn one_block<const BE: bool>(src: &[u8], dst: *mut u8, cap: usize) -> Fused {
    let len = src.len();
    let lanes = _bzhi_u64(u64::MAX, len as u32);
    // SAFETY: `lanes` enables only the `len` bytes of `src`; masked-off
    // lanes are not read.
    let v = unsafe { _mm512_maskz_loadu_epi8(lanes, src.as_ptr().cast()) };
    // SAFETY: as this function's contract, from byte and unit 0.
    unsafe { last_block::<BE>(src, dst, cap, 0, v, lanes) }
}

/// [`utf8_to_utf16`] past its short ASCII line.
///
/// # Safety
///
/// * As [`utf8_to_utf16`].
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
#[inline(never)]
unsafe fn utf8_to_utf16_long<const BE: bool>(src: &[u8], dst: *mut u8, cap: usize) -> Fused {
    let len = src.len();
    let ptr = src.as_ptr();
    // SAFETY: as this function's contract.
    let i = unsafe { ascii_prefix::<BE>(src, dst, cap) };
    let left = len - i;
    if left == 0 {
        return Fused::done(len, len);
    }
    if left <= 64 {
        let lanes = _bzhi_u64(u64::MAX, left as u32);
        // SAFETY: `lanes` enables only the `left` bytes from `i`, inside
        // `src`; masked-off lanes are not read.
        let v = unsafe { _mm512_maskz_loadu_epi8(lanes, ptr.add(i).cast()) };
        if _mm512_movepi8_mask(v) == 0 && left <= cap - i {
            // SAFETY: `i + left <= cap`: the `left` units at `dst + 2 * i`
            // are writable.
            unsafe { widen::<BE, true>(v, dst.add(2 * i), left) };
            return Fused::done(len, len);
        }
        // SAFETY: as this function's contract; `v` holds the `left <= 64`
        // bytes from `i <= cap` in `lanes`.
        return unsafe { last_block::<BE>(src, dst, cap, i, v, lanes) };
    }
    // SAFETY: as this function's contract; `src[..i]` is ASCII, widened
    // to `i <= cap` units.
    if let Some(done) = unsafe { quick_rest::<BE>(src, dst, cap, i, i) } {
        return done;
    }
    // SAFETY: as this function's contract; `i <= len` and `i <= cap`.
    unsafe { fused::<BE>(src, dst, cap, i) }
}

/// Input left (after the ASCII prefix, or after the fused loop) up to which
/// [`quick_blocks_checked`] is tried first.
const QUICK_MAX: usize = 256;

/// The whole conversion of the input from byte `i` (a character boundary,
/// everything before it valid and converted to `o` units) by
/// [`quick_blocks_checked`], if at most [`QUICK_MAX`] bytes are left and
/// they pass its check; else `None`, and the caller goes on from `(i, o)`.
///
/// # Safety
///
/// * As [`utf8_to_utf16`]; `i <= src.len()`, `o <= cap`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
#[inline]
unsafe fn quick_rest<const BE: bool>(
    src: &[u8],
    dst: *mut u8,
    cap: usize,
    i: usize,
    o: usize,
) -> Option<Fused> {
    let left = src.len() - i;
    if left == 0 || left > QUICK_MAX {
        return None;
    }
    // SAFETY: the `left` bytes from `i` are readable; `o <= cap`: `2 * (cap
    // - o)` bytes at `dst + 2 * o` are writable.
    let checked =
        unsafe { quick_blocks_checked::<BE>(src.as_ptr().add(i), left, dst.add(2 * o), cap - o) };
    match checked {
        Checked::Done(written) => Some(Fused::done(src.len(), o + written)),
        Checked::Full | Checked::Unsure => None,
    }
}

/// Input left from which the fused loop runs: a block and the 32 bytes
/// after it that [`whole_block`] reads with its second register.
const AHEAD_MIN: usize = 96;

/// The last block, `v` (the `len - i <= 64` bytes from `i`, in `lanes`),
/// after an ASCII prefix: checked and converted in one straight line, so
/// that a short call loads only the constants it uses. The quick check of
/// [`last_block_checked`] comes first; only if it is unsure does the
/// block go through [`last_block_exact`].
///
/// # Safety
///
/// * As [`utf8_to_utf16`]; `i <= cap`, `v` and `lanes` as above.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
#[inline]
unsafe fn last_block<const BE: bool>(
    src: &[u8],
    dst: *mut u8,
    cap: usize,
    i: usize,
    v: __m512i,
    lanes: u64,
) -> Fused {
    // SAFETY: `1 <= len - i <= 64`; `i <= cap`: `2 * (cap - i)` bytes at
    // `dst + 2 * i` are writable.
    match unsafe { last_block_checked::<BE>(v, src.len() - i, dst.add(2 * i), cap - i) } {
        Checked::Done(written) => Fused::done(src.len(), i + written),
        Checked::Full => Fused::full(i, i),
        // SAFETY: as this function's contract.
        Checked::Unsure => unsafe { last_block_exact::<BE>(src, dst, cap, i, v, lanes) },
    }
}

/// [`last_block`] with the validator's rules ([`tail_check`]), which find
/// the error, or else pass the block to [`block`].
///
/// # Safety
///
/// * As [`last_block`].
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
#[inline(never)]
unsafe fn last_block_exact<const BE: bool>(
    src: &[u8],
    dst: *mut u8,
    cap: usize,
    i: usize,
    v: __m512i,
    lanes: u64,
) -> Fused {
    let left = src.len() - i;
    if _mm512_movepi8_mask(v) != 0 {
        // SAFETY: the features are enabled; `i <= len`.
        let flagged = unsafe { tail_check(src, i, v, left) };
        if flagged != 0 {
            return Fused::invalid(failed_at(i, flagged));
        }
    }
    // SAFETY: `i <= cap`: `2 * (cap - i)` bytes at `dst + 2 * i` are
    // writable, and a masked step writes at most that many.
    match unsafe { block::<BE, true>(v, lanes, true, dst.add(2 * i), cap - i) } {
        Some((_, written)) => Fused::done(src.len(), i + written),
        None => Fused::full(i, i),
    }
}

/// [`utf8_to_utf16`] from `i`, where `src[..i]` is ASCII and already
/// widened to `i` units.
///
/// # Safety
///
/// * As [`utf8_to_utf16`]; `i <= src.len()` and `i <= cap`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
#[inline(never)]
unsafe fn fused<const BE: bool>(src: &[u8], dst: *mut u8, cap: usize, from: usize) -> Fused {
    let len = src.len();
    let ptr = src.as_ptr();
    // SAFETY: the features are enabled.
    let c = unsafe { Consts::<__m512i>::new() };
    let mut i = from;
    let mut o = from;
    // Invariants: `i <= len`, `o <= cap`, `src[..i]` is valid and
    // converted to `o` units (and, after a `whole_block`, the
    // character of its last lead too, which may end past `i`), and every
    // lane of the blocks checked so far passed.
    // Whether the last block was converted by `whole_block`: its last
    // character may be cut short by the bytes of this one, which is then
    // checked even if it is all ASCII (a cut is flagged at the byte after
    // it).
    let mut after_ahead = false;
    while len - i >= AHEAD_MIN && cap - o >= ROOM16 {
        prefetch_input(ptr, i);
        // SAFETY: `i + 64 < len`: the block is readable.
        let v = unsafe { _mm512_loadu_si512(ptr.add(i).cast()) };
        let ascii = _mm512_movepi8_mask(v) == 0;
        if ascii && !(after_ahead && unfinished_before(src, i)) {
            // SAFETY: `o + ROOM16 <= cap`, and `ROOM16 >= 64`: the 64
            // units at `dst + 2 * o` are writable.
            unsafe { widen::<BE, false>(v, dst.add(2 * o), 64) };
            i += 64;
            o += 64;
            after_ahead = false;
            continue;
        }
        // SAFETY: the features are enabled; `i + 64 < len`.
        let flagged = unsafe { block_check(&c, src, i, v) };
        if flagged != 0 {
            return Fused::invalid(failed_at(i, flagged));
        }
        // No 4-byte character: every lead's character, whole, moving
        // on by 64 (a character of the last lanes is read from the
        // next block, whose check comes with it).
        // SAFETY: `i + 96 <= len` bytes are readable; `o + ROOM16 <=
        // cap`: 128 bytes at `dst + 2 * o` are writable.
        if let Some(units) = unsafe { whole_block::<BE>(v, ptr.add(i), dst.add(2 * o)) } {
            i += 64;
            o += units;
            after_ahead = true;
            continue;
        }
        after_ahead = false;
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
    (i, o) = back_to_lead(src, from, i, o);
    // The rest as quick blocks, unless the whole input (from `from`) was
    // tried that way already.
    if len - from > QUICK_MAX {
        // SAFETY: as this function's contract; `src[..i]` is valid and
        // converted to `o <= cap` units.
        if let Some(done) = unsafe { quick_rest::<BE>(src, dst, cap, i, o) } {
            return done;
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
            let flagged = unsafe { tail_check(src, i, v, left) };
            if flagged != 0 {
                return Fused::invalid(failed_at(i, flagged));
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
                return Fused::full(i, o);
            }
        }
    }
    Fused::done(len, o)
}
