//! AVX2 UTF-8 → UTF-16, validating or not, in fixed steps of 32 bytes.
//!
//! # Steps that do not depend on the characters
//!
//! A step converts the characters whose *lead* byte is in its 32 bytes,
//! reading the continuation bytes of the last ones from up to three bytes
//! after it, and the next step starts 32 bytes on, whatever the
//! characters: its first bytes may continue a character converted before,
//! and are no lead, so they give nothing. The input position thus never
//! waits for a mask computed from the input, and the steps overlap in the
//! pipeline (the older kernel, which started each step at a character
//! boundary, ran one step at a time: load, compare, move mask, count, add,
//! load again).
//!
//! Each character is decoded at its lead byte's lane, and the lanes of the
//! leads are packed: the 16-bit lanes of each 8 bytes by a `pshufb` from a
//! table indexed by their 8-bit lead mask ([`PACK`]), four stores of 16
//! bytes a step, each at the end of the last.
//!
//! * **No 4-byte lead** (nor one at the previous step's last byte): the
//!   units are made in the byte domain, 32 lanes a register. With
//!   `(x, y, z)` = `(b0, b1, 0)` for a 2-byte lead and `(b1, b2, b0)` for a
//!   3-byte one (`b1`, `b2` the bytes one and two on, loaded from memory),
//!   the unit's low byte is `x << 6 | y & 3F` and its high byte
//!   `z << 4 | (x >> 2) & 0F`; ASCII keeps its byte and a zero. One
//!   `vpunpck{l,h}bw` of the two makes the 16-bit units (in the other
//!   order for big-endian, which costs nothing).
//! * **Else**, in 16-bit lanes: the 1-, 2- and 3-byte values (as
//!   `utf32_sse41`'s `decode8` computes them), and for a 4-byte lead the
//!   high surrogate at its lane and the low surrogate at the next lane (its
//!   first continuation byte's, which holds no character), so that lane
//!   joins the mask. The low surrogate of a lead at the last byte is the
//!   next step's lane 0.
//! * **All ASCII**: widened and stored, 64 bytes a step while they last,
//!   from a 32-byte aligned output position; for outputs of 8 Mi units and
//!   more with non-temporal stores once a run is past 512 bytes (1.5–1.9×
//!   on ASCII from 4 MiB of input, 0.5–0.8× at 1–3 MiB, where the output
//!   stays in L3: microbenchmark; see [`STREAM_AFTER`] for short runs).
//!
//! # Validation
//!
//! The validating flavour checks every step that is not ASCII with the
//! validator's lookup rules (`validate::simd::lookup`) before it converts
//! it: the bytes one, two and three back come from the previous step's
//! register, which is the previous 32 bytes. An ASCII step only checks
//! that the step before it left no sequence unfinished. A failed check
//! returns the step's start, from which the validator's scalar rescan
//! ([`locate`](crate::validate::locate)) finds the exact error: every lane
//! before the step passed, so the first error starts at most three bytes
//! before it.
//!
//! # The end
//!
//! The packed stores leave up to 8 don't-care units after a step's output;
//! the steps from memory run while 67 or more bytes are left, so that the
//! output of the 35 or more after the step (at least 10 units) overwrites
//! them. The rest of the input (and any step whose units might not fit the
//! output) is copied into a zeroed buffer on the stack, converted there by
//! the same steps (the zeros are ASCII: they end the input for the check
//! too, and each makes one unit, which is subtracted) and the exact units
//! copied out. Short inputs are only that.
//!
//! # Length
//!
//! [`utf16_len_from_utf8`] counts in byte lanes from 256 bytes on: each
//! compare (-1 where true) is subtracted from a counter, two counters for
//! the bytes that are not continuation bytes and two for the `F0..=FF`
//! ones (64 bytes a step), summed by `vpsadbw` every 255 steps. (The older
//! count did two `vpmovmskb` and two `popcnt` per 32 bytes: half the speed
//! at 64 KiB.) Shorter inputs, which would pay the flush for little, and
//! the blocks after the last whole 64 use that older count, the last 1 to
//! 31 bytes within the 32 that end the input; inputs from 32 bytes on are
//! counted here.
//!
//! # Cost
//!
//! Instructions per input byte (callgrind, 64 KiB, validating flavour;
//! the older kernel, validator then converter, in brackets): Chinese,
//! Japanese, Hindi, Korean, Arabic, Russian, Hebrew 3.18–3.20 (5.7–6.1),
//! Emoji 4.5 (9.0), ASCII 0.52 (0.84). The flavour without checks: 2.47
//! (4.8–5.2), Emoji 3.7 (8.1). A step without 4-byte leads is about 95
//! instructions: some 23 for the check, 20 for the units, 30 for the
//! packing (four table loads, two `pshufb`, four stores and the index and
//! count arithmetic), the rest loads, masks and the loop; llvm-mca puts it
//! at 16.5 cycles on Zen 3, bound by the 6-wide dispatch, so fewer
//! instructions is what would make it faster.
//!
//! # Results
//!
//! Zen 3, 2026-11-26, a machine shared with other jobs (noise 20–100 %),
//! the harness's dispatched functions ÷ simdutf's validating ones, 64 B to
//! 1 MiB: UTF-8 → UTF-16LE geomean over the eight non-Latin lipsum files
//! 1.72–2.27 (the older kernel: 0.62–0.79 in the same conditions), every
//! row 1.03 or more (the lowest Latin and ASCII at 64 KiB and 1 MiB,
//! 1.03–1.11, where both are bound by the caches); UTF-16BE 1.86–2.16,
//! every row 1.12 or more; `valid_utf8_to_utf16_into` ÷
//! `convert_valid_utf8_to_utf16le` 1.08–9.3; the UTF-16 length 1.69–4.35,
//! every row 1.26 or more. ASCII and Latin at 64 MiB: 1.58 and 1.34.
//!
//! # Tried and dropped
//!
//! * Two steps per iteration (one test of both checks, one test of both
//!   for 4-byte leads): 3.19 → 3.22 instructions per byte on the lipsum
//!   files, Emoji 4.54 → 4.79 (register spills), and no faster in time.
//! * ASCII runs aligned to 64-byte output lines rather than 32: the
//!   harness's outputs are 32-byte aligned and its inputs 64-byte aligned,
//!   so the skew to a 64-byte boundary put every other 32-byte load across
//!   a cache line: Latin at 64 KiB and 1 MiB 0.96 and 0.87 ÷ simdutf,
//!   against 1.03–1.10 with 32 (several runs). With an output 16 bytes off
//!   a line and an aligned input, aligning measured 0.96–1.04× at 64 KiB
//!   (with an unaligned input 1.12–1.20×: microbenchmark).
//! * `vpmovzxbw` (also with its load folded) instead of `vpunpck{l,h}bw`
//!   and two lane permutes to widen ASCII, and a software prefetch of the
//!   output 256 or 1024 bytes ahead: within ±5 % (the noise) at 64 KiB
//!   and 1 MiB; ASCII at 1 MiB is bound by the L3 (about 10 GB/s here,
//!   with or without anything above).

use super::Progress;
use super::check_avx512::Fused;
use super::utf16_shared::{PACK, SWAP16};
use crate::validate::simd::Vector;
use crate::validate::simd::lookup::Consts;
use core::arch::x86_64::*;

