//! AVX-512 UTF-8 ⇄ UTF-32.
//!
//! # UTF-8 → UTF-32 (input known to be valid)
//!
//! 64 bytes per step. An all-ASCII block widens 16 bytes at a time to
//! `u32`, each straight from memory (see [`widen_block_from`]), from 256
//! bytes of input on into an output aligned to 64 bytes by a first masked
//! step ([`ALIGN_MIN`]). Otherwise the block converts the characters whose lead bytes lie
//! in it ([`mixed_block`]), reading the bytes of a last character that
//! ends past the block from memory:
//!
//! * Without 4-byte characters, by planes: [`planes`] computes, for every
//!   byte at once, the low and the high byte of the code point of the
//!   character it would lead (from the block and the block loaded one and
//!   two bytes further on, with 16-bit shifts and `vpternlogd` selects);
//!   `vpcompressb` keeps the leads' bytes, and a `vpermt2b` per 16 values
//!   joins each low byte with its high byte into a 32-bit lane.
//! * With a 4-byte character, by gathering: `vpcompressb` of `0, 1, …, 63`
//!   by the lead mask gives the lead positions; for each 16 of them,
//!   `vpermb` spreads each position over a 32-bit lane (plus `0, 1, 2, 3`)
//!   and `vpermt2b` gathers the 4 bytes from the lead on, from the block
//!   and the 3 bytes after it; [`decode_lanes`] (a `pshufb` by the lead's
//!   high nibble for the payload mask and the final shift, `vpmaddubsw`
//!   and `vpmaddwd` to join the 6-bit groups, `vpsrlvd` to drop the bytes
//!   past the character) makes the code points.
//!
//! The planes take about half the operations of the gathering when a
//! block has many characters (ASCII text with a few quotes and dashes:
//! four rounds of gathering, each of four shuffles and seven other
//! operations); on an Intel Xeon with AVX-512 FP16 (2026-11-27) they took
//! Arabic and Russian from 1.8 to 2.0 times simdutf's validating
//! conversion (geomean of 1 KiB, 64 KiB and 1 MiB; still two passes then).
//!
//! A block that starts inside a character skips its continuation bytes
//! (they are not leads): the step before converted that character. The
//! validating conversion is `utf32_fused_avx512`, one pass over these
//! steps with the validator's checks.
//!
//! # UTF-32 → UTF-8 (validating, or replacing with U+FFFD)
//!
//! 32 values (two registers) per step, by the larger value of each lane
//! pair (`vpmaxud`):
//!
//! * all below `80`: `vpermt2b` gathers the low byte of every lane, one
//!   32-byte store;
//! * all below `800`: `vpermt2w` packs the 32 values into 16-bit lanes; each
//!   lane becomes its ASCII byte or its two-byte encoding, and `vpcompressb`
//!   keeps the first byte of an ASCII lane and both bytes of the others;
//! * otherwise the block is checked (surrogates `D800..=DFFF` and values
//!   above `10FFFF`): with an invalid value the strict kernel stops before
//!   the block (the scalar kernel reports the exact error from there) and
//!   the lossy kernel replaces those lanes with `FFFD`. Then each register
//!   is encoded in its 32-bit lanes ([`encode16`]: `vpmultishiftqb`
//!   lays out `cp >> 18, cp >> 12, cp >> 6, cp`, per-length blends of
//!   marker bits finish the bytes and `vpcompressb` keeps the last 1–4 of
//!   each lane).
//!
//! The last step reads the values left with masked loads (absent lanes
//! produce nothing). Each step computes its byte count before it stores,
//! stops if that does not fit in the room left, and masks its stores to
//! the bytes produced, so nothing is written past the converted output and
//! the scalar kernel only takes over at an invalid value (strict) or when
//! the output is full.

use super::utf16_avx512::{A_AND_B_OR_C, A_IF_C_ELSE_B, MULTISHIFT, table, two_byte_lanes};
use super::{Progress, prefetch_input};
use core::arch::x86_64::*;

/// `0, 1, 2, …, 63`: compressed by the lead mask, the lead positions.
pub(crate) static IOTA: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        t[i] = i as u8;
        i += 1;
    }
    t
};

/// `vpermb` indices spreading bytes `16 * g .. 16 * g + 16` (lead
/// positions) over the 32-bit lanes, each byte 4 times, plus `0, 1, 2, 3`
/// within the lane: the indices of the 4 bytes from each lead on.
static SPREAD: [[u8; 64]; 4] = {
    let mut t = [[0u8; 64]; 4];
    let mut g = 0;
    while g < 4 {
        let mut i = 0;
        while i < 64 {
            t[g][i] = (16 * g + i / 4) as u8;
            i += 1;
        }
        g += 1;
    }
    t
};

