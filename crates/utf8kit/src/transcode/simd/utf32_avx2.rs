//! AVX2 UTF-8 ⇄ UTF-32, built on the UTF-16 kernels' steps.
//!
//! # UTF-8 → UTF-32 (input known to be valid)
//!
//! As [`super::utf16_avx2`]'s UTF-8 → UTF-16: an all-ASCII block of 32
//! bytes widens with four `vpmovzxbd`; otherwise the characters that start
//! in the first 16 bytes are decoded in 16-bit lanes by
//! [`decode16`], packed eight at a time by `pshufb`, widened to 32 bits
//! and stored eight values at a time (whole registers, whose values past
//! the step's are overwritten by the output that follows, or, near the
//! end, `vpmaskmovd` of exactly the values); a run of 4-byte characters is
//! decoded with scalar code.
//!
//! # UTF-32 → UTF-8
//!
//! 8 values a step: all ASCII narrow with two packs; values below `10000`
//! that are not surrogates are encoded as in UTF-16 → UTF-8 (a 32-bit lane
//! each, packed by `pshufb`); other valid steps are encoded with scalar
//! code. The kernel stops before a step holding an invalid value (a
//! surrogate or a value above `10FFFF`), which the scalar kernel reports or
//! replaces.
//!
//! Both run while a whole step's input and room for its stores remain, and
//! leave the rest to the scalar kernels.

use super::Progress;
use super::utf16_avx2::{PACK, decode16, encode8};

use core::arch::x86_64::*;

/// Bytes a UTF-8 → UTF-32 step may read, and values of room it needs.
const STEP: usize = 32;

/// Input bytes left from which a UTF-8 → UTF-32 step stores whole
/// registers (see the step); nearer the end it writes exactly its values.
/// Masked stores (`vpmaskmovd`) everywhere halved the speed on AMD CPUs,
/// where they are microcoded.
const TAIL: usize = 64;

/// Converts valid UTF-8 to UTF-32 at `dst` while 32 bytes of input and 32
/// values of room remain.
///
/// With `ASCII_ONLY` it stops at the first block that is not all ASCII
/// instead, and `src` may be anything. Otherwise `src` should be valid
/// UTF-8 (else the output is meaningless, but every access stays in
/// bounds).
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `cap` values.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
pub(crate) unsafe fn utf8_to_utf32<const ASCII_ONLY: bool>(
    src: &[u8],
    dst: *mut u32,
    cap: usize,
) -> Progress {
    let mut i = 0;
    let mut o = 0;
    let p = src.as_ptr();
    // Invariants: `i <= src.len()`, `o <= cap`, `i` at a character boundary.
    while src.len() - i >= STEP && cap - o >= STEP {
        // SAFETY: `i + 32 <= src.len()`.
        let v = unsafe { _mm256_loadu_si256(p.add(i).cast()) };
        // SAFETY: `o + 32 <= cap`: 32 values at `out` are writable, which
        // covers every store of the step.
        let out = unsafe { dst.add(o) };
        if _mm256_movemask_epi8(v) == 0 {
            let lo = _mm256_castsi256_si128(v);
            let hi = _mm256_extracti128_si256::<1>(v);
            // SAFETY: 32 writable values at `out`.
            unsafe {
                _mm256_storeu_si256(out.cast(), _mm256_cvtepu8_epi32(lo));
                _mm256_storeu_si256(
                    out.add(8).cast(),
                    _mm256_cvtepu8_epi32(_mm_srli_si128::<8>(lo)),
                );
                _mm256_storeu_si256(out.add(16).cast(), _mm256_cvtepu8_epi32(hi));
                _mm256_storeu_si256(
                    out.add(24).cast(),
                    _mm256_cvtepu8_epi32(_mm_srli_si128::<8>(hi)),
                );
            }
            i += STEP;
            o += STEP;
            continue;
        }
        if ASCII_ONLY {
            break;
        }
        // SAFETY: `i + 32 <= src.len()`.
        let Some((value, mask, read)) = (unsafe { decode16(p.add(i), v) }) else {
            // A run of 4-byte characters: 4 bytes each from lead bytes in
            // the first 16, one value each.
            let mut read = 0;
            // SAFETY: `read < 16` before each character, so its 4 bytes
            // lie in the 32 readable ones; at most 4 values are written.
            unsafe {
                while read < 16 && *p.add(i + read) >= 0xF0 {
                    let b = |k: usize| u32::from(*p.add(i + read + k));
                    let cp = ((b(0) & 0x07) << 18)
                        | ((b(1) & 0x3F) << 12)
                        | ((b(2) & 0x3F) << 6)
                        | (b(3) & 0x3F);
                    out.add(read / 4).write_unaligned(cp);
                    read += 4;
                }
            }
            i += read;
            o += read / 4;
            continue;
        };
        let pack = |lanes: __m128i, mask: u32| {
            let index = &PACK[usize::from(mask as u8)];
            // SAFETY: a row is 16 readable bytes.
            let index = unsafe { _mm_loadu_si128(index.as_ptr().cast()) };
            _mm256_cvtepu16_epi32(_mm_shuffle_epi8(lanes, index))
        };
        let n_lo = (mask & 0xFF).count_ones();
        let (lo, hi) = (
            pack(_mm256_castsi256_si128(value), mask),
            pack(_mm256_extracti128_si256::<1>(value), mask >> 8),
        );
        if src.len() - i >= TAIL {
            // Whole 8-value stores. The values past the step's own are
            // overwritten by the output that follows: at least 32 bytes of
            // input (16 or fewer are read here) remain, which make 8 or
            // more values, written from the step's end on.
            // SAFETY: 8 values at `out` and 8 at `out + n_lo` (`n_lo <= 8`):
            // inside the 32 writable ones.
            unsafe {
                _mm256_storeu_si256(out.cast(), lo);
                _mm256_storeu_si256(out.add(n_lo as usize).cast(), hi);
            }
        } else {
            // Near the end the output may stop here: masked stores of
            // exactly the `n_lo` and `n_hi` values.
            let n_hi = ((mask >> 8) & 0xFF).count_ones();
            let lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
            let first = |n: u32| _mm256_cmpgt_epi32(_mm256_set1_epi32(n as i32), lane);
            // SAFETY: `n_lo` values at `out` and `n_hi` at `out + n_lo`
            // (at most 8 each): inside the 32 writable ones; masked-off
            // lanes are not written.
            unsafe {
                _mm256_maskstore_epi32(out.cast(), first(n_lo), lo);
                _mm256_maskstore_epi32(out.add(n_lo as usize).cast(), first(n_hi), hi);
            }
        }
        i += read;
        o += mask.count_ones() as usize;
    }
    Progress {
        read: i,
        written: o,
    }
}

