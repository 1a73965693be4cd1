//! AVX-512 UTF-8 ⇄ UTF-16.
//!
//! # UTF-8 → UTF-16 (input known to be valid)
//!
//! The leading ASCII widens first, as in the fused kernel
//! ([`ascii_prefix`]). Then 64 bytes per step. An all-ASCII block widens
//! to 64 units. In the bulk
//! loop, a block without 4-byte characters takes all of its leads,
//! reading the bytes of a last character that ends past it from the next
//! block, and the next step starts 64 bytes on ([`whole_block`]: each
//! lead's unit from `vpermb` byte pairs in 16-bit lanes, one `vpcompressw`
//! per half). Otherwise (and in the masked steps at the end) the block ends
//! before its last lead byte (that character may continue in the next
//! block; in valid UTF-8 there is a lead among any 4 bytes, so a step
//! advances at least 61 bytes), and:
//!
//! * no 4-byte character: each character is decoded *at its lead byte's
//!   lane* from the lane and the 1–2 lanes after it (the block shifted by
//!   `vpermb`), in 16-bit lanes, two halves of 32 bytes; one `vpcompressw`
//!   each packs the results at lead lanes;
//! * else ([`general_block`]): each unit is made *at the byte where it
//!   ends*, in 16-bit lanes: `vpcompressb` packs those positions (a
//!   4-byte character ends two units, at its third and fourth byte), and
//!   three `vpermb` per 32 units fetch the last byte of each unit and the
//!   one and two bytes before it, from copies of the block in which the
//!   bytes that do not belong to a unit are zero and two bytes of every
//!   4-byte character are tagged so that the same OR makes its low
//!   surrogate; a masked add makes the high ones. The units come out in
//!   order: nothing is compressed after the decoding.
//!
//!   Before (stop 24), these blocks were decoded in 32-bit lanes as the
//!   UTF-8 → UTF-32 kernel does, 16 characters a round, surrogate pairs
//!   made in the lanes and packed by `vpcompressw`. Intel Xeon with
//!   AVX-512 FP16, 2026-11-28, ÷ simdutf, validating: random 1 KiB / 64
//!   KiB 1.07 / 1.21 → 1.42 / 1.64 (a separate small program).
//!
//! The last block of an input that starts at a character boundary can be
//! checked on the masks and units the conversion makes anyway
//! ([`last_block_checked`]), which the fused kernel uses for inputs of
//! one block.
//!
//! # UTF-16 → UTF-8
//!
//! 32 units per step, the input asked for 2 KiB ahead ([`prefetch_input`]).
//! All-ASCII blocks narrow with `vpmovwb`; after one, the
//! run goes on 128 units a step ([`ascii_run`]: `vpermt2b` picks the low
//! bytes of two registers at once), unless a try of it failed at once in
//! the last [`RUN_WAIT`] ASCII steps. A step with one unit outside ASCII
//! (not a surrogate) narrows as ASCII too and puts that character's bytes
//! in place ([`one_outside_ascii`]); a step of 16 surrogate pairs converts
//! in 32-bit lanes without compressing ([`pairs_block`]). Otherwise each
//! half of 16 units is widened to 32-bit lanes, each lane gets a class
//! (0: the low half of a pair, 1–4: UTF-8 length), `vpmultishiftqb` lays out
//! the bits of a 4-byte encoding (`cp >> 18, cp >> 12, cp >> 6, cp`), a
//! per-class AND/OR finishes the bytes, and `vpcompressb` keeps the last
//! `class` bytes of each lane. A block with an unpaired surrogate is handed
//! back to the scalar kernel, which reports or replaces it.
//!
//! Inputs of up to 32 units take one masked step in a function of its own
//! ([`utf16_to_utf8_one_block`]), up to 128 units ([`utf16_to_utf8_masked`])
//! masked steps only, with a first loop for blocks of 1- and 2-byte
//! characters that needs few constants; the main loop of longer inputs
//! ends the same way. That is also where every input ends whose output
//! buffer is exact (the main loop stops 113 bytes before the end of the
//! room). Intel Xeon with AVX-512 FP16, 2026-11-28, ÷ simdutf, exact
//! buffers, before → after: ASCII of 24 units 1.01–1.07 → 1.14–1.19 and
//! 48–128 units 0.61–0.82 → 0.80–1.14; Cyrillic of 12–25 units 1.07–1.08
//! → 1.23–1.25 and 33–68 units 0.67–0.79 → 0.97–1.02; CJK of 8–46 units
//! 0.65–0.88 → 0.96–1.18; text with 4-byte characters of 11–62 units
//! 0.79–0.92 → 0.85–0.98; but ASCII of 200–256 units (the main loop, then
//! this) 1.07–1.11 → 0.87–0.98. In the benchmark harness (roomy buffers):
//! ASCII, Latin and `sparse` at 64 B / 256 B / 1 KiB 1.22 / 0.85 / 1.35 →
//! 1.40 / 1.22 / 1.55, CJK and Hindi at 64 B 1.28 → 1.85, Arabic, Hebrew
//! and Russian at 64 B 1.15–1.45 → 1.35–1.65; but Emoji, random and
//! `sparse fresh` at 256 B 1.31 / 1.20 / 1.09 → 1.22 / 1.15 / 0.91–0.97.
//!
//! # Room
//!
//! UTF-16 → UTF-8 runs only while a whole step's input is readable and a
//! whole step's worst-case output fits in the room left, and stores whole
//! registers: the bytes past the real output stay inside the caller's
//! buffer and are overwritten by the next store or by the scalar kernel,
//! which the wrappers run from where the kernel stopped.
//!
//! UTF-8 → UTF-16 does the same in its bulk loop, then finishes the input
//! with masked loads and stores that read and write exactly what they must
//! (a step first counts its units and stops if they do not fit), so short
//! inputs and exactly sized buffers stay on the SIMD path to the end.
//!
//! # Tried and dropped (UTF-16 → UTF-8)
//!
//! Intel Xeon with AVX-512 FP16, 2026-11-27, ÷ simdutf in the same rounds,
//! A/B runs of two binaries in turn:
//!
//! * Blocks without surrogates laid out 3 bytes a unit (a `vpermb` giving
//!   each 64-bit lane the 4 units its 8 bytes come from, a
//!   `vpmultishiftqb` taking bits 12, 6 and 0 of each, one `vpternlogd`
//!   for the 3-byte form, ASCII and 2-byte units fixed by masks spread with
//!   `pdep`, one `vpcompressb` per 16 units: 4 port-5 operations a half
//!   instead of 8): CJK and Hindi at 1 KiB and 64 KiB 1.56–1.62 →
//!   1.66–1.88, but ASCII, Latin and Russian at 1 KiB 3–5 % slower and
//!   `sparse` 1 KiB 0.93 → 0.89–0.91; in the masked steps too, every 64 B
//!   row 5–8 % slower (the outlined step saved five more registers).
//! * Every block without a surrogate through that path, with no branch on
//!   what it holds: CJK at 64 KiB 1.6 → 2.0 and `sparse fresh` 1 KiB 1.03
//!   → 1.36, but `sparse` (learnt by the predictor) 0.55–0.72, the 2-byte
//!   scripts 0.71–0.75 and ASCII 0.28–0.41: 17 port-5 operations a block
//!   (the compares, the mask moves into `k` registers, the permutes and
//!   compresses).
//! * A 64-unit look-ahead before the 128-unit ASCII run (most 128-unit
//!   tests fail in `sparse` text): `sparse` 1 KiB 0.93 → 1.19–1.29 and 64
//!   KiB 1.10–1.18 → 1.26–1.37, but random and Emoji from 32 KiB to 1 MiB
//!   1.15–1.25 → 0.87–1.07, in five formulations (64 units packed by
//!   `vpermt2b` or two `vpmovwb`, 32 units, the run out of line, 64-unit
//!   steps only). The same loss came with the new code behind a branch
//!   never taken, so it is the code's presence in the loop (its layout or
//!   the predictors' view of it), not its work: aligning loops to 64 bytes
//!   and padding branches off 32-byte boundaries changed nothing. The
//!   formulation that kept random (an ASCII step returned as its own
//!   `Step` variant) lost the `sparse` gain (0.98).
//! * With the blocks outside ASCII not converted at all (wrong output, as a
//!   bound), `sparse` 1 KiB went only from 0.90 to 0.97: that row's cost is
//!   not the conversion.

use super::utf16_ascii_avx512::{ascii_prefix, widen, widen_if_ascii};
use super::utf32_avx512::IOTA;
use super::{Progress, prefetch_input, prefetch_output};
use core::arch::x86_64::*;

/// `vpermb` indices moving every byte `n` lanes down (lane `i` gets lane
/// `i + n`; the last `n` lanes get don't-care bytes from the start).
const fn shift_down(n: usize) -> [u8; 64] {
    let mut index = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        index[i] = ((i + n) % 64) as u8;
        i += 1;
    }
    index
}

static NEXT1: [u8; 64] = shift_down(1);
static NEXT2: [u8; 64] = shift_down(2);

/// `vpermb` indices giving 16-bit lane `k` the bytes `k + n` (low byte)
/// and `k + n + 1` (high byte), for `k` in `0..32`.
const fn byte_pairs(n: usize) -> [u8; 64] {
    let mut index = [0u8; 64];
    let mut k = 0;
    while k < 32 {
        index[2 * k] = (k + n) as u8;
        index[2 * k + 1] = (k + n + 1) as u8;
        k += 1;
    }
    index
}

/// Lane `k` of 16 bits: bytes `k` and `k + 1` ([`bmp_units`]).
static PAIR0: [u8; 64] = byte_pairs(0);
/// Lane `k` of 16 bits: byte `k + 2` (its high byte is zeroed by the mask
/// [`EVEN_BYTES`]).
static PAIR2: [u8; 64] = byte_pairs(2);
/// The low byte of every 16-bit lane.
const EVEN_BYTES: u64 = 0x5555_5555_5555_5555;

/// `vpternlogd` truth tables from the canonical operands.
const A: i32 = 0xF0;
const B: i32 = 0xCC;
const C: i32 = 0xAA;
/// `a | (b & c)`.
pub(crate) const A_OR_B_AND_C: i32 = A | (B & C);
/// `a | b | c`.
const A_OR_B_OR_C: i32 = A | B | C;
/// `(a & b) | c`.
pub(crate) const A_AND_B_OR_C: i32 = (A & B) | C;
/// `c ? a : b`, bit by bit.
pub(crate) const A_IF_C_ELSE_B: i32 = (A & C) | (B & !C);

/// Loads a 64-byte constant table.
///
/// The `target_feature` functions here are `#[inline]`: they inline into the
/// kernels, which enable the same features.
#[target_feature(enable = "avx512f")]
#[inline]
pub(crate) fn table(t: &[u8; 64]) -> __m512i {
    // SAFETY: `t` is 64 readable bytes; `loadu` needs no alignment.
    unsafe { _mm512_loadu_si512(t.as_ptr().cast()) }
}