/// Per lead byte's high nibble (`pshufb` table, repeated per 128-bit lane):
/// the bits of the lead that belong to the code point.
static LEAD_BITS: [u8; 64] = {
    let row = [
        0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0, 0, 0, 0, 0x1F, 0x1F, 0x0F, 0x07,
    ];
    let mut t = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        t[i] = row[i % 16];
        i += 1;
    }
    t
};

/// Per lead byte's high nibble: how far right the 4-byte decoding of the
/// lane must shift (6 bits per missing continuation byte).
static LEAD_SHIFT: [u8; 64] = {
    let row = [18, 18, 18, 18, 18, 18, 18, 18, 0, 0, 0, 0, 12, 12, 6, 0];
    let mut t = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        t[i] = row[i % 16];
        i += 1;
    }
    t
};

/// Decodes the character whose bytes start each 32-bit lane of `lanes`
/// (lead in byte 0, then the bytes after it, whichever they are).
///
/// With `b0..b3` the lead's payload bits and the low 6 bits of the next
/// three bytes, `vpmaddubsw` makes `b0 << 6 | b1` and `b2 << 6 | b3`,
/// `vpmaddwd` joins them to `b0 << 18 | b1 << 12 | b2 << 6 | b3` (a 4-byte
/// character), and a shift by 6 bits per byte the character lacks drops the
/// bytes after it.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
pub(crate) fn decode_lanes(lanes: __m512i) -> __m512i {
    // The lead's high nibble in byte 0 of each lane; bytes 1..3 get bit 7,
    // which makes `pshufb` give 0 for them.
    let nibble = _mm512_ternarylogic_epi32::<A_AND_B_OR_C>(
        _mm512_srli_epi32::<4>(lanes),
        _mm512_set1_epi32(0x0F),
        _mm512_set1_epi32(0x8080_8000u32 as i32),
    );
    let lead_bits = _mm512_shuffle_epi8(table(&LEAD_BITS), nibble);
    let shift = _mm512_shuffle_epi8(table(&LEAD_SHIFT), nibble);
    // lanes & (lead_bits | 3F3F3F00)
    let payload = _mm512_ternarylogic_epi32::<A_AND_B_OR_C_INNER>(
        lanes,
        lead_bits,
        _mm512_set1_epi32(0x3F3F_3F00),
    );
    let pairs = _mm512_maddubs_epi16(payload, _mm512_set1_epi16(0x0140));
    let joined = _mm512_madd_epi16(pairs, _mm512_set1_epi32(0x0001_1000));
    _mm512_srlv_epi32(joined, shift)
}

/// The 4 bytes from each of the lead positions `16 * g .. 16 * g + 16` of
/// `positions` (byte offsets into the 128 bytes `v` then `after`, packed at
/// its start by [`IOTA`]'s compress), one character per 32-bit lane, lead
/// in byte 0; ready for [`decode_lanes`].
///
/// A lane past the positions packed (compressed-out lanes are 0) gathers
/// bytes `0..4`, and a character shorter than 4 bytes the bytes after it:
/// don't-care bytes, which [`decode_lanes`] drops or whose lane the caller
/// ignores.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
#[inline]
pub(crate) fn gather_characters(
    v: __m512i,
    after: __m512i,
    positions: __m512i,
    g: usize,
) -> __m512i {
    let index = _mm512_add_epi8(
        _mm512_permutexvar_epi8(table(&SPREAD[g & 3]), positions),
        _mm512_set1_epi32(0x0302_0100),
    );
    _mm512_permutex2var_epi8(v, index, after)
}

/// Bytes 0 and 1 of every 32-bit lane.
const LOW_TWO_BYTES: u64 = 0x3333_3333_3333_3333;

/// `vpermt2b` indices joining bytes `16 * g + k` of two registers (the
/// packed low and high bytes of code points) into bytes 0 and 1 of lane
/// `k` (bytes 2 and 3 are masked to zero).
static JOIN: [[u8; 64]; 4] = {
    let mut t = [[0u8; 64]; 4];
    let mut g = 0;
    while g < 4 {
        let mut k = 0;
        while k < 16 {
            t[g][4 * k] = (16 * g + k) as u8;
            t[g][4 * k + 1] = (64 + 16 * g + k) as u8;
            k += 1;
        }
        g += 1;
    }
    t
};

/// The 64 bytes from `p + k` on, the bytes from `p + left` on zero.
///
/// # Safety
///
/// * `left` bytes from `p` are readable, `1 <= k <= 3`.
#[target_feature(enable = "avx512f,avx512bw,bmi2")]
#[inline]
unsafe fn load_from(p: *const u8, k: usize, left: usize) -> __m512i {
    if left >= 64 + k {
        // SAFETY: bytes `k..k + 64` from `p` are readable.
        unsafe { _mm512_loadu_si512(p.add(k).cast()) }
    } else {
        let mask = _bzhi_u64(u64::MAX, left.saturating_sub(k) as u32);
        // SAFETY: the mask enables bytes `k..left` from `p` only, which are
        // readable; masked-off bytes are not read and cannot fault.
        unsafe { _mm512_maskz_loadu_epi8(mask, p.wrapping_add(k).cast()) }
    }
}