/// Bytes a step converts.
const STEP: usize = 32;

/// Bytes a step reads: its own and the three after them.
const READ: usize = STEP + 3;

/// Steps read from `src` itself while at least this many bytes are left:
/// the step's 35, and 32 more, whose output (at least 10 units, the first
/// up to 3 bytes being continuation bytes) covers the up to 8 don't-care
/// units the step stores after its own output.
const MIN_LEFT: usize = STEP + READ;

/// Units of room a step needs at its output position.
const ROOM: usize = 32;

/// Steps per stack chunk of the end.
const CHUNK_STEPS: usize = 3;

/// Bytes per stack chunk.
const CHUNK: usize = CHUNK_STEPS * STEP;

/// What carries from one step to the next.
#[derive(Clone, Copy)]
struct State {
    /// The previous step's 32 bytes (zero before the first).
    prev: __m256i,
    /// 1 if the previous step's last byte is a 4-byte lead, whose low
    /// surrogate is this step's first unit.
    carry: u32,
}

/// The constant registers of the check (unused without `VALIDATE`).
type Checks = Consts<__m256i>;

/// `ptr` as a 256-bit load.
///
/// # Safety
///
/// 32 bytes at `ptr` are readable.
#[inline(always)]
unsafe fn load(ptr: *const u8) -> __m256i {
    // SAFETY: the caller's promise.
    unsafe { _mm256_loadu_si256(ptr.cast()) }
}

/// The lookup check of the 32 bytes `v` after `prev`: non-zero lanes flag
/// errors (see `validate::simd::lookup`).
///
/// # Safety
///
/// The CPU has AVX2.
#[inline(always)]
unsafe fn check(c: &Checks, v: __m256i, prev: __m256i) -> __m256i {
    // SAFETY: the caller guarantees AVX2.
    unsafe {
        let joined = _mm256_permute2x128_si256::<0x21>(prev, v);
        let p1 = _mm256_alignr_epi8::<15>(v, joined);
        let p2 = _mm256_alignr_epi8::<14>(v, joined);
        let p3 = _mm256_alignr_epi8::<13>(v, joined);
        let classes = p1
            .lookup_prev(c.prev_high, c.prev_low)
            .and(v.lookup_high_nibble(c.cur_high));
        let must23 = p2
            .saturating_sub(c.third)
            .or_and(p3.saturating_sub(c.fourth), c.high_bit);
        classes.xor(must23)
    }
}

/// Packs the 16-bit units of `a` (the lanes of bytes 0–7 and 16–23) and
/// `b` (8–15 and 24–31) whose bit is set in `mask` (bit `k` for byte `k`)
/// and stores them at `out` in byte order; returns how many.
///
/// # Safety
///
/// 64 bytes at `out` are writable; the CPU has AVX2 and POPCNT.
#[inline(always)]
unsafe fn pack_store(a: __m256i, b: __m256i, mask: u32, out: *mut u8) -> usize {
    let m0 = (mask & 0xFF) as usize;
    let m1 = ((mask >> 8) & 0xFF) as usize;
    let m2 = ((mask >> 16) & 0xFF) as usize;
    let m3 = (mask >> 24) as usize;
    let n0 = m0.count_ones() as usize;
    let n01 = (mask & 0xFFFF).count_ones() as usize;
    let n012 = (mask & 0xFF_FFFF).count_ones() as usize;
    // SAFETY: every table entry is 16 readable bytes; the stores are at
    // units `0`, `n0`, `n01` and `n012` (each at most 24), 8 units each:
    // inside the 64 writable bytes. The CPU has AVX2 (the callers').
    unsafe {
        let ia = _mm256_inserti128_si256::<1>(
            _mm256_castsi128_si256(_mm_loadu_si128(PACK[m0].as_ptr().cast())),
            _mm_loadu_si128(PACK[m2].as_ptr().cast()),
        );
        let ib = _mm256_inserti128_si256::<1>(
            _mm256_castsi128_si256(_mm_loadu_si128(PACK[m1].as_ptr().cast())),
            _mm_loadu_si128(PACK[m3].as_ptr().cast()),
        );
        let pa = _mm256_shuffle_epi8(a, ia);
        let pb = _mm256_shuffle_epi8(b, ib);
        _mm_storeu_si128(out.cast(), _mm256_castsi256_si128(pa));
        _mm_storeu_si128(out.add(2 * n0).cast(), _mm256_castsi256_si128(pb));
        _mm_storeu_si128(out.add(2 * n01).cast(), _mm256_extracti128_si256::<1>(pa));
        _mm_storeu_si128(out.add(2 * n012).cast(), _mm256_extracti128_si256::<1>(pb));
    }
    mask.count_ones() as usize
}

/// Swaps the bytes of every 16-bit lane if `BE`.
///
/// # Safety
///
/// The CPU has AVX2.
#[inline(always)]
unsafe fn order<const BE: bool>(v: __m256i) -> __m256i {
    if BE {
        // SAFETY: `SWAP16` is 16 readable bytes; the caller guarantees AVX2.
        unsafe {
            let swap = _mm256_broadcastsi128_si256(_mm_loadu_si128(SWAP16.as_ptr().cast()));
            _mm256_shuffle_epi8(v, swap)
        }
    } else {
        v
    }
}

/// Widens the 32 ASCII bytes `v` to 32 units at `out`.
///
/// # Safety
///
/// 64 bytes at `out` are writable; the CPU has AVX2.
#[inline(always)]
unsafe fn widen<const BE: bool>(v: __m256i, out: *mut u8) {
    // SAFETY: the caller's promises.
    unsafe {
        let z = _mm256_setzero_si256();
        let (a, b) = if BE {
            (_mm256_unpacklo_epi8(z, v), _mm256_unpackhi_epi8(z, v))
        } else {
            (_mm256_unpacklo_epi8(v, z), _mm256_unpackhi_epi8(v, z))
        };
        _mm256_storeu_si256(out.cast(), _mm256_permute2x128_si256::<0x20>(a, b));
        _mm256_storeu_si256(out.add(32).cast(), _mm256_permute2x128_si256::<0x31>(a, b));
    }
}

/// [`widen`] with non-temporal stores.
///
/// # Safety
///
/// 64 bytes at `out` are writable, and `out` is 32-byte aligned; the CPU
/// has AVX2.
#[inline(always)]
unsafe fn widen_stream<const BE: bool>(v: __m256i, out: *mut u8) {
    debug_assert!((out as usize).is_multiple_of(32));
    // SAFETY: the caller's promises (`vmovntdq` needs the alignment).
    unsafe {
        let z = _mm256_setzero_si256();
        let (a, b) = if BE {
            (_mm256_unpacklo_epi8(z, v), _mm256_unpackhi_epi8(z, v))
        } else {
            (_mm256_unpacklo_epi8(v, z), _mm256_unpackhi_epi8(v, z))
        };
        _mm256_stream_si256(out.cast(), _mm256_permute2x128_si256::<0x20>(a, b));
        _mm256_stream_si256(out.add(32).cast(), _mm256_permute2x128_si256::<0x31>(a, b));
    }
}

/// Inputs and outputs of at least this many bytes and units (an output of
/// 16 MiB and more, past the caches) widen their ASCII runs with
/// non-temporal stores, which write each line without first reading it
/// (as the AVX-512 kernel does from the same size).
const STREAM_MIN: usize = 8 << 20;

