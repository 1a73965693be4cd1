//! AVX2 character count of UTF-8: as in [`super::count_avx512`], a compare
//! per 32 bytes marks the bytes that start a character (`vpcmpgtb` against
//! `-65` gives `-1` there), four registers a step subtract that from their
//! own byte counters, and `vpsadbw` sums the counters every 255 steps.

use core::arch::x86_64::*;

/// Steps between two flushes of the byte counters (each gains at most 1).
const FLUSH: usize = 255;

/// The sum of the 32 bytes of `v`.
#[target_feature(enable = "avx2")]
#[inline]
fn sum_bytes(v: __m256i) -> u64 {
    let s = _mm256_sad_epu8(v, _mm256_setzero_si256());
    let s = _mm_add_epi64(_mm256_castsi256_si128(s), _mm256_extracti128_si256::<1>(s));
    (_mm_cvtsi128_si64(s) + _mm_extract_epi64::<1>(s)) as u64
}

/// `acc` plus 1 in each byte where `v` holds a byte that starts a
/// character (not `80..=BF`).
#[target_feature(enable = "avx2")]
#[inline]
fn add_leads(acc: __m256i, v: __m256i) -> __m256i {
    _mm256_sub_epi8(acc, _mm256_cmpgt_epi8(v, _mm256_set1_epi8(-65)))
}

/// The number of bytes of `bytes` that are not continuation bytes
/// (`80..=BF`): the number of characters of valid UTF-8.
///
/// # Safety
///
/// * The CPU supports the enabled features.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn count_chars(bytes: &[u8]) -> usize {
    let (blocks, tail) = bytes.as_chunks::<128>();
    let mut n = 0u64;
    for group in blocks.chunks(FLUSH) {
        let zero = _mm256_setzero_si256();
        let (mut c0, mut c1, mut c2, mut c3) = (zero, zero, zero, zero);
        for block in group {
            let p = block.as_ptr();
            // SAFETY: `block` is 128 readable bytes.
            let (v0, v1, v2, v3) = unsafe {
                (
                    _mm256_loadu_si256(p.cast()),
                    _mm256_loadu_si256(p.add(32).cast()),
                    _mm256_loadu_si256(p.add(64).cast()),
                    _mm256_loadu_si256(p.add(96).cast()),
                )
            };
            c0 = add_leads(c0, v0);
            c1 = add_leads(c1, v1);
            c2 = add_leads(c2, v2);
            c3 = add_leads(c3, v3);
        }
        n += sum_bytes(c0) + sum_bytes(c1) + sum_bytes(c2) + sum_bytes(c3);
    }
    let (words, rest) = tail.as_chunks::<32>();
    let mut acc = _mm256_setzero_si256();
    for word in words {
        // SAFETY: `word` is 32 readable bytes.
        let v = unsafe { _mm256_loadu_si256(word.as_ptr().cast()) };
        acc = add_leads(acc, v);
    }
    n += sum_bytes(acc);
    n as usize + rest.iter().filter(|&&b| (b as i8) >= -64).count()
}
