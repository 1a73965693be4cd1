//! AVX-512 UTF-8 → UTF-32 for input known to be valid.
//!
//! 64 bytes per step, as [`super::utf16_avx512::utf8_to_utf16`]: an
//! all-ASCII block widens 16 bytes at a time to `u32`; otherwise the block
//! ends before its last lead, each quarter decodes the code point at every
//! lead lane ([`code_points`]) and `vpcompressd` packs them.

use super::Progress;
use super::utf16_avx512::{code_points, next3};
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