/// Whether a conversion of `len` bytes into room for `cap` units is large
/// enough for its ASCII runs to stream (and so to need [`run_fenced`]'s
/// fence).
fn may_stream(len: usize, cap: usize) -> bool {
    len >= STREAM_MIN && cap >= STREAM_MIN
}

/// Steps of an ASCII run (64 bytes each) with ordinary stores before
/// non-temporal ones: only a run that goes on past them streams. A
/// streamed run leaves its first and last lines partly written by other
/// stores, which costs more than streaming saves on short runs: on English
/// text with a typographic character about every 80 (runs of a few dozen
/// to a few hundred bytes), streaming every run made 64 MiB convert at
/// 0.6 GB/s, and this brings it to 3 GB/s, with long runs as fast as
/// before.
const STREAM_AFTER: usize = 8;

/// Converts the characters whose lead is among the 32 bytes `v0` (`v1`,
/// `v2` the 32 bytes one and two on; `leads` their lead mask) when none is
/// a 4-byte lead and the previous step left no low surrogate: stores the
/// units at `out`, returns how many.
///
/// # Safety
///
/// 64 bytes at `out` are writable; the CPU has AVX2 and POPCNT.
#[inline(always)]
unsafe fn convert3<const BE: bool>(
    v0: __m256i,
    v1: __m256i,
    v2: __m256i,
    leads: u32,
    out: *mut u8,
) -> usize {
    // SAFETY: the caller guarantees the features; `pack_store` gets the
    // caller's 64 writable bytes.
    unsafe {
        // `E0..=FF` and ASCII (whose bytes are replaced below).
        let is3 = _mm256_cmpgt_epi8(v0, _mm256_set1_epi8(0xDFu8 as i8));
        let x = _mm256_blendv_epi8(v0, v1, is3);
        let y = _mm256_blendv_epi8(v1, v2, is3);
        let z = _mm256_and_si256(v0, is3);
        let lo = _mm256_or_si256(
            _mm256_and_si256(_mm256_slli_epi16::<6>(x), _mm256_set1_epi8(0xC0u8 as i8)),
            _mm256_and_si256(y, _mm256_set1_epi8(0x3F)),
        );
        let hi = _mm256_or_si256(
            _mm256_and_si256(_mm256_slli_epi16::<4>(z), _mm256_set1_epi8(0xF0u8 as i8)),
            _mm256_and_si256(_mm256_srli_epi16::<2>(x), _mm256_set1_epi8(0x0F)),
        );
        // ASCII (sign bit clear): the byte itself, high byte zero.
        let lo = _mm256_blendv_epi8(v0, lo, v0);
        let hi = _mm256_blendv_epi8(_mm256_setzero_si256(), hi, v0);
        let (a, b) = if BE {
            (_mm256_unpacklo_epi8(hi, lo), _mm256_unpackhi_epi8(hi, lo))
        } else {
            (_mm256_unpacklo_epi8(lo, hi), _mm256_unpackhi_epi8(lo, hi))
        };
        pack_store(a, b, leads, out)
    }
}

/// The units of one half (`w0`, `w1`, `w2`: bytes 0, 1 and 2 on, widened
/// to 16 bits) with 4-byte leads: see the module docs. `four` and `after`
/// have the sign bit of both bytes of a lane set where the lane is a
/// 4-byte lead, and where it follows one.
///
/// # Safety
///
/// The CPU has AVX2.
#[inline(always)]
unsafe fn lanes4(w0: __m256i, w1: __m256i, w2: __m256i, four: __m256i, after: __m256i) -> __m256i {
    // SAFETY: the caller guarantees AVX2.
    unsafe {
        let low6 = _mm256_set1_epi16(0x3F);
        let t1 = _mm256_and_si256(w1, low6);
        let t2 = _mm256_and_si256(w2, low6);
        // 110aaaaa 10bbbbbb -> aaaaabbbbbb.
        let two = _mm256_or_si256(
            _mm256_slli_epi16::<6>(_mm256_and_si256(w0, _mm256_set1_epi16(0x1F))),
            t1,
        );
        // 1110aaaa 10bbbbbb 10cccccc -> aaaabbbbbbcccccc.
        let three = _mm256_or_si256(
            _mm256_or_si256(_mm256_slli_epi16::<12>(w0), _mm256_slli_epi16::<6>(t1)),
            t2,
        );
        // A 4-byte lead's lane: `three >> 4` is the scalar value >> 10
        // (the lead's low nibble, at most 4, is its 3 bits), and the high
        // surrogate is D800 + that - 40.
        let high = _mm256_add_epi16(
            _mm256_srli_epi16::<4>(three),
            _mm256_set1_epi16(0xD7C0u16 as i16),
        );
        // The lane after it (bytes b1, b2, b3): `three`'s low 10 bits are
        // b2's low 4 and b3's 6, the low surrogate's payload.
        let low = _mm256_or_si256(
            _mm256_and_si256(three, _mm256_set1_epi16(0x3FF)),
            _mm256_set1_epi16(0xDC00u16 as i16),
        );
        let is2 = _mm256_cmpgt_epi16(w0, _mm256_set1_epi16(0xBF));
        let is3 = _mm256_cmpgt_epi16(w0, _mm256_set1_epi16(0xDF));
        let r = _mm256_blendv_epi8(w0, two, is2);
        let r = _mm256_blendv_epi8(r, three, is3);
        let r = _mm256_blendv_epi8(r, high, four);
        _mm256_blendv_epi8(r, low, after)
    }
}

/// [`convert3`] for a step with 4-byte leads, or after one at the
/// previous step's last byte (`prev`, the previous 32 bytes): `mask` holds
/// the leads, each 4-byte lead's next lane (its low surrogate's) and, in
/// bit 0, a low surrogate carried from the previous step. Stores the units
/// at `out`, returns how many.
///
/// # Safety
///
/// 64 bytes at `out` are writable; the CPU has AVX2 and POPCNT.
#[inline(never)]
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
unsafe fn convert4<const BE: bool>(
    v0: __m256i,
    v1: __m256i,
    v2: __m256i,
    prev: __m256i,
    mask: u32,
    out: *mut u8,
) -> usize {
    let z = _mm256_setzero_si256();
    // Sign bit where a byte is F0..=FF.
    let f = _mm256_subs_epu8(v0, _mm256_set1_epi8(0x70));
    let fp = _mm256_subs_epu8(prev, _mm256_set1_epi8(0x70));
    let after = _mm256_alignr_epi8::<15>(f, _mm256_permute2x128_si256::<0x21>(fp, f));
    // SAFETY: the features are enabled; `pack_store` gets the caller's 64
    // writable bytes.
    unsafe {
        let a = lanes4(
            _mm256_unpacklo_epi8(v0, z),
            _mm256_unpacklo_epi8(v1, z),
            _mm256_unpacklo_epi8(v2, z),
            _mm256_unpacklo_epi8(f, f),
            _mm256_unpacklo_epi8(after, after),
        );
        let b = lanes4(
            _mm256_unpackhi_epi8(v0, z),
            _mm256_unpackhi_epi8(v1, z),
            _mm256_unpackhi_epi8(v2, z),
            _mm256_unpackhi_epi8(f, f),
            _mm256_unpackhi_epi8(after, after),
        );
        pack_store(order::<BE>(a), order::<BE>(b), mask, out)
    }
}