/// The low and high bytes of the code point of the character starting at
/// each byte of `v` that leads a 1-, 2- or 3-byte character, given the
/// bytes one and two after each (`v1`, `v2`); other bytes get don't-care
/// values.
///
/// A code point below `10000` is `hhhh hhhh llll llll`: for a 2-byte
/// character `110a bbcc 10dd dddd` the low byte is `ccdd dddd` and the high
/// byte `0000 0abb`; for a 3-byte one `1110 aaaa 10bb bbcc 10dd dddd` they
/// are `ccdd dddd` and `aaaa bbbb`. Every field is a bit range of one byte
/// moved within its byte, so 16-bit shifts do it (the bits they carry over
/// from the neighbour byte are masked off) and `vpternlogd` selects the
/// fields; byte masks of the lead classes then pick per byte.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn planes(v: __m512i, v1: __m512i, v2: __m512i) -> (__m512i, __m512i) {
    let c0 = _mm512_set1_epi8(0xC0u8 as i8);
    let f0 = _mm512_set1_epi8(0xF0u8 as i8);
    let two = _mm512_cmpge_epu8_mask(v, c0);
    let three = _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xE0u8 as i8));
    let low2 = _mm512_ternarylogic_epi32::<A_IF_C_ELSE_B>(_mm512_slli_epi16::<6>(v), v1, c0);
    let low3 = _mm512_ternarylogic_epi32::<A_IF_C_ELSE_B>(_mm512_slli_epi16::<6>(v1), v2, c0);
    let high2 = _mm512_and_si512(_mm512_srli_epi16::<2>(v), _mm512_set1_epi8(0x07));
    let high3 = _mm512_ternarylogic_epi32::<A_IF_C_ELSE_B>(
        _mm512_slli_epi16::<4>(v),
        _mm512_srli_epi16::<2>(v1),
        f0,
    );
    let low = _mm512_mask_mov_epi8(_mm512_mask_mov_epi8(v, two, low2), three, low3);
    let high = _mm512_mask_mov_epi8(_mm512_maskz_mov_epi8(two, high2), three, high3);
    (low, high)
}

/// Widens the first `step <= 64` bytes of the ASCII block `v` to `u32` at
/// `out`.
///
/// # Safety
///
/// * `step` values at `out` are writable.
#[target_feature(enable = "avx512f,avx512bw,bmi2")]
#[inline]
pub(crate) unsafe fn widen_ascii(v: __m512i, step: usize, out: *mut u32) {
    let quarter = |q: usize| match q {
        0 => _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32::<0>(v)),
        1 => _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32::<1>(v)),
        2 => _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32::<2>(v)),
        _ => _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32::<3>(v)),
    };
    if step == 64 {
        // SAFETY: 64 values at `out` are writable.
        unsafe {
            _mm512_storeu_si512(out.cast(), quarter(0));
            _mm512_storeu_si512(out.add(16).cast(), quarter(1));
            _mm512_storeu_si512(out.add(32).cast(), quarter(2));
            _mm512_storeu_si512(out.add(48).cast(), quarter(3));
        }
    } else {
        for q in 0..4 {
            let count = _bzhi_u32(0xFFFF, step.saturating_sub(16 * q) as u32) as u16;
            // SAFETY: the mask enables the values `16 * q..step` only, which
            // are writable; masked-off lanes are not written.
            unsafe { _mm512_mask_storeu_epi32(out.add(16 * q).cast(), count, quarter(q)) };
        }
    }
}

/// The 16 bytes at `p` zero-extended to `u32` lanes, by `vpmovzxbd` with a
/// memory operand. (Written as an intrinsic on a 16-byte load, the
/// compiler turns it into an extract from the block's 64-byte load, which
/// takes port 5 a cycle more on Intel.)
///
/// # Safety
///
/// * 16 bytes at `p` are readable.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn widen_from(p: *const u8) -> __m512i {
    let wide: __m512i;
    // SAFETY: the instruction reads the 16 readable bytes at `p` and
    // writes only its output register.
    unsafe {
        core::arch::asm!(
            "vpmovzxbd {wide}, xmmword ptr [{p}]",
            wide = out(zmm_reg) wide,
            p = in(reg) p,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    wide
}

/// Widens the 64 ASCII bytes at `p` to `u32` at `out`, each quarter
/// straight from memory ([`widen_from`]): port 5 busy 4 cycles a block, not
/// 7 as with [`widen_ascii`] of the loaded block.
///
/// # Safety
///
/// * 64 bytes at `p` are readable, 64 values at `out` writable.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn widen_block_from(p: *const u8, out: *mut u32) {
    for q in 0..4 {
        // SAFETY: bytes `16 * q..16 * q + 16` of the 64 readable ones, and
        // values `16 * q..16 * q + 16` of the 64 writable ones.
        unsafe { _mm512_storeu_si512(out.add(16 * q).cast(), widen_from(p.add(16 * q))) };
    }
}