/// Swaps the bytes of every 16-bit lane if `BE` (UTF-16BE in memory).
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi2")]
#[inline]
pub(crate) fn order16<const BE: bool>(v: __m512i) -> __m512i {
    if BE { _mm512_shldi_epi16::<8>(v, v) } else { v }
}

/// Converts valid UTF-8 to UTF-16 (little-endian bytes, or big-endian if
/// `BE`) at `dst`, to the end of `src` or until the next block's units do
/// not fit in the room left.
///
/// The bulk runs with plain loads and stores while a whole block and the
/// room for its widest stores remain; the last blocks (and small buffers)
/// use masked loads and stores, which read and write exactly what they
/// must.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `2 * cap` bytes (`cap` units).
///
/// `src` should be valid UTF-8 that ends at a character boundary (else the
/// output is meaningless, but every access stays in bounds).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
pub(crate) unsafe fn utf8_to_utf16<const BE: bool>(
    src: &[u8],
    dst: *mut u8,
    cap: usize,
) -> Progress {
    let len = src.len();
    // An ASCII input of one block: one straight line, as in the fused
    // kernel.
    // SAFETY: `len <= 64`, and `len <= cap` units at `dst` are writable.
    if len <= 64 && len <= cap && unsafe { widen_if_ascii::<BE>(src, dst) } {
        return Progress {
            read: len,
            written: len,
        };
    }
    // SAFETY: as this function's contract.
    unsafe { utf8_to_utf16_long::<BE>(src, dst, cap) }
}

/// [`utf8_to_utf16`] past its short ASCII line: the leading ASCII first
/// ([`ascii_prefix`], shared with the fused kernel), then the blocks.
/// (Until 2026-11-28 this kernel widened ASCII block by block through
/// [`block`]; the benchmark harness had it at 0.67 × the validating kernel
/// on 1 KiB of ASCII and 0.52 at 64 MiB, and 0.46 at 64 bytes.)
///
/// # Safety
///
/// * As [`utf8_to_utf16`].
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
#[inline(never)]
unsafe fn utf8_to_utf16_long<const BE: bool>(src: &[u8], dst: *mut u8, cap: usize) -> Progress {
    // SAFETY: as this function's contract.
    let from = unsafe { ascii_prefix::<BE>(src, dst, cap) };
    let (mut i, mut o) = (from, from);
    // Invariants: `i <= src.len()`, `o <= cap`; after a block of
    // `whole_block`, the character of its last lead is converted too,
    // and may end past `i`.
    while src.len() - i >= 96 && cap - o >= ROOM16 {
        prefetch_input(src.as_ptr(), i);
        // SAFETY: `i + 64 <= src.len()`: the block is readable.
        let v = unsafe { _mm512_loadu_si512(src.as_ptr().add(i).cast()) };
        // A block of 1- to 3-byte characters and ASCII: every lead, and on
        // by 64 (as in the fused kernel, whose docs tell why). Intel Xeon
        // with AVX-512 FP16, 1 MiB: Arabic, Hebrew, Russian 7.3–8.4 →
        // 14.9–15.9 GB/s, CJK and Hindi 9.2–9.7 → 12.1–12.5; lossy UTF-8
        // → UTF-16 of the 2-byte scripts 5.0–5.1 → 5.5–6.6.
        if _mm512_movepi8_mask(v) != 0 {
            // SAFETY: `i + 96 <= src.len()` bytes are readable; `o + ROOM16
            // <= cap`: 128 bytes at `dst + 2 * o` are writable.
            let whole = unsafe { whole_block::<BE>(v, src.as_ptr().add(i), dst.add(2 * o)) };
            if let Some(units) = whole {
                i += 64;
                o += units;
                continue;
            }
        }
        // SAFETY: `o + ROOM16 <= cap`: `2 * ROOM16` bytes at `out` are
        // writable, which covers every store of the step.
        match unsafe { block::<BE, false>(v, u64::MAX, false, dst.add(2 * o), ROOM16) } {
            Some((read, written)) => {
                i += read;
                o += written;
            }
            None => break,
        }
    }
    (i, o) = back_to_lead(src, from, i, o);
    while i < src.len() {
        let left = src.len() - i;
        let last = left <= 64;
        let lanes = if last {
            _bzhi_u64(u64::MAX, left as u32)
        } else {
            u64::MAX
        };
        // SAFETY: `lanes` enables only the `min(left, 64)` bytes from `i`,
        // which are inside `src`; masked-off lanes are not read.
        let v = unsafe { _mm512_maskz_loadu_epi8(lanes, src.as_ptr().add(i).cast()) };
        // SAFETY: `o <= cap`: `2 * (cap - o)` bytes at `out` are writable,
        // and with `MASKED` the step writes at most that many.
        match unsafe { block::<BE, true>(v, lanes, last, dst.add(2 * o), cap - o) } {
            Some((read, written)) => {
                i += read;
                o += written;
            }
            None => break,
        }
    }
    Progress {
        read: i,
        written: o,
    }
}

/// Units of output room a plain (unmasked) step needs. Its stores reach at
/// most 64 units: an ASCII block stores 64; [`bmp_block`] and
/// [`whole_block`] two stores of 32, the second at most 32 units in;
/// [`general_block`] stores of 32 units at unit 0 and 32 (`block` refuses
/// a block of more than 64 units). The loops keep 96 nonetheless: 64 was
/// tried in stop 25 (once the 32-bit-lane decode, whose rounds stored 32
/// units after up to 63, was gone), and the integration tests found a
/// store's stray units left past the output's end in a buffer three units
/// longer than the output. The bulk loops' stores rely on the output
/// still to come to overwrite what they write past a step's units, and
/// the 32 units of margin are part of what guarantees that.
pub(crate) const ROOM16: usize = 96;

/// One step: converts the characters of block `v` (its bytes in `lanes`)
/// that end in it, or all of them if it is the `last` block of the input,
/// and stores their units at `out`. Returns the bytes read and units
/// written, or `None` if the units would not fit in `room`, or the block has
/// no lead byte after its first or would make more than 64 units (invalid
/// input; the scalar kernel takes over).
///
/// # Safety
///
/// * `2 * room` bytes at `out` are writable, and if not `MASKED`,
///   `room >= ROOM16`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
#[inline]
pub(crate) unsafe fn block<const BE: bool, const MASKED: bool>(
    v: __m512i,
    lanes: u64,
    last: bool,
    out: *mut u8,
    room: usize,
) -> Option<(usize, usize)> {
    if _mm512_movepi8_mask(v) == 0 {
        let n = lanes.count_ones() as usize;
        if n > room {
            return None;
        }
        // SAFETY: the stores write the `n <= room` units (all 64 without
        // `MASKED`, and then `room >= ROOM16`).
        unsafe { widen::<BE, MASKED>(v, out, n) };
        return Some((n, n));
    }
    // Lead bytes: everything but continuation bytes 80..=BF (signed
    // -128..=-65).
    let leads = _mm512_mask_cmpgt_epi8_mask(lanes, v, _mm512_set1_epi8(-65));
    let (end, m) = if last {
        // The input ends at a character boundary: take every character.
        (lanes.count_ones() as usize, leads)
    } else {
        // Stop before the last lead: its character may not end in the
        // block. In valid UTF-8 there is a lead among any 4 bytes, so a step
        // advances at least 61 bytes.
        let end = 63u32.saturating_sub(leads.leading_zeros());
        if end == 0 {
            return None;
        }
        (end as usize, leads & _bzhi_u64(u64::MAX, end))
    };
    let four = _mm512_mask_cmpge_epu8_mask(m, v, _mm512_set1_epi8(0xF0u8 as i8));
    let n = (m.count_ones() + four.count_ones()) as usize;
    // Valid UTF-8 makes at most one unit per byte, so `n <= 64`; more (a
    // run of `F0..` leads without their continuation bytes) is invalid,
    // and `general_block`'s plain stores rely on the bound.
    if n > room || n > 64 {
        return None;
    }
    // SAFETY: the helpers write the block's `n <= room` units (and without
    // `MASKED` at most `ROOM16 <= room`).
    unsafe {
        if four == 0 {
            bmp_block::<BE, MASKED>(v, m, out);
        } else {
            let written = general_block::<BE, MASKED>(v, m, four, end, out);
            debug_assert_eq!(written, n);
        }
    }
    Some((end, n))
}

/// Stores the first `n <= 32` units of `v` at `out`, in the byte order
/// `BE` asks for. With `MASKED` exactly those units are written; without,
/// all 32 (a plain store, faster in the bulk loop, where the room is
/// there).
///
/// # Safety
///
/// * `2 * n` bytes at `out` are writable, or 64 bytes if not `MASKED`.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,bmi2")]
#[inline]
pub(crate) unsafe fn store_units<const BE: bool, const MASKED: bool>(
    out: *mut u8,
    v: __m512i,
    n: usize,
) {
    debug_assert!(n <= 32);
    let v = order16::<BE>(v);
    // SAFETY: the caller makes the bytes written writable: with `MASKED`
    // the mask enables exactly the first `n` 16-bit lanes (masked-off lanes
    // are not written), else all 64 bytes are.
    unsafe {
        if MASKED {
            _mm512_mask_storeu_epi16(out.cast(), _bzhi_u32(u32::MAX, n as u32), v);
        } else {
            _mm512_storeu_si512(out.cast(), v);
        }
    }
}

/// Converts the characters whose leads are in `m` (none of them 4 bytes
/// long) from the block `v` and stores their `m.count_ones()` units at
/// `out`.
///
/// # Safety
///
/// * `2 * m.count_ones()` bytes at `out` are writable, or, if not
///   `MASKED`, 128 bytes (the second store starts at most 64 bytes in).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
#[inline]
unsafe fn bmp_block<const BE: bool, const MASKED: bool>(v: __m512i, m: u64, out: *mut u8) {
    let two = _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xC0u8 as i8));
    let three = _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xE0u8 as i8));
    let (lo, hi) = bmp_halves(v, two, three);
    // SAFETY: the caller makes the block's units writable.
    unsafe { store_lead_units::<BE, MASKED>(out, lo, hi, m) };
}

/// The UTF-16 unit at each lead lane of `v` (1–3 byte characters; `two`
/// marks leads `>= C0`, `three` leads `>= E0`), in two halves of 32 lanes
/// ([`bmp_half`], with the bytes one and two lanes on from `vpermb`).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi")]
#[inline]
fn bmp_halves(v: __m512i, two: u64, three: u64) -> (__m512i, __m512i) {
    let n1 = _mm512_permutexvar_epi8(table(&NEXT1), v);
    let n2 = _mm512_permutexvar_epi8(table(&NEXT2), v);
    let lo = bmp_half(
        _mm512_castsi512_si256(v),
        _mm512_castsi512_si256(n1),
        _mm512_castsi512_si256(n2),
        two as u32,
        three as u32,
    );
    let hi = bmp_half(
        _mm512_extracti64x4_epi64::<1>(v),
        _mm512_extracti64x4_epi64::<1>(n1),
        _mm512_extracti64x4_epi64::<1>(n2),
        (two >> 32) as u32,
        (three >> 32) as u32,
    );
    (lo, hi)
}