/// One step that is not all ASCII: checks (if `VALIDATE`) and converts the
/// 32 bytes `v0` at `p`, storing the units at `out`; returns how many, or
/// `None` if the check failed.
///
/// # Safety
///
/// * 35 bytes at `p` are readable and 64 bytes at `out` writable.
/// * The CPU has AVX2, BMI1/2 and POPCNT.
#[inline(always)]
unsafe fn convert<const BE: bool, const VALIDATE: bool>(
    c: &Checks,
    p: *const u8,
    v0: __m256i,
    st: &mut State,
    out: *mut u8,
) -> Option<usize> {
    // SAFETY: the caller's promises: 35 readable bytes at `p` cover the
    // two loads, 64 writable ones at `out` every store of a step.
    unsafe {
        if VALIDATE {
            let error = check(c, v0, st.prev);
            if _mm256_testz_si256(error, error) == 0 {
                return None;
            }
        }
        let (v1, v2) = (load(p.add(1)), load(p.add(2)));
        let leads = _mm256_movemask_epi8(_mm256_cmpgt_epi8(v0, _mm256_set1_epi8(-65))) as u32;
        let fours = _mm256_movemask_epi8(_mm256_subs_epu8(v0, _mm256_set1_epi8(0x70))) as u32;
        let n = if fours | st.carry == 0 {
            convert3::<BE>(v0, v1, v2, leads, out)
        } else {
            convert4::<BE>(v0, v1, v2, st.prev, leads | fours << 1 | st.carry, out)
        };
        st.prev = v0;
        st.carry = fours >> 31;
        Some(n)
    }
}

/// Whether (if `VALIDATE`) the previous step left no sequence that an
/// ASCII step cuts short.
///
/// # Safety
///
/// The CPU has AVX2.
#[inline(always)]
unsafe fn finished<const VALIDATE: bool>(c: &Checks, st: &State) -> bool {
    if !VALIDATE {
        return true;
    }
    // SAFETY: the caller guarantees AVX2.
    unsafe {
        let cut = _mm256_subs_epu8(st.prev, c.max_at_end);
        _mm256_testz_si256(cut, cut) != 0
    }
}

/// One step, ASCII or not (see [`convert`]).
///
/// # Safety
///
/// As [`convert`].
#[inline(always)]
unsafe fn step<const BE: bool, const VALIDATE: bool>(
    c: &Checks,
    p: *const u8,
    st: &mut State,
    out: *mut u8,
) -> Option<usize> {
    // SAFETY: the caller's promises.
    unsafe {
        let v0 = load(p);
        if _mm256_movemask_epi8(v0) == 0 {
            if !finished::<VALIDATE>(c, st) {
                return None;
            }
            widen::<BE>(v0, out);
            st.prev = v0;
            st.carry = 0;
            return Some(STEP);
        }
        convert::<BE, VALIDATE>(c, p, v0, st, out)
    }
}

/// Where a conversion stopped at step start `i` (with `o` units written
/// and the previous step's `carry`) can hand over to the scalar kernel: the
/// start of the character holding byte `i`, and the units written before
/// it. Every step before `i` was converted, so every character whose lead
/// is before `i` was, whole (but for the low surrogate of a 4-byte lead at
/// `i - 1`, which `carry` says is missing).
fn boundary(src: &[u8], i: usize, o: usize, carry: u32) -> (usize, usize) {
    let is_cont = |j: usize| src.get(j).is_some_and(|&b| (b as i8) < -64);
    if !is_cont(i) {
        return (i, o);
    }
    let Some(s) = (i.saturating_sub(3)..i).rev().find(|&j| !is_cont(j)) else {
        return (i, o);
    };
    let units = match src.get(s) {
        Some(&b) if b >= 0xF0 => 2 - usize::from(s + 1 == i && carry != 0),
        _ => 1,
    };
    (s, o.saturating_sub(units))
}

/// Widens the ASCII run from `i` (of `src`, whose 32 bytes at `i`, `v`,
/// are ASCII) to units at `dst + 2 * o` while 64 bytes of input and room
/// are left: the first 32 bytes, then, if the 64 after them are ASCII
/// too, 64 a step from where the output is 32-byte aligned (the first
/// store covers the units up to there), so that no store straddles two
/// cache lines (and, for outputs past [`STREAM_MIN`], with non-temporal
/// stores after the first [`STREAM_AFTER`] steps). (Not to 64 bytes: that
/// moves the loads of an aligned input off their alignment when the output
/// is already 32-byte aligned, which costs more than it saves.) Returns the
/// new `(i, o)`, at least 32 on; every store writes exactly units of the
/// run.
///
/// # Safety
///
/// * `i + 32 <= src.len()`, `o + 32 <= cap`, `dst` valid for writes of
///   `2 * cap` bytes.
/// * The CPU has AVX2.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
#[inline]
unsafe fn ascii_run<const BE: bool>(
    src: &[u8],
    v: __m256i,
    mut i: usize,
    dst: *mut u8,
    mut o: usize,
    cap: usize,
) -> (usize, usize) {
    let len = src.len();
    // SAFETY: `o + 32 <= cap`.
    unsafe { widen::<BE>(v, dst.add(2 * o)) };
    let at = (dst as usize).wrapping_add(2 * o) % 32;
    let skew = if at.is_multiple_of(2) && at != 0 {
        (32 - at) / 2
    } else {
        STEP
    };
    let (mut j, mut u) = (i + skew, o + skew);
    let stream = may_stream(len, cap) && (dst as usize + 2 * u).is_multiple_of(32);
    // A run streams only past its first `STREAM_AFTER` steps.
    let plain_end = if stream {
        len.min(j + 2 * STEP * STREAM_AFTER)
    } else {
        len
    };
    // SAFETY: the caller's promises (`j <= len`: `skew <= 32`); `stream`
    // only if `dst + 2 * u` is 32-byte aligned.
    unsafe {
        (j, u) = ascii_steps::<BE, false>(src, j, plain_end, dst, u, cap);
        if stream && j == plain_end {
            (j, u) = ascii_steps::<BE, true>(src, j, len, dst, u, cap);
            // The `sfence` that orders these stores comes at the end of
            // the conversion ([`run_fenced`]).
        }
    }
    if j == i + skew {
        // No aligned step: on from the first 32 bytes.
        i += STEP;
        o += STEP;
    } else {
        i = j;
        o = u;
    }
    (i, o)
}

/// The steps of [`ascii_run`]: widens the 64 bytes at `j` to units at
/// `dst + 2 * u` while they are ASCII and 64 bytes of input before `end`
/// and room are left, with non-temporal stores if `STREAM`; returns the new
/// `j` and `u`.
///
/// # Safety
///
/// * `j <= end <= src.len()`, `u <= cap`, `dst` valid for writes of
///   `2 * cap` bytes; with `STREAM`, `dst + 2 * u` is 32-byte aligned.
/// * The CPU has AVX2.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
#[inline]
unsafe fn ascii_steps<const BE: bool, const STREAM: bool>(
    src: &[u8],
    mut j: usize,
    end: usize,
    dst: *mut u8,
    mut u: usize,
    cap: usize,
) -> (usize, usize) {
    let p = src.as_ptr();
    while end - j >= 2 * STEP && cap - u >= 2 * STEP {
        // SAFETY: `j + 64 <= end <= src.len()`.
        let (a, b) = unsafe { (load(p.add(j)), load(p.add(j + STEP))) };
        if _mm256_movemask_epi8(_mm256_or_si256(a, b)) != 0 {
            break;
        }
        // SAFETY: `u + 64 <= cap`: 128 bytes at `dst + 2 * u` are writable
        // (and with `STREAM` 32-byte aligned: the caller's promise, and
        // each step moves 128 bytes).
        unsafe {
            if STREAM {
                widen_stream::<BE>(a, dst.add(2 * u));
                widen_stream::<BE>(b, dst.add(2 * u + 2 * STEP));
            } else {
                widen::<BE>(a, dst.add(2 * u));
                widen::<BE>(b, dst.add(2 * u + 2 * STEP));
            }
        }
        j += 2 * STEP;
        u += 2 * STEP;
    }
    (j, u)
}