/// Room a UTF-32 → UTF-8 step needs: 8 values make at most 32 bytes, and
/// the encoder's stores reach 28 bytes from the step's start.
const ROOM8: usize = 32;

/// Converts UTF-32 to UTF-8 at `dst`, 8 values a step, while a step's
/// values and room remain, up to the first step holding an invalid value
/// (either flavour: the scalar kernel reports or replaces it).
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `cap` bytes.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
pub(crate) unsafe fn utf32_to_utf8<const LOSSY: bool>(
    src: &[u32],
    dst: *mut u8,
    cap: usize,
) -> Progress {
    let mut i = 0;
    let mut o = 0;
    let p = src.as_ptr();
    // Invariants: `i <= src.len()`, `o <= cap`.
    while src.len() - i >= 8 && cap - o >= ROOM8 {
        // SAFETY: values `i..i + 8` are readable.
        let v = unsafe { _mm256_loadu_si256(p.add(i).cast()) };
        // SAFETY: `o + ROOM8 <= cap`: 32 writable bytes at `out`.
        let out = unsafe { dst.add(o) };
        if _mm256_testz_si256(v, _mm256_set1_epi32(!0x7F)) != 0 {
            // Values 0..=7F: two packs give bytes 0..4 of each 128-bit
            // lane; gather them.
            let w = _mm256_packus_epi32(v, v);
            let b = _mm256_packus_epi16(w, w);
            let lo = _mm256_castsi256_si128(b);
            let hi = _mm256_extracti128_si256::<1>(b);
            let bytes = _mm_unpacklo_epi32(lo, hi);
            // SAFETY: 8 of the 32 writable bytes.
            unsafe { _mm_storel_epi64(out.cast(), bytes) };
            i += 8;
            o += 8;
            continue;
        }
        // Below 10000 and not a surrogate: `min(v, FFFF) == v` and
        // `max(v ^ D800, 800) == v ^ D800` (unsigned compares).
        let bmp = _mm256_cmpeq_epi32(_mm256_min_epu32(v, _mm256_set1_epi32(0xFFFF)), v);
        let off = _mm256_xor_si256(v, _mm256_set1_epi32(0xD800));
        let not_sur = _mm256_cmpeq_epi32(_mm256_max_epu32(off, _mm256_set1_epi32(0x800)), off);
        let plain = _mm256_and_si256(bmp, not_sur);
        if _mm256_movemask_epi8(plain) as u32 == u32::MAX {
            // SAFETY: the encoder writes 28 of the 32 writable bytes.
            o += unsafe { encode8(v, out) };
            i += 8;
            continue;
        }
        // Supplementary values (or an invalid one): scalar code, straight
        // into the room; at an invalid value the step is left to the scalar
        // kernel, which writes the same bytes again up to it.
        // SAFETY: `ROOM8` bytes at `out` are writable (above), and nothing
        // else refers to them while `room` lives.
        let room = unsafe { core::slice::from_raw_parts_mut(out, ROOM8) };
        let mut at = 0;
        for k in 0..8 {
            // SAFETY: value `i + k < i + 8` is readable.
            let c = unsafe { *p.add(i + k) };
            if char::from_u32(c).is_none() {
                return Progress {
                    read: i,
                    written: o,
                };
            }
            // 8 values make at most 32 bytes: all fit in `room`.
            at += crate::transcode::step::put_utf8(room, at, c);
        }
        i += 8;
        o += at;
    }
    Progress {
        read: i,
        written: o,
    }
}