/// Stores at `out` the units of the lead lanes `m` of the halves `lo`
/// (lanes 0–31) and `hi` (32–63), packed (one `vpcompressw` each); returns
/// how many.
///
/// # Safety
///
/// * `2 * m.count_ones()` bytes at `out` are writable, or, if not
///   `MASKED`, 128 bytes (the second store starts at most 64 bytes in).
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,bmi2,popcnt")]
#[inline]
unsafe fn store_lead_units<const BE: bool, const MASKED: bool>(
    out: *mut u8,
    lo: __m512i,
    hi: __m512i,
    m: u64,
) -> usize {
    let (m0, m1) = (m as u32, (m >> 32) as u32);
    let (n0, n1) = (m0.count_ones() as usize, m1.count_ones() as usize);
    // SAFETY: the stores write units `0..n0` and `n0..n0 + n1` of `out`,
    // which the caller makes writable.
    unsafe {
        store_units::<BE, MASKED>(out, _mm512_maskz_compress_epi16(m0, lo), n0);
        store_units::<BE, MASKED>(out.add(2 * n0), _mm512_maskz_compress_epi16(m1, hi), n1);
    }
    n0 + n1
}

/// Converts the characters whose leads are in `m` (none of them 4 bytes
/// long; any of the 64 lanes) of the block `v`, reading the bytes of those
/// that end past it from `ahead` (the 64 bytes from the block's lane 32),
/// and stores their `m.count_ones()` units at `out`; returns that count.
///
/// A block that takes every lead moves on by 64 bytes whatever its
/// contents, so the next block's load never waits for this one's masks
/// (the step of [`block`] ends before its last lead, a chain of a compare,
/// a mask move and a `lzcnt` from one load to the next). The 16-bit lanes
/// are made from the bytes directly: one `vpermb` gives lane `k` the bytes
/// `k` and `k + 1` of its half, a zero-masked one the byte `k + 2`, and
/// shifts and one bit select decode them (no widening of three registers
/// and no extracts of halves, which all run on one port on Intel).
///
/// # Safety
///
/// * 128 bytes at `out` are writable (the second store starts at most 64
///   bytes in).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
#[inline]
unsafe fn bmp_block_ahead<const BE: bool>(
    v: __m512i,
    ahead: __m512i,
    m: u64,
    out: *mut u8,
) -> usize {
    let two = _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xC0u8 as i8));
    let three = _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xE0u8 as i8));
    // Text in a 2-byte script has no 3-byte characters in most blocks:
    // those skip the third byte's permute and decoding.
    let (lo, hi) = if three == 0 {
        (
            bmp_units::<false>(v, two as u32, 0),
            bmp_units::<false>(ahead, (two >> 32) as u32, 0),
        )
    } else {
        (
            bmp_units::<true>(v, two as u32, three as u32),
            bmp_units::<true>(ahead, (two >> 32) as u32, (three >> 32) as u32),
        )
    };
    // SAFETY: 128 bytes at `out` are writable.
    unsafe { store_lead_units::<BE, false>(out, lo, hi, m) }
}

/// The bulk step of both UTF-8 → UTF-16 kernels for a block `v` (the 64
/// bytes at `src`) without 4-byte characters: converts every character
/// whose lead is in it with [`bmp_block_ahead`] and returns the units
/// stored at `out`, or `None` if the block has a byte `F0..=FF`. The
/// caller moves on by 64 bytes, and once its loop ends calls
/// [`back_to_lead`].
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * 96 bytes at `src` are readable, 128 at `out` writable.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
#[inline]
pub(crate) unsafe fn whole_block<const BE: bool>(
    v: __m512i,
    src: *const u8,
    out: *mut u8,
) -> Option<usize> {
    if _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xF0u8 as i8)) != 0 {
        return None;
    }
    let leads = _mm512_cmpgt_epi8_mask(v, _mm512_set1_epi8(-65));
    // SAFETY: the 64 bytes from `src + 32` are readable, 128 at `out`
    // writable, and the block makes at most 64 units.
    unsafe {
        let ahead = _mm512_loadu_si512(src.add(32).cast());
        Some(bmp_block_ahead::<BE>(v, ahead, leads, out))
    }
}

/// Where a UTF-8 → UTF-16 kernel goes on after a bulk loop that stopped at
/// byte `i` with `o` units written, having started at `from`: if the last
/// character that a [`whole_block`] converted ends past `i`, at its lead,
/// one unit back (the masked steps convert it again, and stop, if they
/// must, at a character boundary; the fused kernel also checks its
/// continuation bytes then); else at `(i, o)`. On invalid input the units
/// are meaningless, but `o` only moves back over units written.
pub(crate) fn back_to_lead(src: &[u8], from: usize, i: usize, o: usize) -> (usize, usize) {
    let last_lead = (1..=3.min(i - from)).find(|&k| (src[i - k] as i8) >= -64);
    if let Some(back) = last_lead {
        let lead = src[i - back];
        let width = 1 + usize::from(lead >= 0xC0) + usize::from(lead >= 0xE0);
        if width > back && o > 0 {
            return (i - back, o - 1);
        }
    }
    (i, o)
}

/// The UTF-16 unit each of the lanes `0..32` of `v` decodes to if it is
/// the lead of a 1–3 byte character (whose bytes are the lanes after it);
/// `two` marks leads `>= C0`, `three` leads `>= E0` (none unless `THREE`).
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline]
fn bmp_units<const THREE: bool>(v: __m512i, two: u32, three: u32) -> __m512i {
    // w = c | c1 << 8 (the lead and the byte after it).
    let w = _mm512_permutexvar_epi8(table(&PAIR0), v);
    // A 2-byte character: bits 6..=10 from `w << 6` (c & 1F), the rest
    // from `w >> 8` (c1, whose bits 6 and 7 fall in the selected bits).
    let x = _mm512_ternarylogic_epi32::<{ (A & B) | (!A & C) }>(
        _mm512_set1_epi16(0x07C0),
        _mm512_slli_epi16::<6>(w),
        _mm512_srli_epi16::<8>(w),
    );
    let ascii = _mm512_and_si512(w, _mm512_set1_epi16(0xFF));
    let units = _mm512_mask_mov_epi16(ascii, two, x);
    if !THREE {
        return units;
    }
    // A 3-byte character: x << 6 | c2 & 3F, with c2 the second byte after
    // the lead (the lead's marker bits shift out of the 16-bit lane).
    let c2 = _mm512_maskz_permutexvar_epi8(EVEN_BYTES, table(&PAIR2), v);
    let y = _mm512_ternarylogic_epi32::<A_OR_B_AND_C>(
        _mm512_slli_epi16::<6>(x),
        c2,
        _mm512_set1_epi16(0x3F),
    );
    _mm512_mask_mov_epi16(units, three, y)
}

/// The UTF-16 unit each lead lane of 32 bytes decodes to (1–3 byte
/// characters), from the byte and the two after it; `two` marks leads
/// `>= C0`, `three` leads `>= E0`.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn bmp_half(c: __m256i, c1: __m256i, c2: __m256i, two: u32, three: u32) -> __m512i {
    let c = _mm512_cvtepu8_epi16(c);
    let c1 = _mm512_cvtepu8_epi16(c1);
    let c2 = _mm512_cvtepu8_epi16(c2);
    let low6 = _mm512_set1_epi16(0x3F);
    // x = c << 6 | c1 & 3F: a 2-byte character once masked to 11 bits.
    let x = _mm512_ternarylogic_epi32::<A_OR_B_AND_C>(_mm512_slli_epi16::<6>(c), c1, low6);
    // y = x << 6 | c2 & 3F: a 3-byte character (the lead's marker bits
    // 1110 shift out of the 16-bit lane).
    let y = _mm512_ternarylogic_epi32::<A_OR_B_AND_C>(_mm512_slli_epi16::<6>(x), c2, low6);
    let r = _mm512_mask_mov_epi16(c, two, _mm512_and_si512(x, _mm512_set1_epi16(0x7FF)));
    _mm512_mask_mov_epi16(r, three, y)
}

/// [`last_block_checked`] for a block without 4-byte characters, whose
/// leads are `m`, those `>= C0` in `two`, `>= E0` in `three`:
/// each unit made at its lead's lane as [`bmp_block`] does (no packing of
/// positions first), the units of 3-byte characters checked there.
///
/// # Safety
///
/// * As [`last_block_checked`]; the block's structure passed its check.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
#[inline]
unsafe fn bmp_last_block<const BE: bool>(
    v: __m512i,
    m: u64,
    two: u64,
    three: u64,
    out: *mut u8,
    room: usize,
) -> Checked {
    let (lo, hi) = bmp_halves(v, two, three);
    if out_of_range3(lo, three as u32) | out_of_range3(hi, (three >> 32) as u32) != 0 {
        return Checked::Unsure;
    }
    if m.count_ones() as usize > room {
        return Checked::Full;
    }
    // SAFETY: the block's `n <= room` units are writable.
    Checked::Done(unsafe { store_lead_units::<BE, true>(out, lo, hi, m) })
}

/// The lanes of `lanes` whose unit (made from a 3-byte character) is out
/// of that form's range: below `800` (overlong) or a surrogate.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn out_of_range3(units: __m512i, lanes: u32) -> u32 {
    // Below 800, or D800..=DFFF (the unit XOR D800 below 800): the
    // smaller of the two is below 800 exactly then (a unit of 800..=D7FF
    // or E000..=FFFF has top five bits other than 00000 and 11011, so
    // neither is). One compare, where two would take port 5 twice on
    // Intel: 64 bytes of CJK 0.79 → 0.89 ÷ simdutf (Intel Xeon with
    // AVX-512 FP16, 2026-11-28).
    let flipped = _mm512_xor_si512(units, _mm512_set1_epi16(0xD800u16 as i16));
    _mm512_mask_cmplt_epu16_mask(
        lanes,
        _mm512_min_epu16(units, flipped),
        _mm512_set1_epi16(0x800),
    )
}

