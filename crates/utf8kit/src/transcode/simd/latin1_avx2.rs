//! AVX2 Latin-1 ⇄ UTF-8, and the UTF-8 length of Latin-1 (the count of
//! [`super::count_avx2`]; the Latin-1 length of UTF-8 is its character
//! count).
//!
//! Both directions copy ASCII 128 bytes a step (four registers, one test of
//! their OR) once a 32-byte block was all ASCII, and otherwise convert 32
//! bytes a step, always moving on by 32: no step waits for the masks of
//! the step before to know where to load.
//!
//! # Latin-1 → UTF-8
//!
//! A step makes two vectors of 32 bytes: the byte itself, with bit 6
//! cleared in the bytes `80..=FF` (their continuation byte `80 | b & 3F`;
//! one `pblendvb` on the sign bits), and the lead byte `C2`/`C3`. Unpacking
//! the two interleaves them into 16-bit lanes `[lead, byte]`, eight bytes
//! of input per 128-bit lane, and a `pshufb` per register packs each group
//! of eight lanes with a row of [`WIDEN2`] indexed by the group's high-bit
//! mask (the lane's second byte alone for ASCII, both bytes otherwise): 8
//! bytes make 8 to 16, and the four groups are stored one after the other,
//! 16 bytes each.
//!
//! # UTF-8 → Latin-1 (validating)
//!
//! A step converts its 32 bytes in registers only if the non-ASCII bytes
//! are exactly `C2`/`C3` leads and continuation bytes and the continuations
//! are exactly the bytes after a lead (a comparison of three masks, with
//! the last lead of the previous step carried in). Each character is
//! written at its lead's lane: `next | 40` after `C3`, `next` after `C2`,
//! with `next` the byte after the lead (the input loaded again one byte
//! on; a continuation byte, `80..=BF`, is already the Latin-1 byte of
//! `C2 xx`). A `pshufb` per group of eight from [`KEEP`] drops the
//! continuation lanes: 4 to 8 bytes per group, each group stored with 8.
//! A lead in the last lane is written with the byte after the step, which
//! the next step checks: if there is none, or it fails, that character is
//! taken back and left to the scalar kernel with the rest.
//!
//! Anything else is an error for Latin-1 (or a character it cannot hold):
//! the kernel stops at the step's start (at the lead whose character the
//! step would complete), a character boundary, and the scalar kernel finds
//! and reports the first problem from there.
//!
//! # Room
//!
//! Every store of a step stays inside 64 (Latin-1 → UTF-8) or 32 (UTF-8 →
//! Latin-1) bytes from the step's output. A store may spill past the
//! step's output (at most 8 or 4 bytes) only when at least 8 bytes of
//! input follow the step, which make at least 8 or 4 bytes of output that
//! overwrite the spill (if the conversion succeeds: on an error the output
//! does not count). Nearer the end, or with less room, a step writes
//! exactly its output: its last group is written as two overlapping 8-
//! or 4-byte pieces. Of the 0..=31 bytes after the last step, Latin-1 →
//! UTF-8 converts 16 with one more exact step and the last 1..=15 (or a
//! whole input shorter than 16) from one register holding just them (the
//! last 16 bytes of the input moved down by a `pshufb`, or read with at
//! most two scalar loads: the validator's `load_end` and `load_small`),
//! widened into a local buffer from which exactly their output is copied;
//! UTF-8 → Latin-1 converts them all as the end of a window of the last 32
//! bytes (the bytes before them masked off in the test and the keep mask),
//! packed in a local buffer and copied exactly.
//! Only a lack of room (or, for UTF-8, a problem in the input, an input
//! shorter than 32 bytes, or a 2-byte character across the last step's
//! end) leaves bytes to the scalar kernel.
//!
//! # Large inputs
//!
//! From [`STREAM_MIN`] (8 MiB) of input and room on, both directions first
//! copy the input's ASCII start with [`ascii_stream`]: ordinary stores up
//! to the output's first 64-byte boundary, then aligned non-temporal
//! stores (`vmovntdq`) of whole cache lines, 128 bytes a step, and an
//! `sfence`. A non-temporal store does not read the line before writing
//! it, as a store that misses the cache must, so an output that will not
//! stay in cache costs a third less memory traffic. The rest of the input
//! (from the first 128-byte step that is not all ASCII) converts as usual.
//!
//! # Measured
//!
//! On an AMD Zen 3 (EPYC, AVX2, no AVX-512; 2026-11-26, a machine shared
//! with other jobs: ratios from interleaved rounds, absolute figures loose),
//! utf8kit ÷ simdutf's `haswell` kernels at 64 B / 1 KiB / 64 KiB / 1 MiB:
//! Latin-1 → UTF-8 1.23–1.26 / 1.74–2.83 / 1.70–3.30 / 1.74–2.50 over the
//! four Latin-1 inputs; UTF-8 → Latin-1 2.70–4.38 / 1.98–3.30 / 1.02–2.75 /
//! 0.94–2.59, the lowest figures on all-ASCII text at 64 KiB and 1 MiB,
//! where both libraries run at the speed of `memcpy` (ours 0.94–1.05×
//! `memcpy` there).
//!
//! # Tried and dropped
//!
//! - The previous kernels: Latin-1 → UTF-8 16 bytes a step (`vpmovzxbw`,
//!   the two-byte form computed on 16-bit lanes and blended), 32 bytes a
//!   step only over ASCII; UTF-8 → Latin-1 16 or 17 bytes a step (the
//!   length depending on the step's masks, so each load waited for the
//!   masks of the step before) and 32-byte ASCII steps, the last 0..=31
//!   bytes scalar. Same machine, same runs: Latin-1 → UTF-8 0.91–0.94× simdutf
//!   on the all-ASCII rows at 1 MiB, 0.92–0.94 on Latin-1 text and random
//!   Latin-1 at 64 B and 1 KiB; UTF-8 → Latin-1 0.37–0.56× on the all-ASCII
//!   rows at 64 KiB and 1 MiB, 0.96–1.10 on random Latin-1, and slower than
//!   the SSE4.1 kernel (16-byte steps that always move on by 16) on Latin-1
//!   text and random Latin-1 (0.87–0.93 against 1.49–2.57 GB/s).

