//! AVX-512 UTF-8 ⇄ UTF-32.
//!
//! # UTF-8 → UTF-32 (input known to be valid)
//!
//! 64 bytes per step, as [`super::utf16_avx512::utf8_to_utf16`]: an
//! all-ASCII block widens 16 bytes at a time to `u32`; otherwise the block
//! ends before its last lead, each quarter decodes the code point at every
//! lead lane ([`code_points`]) and `vpcompressd` packs them.
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
//!   is encoded in its 32-bit lanes ([`lanes_to_utf8`]: `vpmultishiftqb`
//!   lays out `cp >> 18, cp >> 12, cp >> 6, cp`, a per-length AND/OR table
//!   finishes the bytes and `vpcompressb` keeps the last 1–4 of each lane).
//!
//! Stores of variable length are masked to the bytes produced, so nothing
//! is written past the converted output.

use super::Progress;
use super::utf16_avx512::{
    A_AND_B_OR_C, A_OR_B_AND_C, CLASS_AND, CLASS_KEEP, CLASS_OR, MULTISHIFT, code_points, next3,
    table, table32,
};
use core::arch::x86_64::*;

/// Converts valid UTF-8 to UTF-32 at `dst`, as far as whole blocks go.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `cap` values.
///
/// `src` should be valid UTF-8 (else the output is meaningless, but every
/// access stays in bounds).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
pub(crate) unsafe fn utf8_to_utf32(src: &[u8], dst: *mut u32, cap: usize) -> Progress {
    let mut i = 0;
    let mut o = 0;
    // A step reads 64 bytes and writes at most 64 values, as four stores of
    // 16, each at most 16 values after the previous.
    while src.len() - i >= 64 && cap - o >= 64 {
        // SAFETY: `i + 64 <= src.len()`.
        let v = unsafe { _mm512_loadu_si512(src.as_ptr().add(i).cast()) };
        // SAFETY: `o + 64 <= cap`.
        let out = unsafe { dst.add(o) };
        if _mm512_movepi8_mask(v) == 0 {
            // SAFETY: 64 values at `out` are writable.
            unsafe {
                _mm512_storeu_si512(
                    out.cast(),
                    _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32::<0>(v)),
                );
                _mm512_storeu_si512(
                    out.add(16).cast(),
                    _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32::<1>(v)),
                );
                _mm512_storeu_si512(
                    out.add(32).cast(),
                    _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32::<2>(v)),
                );
                _mm512_storeu_si512(
                    out.add(48).cast(),
                    _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32::<3>(v)),
                );
            }
            i += 64;
            o += 64;
            continue;
        }
        let leads = _mm512_cmpgt_epi8_mask(v, _mm512_set1_epi8(-65));
        let end = 63u32.saturating_sub(leads.leading_zeros());
        if end == 0 {
            break;
        }
        let m = leads & !(u64::MAX << end);
        let (n1, n2, n3) = next3(v);
        let two = _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xC0u8 as i8));
        let three = _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xE0u8 as i8));
        let four = _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xF0u8 as i8));
        let mut n = 0;
        macro_rules! quarter {
            ($q:literal) => {{
                let s = 16 * $q;
                let lead = (m >> s) as u16;
                let cp = code_points::<$q>(
                    v,
                    n1,
                    n2,
                    n3,
                    (two >> s) as u16,
                    (three >> s) as u16,
                    (four >> s) as u16,
                );
                // SAFETY: `n <= 48` values so far, so `n + 16 <= 64`.
                unsafe {
                    _mm512_storeu_si512(out.add(n).cast(), _mm512_maskz_compress_epi32(lead, cp))
                };
                n += lead.count_ones() as usize;
            }};
        }
        quarter!(0);
        quarter!(1);
        quarter!(2);
        quarter!(3);
        i += end as usize;
        o += n;
    }
    Progress {
        read: i,
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

/// Encodes the 16 scalar values of `cp` as UTF-8 at `out`; returns the byte
/// count (at most 64).
///
/// # Safety
///
/// * The lanes of `cp` are scalar values (no surrogates, at most `10FFFF`).
///   (Otherwise the bytes are meaningless but the store stays in bounds.)
/// * 64 bytes at `out` are writable.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
#[inline]
unsafe fn lanes_to_utf8(cp: __m512i, out: *mut u8) -> usize {
    let wide = _mm512_cmpge_epu32_mask(cp, _mm512_set1_epi32(0x80));
    let three = _mm512_cmpge_epu32_mask(cp, _mm512_set1_epi32(0x800));
    let four = _mm512_cmpge_epu32_mask(cp, _mm512_set1_epi32(0x1_0000));
    // The UTF-8 length of each lane (1–4), an index into the class tables.
    let class = _mm512_mask_mov_epi32(_mm512_set1_epi32(1), wide, _mm512_set1_epi32(2));
    let class = _mm512_mask_mov_epi32(class, three, _mm512_set1_epi32(3));
    let class = _mm512_mask_mov_epi32(class, four, _mm512_set1_epi32(4));
    let bits = _mm512_multishift_epi64_epi8(table(&MULTISHIFT), cp);
    let bytes = _mm512_ternarylogic_epi32::<A_AND_B_OR_C>(
        bits,
        _mm512_permutexvar_epi32(class, table32(&CLASS_AND)),
        _mm512_permutexvar_epi32(class, table32(&CLASS_OR)),
    );
    let keep = _mm512_movepi8_mask(_mm512_permutexvar_epi32(class, table32(&CLASS_KEEP)));
    let n = keep.count_ones() as usize;
    // SAFETY: `n <= 64` bytes at `out` are writable (the caller's promise).
    unsafe { store_prefix(out, _mm512_maskz_compress_epi8(keep, bytes), n) };
    n
}

/// Converts UTF-32 to UTF-8 at `dst`, 32 values a step, while a whole step
/// of input is left and its worst case (128 bytes) fits in the room left.
/// The strict kernel (`LOSSY = false`) also stops before a step holding an
/// invalid value; the lossy one writes U+FFFD for it.
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
    let mut i = 0;
    let mut o = 0;
    while src.len() - i >= 32 && cap - o >= 128 {
        // SAFETY: values `i..i + 32` are readable.
        let (a, b) = unsafe {
            let p = src.as_ptr().add(i);
            (
                _mm512_loadu_si512(p.cast()),
                _mm512_loadu_si512(p.add(16).cast()),
            )
        };
        // SAFETY: `o + 128 <= cap`.
        let out = unsafe { dst.add(o) };
        let max = _mm512_max_epu32(a, b);
        if _mm512_cmpge_epu32_mask(max, _mm512_set1_epi32(0x80)) == 0 {
            let bytes = _mm512_permutex2var_epi8(a, table(&PACK8), b);
            // SAFETY: 32 bytes at `out` are writable.
            unsafe { _mm256_storeu_si256(out.cast(), _mm512_castsi512_si256(bytes)) };
            i += 32;
            o += 32;
            continue;
        }
        if _mm512_cmpge_epu32_mask(max, _mm512_set1_epi32(0x800)) == 0 {
            // 16-bit lanes: a two-byte lane holds C0 | u >> 6 then
            // 80 | u & 3F, an ASCII lane its byte then a zero the compress
            // drops.
            let v = _mm512_permutex2var_epi16(a, table(&PACK16), b);
            let wide = _mm512_cmpge_epu16_mask(v, _mm512_set1_epi16(0x80));
            let t = _mm512_ternarylogic_epi32::<A_OR_B_AND_C>(
                _mm512_srli_epi16::<6>(v),
                _mm512_slli_epi16::<8>(v),
                _mm512_set1_epi16(0x3F00),
            );
            let t = _mm512_or_si512(t, _mm512_set1_epi16(0x80C0u16 as i16));
            let r = _mm512_mask_mov_epi16(v, wide, t);
            let keep = 0x5555_5555_5555_5555 | _pdep_u64(u64::from(wide), 0xAAAA_AAAA_AAAA_AAAA);
            let n = keep.count_ones() as usize;
            // SAFETY: `n <= 64 <= 128` bytes at `out` are writable.
            unsafe { store_prefix(out, _mm512_maskz_compress_epi8(keep, r), n) };
            i += 32;
            o += n;
            continue;
        }
        let (mut a, mut b) = (a, b);
        if _mm512_cmpge_epu32_mask(max, _mm512_set1_epi32(0xD800)) != 0 {
            let (bad_a, bad_b) = (invalid_lanes(a), invalid_lanes(b));
            if bad_a | bad_b != 0 {
                if !LOSSY {
                    break;
                }
                a = _mm512_mask_mov_epi32(a, bad_a, _mm512_set1_epi32(0xFFFD));
                b = _mm512_mask_mov_epi32(b, bad_b, _mm512_set1_epi32(0xFFFD));
            }
        }
        // SAFETY: the lanes are scalar values (checked or replaced above);
        // 64 bytes at `out` are writable, and 64 at `out + n0` with
        // `n0 <= 64` (`o + 128 <= cap`).
        let n = unsafe {
            let n0 = lanes_to_utf8(a, out);
            n0 + lanes_to_utf8(b, out.add(n0))
        };
        i += 32;
        o += n;
    }
    Progress {
        read: i,
        written: o,
    }
}