/// Widens `src` (at most 64 bytes) to UTF-32 at `dst` if it is all ASCII
/// and fits in `cap` values: the whole conversion of a short ASCII input,
/// in one masked load and four stores. Returns the values written, or
/// `None` (having written nothing) otherwise.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `src.len() <= 64`.
/// * `dst` is valid for writes of `cap` values.
#[target_feature(enable = "avx512f,avx512bw,bmi2")]
pub(crate) unsafe fn ascii_to_utf32_short(src: &[u8], dst: *mut u32, cap: usize) -> Option<usize> {
    let len = src.len();
    debug_assert!(len <= 64);
    let present = _bzhi_u64(u64::MAX, len as u32);
    // SAFETY: the mask enables the `len` readable bytes only; masked-off
    // bytes are not read and cannot fault, and load 0.
    let v = unsafe { _mm512_maskz_loadu_epi8(present, src.as_ptr().cast()) };
    if _mm512_movepi8_mask(v) != 0 || len > cap {
        return None;
    }
    // SAFETY: `len <= 64` and `len <= cap` values at `dst` are writable.
    unsafe { widen_ascii(v, len, dst) };
    Some(len)
}

/// [`ascii_to_utf32_short`] for 65 to 128 bytes: two loads (the second
/// masked), eight stores, in a straight line. (Until 2026-11-28 these went
/// through the general path: ASCII of 65 to 128 bytes took 10–11 ns, 0.7–0.9
/// × simdutf; now 7–8 ns, Intel Xeon with AVX-512 FP16.) A function of its
/// own, so that the one-block path stays as short as it was.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `64 < src.len() <= 128`.
/// * `dst` is valid for writes of `cap` values.
#[target_feature(enable = "avx512f,avx512bw,bmi2")]
pub(crate) unsafe fn ascii_to_utf32_two_blocks(
    src: &[u8],
    dst: *mut u32,
    cap: usize,
) -> Option<usize> {
    let len = src.len();
    debug_assert!(64 < len && len <= 128);
    let rest = len - 64;
    // SAFETY: `64 < len` bytes are readable; the mask enables the `rest`
    // readable bytes after them only (masked-off bytes are not read).
    let (first, last) = unsafe {
        (
            _mm512_loadu_si512(src.as_ptr().cast()),
            _mm512_maskz_loadu_epi8(
                _bzhi_u64(u64::MAX, rest as u32),
                src.as_ptr().add(64).cast(),
            ),
        )
    };
    if _mm512_movepi8_mask(_mm512_or_si512(first, last)) != 0 || len > cap {
        return None;
    }
    // SAFETY: `len <= cap` values at `dst` are writable: 64, then `rest`.
    unsafe {
        widen_ascii(first, 64, dst);
        widen_ascii(last, rest, dst.add(64));
    }
    Some(len)
}

/// Inputs at least this long first align the output for the ASCII
/// stores: a 64-byte store that splits two cache lines takes two cycles
/// on Intel. 32 KiB until 2026-11-28 (set on a Zen 4); 256 with the loop
/// of [`widen_block_from`] took ASCII and Latin at 1 KiB from 1.00 to
/// 1.23–1.27 × simdutf's validating conversion (harness, two rounds,
/// Intel Xeon with AVX-512 FP16; its buffers are where `malloc` puts
/// them). The first block that is not ASCII then goes back to the
/// input's own phase (see [`utf8_to_utf32`]): without that, the mixed
/// blocks' loads split cache lines, and `sparse` at 1 KiB fell from 1.40
/// to 0.81–1.26.
const ALIGN_MIN: usize = 256;

/// Inputs at least this long (an output of 32 MiB and more, past the
/// caches) store their ASCII blocks with non-temporal stores.
const STREAM_MIN: usize = 8 << 20;

/// `vpternlogd` truth table for `a & (b | c)`.
const A_AND_B_OR_C_INNER: i32 = 0xF0 & (0xCC | 0xAA);