use super::{Aligned, Progress, copy_short, lane_table, prefetch_output};
use crate::validate::simd::sse42;
use core::arch::x86_64::*;

/// Bytes of input a step converts (one register).
const STEP: usize = 32;

/// Bytes of input an ASCII step copies (four registers).
const ASCII_STEP: usize = 128;

/// Input bytes left from which a step stores whole registers: the step's
/// 32 and the 8 after it, whose output overwrites the spill.
const WHOLE: usize = STEP + 8;

/// `pshufb` indices that keep the bytes `0..8` whose bit is set in the
/// index, packed to the start. (Shared with [`super::latin1_sse41`].)
pub(crate) static KEEP: Aligned<[[u8; 16]; 256]> = Aligned(lane_table(1, &[], &[0]));

/// `pshufb` indices that pack the UTF-8 of eight 16-bit lanes `[lead,
/// byte]`: the byte of lane `k` alone if bit `k` of the index is clear
/// (ASCII), the lead and the byte if it is set.
static WIDEN2: Aligned<[[u8; 16]; 256]> = Aligned(lane_table(2, &[1], &[0, 1]));

/// The 16-byte row `mask` (its low 8 bits) of `table`.
#[target_feature(enable = "avx2")]
#[inline]
fn row(table: &[[u8; 16]; 256], mask: u32) -> __m128i {
    // SAFETY: a row is 16 readable bytes.
    unsafe { _mm_loadu_si128(table[usize::from(mask as u8)].as_ptr().cast()) }
}

/// The rows `lo` and `hi` (their low 8 bits) of `table` in the low and the
/// high 128-bit lane.
#[target_feature(enable = "avx2")]
#[inline]
fn rows(table: &[[u8; 16]; 256], lo: u32, hi: u32) -> __m256i {
    _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(row(table, lo)), row(table, hi))
}

/// Copies the ASCII text at `src[i..]` to `dst + o`, 128 bytes a step while
/// they are all ASCII and 128 bytes of room remain; returns the new `i`
/// and `o`.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `cap` bytes; `i <= src.len()`, `o <= cap`.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn copy_ascii128(
    src: &[u8],
    mut i: usize,
    dst: *mut u8,
    cap: usize,
    mut o: usize,
) -> (usize, usize) {
    let steps = ((src.len() - i) / ASCII_STEP).min((cap - o) / ASCII_STEP);
    for _ in 0..steps {
        // SAFETY: `i + 128 <= src.len()` and `o + 128 <= cap` (at most
        // `steps` steps).
        unsafe {
            let q = src.as_ptr().add(i);
            let w = [0, 1, 2, 3].map(|k| _mm256_loadu_si256(q.add(32 * k).cast()));
            let any = _mm256_or_si256(_mm256_or_si256(w[0], w[1]), _mm256_or_si256(w[2], w[3]));
            if _mm256_movemask_epi8(any) != 0 {
                break;
            }
            let out = dst.add(o);
            prefetch_output::<2>(dst, o, cap);
            for (k, x) in w.into_iter().enumerate() {
                _mm256_storeu_si256(out.add(32 * k).cast(), x);
            }
        }
        i += ASCII_STEP;
        o += ASCII_STEP;
    }
    (i, o)
}

/// The UTF-8 of the 32 Latin-1 bytes `v`, whose high-bit mask is `high`,
/// as four groups (one per 8 bytes of input, each packed from its first
/// byte on, 8 to 16 bytes): groups 0 and 2 in the low and high lane of the
/// first register, groups 1 and 3 in those of the second.
#[target_feature(enable = "avx2")]
#[inline]
fn widen32(v: __m256i, high: u32) -> (__m256i, __m256i) {
    // The byte, or its continuation byte `80 | b & 3F` (bit 6 cleared) if
    // it is `80..=FF` (sign bit set).
    let byte = _mm256_blendv_epi8(v, _mm256_and_si256(v, _mm256_set1_epi8(0xBFu8 as i8)), v);
    // `C3` for `C0..=FF` (and ASCII, whose lead is dropped), else `C2`.
    let lead = _mm256_sub_epi8(
        _mm256_set1_epi8(0xC2u8 as i8),
        _mm256_cmpgt_epi8(v, _mm256_set1_epi8(-65)),
    );
    let a = _mm256_unpacklo_epi8(lead, byte);
    let b = _mm256_unpackhi_epi8(lead, byte);
    (
        _mm256_shuffle_epi8(a, rows(&WIDEN2.0, high, high >> 16)),
        _mm256_shuffle_epi8(b, rows(&WIDEN2.0, high >> 8, high >> 24)),
    )
}

/// Writes exactly the `n` bytes (`8 <= n <= 16`) of `g` at `out`: the
/// first 8, then the last 8 (overlapping).
///
/// # Safety
///
/// * `out` is valid for writes of `n` bytes; `8 <= n <= 16`.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn store_exact16(out: *mut u8, g: __m128i, n: usize) {
    let lo = _mm_cvtsi128_si64(g) as u64;
    let hi = _mm_extract_epi64::<1>(g) as u64;
    let last = ((u128::from(hi) << 64 | u128::from(lo)) >> (8 * (n - 8))) as u64;
    // SAFETY: `out..out + 8` and `out + n - 8..out + n` are inside the `n`
    // writable bytes.
    unsafe {
        out.cast::<u64>().write_unaligned(lo);
        out.add(n - 8).cast::<u64>().write_unaligned(last);
    }
}