/// Converts the characters whose leads are in `m` (any length; the 4-byte
/// ones in `four`, a subset of `m`; the last one ends at byte `end - 1`)
/// from the block `v` and stores their `m.count_ones() +
/// four.count_ones()` units at `out`; returns that count.
///
/// The units are made where they end, in 16-bit lanes: a mask marks the
/// last byte of every unit (the byte before each lead but the first, byte
/// `end - 1`, and the third byte of each 4-byte character, which ends its
/// high surrogate), `vpcompressb` packs those positions, and three
/// `vpermb` per 32 units fetch each unit's last byte and the one and two
/// bytes before it. A byte before the last counts only where the byte
/// after it is not ASCII (the unit is longer than one byte), two before
/// only where it is a lead `>= E0`. A low surrogate is built from its
/// character's last three bytes by tagging two of them beforehand: the
/// third byte gets bits `0x30` (bits 10 and 11 of the unit) and the second
/// the value `0x0D` (bits 12–15 once shifted), so that the same OR of
/// three shifted bytes gives `DC00 | cp & 3FF`; a high surrogate is
/// `(cp >> 6 >> 4) + D7C0`.
///
/// No unit goes through 32-bit lanes, and no output is compressed: the
/// units come out in order, which keeps the chain from the load to the
/// store short (what a one-block input waits for).
///
/// Which characters make two units comes from `four`, not from the bytes,
/// so the count (and every store) stays the caller's even for invalid
/// input, whose units are then meaningless.
///
/// # Safety
///
/// * `2 * (m.count_ones() + four.count_ones())` bytes at `out` are
///   writable, or, if not `MASKED`, `2 * ROOM16` bytes and that count is at
///   most 64 (`block` checks it; valid UTF-8 makes at most one unit per
///   byte): the second round's store starts 32 units in, so the stores
///   end by unit 64.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
#[inline]
unsafe fn general_block<const BE: bool, const MASKED: bool>(
    v: __m512i,
    m: u64,
    four: u64,
    end: usize,
    out: *mut u8,
) -> usize {
    let n = (m.count_ones() + four.count_ones()) as usize;
    if m == 0 || end == 0 || end > 64 {
        return 0;
    }
    // `m & (m - 1)` drops the first lead, before which the block may hold
    // the end of a character that is not converted here.
    let ends = ((m & (m - 1)) >> 1) | (1u64 << (end - 1)) | (four << 2);
    let units = EndUnits::new(v, m, four, ends);
    let mut done = 0;
    while done < n {
        let count = (n - done).min(32);
        // SAFETY: the rounds store units `0..32` and `32..n` of `out`
        // (`count` each with `MASKED`), which the caller makes writable.
        unsafe { store_units::<BE, MASKED>(out.add(2 * done), units.round(done), count) };
        done += 32;
    }
    n
}

/// The UTF-16 units of a block, made where they end ([`general_block`]
/// tells how).
struct EndUnits {
    /// Byte `k`: where unit `k` ends.
    positions: __m512i,
    /// Each byte's payload bits (see `new`).
    payload: __m512i,
    /// The bytes a unit takes from one before its last.
    second: __m512i,
    /// The bytes a unit takes from two before its last.
    third: __m512i,
    /// Bit `k`: unit `k` is a high surrogate.
    high: u64,
}

impl EndUnits {
    /// The units of the characters whose leads are `m` (the 4-byte ones
    /// `four`) in `v`, which end at the bits of `ends`: the byte before
    /// each lead but the first, the last byte of the last character, and
    /// the third byte of each 4-byte character (its high surrogate ends
    /// there).
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
    #[inline]
    fn new(v: __m512i, m: u64, four: u64, ends: u64) -> EndUnits {
        let non_ascii = _mm512_movepi8_mask(v);
        // Every byte's payload bits: 7 for ASCII, 6 for continuation
        // bytes, and at least the lead's value bits (the marker bits that
        // remain shift out of the 16-bit lane).
        let payload =
            _mm512_mask_mov_epi8(v, non_ascii, _mm512_and_si512(v, _mm512_set1_epi8(0x3F)));
        // One before the last: where the byte after it is not ASCII; the
        // third byte of a 4-byte character (second of its low surrogate)
        // tagged with 0x30 (bits 10 and 11 of `DC00`).
        let second = _mm512_maskz_mov_epi8(non_ascii >> 1, payload);
        let second = _mm512_mask_mov_epi8(
            second,
            four << 2,
            _mm512_or_si512(payload, _mm512_set1_epi8(0x30)),
        );
        // Two before the last: leads `>= E0`; the second byte of a 4-byte
        // character (third of its low surrogate) replaced by 0x0D (bits
        // 12–15 of `DC00`).
        let three = _mm512_mask_cmpge_epu8_mask(m, v, _mm512_set1_epi8(0xE0u8 as i8));
        let third = _mm512_maskz_mov_epi8(three, payload);
        let third = _mm512_mask_mov_epi8(third, four << 1, _mm512_set1_epi8(0x0D));
        EndUnits {
            positions: _mm512_maskz_compress_epi8(ends, table(&IOTA)),
            payload,
            second,
            third,
            high: _pext_u64(four << 2, ends),
        }
    }

    /// Units `from..from + 32` (`from` is 0 or 32), in 16-bit lanes.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
    #[inline]
    fn round(&self, from: usize) -> __m512i {
        let index = if from == 0 {
            _mm512_cvtepu8_epi16(_mm512_castsi512_si256(self.positions))
        } else {
            _mm512_cvtepu8_epi16(_mm512_extracti64x4_epi64::<1>(self.positions))
        };
        let one = _mm512_set1_epi16(1);
        let before = _mm512_sub_epi16(index, one);
        let last = _mm512_maskz_permutexvar_epi8(EVEN_BYTES, index, self.payload);
        let second = _mm512_maskz_permutexvar_epi8(EVEN_BYTES, before, self.second);
        let third =
            _mm512_maskz_permutexvar_epi8(EVEN_BYTES, _mm512_sub_epi16(before, one), self.third);
        let units = _mm512_ternarylogic_epi32::<A_OR_B_OR_C>(
            last,
            _mm512_slli_epi16::<6>(second),
            _mm512_slli_epi16::<12>(third),
        );
        // A high surrogate: `(cp >> 6) >> 4` plus `D800 - 0x40` (the
        // plane number counts from 1).
        _mm512_mask_add_epi16(
            units,
            (self.high >> from) as u32,
            _mm512_srli_epi16::<4>(units),
            _mm512_set1_epi16(0xD7C0u16 as i16),
        )
    }
}

/// How [`last_block_checked`] ended.
pub(crate) enum Checked {
    /// Valid and converted: this many units written.
    Done(usize),
    /// Valid as far as the quick check sees, but the units do not fit.
    Full,
    /// The quick check failed: the caller runs the exact one.
    Unsure,
}

/// The last block of an input, `v` (its `left <= 64` bytes, lanes after
/// them zero), which starts at a character boundary with everything
/// before it valid: checked on the masks and the units, then converted as
/// [`general_block`] does, and its units stored at `out` if they fit in
/// `room`.
///
/// The check is the one the conversion makes almost free (instead of the
/// validator's lookup rules and the three loads of earlier bytes they
/// need, which a one-block call waits for): the continuation bytes must be
/// exactly those the leads ask for, all inside the input; no lead is `C0`
/// or `C1`; a 3-byte character's unit is neither below `800` nor a
/// surrogate; a 4-byte character's high unit is a high surrogate (its code
/// point is `10000..=10FFFF`, which also rules out leads `F5..`). Together
/// these are the UTF-8 rules. `Unsure` sends the caller to the exact check
/// (which finds the error, or, should this check ever be stricter than
/// the rules, passes the block).
///
/// # Safety
///
/// * `1 <= left <= 64`; `2 * room` bytes at `out` are writable.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
#[inline]
pub(crate) unsafe fn last_block_checked<const BE: bool>(
    v: __m512i,
    left: usize,
    out: *mut u8,
    room: usize,
) -> Checked {
    let lanes = _bzhi_u64(u64::MAX, left as u32);
    let lead2 = _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xC0u8 as i8));
    let lead3 = _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xE0u8 as i8));
    let lead4 = _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xF0u8 as i8));
    let continuation = _mm512_movepi8_mask(v) & !lead2;
    let asked = (lead2 << 1) | (lead3 << 2) | (lead4 << 3);
    let past_end = (lead2 >> 63) | (lead3 >> 62) | (lead4 >> 61);
    let c0_c1 = _mm512_mask_cmplt_epu8_mask(lead2, v, _mm512_set1_epi8(0xC2u8 as i8));
    if asked != continuation || past_end != 0 || c0_c1 != 0 {
        return Checked::Unsure;
    }
    let m = lanes & !continuation;
    let n = (m.count_ones() + lead4.count_ones()) as usize;
    if lead4 == 0 {
        // SAFETY: as this function's contract.
        return unsafe { bmp_last_block::<BE>(v, m, lead2, lead3, out, room) };
    }
    let ends = (m >> 1) | (1u64 << (left - 1)) | (lead4 << 2);
    let units = EndUnits::new(v, m, lead4, ends);
    // Units of 3-byte characters end two bytes after the lead.
    let three = _pext_u64((lead3 & !lead4) << 2, ends);
    let mut rounds = [_mm512_setzero_si512(); 2];
    let mut done = 0;
    let mut bad = 0;
    while done < n {
        let r = units.round(done);
        let (three, high) = ((three >> done) as u32, (units.high >> done) as u32);
        let from_d800 = _mm512_sub_epi16(r, _mm512_set1_epi16(0xD800u16 as i16));
        bad |= out_of_range3(r, three)
            | _mm512_mask_cmpge_epu16_mask(high, from_d800, _mm512_set1_epi16(0x400));
        rounds[done / 32] = r;
        done += 32;
    }
    if bad != 0 {
        return Checked::Unsure;
    }
    if n > room {
        return Checked::Full;
    }
    // SAFETY: the stores write units `0..min(n, 32)` and `32..n` of
    // `out`, `n <= room`.
    unsafe {
        store_units::<BE, true>(out, rounds[0], n.min(32));
        if n > 32 {
            store_units::<BE, true>(out.add(64), rounds[1], n - 32);
        }
    }
    Checked::Done(n)
}