/// Converts the characters whose lead bytes lie in the block `v` (the
/// first `min(left, 64)` bytes from `p`, the others zero) and stores the
/// first `keep` of them at `out`: the `vpcompressb` of the per-byte code
/// point [`planes`] by the lead mask `leads`, then a `vpermt2b` per 16
/// values joining their low and high bytes; with a 4-byte character in
/// the block, [`gather_characters`] and [`decode_lanes`] instead.
///
/// A character may end past the block: its bytes are read from memory.
/// The characters are valid UTF-8 (else their values are meaningless, but
/// every access stays in bounds).
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `left >= 1` bytes from `p` are readable; `leads` has no bit at or
///   past `left`.
/// * `keep` values at `out` are writable.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
#[inline]
pub(crate) unsafe fn mixed_block(
    v: __m512i,
    leads: u64,
    p: *const u8,
    left: usize,
    out: *mut u32,
    keep: usize,
) {
    let store = |g: usize, cp: __m512i| {
        let count = _bzhi_u32(0xFFFF, keep.saturating_sub(16 * g) as u32) as u16;
        // SAFETY: the mask enables values `16 * g..keep` of `out`, which
        // are writable; masked-off lanes are not written.
        unsafe { _mm512_mask_storeu_epi32(out.add(16 * g).cast(), count, cp) };
    };
    if _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xF0u8 as i8)) == 0 {
        // SAFETY: `left` bytes from `p` are readable.
        let (v1, v2) = unsafe { (load_from(p, 1, left), load_from(p, 2, left)) };
        let (low, high) = planes(v, v1, v2);
        let low = _mm512_maskz_compress_epi8(leads, low);
        let high = _mm512_maskz_compress_epi8(leads, high);
        let mut g = 0;
        while 16 * g < keep {
            store(
                g,
                _mm512_maskz_permutex2var_epi8(LOW_TWO_BYTES, low, table(&JOIN[g & 3]), high),
            );
            g += 1;
        }
    } else {
        // The (at most 3) bytes after the block, for its last character.
        let after = if left > 64 {
            // (`bzhi` reads only the low 8 bits of the index: clamp it.)
            let mask = _bzhi_u64(0b111, (left - 64).min(3) as u32);
            // SAFETY: the mask enables bytes `64..left` from `p`, at most
            // 3; masked-off bytes are not read and cannot fault.
            unsafe { _mm512_maskz_loadu_epi8(mask, p.add(64).cast()) }
        } else {
            _mm512_setzero_si512()
        };
        let positions = _mm512_maskz_compress_epi8(leads, table(&IOTA));
        let mut g = 0;
        while 16 * g < keep {
            store(g, decode_lanes(gather_characters(v, after, positions, g)));
            g += 1;
        }
    }
}