/// Inputs (and rooms) of at least this many bytes, whose output will not
/// stay in the caches, copy their leading ASCII with aligned non-temporal
/// stores ([`ascii_stream`]).
const STREAM_MIN: usize = 8 << 20;

/// Copies the ASCII prefix of `src` to `dst` (ASCII is the same bytes in
/// Latin-1 and UTF-8) with non-temporal stores of whole cache lines, 128
/// bytes a step from the output's first 64-byte boundary on (the 64 bytes
/// before it by ordinary stores); returns how many bytes it copied (0 if
/// the first 64 are not all ASCII or do not fit).
///
/// Non-temporal stores write each line to memory without first reading it
/// into the cache (as an ordinary store that misses must), which saves a
/// third of the memory traffic of a copy whose output does not stay in
/// cache.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `cap` bytes.
#[target_feature(enable = "avx2")]
#[inline(never)]
unsafe fn ascii_stream(src: &[u8], dst: *mut u8, cap: usize) -> usize {
    let len = src.len();
    let p = src.as_ptr();
    if len.min(cap) < 64 {
        return 0;
    }
    // SAFETY: 64 bytes at `p` are readable, 64 at `dst` writable.
    unsafe {
        let a = _mm256_loadu_si256(p.cast());
        let b = _mm256_loadu_si256(p.add(32).cast());
        if _mm256_movemask_epi8(_mm256_or_si256(a, b)) != 0 {
            return 0;
        }
        _mm256_storeu_si256(dst.cast(), a);
        _mm256_storeu_si256(dst.add(32).cast(), b);
    }
    // The output's first 64-byte boundary after the bytes stored.
    let mut i = 64 - (dst as usize) % 64;
    while len - i >= ASCII_STEP && cap - i >= ASCII_STEP {
        // SAFETY: `i + 128 <= len` bytes are readable, `i + 128 <= cap`
        // writable; `dst + i` is 64-byte aligned (it is after the head,
        // and each step moves 128), as `vmovntdq` needs 32.
        unsafe {
            let q = p.add(i);
            let w = [0, 1, 2, 3].map(|k| _mm256_loadu_si256(q.add(32 * k).cast()));
            let any = _mm256_or_si256(_mm256_or_si256(w[0], w[1]), _mm256_or_si256(w[2], w[3]));
            if _mm256_movemask_epi8(any) != 0 {
                break;
            }
            let out = dst.add(i);
            for (k, x) in w.into_iter().enumerate() {
                _mm256_stream_si256(out.add(32 * k).cast(), x);
            }
        }
        i += ASCII_STEP;
    }
    // Order the non-temporal stores before any later store and the
    // caller's reads of the output.
    _mm_sfence();
    i
}

/// Converts Latin-1 `src` to UTF-8 at `dst`, all of it where the room
/// allows (steps of 32 bytes, one of 16, then the last 1..=15 bytes; see
/// the module docs), stopping only for room; an input past [`STREAM_MIN`]
/// copies its ASCII start with [`ascii_stream`] first.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `cap` bytes.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
pub(crate) unsafe fn latin1_to_utf8(src: &[u8], dst: *mut u8, cap: usize) -> Progress {
    if src.len() >= STREAM_MIN && cap >= STREAM_MIN {
        // SAFETY: the caller's contract.
        return unsafe { after_ascii_stream(src, dst, cap, latin1_to_utf8_main) };
    }
    // SAFETY: the caller's contract.
    unsafe { latin1_to_utf8_main(src, dst, cap) }
}

/// An input past [`STREAM_MIN`]: its ASCII start copied by
/// [`ascii_stream`], then the rest converted by `main` (one direction's
/// kernel; out of line and cold, so that the common path has one call).
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `cap` bytes.
/// * `main` is `latin1_to_utf8_main` or `utf8_to_latin1_main` (an ASCII
///   prefix is its own output in both directions, and ends on a character
///   boundary).
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
#[inline(never)]
#[cold]
unsafe fn after_ascii_stream(
    src: &[u8],
    dst: *mut u8,
    cap: usize,
    main: unsafe fn(&[u8], *mut u8, usize) -> Progress,
) -> Progress {
    // SAFETY: the caller's contract; the rest converts after the prefix.
    unsafe {
        let k = ascii_stream(src, dst, cap);
        let p = main(&src[k..], dst.add(k), cap - k);
        Progress {
            read: k + p.read,
            written: k + p.written,
        }
    }
}