/// Converts (and checks, if `VALIDATE`) UTF-8 `src` to UTF-16
/// (little-endian bytes, or big-endian if `BE`) at `dst`; see the module
/// docs.
///
/// Returns as [`Fused`] does: all of `src` converted, or (if `VALIDATE`)
/// invalid with the rescan's start, or stopped for lack of room at a
/// character boundary (everything before it checked and converted).
/// Without `VALIDATE`, `src` should be valid UTF-8 (else the output is
/// meaningless, but every access stays in bounds and `read`, `written`
/// stay within `src.len()` and `cap`).
///
/// # Safety
///
/// * The CPU has AVX2, BMI1, BMI2 and POPCNT.
/// * `dst` is valid for writes of `2 * cap` bytes (`cap` units).
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
#[inline]
unsafe fn run<const BE: bool, const VALIDATE: bool>(src: &[u8], dst: *mut u8, cap: usize) -> Fused {
    let len = src.len();
    let p = src.as_ptr();
    // SAFETY: the features are enabled.
    let c = unsafe { Checks::new() };
    let zero = _mm256_setzero_si256();
    let mut st = State {
        prev: zero,
        carry: 0,
    };
    let mut i = 0;
    let mut o = 0;
    let invalid = |at: usize| Fused {
        read: at,
        written: Fused::INVALID,
    };
    // Invariants: `i <= len`, `o <= cap`, the steps before `i` checked and
    // converted to `o` units (see `boundary` for where that is a character
    // boundary), `st` their state.
    if len >= MIN_LEFT && cap >= ROOM {
        let (i_last, o_last) = (len - MIN_LEFT, cap - ROOM);
        while i <= i_last && o <= o_last {
            // SAFETY: `i + 35 <= len`: the step's bytes are readable.
            let v0 = unsafe { load(p.add(i)) };
            if _mm256_movemask_epi8(v0) == 0 {
                // SAFETY: the features are enabled.
                if !unsafe { finished::<VALIDATE>(&c, &st) } {
                    return invalid(i);
                }
                // SAFETY: `i + 32 <= len`, `o + 32 <= cap`; the features
                // are enabled.
                (i, o) = unsafe { ascii_run::<BE>(src, v0, i, dst, o, cap) };
                // ASCII checks as zero does.
                st = State {
                    prev: zero,
                    carry: 0,
                };
                continue;
            }
            // SAFETY: `i + 35 <= len` bytes are readable; `o + 32 <= cap`
            // units at `dst + 2 * o` are writable; the features are enabled.
            match unsafe { convert::<BE, VALIDATE>(&c, p.add(i), v0, &mut st, dst.add(2 * o)) } {
                Some(n) => {
                    i += STEP;
                    o += n;
                }
                None => return invalid(i),
            }
        }
    }
    // ASCII steps that store exactly their units, then, if the last 32
    // bytes of the input are ASCII, the rest widened by a store of those 32
    // bytes that ends with the output (the bytes before `i` it covers are
    // ASCII, already widened to the same units).
    while len - i >= STEP && cap - o >= STEP {
        // SAFETY: `i + 32 <= len`.
        let v = unsafe { load(p.add(i)) };
        // SAFETY: the features are enabled.
        if _mm256_movemask_epi8(v) != 0 || !unsafe { finished::<VALIDATE>(&c, &st) } {
            break;
        }
        // SAFETY: `o + 32 <= cap`.
        unsafe { widen::<BE>(v, dst.add(2 * o)) };
        st = State {
            prev: zero,
            carry: 0,
        };
        i += STEP;
        o += STEP;
    }
    let left = len - i;
    if left < STEP && len >= STEP && left <= cap - o && o >= STEP - left {
        // SAFETY: `len >= 32`: the last 32 bytes are readable.
        let v = unsafe { load(p.add(len - STEP)) };
        // SAFETY: the features are enabled.
        if _mm256_movemask_epi8(v) == 0 && unsafe { finished::<VALIDATE>(&c, &st) } {
            // SAFETY: units `o + left - 32..o + left` are inside `0..cap`
            // (`o >= 32 - left`, `o + left <= cap`).
            unsafe { widen::<BE>(v, dst.add(2 * (o + left - STEP))) };
            return Fused {
                read: len,
                written: o + left,
            };
        }
    }
    // The end (or a lack of room for whole-register steps): up to 96 bytes
    // at a time through the stack.
    while i < len {
        let left = len - i;
        let take = left.min(CHUNK);
        let mut buf = [0u8; CHUNK + STEP];
        // SAFETY: the `min(left, CHUNK + 3)` bytes from `i` are inside
        // `src`; `buf`, a distinct local, holds `CHUNK + 32` bytes.
        unsafe {
            core::ptr::copy_nonoverlapping(p.add(i), buf.as_mut_ptr(), left.min(CHUNK + 3));
        }
        let steps = take.div_ceil(STEP);
        let carry = st.carry;
        let mut units = core::mem::MaybeUninit::<[u16; CHUNK + STEP]>::uninit();
        let ubuf = units.as_mut_ptr().cast::<u8>();
        let mut t = 0;
        for k in 0..steps {
            // SAFETY: step `k < 3` reads bytes `32k..32k + 35 <= 99` of
            // `buf` and writes units `t..t + 32 <= 96` of `units` (each step
            // makes at most 32); the features are enabled.
            let n = unsafe {
                step::<BE, VALIDATE>(&c, buf.as_ptr().add(STEP * k), &mut st, ubuf.add(2 * t))
            };
            match n {
                Some(n) => t += n,
                None => return invalid(i),
            }
        }
        if left <= CHUNK {
            // The last bytes may not start what they cannot finish (checked
            // here when no zero after them was).
            // SAFETY: the features are enabled.
            if !unsafe { finished::<VALIDATE>(&c, &st) } {
                return invalid(i);
            }
            // Each zero after the input made one unit.
            t = t.saturating_sub(steps * STEP - take);
        }
        if t > cap - o {
            let (read, written) = boundary(src, i, o, carry);
            return Fused { read, written };
        }
        // SAFETY: `t <= cap - o` units at `dst + 2 * o` are writable, and
        // the first `t <= 96` units of `units` were written (the steps
        // store every unit they count, in order).
        unsafe { core::ptr::copy_nonoverlapping(ubuf, dst.add(2 * o), 2 * t) };
        o += t;
        i += take;
    }
    Fused {
        read: len,
        written: o,
    }
}