/// The UTF-8 of a short input, `len` bytes at `src` that start at a
/// character boundary with everything before them valid, in blocks at a
/// fixed stride of 64: the same check as [`last_block_checked`] on each,
/// the continuation bytes that a block's last leads ask for carried into
/// the next, and every lead's character converted as [`whole_block`] does
/// (reading the bytes after the block). No block waits for another: the
/// steps of the masked loop do, each for the one before, to start at its
/// last lead. `Unsure` for a byte `F0..=FF` (no 4-byte characters here),
/// for anything the check does not pass, and for output that does not
/// fit: the caller's exact steps decide (over what this wrote).
///
/// # Safety
///
/// * `len` bytes at `src` are readable; `2 * room` bytes at `out`
///   writable.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
#[inline(never)]
pub(crate) unsafe fn quick_blocks_checked<const BE: bool>(
    src: *const u8,
    len: usize,
    out: *mut u8,
    room: usize,
) -> Checked {
    let mut i = 0;
    let mut o = 0;
    // Continuation bytes the leads of the block before ask for here.
    let mut carry = 0u64;
    while i < len {
        let left = len - i;
        let lanes = _bzhi_u64(u64::MAX, left.min(64) as u32);
        // SAFETY: the masks enable only the bytes from `i` (and from
        // `i + 32`) inside the input; masked-off lanes are not read.
        let (v, ahead) = unsafe {
            let p = src.add(i);
            (
                _mm512_maskz_loadu_epi8(lanes, p.cast()),
                if left > 32 {
                    _mm512_maskz_loadu_epi8(
                        _bzhi_u64(u64::MAX, (left - 32) as u32),
                        p.add(32).cast(),
                    )
                } else {
                    _mm512_setzero_si512()
                },
            )
        };
        let high = _mm512_movepi8_mask(v);
        if high == 0 && carry == 0 {
            // ASCII, and no character of the block before asks for a
            // continuation byte here.
            let n = left.min(64);
            if n > room - o {
                return Checked::Unsure;
            }
            // SAFETY: the store writes units `o..o + n` of `out`, `o + n <=
            // room`.
            unsafe { widen::<BE, true>(v, out.add(2 * o), n) };
            o += n;
            i += 64;
            continue;
        }
        // The check of `last_block_checked`, with the carry and without
        // 4-byte leads. (One helper for both, returning the masks, kept
        // more values alive in this loop: a register spilled, 128 bytes of
        // Cyrillic 1.15 → 1.06 ÷ simdutf.)
        let four = _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xF0u8 as i8));
        let two = _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xC0u8 as i8));
        let three = _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xE0u8 as i8));
        let continuation = high & !two;
        let asked = (two << 1) | (three << 2) | carry;
        carry = (two >> 63) | (three >> 62);
        // Lanes past the input are zeros: a character cut short by the end
        // asks for a continuation byte there, which it does not find, or,
        // in a last block of 64, carries past it.
        let c0_c1 = _mm512_mask_cmplt_epu8_mask(two, v, _mm512_set1_epi8(0xC2u8 as i8));
        if four != 0 || asked != continuation || (left <= 64 && carry != 0) || c0_c1 != 0 {
            return Checked::Unsure;
        }
        let m = lanes & !continuation;
        // Text in a 2-byte script has no 3-byte characters in most blocks:
        // those skip the third byte and the range check.
        let (lo, hi) = if three == 0 {
            (
                bmp_units::<false>(v, two as u32, 0),
                bmp_units::<false>(ahead, (two >> 32) as u32, 0),
            )
        } else {
            let lo = bmp_units::<true>(v, two as u32, three as u32);
            let hi = bmp_units::<true>(ahead, (two >> 32) as u32, (three >> 32) as u32);
            if out_of_range3(lo, three as u32) | out_of_range3(hi, (three >> 32) as u32) != 0 {
                return Checked::Unsure;
            }
            (lo, hi)
        };
        let n = m.count_ones() as usize;
        if n > room - o {
            return Checked::Unsure;
        }
        // SAFETY: the stores write units `o..o + n` of `out`, `o + n <=
        // room`.
        o += unsafe { store_lead_units::<BE, true>(out.add(2 * o), lo, hi, m) };
        i += 64;
    }
    Checked::Done(o)
}

/// Where the UTF-16 → UTF-8 kernel stopped.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Stop {
    /// Units read and bytes written so far.
    pub(crate) progress: Progress,
    /// If the kernel stopped at a block with an unpaired surrogate: the end
    /// of that block (a character boundary), which the scalar kernel should
    /// convert before calling the kernel again. `None`: the end of the room.
    pub(crate) window_end: Option<usize>,
}

impl Stop {
    /// Stopped after `read` units and `written` bytes, at `window_end`.
    #[inline(always)]
    pub(crate) fn new(read: usize, written: usize, window_end: Option<usize>) -> Stop {
        Stop {
            progress: Progress { read, written },
            window_end,
        }
    }
}

/// `vpmultishiftqb` controls: in each 32-bit lane, bytes `cp >> 18`,
/// `cp >> 12`, `cp >> 6`, `cp` (from the lane's own bits).
pub(crate) static MULTISHIFT: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        let lane = (i / 4) % 2;
        t[i] = (32 * lane + [18, 12, 6, 0][i % 4]) as u8;
        i += 1;
    }
    t
};

/// Per class (0: emits nothing; 1–4: UTF-8 length), as 32-bit lanes (byte 0
/// first in memory): which bits of the multishifted bytes to keep, the marker
/// bits to set, and which bytes to emit (the last `class` ones).
static CLASS_AND: [u32; 16] = class_table([0, 0x7F00_0000, 0x3F1F_0000, 0x3F3F_0F00, 0x3F3F_3F07]);
static CLASS_OR: [u32; 16] = class_table([0, 0, 0x80C0_0000, 0x8080_E000, 0x8080_80F0]);
static CLASS_KEEP: [u32; 16] = class_table([0, 0xFF00_0000, 0xFFFF_0000, 0xFFFF_FF00, 0xFFFF_FFFF]);

const fn class_table(first: [u32; 5]) -> [u32; 16] {
    let mut t = [0; 16];
    let mut i = 0;
    while i < 5 {
        t[i] = first[i];
        i += 1;
    }
    t
}

/// Loads a 16-entry `u32` table.
#[target_feature(enable = "avx512f")]
#[inline]
fn table32(t: &[u32; 16]) -> __m512i {
    // SAFETY: `t` is 64 readable bytes; `loadu` needs no alignment.
    unsafe { _mm512_loadu_si512(t.as_ptr().cast()) }
}

/// Loads the units of `lanes` (of 32) from `ptr` as native `u16` lanes,
/// the others zero.
///
/// # Safety
///
/// * The 2-byte units of `lanes` at `ptr` are readable.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi2")]
#[inline]
pub(crate) unsafe fn load_units<const BE: bool>(ptr: *const u8, lanes: u32) -> __m512i {
    // SAFETY: the caller makes the units of `lanes` readable; masked-off
    // lanes are not read (an all-ones mask is a plain load).
    order16::<BE>(unsafe {
        if lanes == u32::MAX {
            _mm512_loadu_si512(ptr.cast())
        } else {
            _mm512_maskz_loadu_epi16(lanes, ptr.cast())
        }
    })
}

/// Stores the first `n <= 64` bytes of `v` at `out`: all 64 (a plain
/// store) unless `MASKED`.
///
/// # Safety
///
/// * `n` bytes at `out` are writable, or 64 if not `MASKED`.
#[target_feature(enable = "avx512f,avx512bw,bmi2")]
#[inline]
unsafe fn store_bytes<const MASKED: bool>(out: *mut u8, v: __m512i, n: usize) {
    debug_assert!(n <= 64);
    // SAFETY: the caller makes the bytes written writable: with `MASKED`
    // the mask enables exactly the first `n` (masked-off lanes are not
    // written), else all 64 are.
    unsafe {
        if MASKED {
            _mm512_mask_storeu_epi8(out.cast(), _bzhi_u64(u64::MAX, n as u32), v);
        } else {
            _mm512_storeu_si512(out.cast(), v);
        }
    }
}

/// Converts UTF-16 (little-endian bytes, or big-endian if `BE`; `len` units
/// at `src`) to UTF-8 at `dst`, to the end of the input, up to the first
/// block with an unpaired surrogate, or until the next block's bytes do not
/// fit in the room left.
///
/// The bulk runs with plain loads and stores while 33 units (a block and
/// the one after it, for pairs) and the room for the widest stores remain;
/// the last blocks (and small buffers) use masked loads and stores.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `src` is valid for reads of `2 * len` bytes.
/// * `dst` is valid for writes of `cap` bytes.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
pub(crate) unsafe fn utf16_to_utf8<const BE: bool>(
    src: *const u8,
    len: usize,
    dst: *mut u8,
    cap: usize,
) -> Stop {
    let mut i = 0;
    let mut o = 0;
    if len >= STREAM_MIN && cap >= STREAM_MIN {
        // SAFETY: the caller's contract.
        i = unsafe { ascii_stream::<BE>(src, len, dst, cap) };
        o = i;
    }
    // Invariants: `i <= len`, `o <= cap`.
    // ASCII steps to let pass before the next try of the 128-unit run.
    let mut wait = 0u32;
    while len - i >= 33 && cap - o >= ROOM8 {
        prefetch_input(src, 2 * i);
        // SAFETY: units `i..i + 33` are readable, and `ROOM8` bytes at
        // `dst + o` writable, which the plain step needs.
        match unsafe { step16::<BE>(src.add(2 * i), 33, dst.add(o), cap - o) } {
            Step::Done(read, written) => {
                i += read;
                o += written;
                // A whole step of ASCII: the run may go on.
                if written == 32 && read == 32 {
                    if wait == 0 {
                        let from = i;
                        // SAFETY: units `i..len` are readable, `cap - o`
                        // bytes at `dst + o` writable.
                        (i, o) = unsafe { ascii_run::<BE>(src, len, i, dst, cap, o) };
                        if i == from {
                            wait = RUN_WAIT;
                        }
                    } else {
                        wait -= 1;
                    }
                }
            }
            Step::Unpaired(end) => return Stop::new(i, o, Some(i + end)),
            Step::Full => break,
        }
    }
    if i == len {
        return Stop::new(i, o, None);
    }
    // The rest, masked: in one step if it can be, else in the loops of
    // the masked function.
    let (rest, out, room) = (src.wrapping_add(2 * i), dst.wrapping_add(o), cap - o);
    if len - i <= 32 {
        // SAFETY: the `len - i <= 32` units at `rest` are readable, `room`
        // bytes at `out` writable.
        let one = unsafe { utf16_to_utf8_one_block::<BE>(rest, len - i, out, room) };
        if let Some(n) = one {
            return Stop::new(len, o + n, None);
        }
    }
    // SAFETY: as above.
    let end = unsafe { utf16_to_utf8_masked::<BE>(rest, len - i, out, room) };
    Stop::new(
        i + end.progress.read,
        o + end.progress.written,
        end.window_end.map(|e| i + e),
    )
}

/// ASCII steps of [`utf16_to_utf8`] that do not try the 128-unit run
/// ([`ascii_run`]) after a try that failed at once. In text with a
/// character outside ASCII every few dozen units (`sparse`), most tries
/// fail: four loads, a test and a mispredicted branch each. Intel Xeon with
/// AVX-512 FP16, 2026-11-28, UTF-16LE → UTF-8 ÷ simdutf in the same
/// rounds, before → after: `sparse` 1 KiB 0.88–0.92 → 1.05–1.07, 64 KiB
/// 1.11–1.16 → 1.28–1.36; Latin 1 KiB 1.54–1.60 → 1.45–1.49 (its runs
/// are shorter than 128 units anyway); ASCII, random and the lipsum files
/// at 1 MiB the same. In a small program, `sparse` 1 KiB by the wait: none
/// 0.93, 1 0.85–1.00, 4 0.92–0.96, 8 1.07–1.13, 32 1.01–1.05; never
/// trying the run 1.09–1.11, but ASCII 1.36–1.43 → 0.71–0.73.
const RUN_WAIT: u32 = 8;