/// [`latin1_to_utf8`] past the streamed prefix.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `cap` bytes.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
#[inline]
unsafe fn latin1_to_utf8_main(src: &[u8], dst: *mut u8, cap: usize) -> Progress {
    let len = src.len();
    let mut i = 0;
    let mut o = 0;
    let p = src.as_ptr();
    // Invariants: `i <= len`, `o <= cap`.
    while len - i >= STEP {
        // SAFETY: `i + 32 <= len`.
        let v = unsafe { _mm256_loadu_si256(p.add(i).cast()) };
        let high = _mm256_movemask_epi8(v) as u32;
        if high == 0 {
            if cap - o < STEP {
                break;
            }
            // SAFETY: `o + 32 <= cap`.
            unsafe { _mm256_storeu_si256(dst.add(o).cast(), v) };
            i += STEP;
            o += STEP;
            // SAFETY: `dst` as the caller promised, `i <= len`, `o <= cap`.
            (i, o) = unsafe { copy_ascii128(src, i, dst, cap, o) };
            continue;
        }
        // Where each group starts in the output, and its end.
        let o1 = 8 + (high & 0xFF).count_ones() as usize;
        let o2 = 16 + (high & 0xFFFF).count_ones() as usize;
        let o3 = 24 + (high & 0xFF_FFFF).count_ones() as usize;
        let n = 32 + high.count_ones() as usize;
        let whole = len - i >= WHOLE && cap - o >= 2 * STEP;
        if !whole && cap - o < n {
            break;
        }
        let (a, b) = widen32(v, high);
        // SAFETY: `o + n <= cap` or `o + 64 <= cap`.
        let out = unsafe { dst.add(o) };
        // SAFETY: every group holds 8 to 16 bytes, so the 16-byte stores
        // of groups 0 to 2 (at `o2 + 16 <= o3 + 8 <= n`) stay inside the
        // step's output, which the room holds; group 3 is 16 bytes at
        // `o3 + 16 <= 64` bytes from `out` (the room for whole stores) or
        // exactly its `n - o3` bytes.
        unsafe {
            _mm_storeu_si128(out.cast(), _mm256_castsi256_si128(a));
            _mm_storeu_si128(out.add(o1).cast(), _mm256_castsi256_si128(b));
            _mm_storeu_si128(out.add(o2).cast(), _mm256_extracti128_si256::<1>(a));
            let g3 = _mm256_extracti128_si256::<1>(b);
            if whole {
                _mm_storeu_si128(out.add(o3).cast(), g3);
            } else {
                store_exact16(out.add(o3), g3, n - o3);
            }
        }
        i += STEP;
        o += n;
    }
    // One more step of 16 bytes, written exactly.
    if len - i >= STEP / 2 {
        // SAFETY: `i + 16 <= len`.
        let v = unsafe { _mm_loadu_si128(p.add(i).cast()) };
        let high = _mm_movemask_epi8(v) as u32;
        let o1 = 8 + (high & 0xFF).count_ones() as usize;
        let n = 16 + high.count_ones() as usize;
        if cap - o >= n {
            let (a, b) = widen32(_mm256_zextsi128_si256(v), high);
            // SAFETY: `o + n <= cap`; group 0 is stored whole at `out`
            // (`16 <= n`), group 1 exactly its `n - o1` bytes at `o1`.
            unsafe {
                let out = dst.add(o);
                _mm_storeu_si128(out.cast(), _mm256_castsi256_si128(a));
                store_exact16(out.add(o1), _mm256_castsi256_si128(b), n - o1);
            }
            i += STEP / 2;
            o += n;
        }
    }
    // The last 1..=15 bytes (or the whole input if shorter than 16),
    // written exactly.
    let r = len - i;
    if r > 0 && r < STEP / 2 {
        // Those bytes at the start of a register, zeros after them (the
        // validator's loads of a short end).
        let v = if len >= STEP / 2 {
            // SAFETY: `r < 16` and the 16 bytes before `len` are readable;
            // the CPU has SSSE3 (AVX2 implies it).
            unsafe { sse42::load_end(p.add(i), r) }
        } else {
            // SAFETY: (`i == 0`, `r == len < 16`) the `len` bytes at `p`
            // are readable.
            unsafe { sse42::load_small(p, len) }
        };
        let high = _mm_movemask_epi8(v) as u32;
        let n = r + high.count_ones() as usize;
        if cap - o >= n {
            let (a, b) = widen32(_mm256_zextsi128_si256(v), high);
            let o1 = 8 + (high & 0xFF).count_ones() as usize;
            // The two groups packed in a local buffer, then exactly the
            // `n` bytes of the output copied.
            let mut buf = [0u8; 32];
            let q = buf.as_mut_ptr();
            // SAFETY: 16-byte stores at 0 and `o1 <= 16` stay inside
            // `buf`; `n <= 30` bytes from `buf` to `dst + o`, `o + n <=
            // cap`.
            unsafe {
                _mm_storeu_si128(q.cast(), _mm256_castsi256_si128(a));
                _mm_storeu_si128(q.add(o1).cast(), _mm256_castsi256_si128(b));
                copy_short(buf.as_ptr(), dst.add(o), n);
            }
            i = len;
            o += n;
        }
    }
    Progress {
        read: i,
        written: o,
    }
}

/// The 32 bytes of `v` moved down one byte, a zero byte coming in at the
/// top.
#[target_feature(enable = "avx2")]
#[inline]
fn next_bytes(v: __m256i) -> __m256i {
    _mm256_alignr_epi8::<1>(_mm256_permute2x128_si256::<0x81>(v, v), v)
}

/// Writes exactly the `n` bytes (`4 <= n <= 8`: a group of a step keeps 4
/// to 8 bytes) of `x` at `out`, as two overlapping 4-byte pieces.
///
/// # Safety
///
/// * `out` is valid for writes of `n` bytes; `4 <= n <= 8`.
#[inline(always)]
unsafe fn store_exact8(out: *mut u8, x: u64, n: usize) {
    debug_assert!((4..=8).contains(&n));
    // SAFETY: both writes are inside the `n >= 4` bytes.
    unsafe {
        out.cast::<u32>().write_unaligned(x as u32);
        out.add(n - 4)
            .cast::<u32>()
            .write_unaligned((x >> (8 * (n - 4))) as u32);
    }
}