/// [`run`], then one `sfence` if the sizes let its ASCII runs use
/// non-temporal stores: it orders them before the caller's reads of the
/// output (the conversion itself never reads the output, nor stores again
/// to what a run streamed). One fence a call rather than one a streamed
/// run: the fence waits for every store before it.
///
/// # Safety
///
/// As [`run`].
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
#[inline]
unsafe fn run_fenced<const BE: bool, const VALIDATE: bool>(
    src: &[u8],
    dst: *mut u8,
    cap: usize,
) -> Fused {
    // SAFETY: the caller's promises.
    let f = unsafe { run::<BE, VALIDATE>(src, dst, cap) };
    if may_stream(src.len(), cap) {
        _mm_sfence();
    }
    f
}

/// Converts valid UTF-8 `src` to UTF-16 (little-endian bytes, or
/// big-endian if `BE`) at `dst`, as far as it fits: returns how far it got
/// (a character boundary), and the scalar kernel finishes from there.
///
/// # Safety
///
/// * The CPU has AVX2, BMI1, BMI2 and POPCNT.
/// * `dst` is valid for writes of `2 * cap` bytes (`cap` units).
///
/// `src` should be valid UTF-8 that ends at a character boundary (else the
/// output is meaningless, but every access stays in bounds).
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
pub(crate) unsafe fn utf8_to_utf16<const BE: bool>(
    src: &[u8],
    dst: *mut u8,
    cap: usize,
) -> Progress {
    // SAFETY: as this function's contract.
    let f = unsafe { run_fenced::<BE, false>(src, dst, cap) };
    Progress {
        read: f.read,
        written: f.written,
    }
}

/// Checks UTF-8 `src` and converts it to UTF-16 (little-endian bytes, or
/// big-endian if `BE`) at `dst`, in one pass; returns as [`Fused`] says.
///
/// # Safety
///
/// * The CPU has AVX2, BMI1, BMI2 and POPCNT.
/// * `dst` is valid for writes of `2 * cap` bytes (`cap` units).
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
pub(crate) unsafe fn utf8_to_utf16_checked<const BE: bool>(
    src: &[u8],
    dst: *mut u8,
    cap: usize,
) -> Fused {
    // SAFETY: as this function's contract.
    unsafe { run_fenced::<BE, true>(src, dst, cap) }
}

/// 64-byte pairs between two flushes of the length's byte counters (each
/// counter gains at most 1 a pair).
const FLUSH: usize = 255;

/// Inputs at least this long count their whole 64-byte pairs in byte
/// counters; shorter ones (and the rest) a block at a time with
/// `vpmovmskb` and `popcnt`, which has no flush to pay for.
const COUNTERS_MIN: usize = 256;

/// The shortest input [`utf16_len_from_utf8`] counts (one block); from
/// here on whole blocks and one overlapping block beat the scalar count.
pub(crate) const LEN_MIN: usize = 32;