/// Inputs of at least this many units (and outputs of as many bytes, past
/// the caches) narrow their leading ASCII with aligned non-temporal stores
/// ([`ascii_stream`]).
const STREAM_MIN: usize = 8 << 20;

/// Narrows the ASCII prefix of the `len` units at `src` (little-endian
/// bytes, or big-endian if `BE`) to bytes at `dst` with non-temporal stores
/// to whole cache lines, as far as it goes in whole 64-unit blocks after a
/// first masked step up to the output's next 64-byte boundary; returns how
/// many units it narrowed (at most the head's ASCII prefix if the head is
/// not all ASCII, 0 if it does not fit).
///
/// Non-temporal stores write each line to memory without first reading it
/// into the cache (as an ordinary store that misses must), which saves a
/// third of the memory traffic of an output that will not stay in cache.
///
/// 128 units a step, by [`narrow_ascii128`] as in [`ascii_run`]
/// (then a last step of 64 with two `vpmovwb`): Intel Xeon with AVX-512
/// FP16, 2026-11-27, 64 MiB, ÷ simdutf in the same rounds, 0.77–0.85 →
/// 1.36–1.50 on the Latin lipsum file and 1.08–1.11 → 1.42–1.43 on ASCII
/// (with 64 units a step and two `vpmovwb`, it ran below the AVX2 kernel).
/// Each step asks for its four input lines 2 KiB ahead
/// ([`prefetch_input`]): 2026-11-28, harness, three rounds, 64 MiB, GB/s
/// before → after: LE ASCII 8.7–10.7 → 9.4–13.4 and Latin 8.1–11.2 →
/// 10.2–13.7, BE 10.5–11.0 → 12.8–13.5 and 7.8–10.7 → 11.6–12.5 (÷ simdutf
/// 0.82–1.66 → 0.86–2.28; simdutf's own speed moved between rounds).
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `src` is valid for reads of `2 * len` bytes.
/// * `dst` is valid for writes of `cap` bytes.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
#[inline(never)]
unsafe fn ascii_stream<const BE: bool>(
    src: *const u8,
    len: usize,
    dst: *mut u8,
    cap: usize,
) -> usize {
    let high = _mm512_set1_epi16(0xFF80u16 as i16);
    let head = (dst as usize).wrapping_neg() % 64;
    if head > len.min(cap) {
        return 0;
    }
    // The head, up to 32 units at a time.
    let mut i = 0;
    while i < head {
        let n = (head - i).min(32);
        // SAFETY: units `i..i + n` (`i + n <= head <= len`) are readable.
        let v = unsafe { load_units::<BE>(src.add(2 * i), _bzhi_u32(u32::MAX, n as u32)) };
        if _mm512_test_epi16_mask(v, high) != 0 {
            // Nothing written past `i`, and `dst[..i]` is ASCII narrowed:
            // the caller converts on from there.
            return i;
        }
        // SAFETY: `i + n <= head <= cap` bytes at `dst` are writable; the
        // mask enables those `n` only.
        unsafe {
            _mm256_mask_storeu_epi8(
                dst.add(i).cast(),
                _bzhi_u32(u32::MAX, n as u32),
                _mm512_cvtepi16_epi8(v),
            )
        };
        i += n;
    }
    while len - i >= 128 && cap - i >= 128 {
        // The step's four input lines, asked for ahead.
        for line in 0..4 {
            prefetch_input(src, 2 * i + 64 * line);
        }
        // SAFETY: units `i..i + 128` are readable.
        let Some((lo, hi)) = (unsafe { narrow_ascii128::<BE>(src.add(2 * i)) }) else {
            break;
        };
        // SAFETY: `i + 128 <= cap`: the 128 bytes at `dst + i` are
        // writable, and 64-byte aligned (`dst + head` is, and each step
        // moves 128), as `vmovntdq` needs.
        unsafe {
            _mm512_stream_si512(dst.add(i).cast(), lo);
            _mm512_stream_si512(dst.add(i + 64).cast(), hi);
        }
        i += 128;
    }
    while len - i >= 64 && cap - i >= 64 {
        // SAFETY: units `i..i + 64` are readable.
        let (a, b) = unsafe {
            (
                load_units::<BE>(src.add(2 * i), u32::MAX),
                load_units::<BE>(src.add(2 * i + 64), u32::MAX),
            )
        };
        if _mm512_test_epi16_mask(_mm512_or_si512(a, b), high) != 0 {
            break;
        }
        let bytes = _mm512_inserti64x4::<1>(
            _mm512_castsi256_si512(_mm512_cvtepi16_epi8(a)),
            _mm512_cvtepi16_epi8(b),
        );
        // SAFETY: `i + 64 <= cap`: the 64 bytes at `dst + i` are writable,
        // and 64-byte aligned (`dst + head` is, and each step moves 64),
        // as `vmovntdq` needs.
        unsafe { _mm512_stream_si512(dst.add(i).cast(), bytes) };
        i += 64;
    }
    // Order the non-temporal stores before any later store and the
    // caller's reads of the output.
    _mm_sfence();
    i
}

/// Converts up to 32 UTF-16 units at `src` (little-endian bytes, or
/// big-endian if `BE`) to UTF-8 at `dst` in one masked step, if they hold
/// no unpaired surrogate and their bytes fit in `cap`: the byte count, or
/// `None` (then [`utf16_to_utf8_masked`] converts them and stops where it
/// must). The inputs of one block, and the last block of longer ones.
///
/// The step is inlined here (its own copy, see [`step16_loaded`]) in a
/// function without loops, which keeps its constants in memory operands
/// and saves no registers: against the masked function, whose loops load
/// theirs first, 24 ASCII units took 15–25 % less time; against the step
/// out of line (as before 2026-11-28, a call and its result through
/// memory), CJK of up to 32 units 0.71–0.78 → 1.10–1.18 ÷ simdutf.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `len <= 32`, and `src` is valid for reads of `2 * len` bytes.
/// * `dst` is valid for writes of `cap` bytes.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
pub(crate) unsafe fn utf16_to_utf8_one_block<const BE: bool>(
    src: *const u8,
    len: usize,
    dst: *mut u8,
    cap: usize,
) -> Option<usize> {
    debug_assert!(len <= 32);
    let lanes = step_lanes::<true>(len);
    // SAFETY: the `len` units of `lanes` are readable.
    let v = unsafe { load_units::<BE>(src, lanes) };
    // SAFETY: the caller's contract, which is the step's.
    match unsafe { step16_loaded::<BE, true, 2>(v, src, len, dst, cap) } {
        // With at most 32 units no pair waits for a next step: a step that
        // is done read them all (checked anyway).
        Step::Done(read, written) if read == len => Some(written),
        _ => None,
    }
}

/// Converts the `len` UTF-16 units at `src` (little-endian bytes, or
/// big-endian if `BE`) to UTF-8 at `dst` with masked steps only, which
/// read and write exactly what they convert: short inputs whole, and the
/// end of longer ones (after [`utf16_to_utf8`]'s main loop). Stops as that
/// function does: at the end, before a block with an unpaired surrogate,
/// or before a block whose bytes do not fit.
///
/// Blocks of 1- and 2-byte characters take a loop of their own first,
/// which needs few constants; the loop of the general step (inlined here,
/// its own copy) loads its many before it starts, which the inputs that
/// never need it should not pay for. With the step out of line (a call and
/// its result through memory for every step) Cyrillic of 41–85 units ran
/// at 0.69 ÷ simdutf against 0.93–0.98 inlined, CJK of 35–58 units at
/// 0.81–0.89 against 1.09–1.17.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `src` is valid for reads of `2 * len` bytes.
/// * `dst` is valid for writes of `cap` bytes.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
#[inline(never)]
pub(crate) unsafe fn utf16_to_utf8_masked<const BE: bool>(
    src: *const u8,
    len: usize,
    dst: *mut u8,
    cap: usize,
) -> Stop {
    let (mut i, mut o) = (0, 0);
    // Blocks of 1- and 2-byte characters first, in a loop of their own: an
    // input of only those (most short text) ends here, before the loop
    // below has loaded its many constants. The first block that is not
    // goes to that loop as it was loaded.
    let mut v;
    loop {
        if i == len {
            return Stop::new(i, o, None);
        }
        let lanes = step_lanes::<true>(len - i);
        let count = lanes.count_ones() as usize;
        // SAFETY: the units of `lanes`, among `i..len`, are readable.
        v = unsafe { load_units::<BE>(src.add(2 * i), lanes) };
        let wide = _mm512_cmpge_epu16_mask(v, _mm512_set1_epi16(0x80));
        // SAFETY: `cap - o` bytes at `dst + o` are writable.
        let done = unsafe {
            if wide == 0 {
                ascii_block::<true>(v, count, dst.add(o), cap - o)
            } else if _mm512_cmpge_epu16_mask(v, _mm512_set1_epi16(0x800)) == 0 {
                two_byte_block::<true>(v, lanes, wide, dst.add(o), cap - o)
            } else {
                break;
            }
        };
        let Some(n) = done else {
            return Stop::new(i, o, None);
        };
        i += count;
        o += n;
    }
    loop {
        // SAFETY: `v` holds the step's units, `i..len` are readable, and
        // `cap - o` bytes at `dst + o` writable, which the masked step keeps
        // to.
        match unsafe {
            step16_loaded::<BE, true, 1>(v, src.add(2 * i), len - i, dst.add(o), cap - o)
        } {
            Step::Done(read, written) => {
                i += read;
                o += written;
            }
            Step::Unpaired(end) => return Stop::new(i, o, Some(i + end)),
            Step::Full => break,
        }
        if i == len {
            break;
        }
        // SAFETY: the units of the mask, among `i..len`, are readable.
        v = unsafe { load_units::<BE>(src.add(2 * i), step_lanes::<true>(len - i)) };
    }
    Stop::new(i, o, None)
}

/// `vpermt2b` indices taking byte `k` of each unit of two registers (64
/// units): its low byte in memory for `k = 0` (little-endian), its high
/// byte for `k = 1`.
const fn unit_bytes(k: usize) -> [u8; 64] {
    let mut index = [0u8; 64];
    let mut j = 0;
    while j < 64 {
        index[j] = (2 * j + k) as u8;
        j += 1;
    }
    index
}

/// The low byte of every little-endian unit of two registers.
static LOW_BYTES_LE: [u8; 64] = unit_bytes(0);
/// The low byte of every big-endian unit of two registers.
static LOW_BYTES_BE: [u8; 64] = unit_bytes(1);