/// Converts valid UTF-8 to UTF-32 at `dst`, as far as the room goes.
///
/// 64 bytes per step (the last one masked to the bytes left). An all-ASCII
/// step widens its bytes. Otherwise the step converts the characters whose
/// lead bytes lie in it: `vpcompressb` packs the lead positions,
/// `vpermt2b` gathers the 4 bytes from each lead on (from the block and the
/// 3 bytes after it) into a 32-bit lane, 16 characters at a time, and
/// [`decode_lanes`] turns them into code points. A block that starts inside
/// a character skips its continuation bytes: the previous step converted
/// that character.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `cap` values.
///
/// With `ASCII_ONLY` it stops at the first block that is not all ASCII
/// instead, and `src` may be anything. Otherwise `src` should be valid
/// UTF-8 (else the output is meaningless, but every access stays in
/// bounds).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
pub(crate) unsafe fn utf8_to_utf32<const ASCII_ONLY: bool>(
    src: &[u8],
    dst: *mut u32,
    cap: usize,
) -> Progress {
    let mut i = 0;
    let mut o = 0;
    // Values widened to align the output (see below).
    let mut head_done = 0;
    if src.len() >= ALIGN_MIN {
        // Values up to the next 64-byte boundary of the output, so that the
        // 64-byte stores of ASCII blocks after it each fill one cache line
        // rather than straddle two (a `u32` pointer is 4-byte aligned).
        let head = (64 - (dst as usize) % 64) % 64 / 4;
        if head > 0 && head <= cap {
            let present = !(u64::MAX << head);
            // SAFETY: `head < 16 <= src.len()`: the mask enables readable
            // bytes only; masked-off bytes are not read and load 0.
            let v = unsafe { _mm512_maskz_loadu_epi8(present, src.as_ptr().cast()) };
            if _mm512_movepi8_mask(v) == 0 {
                // SAFETY: `head <= cap` values at `dst` are writable.
                unsafe { widen_ascii(v, head, dst) };
                i = head;
                o = head;
                head_done = head;
            }
        }
    }
    if src.len() >= STREAM_MIN && (dst as usize + 4 * o).is_multiple_of(64) {
        // A large output that will not stay in cache: ASCII blocks go to
        // memory with non-temporal stores, which skip reading each line
        // before writing it.
        while src.len() - i >= 64 && cap - o >= 64 {
            // SAFETY: bytes `i..i + 64` are readable.
            let v = unsafe { _mm512_loadu_si512(src.as_ptr().add(i).cast()) };
            if _mm512_movepi8_mask(v) != 0 {
                break;
            }
            // SAFETY: 64 values at `dst + o` are writable, and 64-byte
            // aligned (aligned at the start, and each step advances 256
            // bytes), as `vmovntdq` needs.
            unsafe {
                let out = dst.add(o).cast::<__m512i>();
                _mm512_stream_si512(out, _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32::<0>(v)));
                _mm512_stream_si512(
                    out.add(1),
                    _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32::<1>(v)),
                );
                _mm512_stream_si512(
                    out.add(2),
                    _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32::<2>(v)),
                );
                _mm512_stream_si512(
                    out.add(3),
                    _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32::<3>(v)),
                );
            }
            i += 64;
            o += 64;
        }
        // Order the non-temporal stores before any later store or the
        // caller's reads of the output.
        _mm_sfence();
    }
    // Whole ASCII blocks, widened straight from memory.
    while src.len() - i >= 64 && cap - o >= 64 {
        // SAFETY: bytes `i..i + 64` are readable.
        let p = unsafe { src.as_ptr().add(i) };
        // SAFETY: as above.
        let v = unsafe { _mm512_loadu_si512(p.cast()) };
        if _mm512_movepi8_mask(v) != 0 {
            break;
        }
        // SAFETY: bytes `i..i + 64` are readable; 64 values at `dst + o`
        // are writable.
        unsafe { widen_block_from(p, dst.add(o)) };
        i += 64;
        o += 64;
    }
    if src.len() - i >= 64 && cap - o >= 64 {
        // Stopped at a block that is not ASCII: go on from the input's own
        // 64-byte phase, as if the output had not been aligned (the last
        // `head_done` ASCII bytes convert again), so that the loads of
        // mixed blocks split no more cache lines than from the start.
        i -= head_done;
        o -= head_done;
    }
    while i < src.len() {
        let left = src.len() - i;
        // SAFETY: `i < src.len()`.
        let p = unsafe { src.as_ptr().add(i) };
        let (v, present) = if left >= 64 {
            // SAFETY: bytes `i..i + 64` are readable.
            (unsafe { _mm512_loadu_si512(p.cast()) }, u64::MAX)
        } else {
            let present = !(u64::MAX << left);
            // SAFETY: the mask enables the `left` readable bytes only;
            // masked-off bytes are not read and cannot fault, and load 0.
            (
                unsafe { _mm512_maskz_loadu_epi8(present, p.cast()) },
                present,
            )
        };
        let step = left.min(64);
        let room = cap - o;
        // SAFETY: `o <= cap`; the stores below write at most `room` values.
        let out = unsafe { dst.add(o) };
        if _mm512_movepi8_mask(v) == 0 {
            // ASCII (absent bytes are zeros and come last).
            if step > room {
                break;
            }
            // SAFETY: `step <= room` values at `out` are writable.
            unsafe { widen_ascii(v, step, out) };
            i += step;
            o += step;
            continue;
        }
        if ASCII_ONLY {
            break;
        }
        // Lead bytes (not 80..=BF as i8 -128..=-65) among the bytes present.
        let leads = _mm512_mask_cmpgt_epi8_mask(present, v, _mm512_set1_epi8(-65));
        let n = leads.count_ones() as usize;
        if n > room {
            break;
        }
        // SAFETY: `p` is byte `i` of `src`, `left` bytes are readable from
        // it; `n <= room` values at `out` are writable.
        unsafe { mixed_block(v, leads, p, left, out, n) };
        i += step;
        o += n;
    }
    // A stop inside a character (whose lead an earlier step converted):
    // report the next character boundary. (The ASCII-only kernel stops at
    // a block that follows ASCII, a boundary.)
    let skip = if ASCII_ONLY {
        0
    } else {
        src.get(i..)
            .unwrap_or_default()
            .iter()
            .take(3)
            .take_while(|&&b| (b as i8) < -64)
            .count()
    };
    Progress {
        read: i + skip,
        written: o,
    }
}

/// `vpermt2b` indices gathering byte 0 of the 32 dwords of two registers
/// (the first 32 bytes of the result; the rest are don't-care).
static PACK8: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut i = 0;
    while i < 32 {
        t[i] = (4 * i) as u8;
        i += 1;
    }
    t
};

/// `vpermt2w` indices gathering word 0 of the 32 dwords of two registers.
static PACK16: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut i = 0;
    while i < 32 {
        // Word index `2 * i`, little-endian.
        t[2 * i] = (2 * i) as u8;
        i += 1;
    }
    t
};

/// Lanes of `v` holding a surrogate or a value above `10FFFF`.
#[target_feature(enable = "avx512f")]
#[inline]
fn invalid_lanes(v: __m512i) -> u16 {
    let above = _mm512_cmpgt_epu32_mask(v, _mm512_set1_epi32(0x10_FFFF));
    let surrogate = _mm512_cmpeq_epi32_mask(
        _mm512_and_si512(v, _mm512_set1_epi32(0xFFFF_F800u32 as i32)),
        _mm512_set1_epi32(0xD800),
    );
    above | surrogate
}