/// The number of UTF-16 units `bytes` (at least 32 of them) converts to
/// if valid, as the scalar
/// [`utf16_len_from_utf8`](crate::transcode::utf16_len_from_utf8) counts
/// it: one per byte that is not a continuation byte, one more per byte
/// `F0..=FF`.
///
/// From [`COUNTERS_MIN`] bytes on, the 64-byte pairs are counted in byte
/// lanes (a compare is -1 where true, and is subtracted), two registers
/// for each kind so that no chain of additions is longer than one per 64
/// bytes, summed by `vpsadbw` every [`FLUSH`] pairs. The 32-byte blocks
/// after them (or all of a shorter input) are counted by `popcnt` of their
/// masks, and the last 1 to 31 bytes the same way in the 32 bytes that end
/// the input, the bytes counted before masked off.
///
/// # Safety
///
/// * The CPU has AVX2 and POPCNT.
/// * `bytes.len() >= LEN_MIN`.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
pub(crate) unsafe fn utf16_len_from_utf8(bytes: &[u8]) -> usize {
    debug_assert!(bytes.len() >= STEP);
    let len = bytes.len();
    let p = bytes.as_ptr();
    let cont = _mm256_set1_epi8(-65);
    let f0 = _mm256_set1_epi8(0x70);
    let mut n = 0;
    let mut i = 0;
    if len >= COUNTERS_MIN {
        let (pairs, _) = bytes.as_chunks::<64>();
        let zero = _mm256_setzero_si256();
        let f0x = _mm256_set1_epi8(0xF0u8 as i8);
        for group in pairs.chunks(FLUSH) {
            let (mut la, mut lb, mut fa, mut fb) = (zero, zero, zero, zero);
            for pair in group {
                // SAFETY: `pair` is 64 readable bytes.
                let (a, b) = unsafe { (load(pair.as_ptr()), load(pair.as_ptr().add(STEP))) };
                la = _mm256_sub_epi8(la, _mm256_cmpgt_epi8(a, cont));
                lb = _mm256_sub_epi8(lb, _mm256_cmpgt_epi8(b, cont));
                fa = _mm256_sub_epi8(fa, _mm256_cmpeq_epi8(_mm256_max_epu8(a, f0x), a));
                fb = _mm256_sub_epi8(fb, _mm256_cmpeq_epi8(_mm256_max_epu8(b, f0x), b));
            }
            // Each counter gains at most 1 a pair, so no lane passes
            // `FLUSH` = 255; the sums of eight lanes fit 64 bits.
            let sums = _mm256_add_epi64(
                _mm256_add_epi64(_mm256_sad_epu8(la, zero), _mm256_sad_epu8(lb, zero)),
                _mm256_add_epi64(_mm256_sad_epu8(fa, zero), _mm256_sad_epu8(fb, zero)),
            );
            // SAFETY: the features are enabled.
            n += super::count_avx2::sum_lanes(sums);
        }
        i = pairs.len() * 64;
    }
    // Units of the bytes of `v` whose bit is set in `keep`.
    let count = |v: __m256i, keep: u32| {
        let leads = _mm256_movemask_epi8(_mm256_cmpgt_epi8(v, cont)) as u32;
        // Sign bit where a byte is `F0..=FF`.
        let fours = _mm256_movemask_epi8(_mm256_subs_epu8(v, f0)) as u32;
        ((leads & keep).count_ones() + (fours & keep).count_ones()) as usize
    };
    while len - i >= STEP {
        // SAFETY: `i + 32 <= len`.
        n += count(unsafe { load(p.add(i)) }, u32::MAX);
        i += STEP;
    }
    if i < len {
        // The last `len - i < 32` bytes, the high lanes of the 32 that end
        // the input (`len >= 32`).
        // SAFETY: `len - 32..len` is inside `bytes`.
        let v = unsafe { load(p.add(len - STEP)) };
        n += count(v, u32::MAX << (STEP - (len - i)));
    }
    n
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;
    use std::format;
    use std::string::String;
    use std::vec::Vec;

    /// A byte no kernel writes past the room it was given.
    const GUARD: u8 = 0xA5;

    /// One character of each UTF-8 length.
    const KINDS: [char; 4] = ['a', 'é', '中', '😀'];

    /// Runs one flavour with room for `cap` units (and guard bytes after
    /// them), returning the result and the output bytes.
    fn run_one<const BE: bool, const VALIDATE: bool>(src: &[u8], cap: usize) -> (Fused, Vec<u8>) {
        let mut buf = std::vec![GUARD; 2 * cap + 80];
        // SAFETY: the CPU has the features (the callers check); `buf` has
        // `2 * cap` writable bytes (and more).
        let f = unsafe { run::<BE, VALIDATE>(src, buf.as_mut_ptr(), cap) };
        assert!(
            buf[2 * cap..].iter().all(|&b| b == GUARD),
            "wrote past the room: {} bytes, cap {cap}",
            src.len()
        );
        (f, buf)
    }

    /// The units of `units` as bytes in either order.
    fn bytes_of(units: &[u16], be: bool) -> Vec<u8> {
        units
            .iter()
            .flat_map(|u| if be { u.to_be_bytes() } else { u.to_le_bytes() })
            .collect()
    }

    /// Checks one flavour on `src` with room for `cap` units against std
    /// and the validator.
    fn check_one<const BE: bool, const VALIDATE: bool>(src: &[u8], cap: usize) {
        let ctx = || {
            format!(
                "be {BE} validate {VALIDATE}, {} bytes, cap {cap}: {src:02X?}",
                src.len()
            )
        };
        let text = core::str::from_utf8(src);
        if !VALIDATE && text.is_err() {
            // Garbage in: only the bounds matter.
            let (f, _) = run_one::<BE, VALIDATE>(src, cap);
            assert!(f.read <= src.len() && f.written <= cap, "{}", ctx());
            return;
        }
        let (f, buf) = run_one::<BE, VALIDATE>(src, cap);
        let valid_up_to = match text {
            Ok(_) => src.len(),
            Err(e) => e.valid_up_to(),
        };
        if f.written == Fused::INVALID {
            let want = crate::validate(src).unwrap_err();
            assert_eq!(crate::validate::locate(src, f.read), want, "{}", ctx());
            return;
        }
        // Converted (all, or a prefix for lack of room): valid, exact, and
        // nothing written past the output when all of it was.
        assert!(f.read <= valid_up_to, "{}", ctx());
        let done = core::str::from_utf8(&src[..f.read]).expect("a character boundary");
        let units: Vec<u16> = done.encode_utf16().collect();
        assert_eq!(f.written, units.len(), "{}", ctx());
        assert!(f.written <= cap, "{}", ctx());
        assert_eq!(buf[..2 * f.written], bytes_of(&units, BE)[..], "{}", ctx());
        if f.read == src.len() {
            assert!(text.is_ok(), "{}", ctx());
            assert!(
                buf[2 * f.written..].iter().all(|&b| b == GUARD),
                "wrote past the output: {}",
                ctx()
            );
        } else if text.is_ok() {
            // It stops only for room.
            let rest: usize = core::str::from_utf8(&src[f.read..])
                .unwrap()
                .encode_utf16()
                .count();
            assert!(rest > cap - f.written, "stopped early: {}", ctx());
        }
    }

    /// Every flavour, with every telling amount of room.
    fn check(src: &[u8]) {
        let need = core::str::from_utf8(src).map_or(src.len(), |s| s.encode_utf16().count());
        for cap in [need, need + 40, need.saturating_sub(1), need / 2, 31, 33] {
            check_one::<false, false>(src, cap);
            check_one::<true, false>(src, cap);
            check_one::<false, true>(src, cap);
            check_one::<true, true>(src, cap);
        }
    }

    /// `len` bytes of characters as long as `base` in UTF-8, all different
    /// in a row (so that a unit stored at the wrong place shows), filled up
    /// with ASCII where the next one would not fit.
    fn fill(base: char, len: usize) -> String {
        let first = match base.len_utf8() {
            1 => 0x21,
            2 => 0x400,
            3 => 0x4E00,
            _ => 0x1F600,
        };
        let mut s = String::new();
        let mut k = 0;
        while s.len() + base.len_utf8() <= len {
            s.push(char::from_u32(first + k % 90).unwrap());
            k += 1;
        }
        while s.len() < len {
            s.push(char::from(b'0' + (s.len() % 10) as u8));
        }
        s
    }

    /// Every kind of character after every prefix length 0..=130 of every
    /// kind of text, followed by more of that text: every lane of every
    /// step, the steps from memory and the stack chunks, and inputs of
    /// every length up to 130 and past it.
    #[test]
    fn every_kind_at_every_offset() {
        if !super::super::avx2_transcode() {
            return;
        }
        for base in KINDS {
            for c in KINDS {
                for at in 0..=130 {
                    let mut s = fill(base, at);
                    s.push(c);
                    let short = s.clone();
                    s.push_str(&fill(base, 100));
                    check(short.as_bytes());
                    check(s.as_bytes());
                }
            }
        }
    }

    /// Inputs of every length 0..=200 of each kind and of a mix, cut at a
    /// character boundary, with every amount of room up to the need.
    #[test]
    fn every_length_and_room() {
        if !super::super::avx2_transcode() {
            return;
        }
        let mix: String = "aé中😀b€𐍈ж".repeat(20);
        for text in [
            fill('a', 200),
            fill('é', 200),
            fill('中', 200),
            fill('😀', 200),
            mix,
        ] {
            for len in 0..=200.min(text.len()) {
                if !text.is_char_boundary(len) {
                    continue;
                }
                let src = &text.as_bytes()[..len];
                let need = text[..len].encode_utf16().count();
                for cap in 0..=need + 1 {
                    check_one::<false, true>(src, cap);
                    check_one::<true, false>(src, cap);
                }
            }
        }
    }

    /// Runs of 4-byte characters from every offset: a lead at a step's
    /// last byte leaves its low surrogate to the next step (or chunk), and
    /// a stop for room there must hand back the whole character.
    #[test]
    fn four_byte_runs_across_steps() {
        if !super::super::avx2_transcode() {
            return;
        }
        for at in 0..70 {
            for tail in ["", "a", "é", "中"] {
                let mut s = fill('a', at);
                s.push_str(&"😀".repeat(40));
                s.push_str(tail);
                let need = s.encode_utf16().count();
                for cap in 0..=need {
                    check_one::<false, true>(s.as_bytes(), cap);
                    check_one::<false, false>(s.as_bytes(), cap);
                }
                check(s.as_bytes());
            }
        }
    }

    /// An error of every kind at every offset of text of every kind: the
    /// validating flavour reports the validator's error (or converts a
    /// valid prefix when out of room); the other stays in bounds.
    #[test]
    fn errors_at_every_offset() {
        if !super::super::avx2_transcode() {
            return;
        }
        let bad: [&[u8]; 9] = [
            b"\xFF",
            b"\x80",
            b"\xC3",
            b"\xE4\xB8",
            b"\xF0\x9F\x98",
            b"\xC0\xAF",
            b"\xE0\x80\x80",
            b"\xED\xA0\x80",
            b"\xF4\x90\x80\x80",
        ];
        for base in KINDS {
            let text = fill(base, 240);
            for at in 0..=200 {
                if !text.is_char_boundary(at) {
                    continue;
                }
                for b in bad {
                    let mut src = text.as_bytes()[..at].to_vec();
                    src.extend_from_slice(b);
                    // At the end, and followed by more text.
                    check(&src);
                    src.extend_from_slice(&text.as_bytes()[at..]);
                    check(&src);
                }
                // A continuation byte replaced (a sequence cut short or a
                // stray continuation byte).
                let mut src = text.as_bytes().to_vec();
                src[at] = if src[at] < 0x80 { 0x80 } else { b'!' };
                check(&src);
            }
        }
    }

    /// ASCII runs with the output at every alignment, broken by other
    /// characters at several places: the aligned 64-byte steps and the
    /// store that ends with the output.
    #[test]
    fn ascii_runs_at_every_output_alignment() {
        if !super::super::avx2_transcode() {
            return;
        }
        for len in [32, 33, 63, 64, 65, 100, 131, 200, 300] {
            for brk in [
                None,
                Some(0),
                Some(31),
                Some(40),
                Some(97),
                Some(150),
                Some(250),
            ] {
                let mut s = fill('a', len);
                if let Some(b) = brk.filter(|&b| b < len) {
                    s.replace_range(b..=b, "é");
                }
                let src = s.as_bytes();
                let units: Vec<u16> = s.encode_utf16().collect();
                for shift in 0..32 {
                    let cap = units.len();
                    let mut buf = std::vec![GUARD; 2 * cap + 128];
                    let dst = buf[2 * shift..].as_mut_ptr();
                    // SAFETY: the CPU has the features (checked above);
                    // `2 * cap` bytes from `dst` are inside `buf`.
                    let f = unsafe { run::<false, true>(src, dst, cap) };
                    assert_eq!(
                        (f.read, f.written),
                        (src.len(), cap),
                        "{len} {brk:?} {shift}"
                    );
                    assert_eq!(
                        buf[2 * shift..2 * (shift + cap)],
                        bytes_of(&units, false)[..]
                    );
                    assert!(buf[..2 * shift].iter().all(|&b| b == GUARD));
                    assert!(buf[2 * (shift + cap)..].iter().all(|&b| b == GUARD));
                }
            }
        }
    }

    /// `boundary` hands back the character holding the stop, counting a
    /// 4-byte character whose low surrogate is missing as one unit.
    #[test]
    fn boundary_backs_up_to_the_character() {
        let s = "ab中😀c".as_bytes(); // a b E4 B8 AD F0 9F 98 80 c
        assert_eq!(boundary(s, 2, 2, 0), (2, 2));
        assert_eq!(boundary(s, 3, 3, 0), (2, 2));
        assert_eq!(boundary(s, 4, 3, 0), (2, 2));
        assert_eq!(boundary(s, 6, 4, 1), (5, 3));
        assert_eq!(boundary(s, 7, 5, 0), (5, 3));
        assert_eq!(boundary(s, 8, 5, 0), (5, 3));
        assert_eq!(boundary(s, 9, 5, 0), (9, 5));
        assert_eq!(boundary(s, 10, 6, 0), (10, 6));
    }

    /// The length agrees with the scalar one on every text, on invalid
    /// bytes (which count as the scalar function counts them), at every
    /// length around the 64-byte pairs, and past the counters' flush point.
    #[test]
    fn length_agrees_with_the_scalar_one() {
        if !super::super::avx2_transcode() {
            return;
        }
        let mut inputs: Vec<Vec<u8>> = KINDS.iter().map(|&c| fill(c, 300).into_bytes()).collect();
        inputs.push("aé中😀b€𐍈ж".repeat(40).into_bytes());
        inputs.push(std::vec![0xFF; 64 * FLUSH + 200]);
        inputs.push(std::vec![0xF0; 64 * FLUSH * 2 + 64]);
        inputs.push((0..=255u8).cycle().take(64 * FLUSH + 333).collect());
        for bytes in &inputs {
            for len in (STEP..bytes.len().min(600)).chain([bytes.len()]) {
                let b = &bytes[..len];
                // SAFETY: the CPU has the features (checked above).
                let got = unsafe { utf16_len_from_utf8(b) };
                // (Not the public `utf16_len_from_utf8`: on an AVX2 CPU
                // that is this kernel.)
                let want = super::super::super::count::utf16_len_from_utf8_scalar(b);
                assert_eq!(got, want, "{len}");
            }
        }
    }

    /// ASCII runs past [`STREAM_MIN`] (non-temporal stores), broken by other
    /// characters, at several output alignments (one that never aligns):
    /// both flavours and byte orders against std.
    #[test]
    fn large_ascii_runs_with_non_temporal_stores() {
        if !super::super::avx2_transcode() {
            return;
        }
        let mut s: String = (0..STREAM_MIN + 1000)
            .map(|k| char::from(b'!' + (k % 93) as u8))
            .collect();
        s.replace_range(5000..5002, "é");
        s.replace_range(STREAM_MIN / 2..STREAM_MIN / 2 + 4, "😀");
        s.push('中');
        every_flavour_at_shifts(&s, &[0, 2, 16, 33]);
    }

    /// Past [`STREAM_MIN`], ASCII runs of every length around the point
    /// where they turn to non-temporal stores ([`STREAM_AFTER`] steps of
    /// 64 bytes after the first 32 and the alignment), between characters
    /// of 2, 3 and 4 bytes: English-like text, where most runs are short.
    #[test]
    fn short_and_long_ascii_runs_past_the_streaming_size() {
        if !super::super::avx2_transcode() {
            return;
        }
        let turn = 32 + 2 * STEP * STREAM_AFTER;
        let lengths: std::vec::Vec<usize> = [1, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129]
            .into_iter()
            .chain((turn - 70..turn + 140).step_by(7))
            .chain([turn + 2 * STEP * 3, 5000])
            .collect();
        let mut s = String::new();
        let mut k = 0;
        // Units (the output's length) past `STREAM_MIN` too.
        while s.len() < STREAM_MIN + STREAM_MIN / 8 {
            let n = lengths[k % lengths.len()];
            s.extend((0..n).map(|j| char::from(b'a' + ((j + k) % 26) as u8)));
            s.push(['é', '’', '😀'][k % 3]);
            k += 1;
        }
        assert!(s.encode_utf16().count() >= STREAM_MIN);
        every_flavour_at_shifts(&s, &[0, 2, 34]);
    }

    /// Converts `s` with [`run_fenced`] in every flavour (LE/BE, checked
    /// or not) into a buffer of exactly its length at each byte offset of
    /// `shifts` within a guarded allocation, and compares with std.
    fn every_flavour_at_shifts(s: &str, shifts: &[usize]) {
        let src = s.as_bytes();
        let units: Vec<u16> = s.encode_utf16().collect();
        let cap = units.len();
        for &shift in shifts {
            for flavour in 0..4 {
                let mut buf = std::vec![GUARD; 2 * cap + 128];
                let dst = buf[shift..].as_mut_ptr();
                // SAFETY: the callers checked the CPU's features; `2 * cap`
                // bytes from `dst` are inside `buf`.
                let f = unsafe {
                    match flavour {
                        0 => run_fenced::<false, false>(src, dst, cap),
                        1 => run_fenced::<false, true>(src, dst, cap),
                        2 => run_fenced::<true, false>(src, dst, cap),
                        _ => run_fenced::<true, true>(src, dst, cap),
                    }
                };
                let want = bytes_of(&units, flavour >= 2);
                assert_eq!((f.read, f.written), (src.len(), cap), "{shift} {flavour}");
                assert!(buf[shift..shift + 2 * cap] == want[..], "{shift} {flavour}");
                assert!(buf[..shift].iter().all(|&b| b == GUARD));
                assert!(buf[shift + 2 * cap..].iter().all(|&b| b == GUARD));
            }
        }
    }
}