/// The 128 bytes of the 128 units at `src` (little-endian bytes, or
/// big-endian if `BE`) in two registers, if they are all ASCII: the OR of
/// the four registers tested once, and each two packed by one `vpermt2b`
/// of their low bytes.
///
/// # Safety
///
/// * The CPU supports the enabled features; 256 bytes at `src` are
///   readable.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline]
unsafe fn narrow_ascii128<const BE: bool>(src: *const u8) -> Option<(__m512i, __m512i)> {
    // Bits outside ASCII in a unit as loaded (bytes swapped for BE).
    let high = _mm512_set1_epi16(if BE { 0x80FFu16 } else { 0xFF80 } as i16);
    let pick = table(if BE { &LOW_BYTES_BE } else { &LOW_BYTES_LE });
    // SAFETY: the caller's promise: bytes `0..256` are readable.
    let w = unsafe { [0, 1, 2, 3].map(|k| _mm512_loadu_si512(src.add(64 * k).cast())) };
    let any = _mm512_or_si512(_mm512_or_si512(w[0], w[1]), _mm512_or_si512(w[2], w[3]));
    if _mm512_test_epi16_mask(any, high) != 0 {
        return None;
    }
    Some((
        _mm512_permutex2var_epi8(w[0], pick, w[1]),
        _mm512_permutex2var_epi8(w[2], pick, w[3]),
    ))
}

/// Narrows ASCII units from unit `i` to `dst + o`, 128 units a step, while
/// 128 units and 128 bytes of room are left and the next 128 units are
/// all ASCII; returns the new `(i, o)`.
///
/// A step tests the OR of four registers and packs each two with one
/// `vpermt2b` (one operation on port 5 for 64 bytes, where `vpmovwb` of
/// [`step16`] takes two for 32), and asks for its output's lines ahead
/// ([`prefetch_output`]). Intel Xeon with AVX-512 FP16, 2026-11-27: the
/// AVX-512 kernel on Latin and ASCII text had been 0.93–0.97× simdutf at 1
/// MiB and slower than the AVX2 kernel at 64 KiB and 1 MiB.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `src` is valid for reads of `2 * len` bytes and `dst` for writes of
///   `cap` bytes; `i <= len`, `o <= cap`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
#[inline]
unsafe fn ascii_run<const BE: bool>(
    src: *const u8,
    len: usize,
    mut i: usize,
    dst: *mut u8,
    cap: usize,
    mut o: usize,
) -> (usize, usize) {
    while len - i >= 128 && cap - o >= 128 {
        // SAFETY: units `i..i + 128` are readable.
        let Some((lo, hi)) = (unsafe { narrow_ascii128::<BE>(src.add(2 * i)) }) else {
            break;
        };
        prefetch_output::<2>(dst, o, cap);
        // SAFETY: `o + 128 <= cap`: the 128 bytes at `dst + o` are
        // writable.
        unsafe {
            let out = dst.add(o);
            _mm512_storeu_si512(out.cast(), lo);
            _mm512_storeu_si512(out.add(64).cast(), hi);
        }
        i += 128;
        o += 128;
    }
    (i, o)
}

/// Bytes of output room a plain (unmasked) UTF-16 → UTF-8 step needs: two
/// 64-byte stores, the second at most 49 bytes in (16 units make at most
/// 48 bytes, or 49 when the last of them starts a pair: 15 × 3 + 4).
const ROOM8: usize = 113;

/// What one UTF-16 → UTF-8 step did.
enum Step {
    /// Read this many units, wrote this many bytes.
    Done(usize, usize),
    /// The block has an unpaired surrogate: the scalar kernel should convert
    /// up to this many units from the step's start (a character boundary).
    Unpaired(usize),
    /// The block's bytes do not fit in the room left.
    Full,
}

/// The main loop's step: converts the 32 units at `src` (a pair cut by the
/// block's end waits for the next step) to UTF-8 at `out`, whole loads and
/// stores. The masked steps of the ends of inputs are
/// [`step16_loaded`]'s with `MASKED`.
///
/// # Safety
///
/// * `left >= 33` units at `src` are readable.
/// * `room >= ROOM8` bytes at `out` are writable.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
#[inline]
unsafe fn step16<const BE: bool>(src: *const u8, left: usize, out: *mut u8, room: usize) -> Step {
    // SAFETY: the 32 units are among the 33 readable; the rest is the
    // caller's contract.
    unsafe {
        let v = load_units::<BE>(src, u32::MAX);
        step16_loaded::<BE, false, 0>(v, src, left, out, room)
    }
}

/// The lanes a step reads: all 32, or with `MASKED` the first
/// `min(left, 32)`.
#[target_feature(enable = "bmi2")]
#[inline]
fn step_lanes<const MASKED: bool>(left: usize) -> u32 {
    if MASKED {
        _bzhi_u32(u32::MAX, left.min(32) as u32)
    } else {
        u32::MAX
    }
}

/// Narrows the `count` ASCII units of `v` to bytes at `out`; returns
/// `count`, or `None` (writing nothing) if they do not fit in `room`.
///
/// # Safety
///
/// * `room` bytes at `out` are writable, and 32 if not `MASKED`.
#[target_feature(enable = "avx512f,avx512bw,bmi2")]
#[inline]
unsafe fn ascii_block<const MASKED: bool>(
    v: __m512i,
    count: usize,
    out: *mut u8,
    room: usize,
) -> Option<usize> {
    if count > room {
        return None;
    }
    let bytes = _mm512_castsi256_si512(_mm512_cvtepi16_epi8(v));
    // SAFETY: `count <= room` bytes are written (32 without `MASKED`).
    unsafe { store_bytes::<MASKED>(out, bytes, count) };
    Some(count)
}

/// Converts the units of `lanes` in `v`, 1- and 2-byte characters only
/// (`wide`: the 2-byte ones), to UTF-8 at `out`; returns the byte count, or
/// `None` (writing nothing) if they do not fit in `room`.
///
/// # Safety
///
/// * `room` bytes at `out` are writable, and 64 if not `MASKED`.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi2,bmi2,popcnt")]
#[inline]
unsafe fn two_byte_block<const MASKED: bool>(
    v: __m512i,
    lanes: u32,
    wide: u32,
    out: *mut u8,
    room: usize,
) -> Option<usize> {
    // The first byte of every lane, the second of the 2-byte ones.
    let keep = _pdep_u64(u64::from(lanes), 0x5555_5555_5555_5555)
        | _pdep_u64(u64::from(wide), 0xAAAA_AAAA_AAAA_AAAA);
    let n = keep.count_ones() as usize;
    if n > room {
        return None;
    }
    let r = two_byte_lanes(v, wide);
    // SAFETY: `n <= room` bytes are written (64 without `MASKED`).
    unsafe { store_bytes::<MASKED>(out, _mm512_maskz_compress_epi8(keep, r), n) };
    Some(n)
}

/// The UTF-8 of the 16-bit lanes of `v`, values below `800` (`wide`: the
/// lanes `>= 80`), two bytes a lane in memory order: a 2-byte lane holds
/// `C0 | u >> 6` then `80 | u & 3F`, an ASCII lane its byte then a zero.
/// The caller's `vpcompressb` keeps the bytes it wants (UTF-16 → UTF-8 and
/// UTF-32 → UTF-8).
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
pub(crate) fn two_byte_lanes(v: __m512i, wide: u32) -> __m512i {
    let t = _mm512_ternarylogic_epi32::<A_OR_B_AND_C>(
        _mm512_srli_epi16::<6>(v),
        _mm512_slli_epi16::<8>(v),
        _mm512_set1_epi16(0x3F00),
    );
    let t = _mm512_or_si512(t, _mm512_set1_epi16(0x80C0u16 as i16));
    _mm512_mask_mov_epi16(v, wide, t)
}

/// One step: converts up to 32 of the `left` units at `src` (all of them if
/// fewer; a pair cut by the block's end waits for the next step) to UTF-8
/// at `out`, with its units already loaded: `v` holds the units of
/// [`step_lanes`]`(left)` at `src`, zeros in the other lanes.
///
/// `COPY` changes nothing but the instance: each caller takes one of its
/// own (0: [`step16`], for the main loop; 1: [`utf16_to_utf8_masked`]; 2:
/// [`utf16_to_utf8_one_block`]), so that each inlines it. One instance
/// called from two places stays out of line, a call for every step (see
/// [`utf16_to_utf8_masked`] for what that cost).
///
/// # Safety
///
/// * `min(left, 33)` units at `src` are readable.
/// * `room` bytes at `out` are writable; if not `MASKED`, `left >= 33` and
///   `room >= ROOM8`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
#[inline]
unsafe fn step16_loaded<const BE: bool, const MASKED: bool, const COPY: u8>(
    v: __m512i,
    src: *const u8,
    left: usize,
    out: *mut u8,
    room: usize,
) -> Step {
    let lanes = step_lanes::<MASKED>(left);
    let count = lanes.count_ones() as usize;
    let wide = _mm512_cmpge_epu16_mask(v, _mm512_set1_epi16(0x80));
    if wide == 0 {
        // SAFETY: the caller's contract.
        return match unsafe { ascii_block::<MASKED>(v, count, out, room) } {
            Some(n) => Step::Done(count, n),
            None => Step::Full,
        };
    }
    if !MASKED && wide & (wide - 1) == 0 {
        let k = wide.trailing_zeros() as usize;
        // SAFETY: unit `k < 32` is among the readable ones.
        let unit = unsafe { unit_at::<BE>(src, k) };
        if !(0xD800..0xE000).contains(&unit) {
            // SAFETY: `ROOM8` bytes at `out` are writable (the caller's
            // contract without `MASKED`).
            return Step::Done(32, unsafe { one_outside_ascii(v, k, unit, out) });
        }
    }
    let three = _mm512_cmpge_epu16_mask(v, _mm512_set1_epi16(0x800));
    if three == 0 {
        // SAFETY: the caller's contract.
        return match unsafe { two_byte_block::<MASKED>(v, lanes, wide, out, room) } {
            Some(n) => Step::Done(count, n),
            None => Step::Full,
        };
    }
    let tag = _mm512_and_si512(v, _mm512_set1_epi16(0xFC00u16 as i16));
    let high = _mm512_cmpeq_epi16_mask(tag, _mm512_set1_epi16(0xD800u16 as i16));
    let low = _mm512_cmpeq_epi16_mask(tag, _mm512_set1_epi16(0xDC00u16 as i16));
    if !MASKED && high == 0x5555_5555 && low == 0xAAAA_AAAA {
        // SAFETY: `ROOM8 >= 64` bytes at `out` are writable (the caller's
        // contract without `MASKED`).
        unsafe { pairs_block(v, out) };
        return Step::Done(32, 64);
    }
    if high | low == 0 {
        if MASKED {
            let n = count + wide.count_ones() as usize + three.count_ones() as usize;
            if n > room {
                return Step::Full;
            }
            // SAFETY: the block's `n <= room` bytes are written.
            let written =
                unsafe { block_to_utf8::<false, true>(v, v, wide, three, 0, !lanes, out) };
            debug_assert_eq!(written, n);
            return Step::Done(count, n);
        }
        // SAFETY: `ROOM8` bytes at `out` are writable.
        let n = unsafe { block_to_utf8::<false, false>(v, v, wide, three, 0, 0, out) };
        return Step::Done(32, n);
    }
    // The units one lane on, for pairs (lanes past the input read as 0).
    let next_lanes = if MASKED {
        _bzhi_u32(u32::MAX, left.saturating_sub(1).min(32) as u32)
    } else {
        u32::MAX
    };
    // SAFETY: units `1..1 + next_lanes.count_ones()` are among the
    // `min(left, 33)` readable.
    let next = unsafe { load_units::<BE>(src.add(2), next_lanes) };
    let next_tag = _mm512_and_si512(next, _mm512_set1_epi16(0xFC00u16 as i16));
    let low_next =
        _mm512_mask_cmpeq_epi16_mask(next_lanes, next_tag, _mm512_set1_epi16(0xDC00u16 as i16));
    let paired = high & low_next;
    // Every high surrogate needs a low one after it, every low one a high
    // one before it (lane 0's predecessor is never a high surrogate: a step
    // never ends between the two).
    if high != paired || low != paired << 1 & low {
        // The window ends with the block, or just after it if the block
        // ends with a paired high surrogate (whose low one is then in it).
        return Step::Unpaired(count + (paired >> 31) as usize);
    }
    // A pair split by the block end waits for the next step.
    let last = paired >> 31;
    let skip = low | (last << 31) | !lanes;
    let emit = !skip;
    let n = (emit.count_ones()
        + (wide & emit).count_ones()
        + (three & emit).count_ones()
        + (high & emit).count_ones()) as usize;
    if n > room {
        return Step::Full;
    }
    // SAFETY: the block's `n <= room` bytes are written (`ROOM8` without
    // `MASKED`).
    let written =
        unsafe { block_to_utf8::<true, MASKED>(v, next, wide, three, high & emit, skip, out) };
    debug_assert_eq!(written, n);
    Step::Done(count - last as usize, n)
}