/// Converts UTF-8 `src` to Latin-1 at `dst` while its steps take the fast
/// path (see the module docs) and 32 bytes of input and room for the
/// step's output remain, then the last bytes as the end of one more window
/// ([`utf8_to_latin1_last`]); stops at a character boundary before the
/// first step that does not.
///
/// Input known to be UTF-8 takes the same path: the test that every step
/// makes also proves the layout its stores rely on.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `cap` bytes.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
pub(crate) unsafe fn utf8_to_latin1(src: &[u8], dst: *mut u8, cap: usize) -> Progress {
    if src.len() >= STREAM_MIN && cap >= STREAM_MIN {
        // SAFETY: the caller's contract.
        return unsafe { after_ascii_stream(src, dst, cap, utf8_to_latin1_main) };
    }
    // SAFETY: the caller's contract.
    unsafe { utf8_to_latin1_main(src, dst, cap) }
}

/// [`utf8_to_latin1`] past the streamed prefix.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `cap` bytes.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
#[inline]
unsafe fn utf8_to_latin1_main(src: &[u8], dst: *mut u8, cap: usize) -> Progress {
    let len = src.len();
    let mut i = 0;
    let mut o = 0;
    let p = src.as_ptr();
    // Whether the last step ended with a lead, whose character it wrote
    // with the first byte of this step (not checked yet).
    let mut carry = 0u32;
    // Invariants: `i <= len`, `o <= cap`, `i - carry` at a character
    // boundary, everything before it converted, and its character (if
    // `carry`) written too.
    while len - i >= STEP {
        // SAFETY: `i + 32 <= len`.
        let v = unsafe { _mm256_loadu_si256(p.add(i).cast()) };
        let high = _mm256_movemask_epi8(v) as u32;
        if high == 0 {
            if carry != 0 || cap - o < STEP {
                break;
            }
            // SAFETY: `o + 32 <= cap`.
            unsafe { _mm256_storeu_si256(dst.add(o).cast(), v) };
            i += STEP;
            o += STEP;
            // SAFETY: `dst` as the caller promised, `i <= len`, `o <= cap`.
            (i, o) = unsafe { copy_ascii128(src, i, dst, cap, o) };
            continue;
        }
        let whole = len - i >= WHOLE && cap - o >= STEP;
        // Leads C2/C3; bit 6 of each byte (bit 7 of `v + v`).
        let lead_v = _mm256_cmpeq_epi8(
            _mm256_and_si256(v, _mm256_set1_epi8(0xFEu8 as i8)),
            _mm256_set1_epi8(0xC2u8 as i8),
        );
        let leads = _mm256_movemask_epi8(lead_v) as u32;
        let bit6 = _mm256_movemask_epi8(_mm256_add_epi8(v, v)) as u32;
        let conts = high & !bit6;
        // Every byte C0..=FF a lead C2/C3, and the continuations exactly
        // the bytes after a lead (the first one after the last step's).
        if high & bit6 != leads || conts != (leads << 1 | carry) {
            break;
        }
        let keep = !conts;
        let o1 = (keep & 0xFF).count_ones() as usize;
        let o2 = (keep & 0xFFFF).count_ones() as usize;
        let o3 = (keep & 0xFF_FFFF).count_ones() as usize;
        let n = keep.count_ones() as usize;
        if !whole && cap - o < n {
            break;
        }
        // The byte after each; after the last one, the byte after the step
        // if there is one (else a lead there is taken back at the end).
        let next = if len - i > STEP {
            // SAFETY: `i + 33 <= len`.
            unsafe { _mm256_loadu_si256(p.add(i + 1).cast()) }
        } else {
            next_bytes(v)
        };
        let latin = _mm256_or_si256(
            next,
            _mm256_and_si256(
                _mm256_cmpeq_epi8(v, _mm256_set1_epi8(0xC3u8 as i8)),
                _mm256_set1_epi8(0x40),
            ),
        );
        let bytes = _mm256_blendv_epi8(v, latin, lead_v);
        let a = _mm256_shuffle_epi8(bytes, rows(&KEEP.0, keep, keep >> 16));
        let b = _mm256_shuffle_epi8(
            _mm256_srli_si256::<8>(bytes),
            rows(&KEEP.0, keep >> 8, keep >> 24),
        );
        // SAFETY: `o + n <= cap` or `o + 32 <= cap`.
        let out = unsafe { dst.add(o) };
        // SAFETY: every group holds 4 to 8 bytes (a continuation follows
        // each lead, and no two are adjacent), so the 8-byte stores of
        // groups 0 to 2 (at `o2 + 8 <= o3 + 4`) stay inside the step's
        // output; group 3 is 8 bytes at `o3 + 8 <= 32` bytes from `out`
        // (the room for whole stores) or exactly its `n - o3` bytes.
        unsafe {
            _mm_storel_epi64(out.cast(), _mm256_castsi256_si128(a));
            _mm_storel_epi64(out.add(o1).cast(), _mm256_castsi256_si128(b));
            _mm_storel_epi64(out.add(o2).cast(), _mm256_extracti128_si256::<1>(a));
            let g3 = _mm256_extracti128_si256::<1>(b);
            if whole {
                _mm_storel_epi64(out.add(o3).cast(), g3);
            } else {
                store_exact8(out.add(o3), _mm_cvtsi128_si64(g3) as u64, n - o3);
            }
        }
        carry = leads >> 31;
        i += STEP;
        o += n;
    }
    if len - i < STEP && i < len && carry == 0 && i > 0 {
        // The last 1..=31 bytes, at a character boundary (no lead before
        // them), after a step (so `len >= 32`).
        // SAFETY: the window is the last 32 bytes of `src`; `dst + o` has
        // `cap - o` writable bytes.
        let last = unsafe { utf8_to_latin1_last(p.add(len - STEP), len - i, dst.add(o), cap - o) };
        if let Some(n) = last {
            i = len;
            o += n;
        }
    }
    // A character whose continuation byte was not checked is left to the
    // scalar kernel (its output byte is the last one written).
    Progress {
        read: i - carry as usize,
        written: o - carry as usize,
    }
}