/// Stores the first `n <= 64` bytes of `v` at `out`.
///
/// # Safety
///
/// * `n` bytes at `out` are writable.
#[target_feature(enable = "avx512f,avx512bw,bmi2")]
#[inline]
unsafe fn store_prefix(out: *mut u8, v: __m512i, n: usize) {
    // `bzhi` with an index of 64 keeps all bits.
    let mask = _bzhi_u64(u64::MAX, n as u32);
    // SAFETY: the mask enables bytes `0..n`, which the caller makes
    // writable; masked-off bytes are not written and cannot fault.
    unsafe { _mm512_mask_storeu_epi8(out.cast(), mask, v) };
}

/// The UTF-8 of the values of `cp` in the lanes `present` (a prefix of the
/// lanes), packed at the start of the result, and its length (at most 64).
/// The lanes are scalar values (else the bytes are meaningless).
///
/// `vpmultishiftqb` lays out `cp >> 18, cp >> 12, cp >> 6, cp` (byte 0
/// first) in each lane. The lead byte of an n-byte character is then the
/// (4 - n)th byte, and already fits under its marker bits (`cp >> 6 < 20`
/// for 2 bytes, `cp >> 12 < 10` for 3, `cp >> 18 < 5` for 4); every byte of
/// a non-ASCII lane keeps its low 6 bits and gets the marker bits of its
/// length, one blend per length; an ASCII lane stays as it is. The bytes
/// kept are the last 1–4 of each lane, a mask `pdep` builds from the three
/// comparisons.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
#[inline]
fn encode16(cp: __m512i, present: u16) -> (__m512i, usize) {
    let wide = _mm512_cmpge_epu32_mask(cp, _mm512_set1_epi32(0x80));
    let three = _mm512_cmpge_epu32_mask(cp, _mm512_set1_epi32(0x800));
    let four = _mm512_cmpge_epu32_mask(cp, _mm512_set1_epi32(0x1_0000));
    // Marker bits, byte 0 first: 2 bytes `.. .. C0 80`, 3 bytes
    // `.. E0 80 80`, 4 bytes `F0 80 80 80`.
    let marks = _mm512_maskz_mov_epi32(wide, _mm512_set1_epi32(0x80C0_0000u32 as i32));
    let marks = _mm512_mask_mov_epi32(marks, three, _mm512_set1_epi32(0x8080_E000u32 as i32));
    let marks = _mm512_mask_mov_epi32(marks, four, _mm512_set1_epi32(0x8080_80F0u32 as i32));
    let payload =
        _mm512_mask_mov_epi32(_mm512_set1_epi32(-1), wide, _mm512_set1_epi32(0x3F3F_3F3F));
    let bits = _mm512_multishift_epi64_epi8(table(&MULTISHIFT), cp);
    let bytes = _mm512_ternarylogic_epi32::<A_AND_B_OR_C>(bits, payload, marks);
    // Byte 3 of every present lane, byte 2 of the wide ones, byte 1 of the
    // 3- and 4-byte ones, byte 0 of the 4-byte ones.
    let keep = _pdep_u64(u64::from(present), 0x8888_8888_8888_8888)
        | _pdep_u64(u64::from(wide), 0x4444_4444_4444_4444)
        | _pdep_u64(u64::from(three), 0x2222_2222_2222_2222)
        | _pdep_u64(u64::from(four), 0x1111_1111_1111_1111);
    (
        _mm512_maskz_compress_epi8(keep, bytes),
        keep.count_ones() as usize,
    )
}

/// Converts UTF-32 to UTF-8 at `dst`, 32 values a step (the last step
/// masked to the values left), while the step's output fits in the room
/// left. The strict kernel (`LOSSY = false`) also stops before a step
/// holding an invalid value; the lossy one writes U+FFFD for it.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `cap` bytes.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
pub(crate) unsafe fn utf32_to_utf8<const LOSSY: bool>(
    src: &[u32],
    dst: *mut u8,
    cap: usize,
) -> Progress {
    if src.len() >= AHEAD_MIN_VALUES {
        // SAFETY: the caller's contract.
        return unsafe { utf32_to_utf8_long::<LOSSY>(src, dst, cap) };
    }
    // SAFETY: the caller's contract.
    unsafe { utf32_to_utf8_steps::<LOSSY, false>(src, dst, cap) }
}

/// UTF-32 inputs of at least this many values (4 MiB) take
/// [`utf32_to_utf8_long`].
const AHEAD_MIN_VALUES: usize = 1 << 20;

/// [`utf32_to_utf8`] of a long input, asking for each step's two input
/// lines ahead ([`prefetch_input`]).
///
/// Intel Xeon with AVX-512 FP16, 2026-11-28, harness rounds ÷ simdutf
/// before → after, 64 MiB of UTF-32: the non-Latin lipsum files 1.06–1.98
/// → 1.39–2.66, Latin 0.69–0.93 → 1.01–1.08, ASCII 0.71–0.83 → 0.87–0.93,
/// random 7.7–8.1 → 10.6–10.7, `sparse` 0.88–0.98 → 1.20–1.22. The hints
/// in every step (no second copy) did as much there but cost 1 MiB of
/// `sparse` 15–20 % and ASCII at 1 KiB 5–15 %; the copy without `#[cold]`
/// still cost them 5–20 %, where it moved the rest of the code.
///
/// # Safety
///
/// As [`utf32_to_utf8`].
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
#[cold]
#[inline(never)]
unsafe fn utf32_to_utf8_long<const LOSSY: bool>(src: &[u32], dst: *mut u8, cap: usize) -> Progress {
    // SAFETY: the caller's contract.
    unsafe { utf32_to_utf8_steps::<LOSSY, true>(src, dst, cap) }
}