/// Converts the 32 units of `v`, 16 surrogate pairs (a high half in every
/// even lane, a low half in every odd one), to their 64 bytes of UTF-8 at
/// `out`. Each 32-bit lane holds a pair: `vpmaddwd` makes its scalar value
/// (`h * 400 + l` on the units read as signed, corrected by a constant),
/// `vpmultishiftqb` lays out its bits as the UTF-8 of any 4-byte character
/// ([`MULTISHIFT`]) and one ternary logic op masks them and sets the
/// marker bits. Text of emoji only (the Emoji lipsum file) is all such
/// blocks, which the general path widens to 32-bit lanes half by half and
/// compresses (port 5 busy about 25 cycles a block instead of about 3).
///
/// # Safety
///
/// * 64 bytes at `out` are writable.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline]
unsafe fn pairs_block(v: __m512i, out: *mut u8) {
    // With `h` and `l` read as signed 16-bit values (both are above 7FFF),
    // `h * 400 + l` is the scalar value `(h - D800) * 400 + (l - DC00) +
    // 10000` less `A1_2400`.
    let cp = _mm512_add_epi32(
        _mm512_madd_epi16(v, _mm512_set1_epi32(0x0001_0400)),
        _mm512_set1_epi32(0xA1_2400),
    );
    let bits = _mm512_multishift_epi64_epi8(table(&MULTISHIFT), cp);
    let bytes = _mm512_ternarylogic_epi32::<A_AND_B_OR_C>(
        bits,
        _mm512_set1_epi32(0x3F3F_3F07),
        _mm512_set1_epi32(0x8080_80F0u32 as i32),
    );
    // SAFETY: the caller makes the 64 bytes writable.
    unsafe { _mm512_storeu_si512(out.cast(), bytes) };
}

/// Unit `k` of the units at `src` (little-endian, or big-endian if `BE`).
///
/// # Safety
///
/// * Unit `k` at `src` is readable.
#[inline(always)]
unsafe fn unit_at<const BE: bool>(src: *const u8, k: usize) -> u16 {
    // SAFETY: the caller's contract.
    let raw = unsafe { src.add(2 * k).cast::<u16>().read_unaligned() };
    if BE {
        u16::from_be(raw)
    } else {
        u16::from_le(raw)
    }
}

/// Converts the 32 units of `v`, all ASCII but unit `k` (`unit`, not a
/// surrogate), to UTF-8 at `out`; returns the byte count (33 or 34). The
/// units narrow as if all were ASCII, the character's 2 or 3 bytes go
/// where it stands (one 4-byte store), and the bytes after it are stored
/// again after those, shifted by one `vpermb`. In text with a character
/// outside ASCII every few dozen units (`sparse`: 4 in 5 of the steps that
/// are not all ASCII have one such unit) this takes the place of the
/// general path, which widens the units to 32-bit lanes (two halves, port
/// 5 busy about 20 cycles).
///
/// # Safety
///
/// * `k < 32`; 66 bytes at `out` are writable.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi")]
#[inline]
unsafe fn one_outside_ascii(v: __m512i, k: usize, unit: u16, out: *mut u8) -> usize {
    let u = u32::from(unit);
    let bytes = _mm512_cvtepi16_epi8(v);
    let (encoded, n) = if u < 0x800 {
        (0x80C0 | u >> 6 | (u & 0x3F) << 8, 2)
    } else {
        (
            0x80_80E0 | u >> 12 | (u >> 6 & 0x3F) << 8 | (u & 0x3F) << 16,
            3,
        )
    };
    // Byte `j` of `after` is byte `k + 1 + j` of `bytes` (past 31: any).
    let index = _mm256_add_epi8(
        _mm256_setr_epi8(
            0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
            24, 25, 26, 27, 28, 29, 30, 31,
        ),
        _mm256_set1_epi8(k as i8 + 1),
    );
    let after = _mm256_permutexvar_epi8(index, bytes);
    // SAFETY: the stores write bytes `0..32`, `k..k + 4` and
    // `k + n..k + n + 32` of `out`, all below 66, which the caller makes
    // writable; each overwrites what the one before wrote past the real
    // output.
    unsafe {
        _mm256_storeu_si256(out.cast(), bytes);
        out.add(k).cast::<u32>().write_unaligned(encoded.to_le());
        _mm256_storeu_si256(out.add(k + n).cast(), after);
    }
    31 + n
}

/// Converts the 32 units of `v` to UTF-8 at `out`, returns the byte count.
/// `wide`/`three` mark units `>= 80`/`>= 800`; with `PAIRS`, `high` marks
/// high surrogates followed by a low one (`next` holds the units one lane
/// on) and `skip` the lanes that emit nothing.
///
/// # Safety
///
/// * `ROOM8` bytes at `out` are writable, or with `MASKED` the bytes it
///   returns.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
#[inline]
#[allow(
    clippy::too_many_arguments,
    reason = "one call site per path, all masks"
)]
unsafe fn block_to_utf8<const PAIRS: bool, const MASKED: bool>(
    v: __m512i,
    next: __m512i,
    wide: u32,
    three: u32,
    high: u32,
    skip: u32,
    out: *mut u8,
) -> usize {
    let half = |w: __m256i, wn: __m256i, s: u32| {
        let w = _mm512_cvtepu16_epi32(w);
        let (wide, three, high, skip) = (
            (wide >> s) as u16,
            (three >> s) as u16,
            (high >> s) as u16,
            (skip >> s) as u16,
        );
        let cp = if PAIRS {
            // (h - D800) << 10 + (l - DC00) + 10000 = h << 10 + l - 35F_DC00
            let wn = _mm512_cvtepu16_epi32(wn);
            let pair = _mm512_add_epi32(
                _mm512_add_epi32(_mm512_slli_epi32::<10>(w), wn),
                _mm512_set1_epi32(-0x35F_DC00),
            );
            _mm512_mask_mov_epi32(w, high, pair)
        } else {
            w
        };
        let class = _mm512_mask_mov_epi32(_mm512_set1_epi32(1), wide, _mm512_set1_epi32(2));
        let class = _mm512_mask_mov_epi32(class, three, _mm512_set1_epi32(3));
        let class = if PAIRS {
            let class = _mm512_mask_mov_epi32(class, high, _mm512_set1_epi32(4));
            _mm512_maskz_mov_epi32(!skip, class)
        } else if MASKED {
            _mm512_maskz_mov_epi32(!skip, class)
        } else {
            class
        };
        let bits = _mm512_multishift_epi64_epi8(table(&MULTISHIFT), cp);
        let bytes = _mm512_ternarylogic_epi32::<A_AND_B_OR_C>(
            bits,
            _mm512_permutexvar_epi32(class, table32(&CLASS_AND)),
            _mm512_permutexvar_epi32(class, table32(&CLASS_OR)),
        );
        let keep = _mm512_movepi8_mask(_mm512_permutexvar_epi32(class, table32(&CLASS_KEEP)));
        (
            _mm512_maskz_compress_epi8(keep, bytes),
            keep.count_ones() as usize,
        )
    };
    let (lo, n0) = half(_mm512_castsi512_si256(v), _mm512_castsi512_si256(next), 0);
    let (hi, n1) = half(
        _mm512_extracti64x4_epi64::<1>(v),
        _mm512_extracti64x4_epi64::<1>(next),
        16,
    );
    // SAFETY: the stores write bytes `0..n0` and `n0..n0 + n1` of `out`
    // with `MASKED`, else `0..64` and `n0..n0 + 64 <= ROOM8` (see there),
    // as the caller allows.
    unsafe {
        store_bytes::<MASKED>(out, lo, n0);
        store_bytes::<MASKED>(out.add(n0), hi, n1);
    }
    n0 + n1
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;
    use std::vec;

    /// Invalid input the wrappers never pass (they validate first) still
    /// keeps every store inside the room: runs of 4-byte leads without
    /// their continuation bytes would make up to 2 units per byte.
    #[test]
    fn invalid_four_byte_leads_stay_inside_the_room() {
        if !super::super::avx512_transcode() {
            return;
        }
        const GUARD: u8 = 0xA5;
        // E.g. 30 `F0` then ASCII: 63 characters, 93 units, and the last
        // round's store would start at unit 78 without the 64-unit bound.
        for lead in [0xF0u8, 0xFF] {
            for leads in (0..=64).chain([100, 200]) {
                for tail in [0usize, 1, 17] {
                    let mut src = vec![lead; leads];
                    src.extend(core::iter::repeat_n(0x80u8, tail));
                    src.extend(core::iter::repeat_n(b'a', 70));
                    for cap in (0..=2 * src.len()).step_by(3) {
                        let mut out = vec![GUARD; 2 * cap + 256];
                        // SAFETY: the CPU has the features; `out` holds
                        // `2 * cap` writable bytes (and a guard after them).
                        let p = unsafe { utf8_to_utf16::<false>(&src, out.as_mut_ptr(), cap) };
                        assert!(p.read <= src.len() && p.written <= cap);
                        assert!(
                            out[2 * cap..].iter().all(|&b| b == GUARD),
                            "lead {lead:X}, {leads} leads, tail {tail}, cap {cap}"
                        );
                    }
                }
            }
        }
    }
}