/// Converts the last `r` bytes (`1 <= r <= 31`) of the 32 at `w`, which
/// start at a character boundary, to Latin-1 at `out` if they take the fast
/// path of a step and their output fits in `room` bytes, writing exactly
/// the output; returns its length. The bytes of the window before them are
/// valid text converted already (so the byte before them is not a lead).
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `w` is valid for reads of 32 bytes, `out` for writes of `room` bytes;
///   `1 <= r <= 31`.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
#[inline]
unsafe fn utf8_to_latin1_last(w: *const u8, r: usize, out: *mut u8, room: usize) -> Option<usize> {
    // SAFETY: 32 readable bytes at `w`.
    let v = unsafe { _mm256_loadu_si256(w.cast()) };
    let sel = u32::MAX << (STEP - r);
    let high = _mm256_movemask_epi8(v) as u32;
    let lead_v = _mm256_cmpeq_epi8(
        _mm256_and_si256(v, _mm256_set1_epi8(0xFEu8 as i8)),
        _mm256_set1_epi8(0xC2u8 as i8),
    );
    let leads = _mm256_movemask_epi8(lead_v) as u32;
    let bit6 = _mm256_movemask_epi8(_mm256_add_epi8(v, v)) as u32;
    let conts = high & !bit6;
    // As in a step, on the selected bytes, and no lead at the end.
    if ((high & bit6) ^ leads) & sel != 0 || (conts ^ (leads << 1)) & sel != 0 || leads >> 31 != 0 {
        return None;
    }
    let keep = !conts & sel;
    let n = keep.count_ones() as usize;
    if n > room {
        return None;
    }
    let latin = _mm256_or_si256(
        next_bytes(v),
        _mm256_and_si256(
            _mm256_cmpeq_epi8(v, _mm256_set1_epi8(0xC3u8 as i8)),
            _mm256_set1_epi8(0x40),
        ),
    );
    let bytes = _mm256_blendv_epi8(v, latin, lead_v);
    let a = _mm256_shuffle_epi8(bytes, rows(&KEEP.0, keep, keep >> 16));
    let b = _mm256_shuffle_epi8(
        _mm256_srli_si256::<8>(bytes),
        rows(&KEEP.0, keep >> 8, keep >> 24),
    );
    let o1 = (keep & 0xFF).count_ones() as usize;
    let o2 = (keep & 0xFFFF).count_ones() as usize;
    let o3 = (keep & 0xFF_FFFF).count_ones() as usize;
    // The groups packed in a local buffer (each 8-byte store at most 24
    // bytes in), then exactly `n` bytes of it copied.
    let mut buf = [0u8; 32];
    let q = buf.as_mut_ptr();
    // SAFETY: the stores at `o1, o2, o3 <= 24` stay inside `buf`; the
    // copy reads `n <= 31` bytes of `buf` and writes `n <= room` at `out`.
    unsafe {
        _mm_storel_epi64(q.cast(), _mm256_castsi256_si128(a));
        _mm_storel_epi64(q.add(o1).cast(), _mm256_castsi256_si128(b));
        _mm_storel_epi64(q.add(o2).cast(), _mm256_extracti128_si256::<1>(a));
        _mm_storel_epi64(q.add(o3).cast(), _mm256_extracti128_si256::<1>(b));
        copy_short(buf.as_ptr(), out, n);
    }
    Some(n)
}