/// The steps of [`utf32_to_utf8`], with the hints for the input ahead if
/// `AHEAD`.
///
/// # Safety
///
/// As [`utf32_to_utf8`].
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
#[inline]
unsafe fn utf32_to_utf8_steps<const LOSSY: bool, const AHEAD: bool>(
    src: &[u32],
    dst: *mut u8,
    cap: usize,
) -> Progress {
    let mut i = 0;
    let mut o = 0;
    while i < src.len() {
        let left = src.len() - i;
        // SAFETY: values `i..src.len()` are readable.
        let p = unsafe { src.as_ptr().add(i) };
        // The lanes present: values `i..i + 32` or the `left < 32` ones.
        let (a, b, present) = if left >= 32 {
            if AHEAD {
                prefetch_input(p.cast(), 0);
                prefetch_input(p.cast(), 64);
            }
            // SAFETY: values `i..i + 32` are readable.
            unsafe {
                (
                    _mm512_loadu_si512(p.cast()),
                    _mm512_loadu_si512(p.add(16).cast()),
                    u32::MAX,
                )
            }
        } else {
            let present = !(u32::MAX << left);
            // SAFETY: the masks enable the `left` readable values only
            // (lanes `0..left` of the pair); masked-off lanes are not read
            // and cannot fault, and load zeros.
            unsafe {
                (
                    _mm512_maskz_loadu_epi32(present as u16, p.cast()),
                    _mm512_maskz_loadu_epi32((present >> 16) as u16, p.add(16).cast()),
                    present,
                )
            }
        };
        let step = left.min(32);
        let room = cap - o;
        // SAFETY: `o <= cap`; every store below is of at most `room` bytes.
        let out = unsafe { dst.add(o) };
        let max = _mm512_max_epu32(a, b);
        if _mm512_cmpge_epu32_mask(max, _mm512_set1_epi32(0x80)) == 0 {
            // ASCII (absent lanes are zeros, and come last).
            if step > room {
                break;
            }
            let bytes = _mm512_permutex2var_epi8(a, table(&PACK8), b);
            // SAFETY: `step <= room` bytes at `out` are writable.
            unsafe { store_prefix(out, bytes, step) };
            i += step;
            o += step;
            continue;
        }
        if _mm512_cmpge_epu32_mask(max, _mm512_set1_epi32(0x800)) == 0 {
            // 16-bit lanes: a two-byte lane holds C0 | u >> 6 then
            // 80 | u & 3F, an ASCII lane its byte then a zero the compress
            // drops, an absent lane nothing.
            let v = _mm512_permutex2var_epi16(a, table(&PACK16), b);
            let wide = _mm512_cmpge_epu16_mask(v, _mm512_set1_epi16(0x80));
            let r = two_byte_lanes(v, wide);
            let keep = (0x5555_5555_5555_5555 | _pdep_u64(u64::from(wide), 0xAAAA_AAAA_AAAA_AAAA))
                & _bzhi_u64(u64::MAX, 2 * step as u32);
            let n = keep.count_ones() as usize;
            if n > room {
                break;
            }
            // SAFETY: `n <= room` bytes at `out` are writable.
            unsafe { store_prefix(out, _mm512_maskz_compress_epi8(keep, r), n) };
            i += step;
            o += n;
            continue;
        }
        let (mut a, mut b) = (a, b);
        // Checked without first asking whether any value reaches D800: in
        // CJK text that depends on a few punctuation marks per block, a
        // branch that mispredicts. Absent lanes are zeros, which are valid.
        let (bad_a, bad_b) = (invalid_lanes(a), invalid_lanes(b));
        if bad_a | bad_b != 0 {
            if !LOSSY {
                break;
            }
            a = _mm512_mask_mov_epi32(a, bad_a, _mm512_set1_epi32(0xFFFD));
            b = _mm512_mask_mov_epi32(b, bad_b, _mm512_set1_epi32(0xFFFD));
        }
        let (lo, n0) = encode16(a, present as u16);
        let (hi, n1) = encode16(b, (present >> 16) as u16);
        if n0 + n1 > room {
            break;
        }
        // SAFETY: `n0 + n1 <= room` bytes at `out` are writable.
        unsafe {
            store_prefix(out, lo, n0);
            store_prefix(out.add(n0), hi, n1);
        }
        i += step;
        o += n0 + n1;
    }
    Progress {
        read: i,
        written: o,
    }
}