/// The number of bytes `80..=FF` in `bytes` (the count of
/// [`super::count_avx2`], 128 bytes a step).
///
/// # Safety
///
/// * The CPU supports the enabled features.
#[target_feature(enable = "avx2,popcnt")]
pub(crate) unsafe fn count_high(bytes: &[u8]) -> usize {
    let len = bytes.len();
    if (32..=64).contains(&len) {
        // Two overlapping words, the second's mask shifted past the bytes
        // the first counted: a straight line for one block.
        let p = bytes.as_ptr();
        // SAFETY: `32 <= len`: 32 bytes at `p` and at `p + len - 32` are
        // readable.
        let (a, b) = unsafe {
            (
                _mm256_movemask_epi8(_mm256_loadu_si256(p.cast())) as u32,
                _mm256_movemask_epi8(_mm256_loadu_si256(p.add(len - 32).cast())) as u32,
            )
        };
        return (a.count_ones() + (u64::from(b) >> (64 - len)).count_ones()) as usize;
    }
    // SAFETY: the same features.
    unsafe { super::count_avx2::count_high(bytes) }
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;
    use std::string::String;
    use std::vec;
    use std::vec::Vec;

    /// Latin-1 → UTF-8 by the kernel into `extra` bytes more room than the
    /// output needs, finished (as the wrapper does with the scalar kernel)
    /// with std's output from where it stopped; checks the output against
    /// std and that nothing is left written past it.
    fn widen(src: &[u8], extra: usize) -> Progress {
        let want: String = src.iter().map(|&b| char::from(b)).collect();
        let want = want.as_bytes();
        let mut out = vec![0xA5u8; want.len() + extra];
        // SAFETY: the features were checked; `out` is `out.len()` bytes.
        let p = unsafe { latin1_to_utf8(src, out.as_mut_ptr(), out.len()) };
        assert!(p.read <= src.len() && p.written <= want.len());
        let done: String = src[..p.read].iter().map(|&b| char::from(b)).collect();
        assert_eq!(p.written, done.len(), "{src:02X?}");
        out[p.written..want.len()].copy_from_slice(&want[p.written..]);
        assert_eq!(&out[..want.len()], want, "{src:02X?}");
        assert!(out[want.len()..].iter().all(|&b| b == 0xA5), "{src:02X?}");
        p
    }

    /// Every kind of byte at every position of inputs around the step
    /// sizes, in ASCII and in high bytes, with exact room, a little more,
    /// and enough for whole stores: the kernel converts all but at most 15
    /// bytes when the room holds the output.
    #[test]
    fn latin1_every_byte_kind_at_every_lane() {
        if !super::super::avx2_transcode() {
            return;
        }
        for len in [
            16, 17, 31, 32, 33, 39, 40, 41, 47, 48, 63, 64, 65, 72, 96, 127, 128, 129, 160, 161,
            200, 290,
        ] {
            for at in 0..len {
                for b in [0x00, 0x41, 0x7F, 0x80, 0xBF, 0xC0, 0xE9, 0xFF] {
                    for fill in [b'a', 0xE9, 0x80] {
                        let mut src = vec![fill; len];
                        src[at] = b;
                        for extra in [0, 1, 8, 70] {
                            let p = widen(&src, extra);
                            assert_eq!(p.read, src.len(), "{len} {at} {b:02X} {extra}");
                        }
                    }
                }
            }
        }
    }

    /// Latin-1 → UTF-8 into `cap` bytes, fewer than the output needs:
    /// what the kernel reports is the UTF-8 of the bytes it read, and
    /// nothing is written past `cap`.
    fn widen_short(src: &[u8], cap: usize) {
        let want: String = src.iter().map(|&b| char::from(b)).collect();
        let mut out = vec![0xA5u8; cap + 40];
        // SAFETY: the features were checked; `out` has `cap` bytes and more.
        let p = unsafe { latin1_to_utf8(src, out.as_mut_ptr(), cap) };
        let done: String = src[..p.read].iter().map(|&b| char::from(b)).collect();
        assert_eq!(&out[..p.written], done.as_bytes(), "{src:02X?} {cap}");
        assert!(want.as_bytes().starts_with(done.as_bytes()));
        assert!(out[cap..].iter().all(|&b| b == 0xA5), "{src:02X?} {cap}");
    }

    /// Every length 0..=130 (the 32-byte steps, the exact 16-byte step and
    /// the last 1..=15 bytes, or a whole input shorter than 16), every kind
    /// of byte at every position, in ASCII and in high bytes: the whole
    /// input converts with exact room or more, and with less room the
    /// kernel writes nothing past it.
    #[test]
    fn latin1_every_length_to_130() {
        if !super::super::avx2_transcode() {
            return;
        }
        for len in 0..=130 {
            for fill in [b'a', 0xE9] {
                for at in 0..len.max(1) {
                    for b in [0x00, 0x7F, 0x80, 0xBF, 0xC0, 0xFF] {
                        let mut src = vec![fill; len];
                        if len > 0 {
                            src[at] = b;
                        }
                        for extra in [0, 1, 40] {
                            let p = widen(&src, extra);
                            assert_eq!(p.read, len, "{src:02X?} {extra}");
                        }
                        let need = len + src.iter().filter(|&&b| b >= 0x80).count();
                        for short in [1, 2, 17] {
                            widen_short(&src, need.saturating_sub(short));
                        }
                    }
                }
            }
        }
    }

    /// Patterns of ASCII and high bytes across the 128-byte ASCII steps
    /// and their exits, at every offset.
    #[test]
    fn latin1_ascii_runs_and_their_ends() {
        if !super::super::avx2_transcode() {
            return;
        }
        for len in [256, 300, 333] {
            for at in 0..len {
                for run in [1, 2, 31, 33, 129] {
                    let mut src = vec![b'x'; len];
                    for b in src.iter_mut().skip(at).take(run) {
                        *b = 0xD0;
                    }
                    widen(&src, 0);
                    widen(&src, 3);
                    widen(&src, 64);
                }
            }
        }
    }

    /// UTF-8 → Latin-1 by the kernel: checks the output against the
    /// character boundary it stopped at; if the whole input converts,
    /// finishes it with the expected output from there (as the wrapper
    /// does with the scalar kernel) and checks that nothing is left
    /// written past it.
    fn narrow(src: &[u8], extra: usize) -> Progress {
        let valid = core::str::from_utf8(src)
            .ok()
            .filter(|s| s.chars().all(|c| u32::from(c) < 0x100));
        let need = valid.map_or(src.len(), |s| s.chars().count());
        let cap = need + extra;
        let mut out = vec![0xA5u8; cap];
        // SAFETY: the features were checked; `out` is `cap` bytes.
        let p = unsafe { utf8_to_latin1(src, out.as_mut_ptr(), cap) };
        let done = core::str::from_utf8(&src[..p.read]).expect("stops at a boundary of valid text");
        let want: Vec<u8> = done.chars().map(|c| u32::from(c) as u8).collect();
        assert!(done.chars().all(|c| u32::from(c) < 0x100));
        assert_eq!(&out[..p.written], &want[..], "{src:02X?}");
        if let Some(all) = valid {
            let want: Vec<u8> = all.chars().map(|c| u32::from(c) as u8).collect();
            out[p.written..want.len()].copy_from_slice(&want[p.written..]);
            assert!(out[want.len()..].iter().all(|&b| b == 0xA5), "{src:02X?}");
        }
        p
    }

    #[test]
    fn utf8_every_char_kind_and_problem_at_every_offset() {
        if !super::super::avx2_transcode() {
            return;
        }
        let kinds: [&[u8]; 12] = [
            b"a",
            "é".as_bytes(),
            "\u{80}".as_bytes(),
            "ÿ".as_bytes(),
            "Ā".as_bytes(),
            "€".as_bytes(),
            "😀".as_bytes(),
            b"\xC3",
            b"\x80",
            b"\xC0\x80",
            b"\xC3\xC3",
            b"\xF5",
        ];
        for len in [32, 33, 39, 40, 41, 48, 63, 64, 65, 66, 72, 100, 129, 200] {
            for at in 0..len {
                for kind in kinds {
                    for fill in ["a", "é", "aé"] {
                        let mut src = Vec::new();
                        while src.len() < at {
                            src.extend_from_slice(fill.as_bytes());
                        }
                        src.truncate(at);
                        // A cut "é" leaves a lead: repair it with an "a".
                        if src.last().is_some_and(|&b| b == 0xC3) {
                            src.pop();
                            src.push(b'a');
                        }
                        src.extend_from_slice(kind);
                        while src.len() < len {
                            src.extend_from_slice(fill.as_bytes());
                        }
                        if src.last().is_some_and(|&b| b == 0xC3) && kind != b"\xC3" {
                            src.pop();
                            src.push(b'z');
                        }
                        let ok = core::str::from_utf8(&src)
                            .is_ok_and(|s| s.chars().all(|c| u32::from(c) < 0x100));
                        for extra in [0, 3, 40] {
                            let p = narrow(&src, extra);
                            if ok {
                                assert!(src.len() - p.read <= STEP, "{src:02X?}");
                            } else {
                                assert!(p.read <= at, "{src:02X?}");
                            }
                        }
                    }
                }
            }
        }
    }

    /// Two-byte characters across every step edge, with ASCII runs long
    /// enough for the 128-byte steps between them.
    #[test]
    fn utf8_runs_across_step_edges() {
        if !super::super::avx2_transcode() {
            return;
        }
        for len in [256, 300] {
            for at in 0..len {
                for run in [1, 15, 16, 17, 70] {
                    let text: String = (0..len)
                        .map(|k| if k >= at && k < at + run { 'ß' } else { 'q' })
                        .collect();
                    for extra in [0, 5, 40] {
                        let p = narrow(text.as_bytes(), extra);
                        assert!(text.len() - p.read <= STEP, "{at} {run}");
                    }
                }
            }
        }
    }

    /// The one-block path of [`count_high`] (32..=64 bytes) and the
    /// lengths around it: every byte value at every position, among ASCII
    /// and among high bytes.
    #[test]
    fn count_high_every_byte_at_every_position_around_one_block() {
        if !super::super::avx2_transcode() {
            return;
        }
        for len in 28..=68 {
            for at in 0..len {
                for b in 0..=255u8 {
                    for fill in [b'a', 0xE9] {
                        let mut bytes = [fill; 68];
                        bytes[at] = b;
                        let s = &bytes[..len];
                        // SAFETY: the features were checked.
                        let n = unsafe { count_high(s) };
                        assert_eq!(n, s.iter().filter(|&&x| x >= 0x80).count(), "{s:02X?}");
                    }
                }
            }
        }
    }

    #[test]
    fn count_high_matches_a_filter() {
        if !super::super::avx2_transcode() {
            return;
        }
        let bytes: Vec<u8> = (0..300u32).map(|k| (k * 97 % 256) as u8).collect();
        for start in 0..70 {
            for end in start..bytes.len() {
                let s = &bytes[start..end];
                // SAFETY: the features were checked.
                let n = unsafe { count_high(s) };
                assert_eq!(n, s.iter().filter(|&&b| b >= 0x80).count());
            }
        }
    }

    /// [`ascii_stream`] at every output offset in a cache line, with the
    /// first non-ASCII byte at several places, exact room and one less,
    /// and guards on both sides: what it reports is copied, nothing lands
    /// outside the ASCII before the first non-ASCII byte, and the steps
    /// after the head end on 64-byte boundaries.
    #[test]
    fn ascii_stream_at_every_alignment() {
        if !super::super::avx2_transcode() {
            return;
        }
        for len in [0usize, 63, 64, 65, 127, 128, 129, 191, 192, 193, 300, 1000] {
            for bad in [
                None,
                Some(0),
                Some(63),
                Some(64),
                Some(100),
                Some(191),
                Some(500),
            ] {
                let src: Vec<u8> = (0..len)
                    .map(|k| {
                        if Some(k) == bad {
                            0xE9
                        } else {
                            (k * 7 % 128) as u8
                        }
                    })
                    .collect();
                let ascii = bad.map_or(len, |b| b.min(len));
                for shift in 0..64 {
                    for short in [0, 1] {
                        let cap = len.saturating_sub(short);
                        let mut buf = vec![0xA5u8; len + 192];
                        let base = buf.as_ptr() as usize;
                        let at = (shift + 64 - base % 64) % 64;
                        // SAFETY: the features were checked; `cap` bytes at
                        // `buf + at` are writable.
                        let r = unsafe { ascii_stream(&src, buf.as_mut_ptr().add(at), cap) };
                        assert!(r <= ascii && r <= cap, "{len} {bad:?} {shift}");
                        if r > 0 {
                            assert!((base + at + r).is_multiple_of(64));
                            assert!(ascii - r < 128 || cap - r < 128, "{len} {bad:?} {shift}");
                        }
                        let end = at + r.max(if r > 0 { 64 } else { 0 });
                        for (k, &v) in buf.iter().enumerate() {
                            if k >= at && k < end {
                                assert_eq!(v, src[k - at], "{len} {bad:?} {shift}");
                            } else {
                                assert_eq!(v, 0xA5, "{len} {bad:?} {shift} at {k}");
                            }
                        }
                    }
                }
            }
        }
    }
}
