//! SSE4.1 character count of UTF-8, the AVX2 count ([`super::count_avx2`])
//! on 128-bit registers: a compare per 16 bytes marks the bytes that start
//! a character (`pcmpgtb` against `-65` gives `-1` there), four registers
//! a step (64 bytes) subtract that from their own byte counters, so that
//! four independent chains keep the two ports busy, and `psadbw` sums the
//! counters every 255 steps, before a byte could wrap.

use core::arch::x86_64::*;

/// Steps between two flushes of the byte counters (each gains at most 1).
const FLUSH: usize = 255;

/// The sum of the 16 bytes of `v`.
#[target_feature(enable = "sse4.1,sse4.2,ssse3,popcnt")]
#[inline]
fn sum_bytes(v: __m128i) -> u64 {
    let s = _mm_sad_epu8(v, _mm_setzero_si128());
    (_mm_cvtsi128_si64(s) + _mm_extract_epi64::<1>(s)) as u64
}

/// `acc` plus 1 in each byte where `v` holds a byte that starts a
/// character (not `80..=BF`).
#[target_feature(enable = "sse4.1,sse4.2,ssse3,popcnt")]
#[inline]
fn add_leads(acc: __m128i, v: __m128i) -> __m128i {
    _mm_sub_epi8(acc, _mm_cmpgt_epi8(v, _mm_set1_epi8(-65)))
}

/// The number of bytes of `bytes` that are not continuation bytes
/// (`80..=BF`): the number of characters of valid UTF-8.
///
/// # Safety
///
/// * The CPU supports the enabled features.
#[target_feature(enable = "sse4.1,sse4.2,ssse3,popcnt")]
pub(crate) unsafe fn count_chars(bytes: &[u8]) -> usize {
    let (blocks, tail) = bytes.as_chunks::<64>();
    let mut n = 0u64;
    for group in blocks.chunks(FLUSH) {
        let zero = _mm_setzero_si128();
        let (mut c0, mut c1, mut c2, mut c3) = (zero, zero, zero, zero);
        for block in group {
            let p = block.as_ptr();
            // SAFETY: `block` is 64 readable bytes.
            let (v0, v1, v2, v3) = unsafe {
                (
                    _mm_loadu_si128(p.cast()),
                    _mm_loadu_si128(p.add(16).cast()),
                    _mm_loadu_si128(p.add(32).cast()),
                    _mm_loadu_si128(p.add(48).cast()),
                )
            };
            c0 = add_leads(c0, v0);
            c1 = add_leads(c1, v1);
            c2 = add_leads(c2, v2);
            c3 = add_leads(c3, v3);
        }
        n += sum_bytes(c0) + sum_bytes(c1) + sum_bytes(c2) + sum_bytes(c3);
    }
    let (words, rest) = tail.as_chunks::<16>();
    let mut acc = _mm_setzero_si128();
    for word in words {
        // SAFETY: `word` is 16 readable bytes.
        let v = unsafe { _mm_loadu_si128(word.as_ptr().cast()) };
        acc = add_leads(acc, v);
    }
    n += sum_bytes(acc);
    n as usize + rest.iter().filter(|&&b| (b as i8) >= -64).count()
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;
    use std::string::String;
    use std::vec::Vec;

    /// The count agrees with `chars().count()` across the flush boundary
    /// (255 steps of 64 bytes), on the 16-byte words after the last step
    /// and on the bytes after those, for every length in a window there.
    #[test]
    fn counts_like_chars_around_every_boundary() {
        if !super::super::sse41_transcode() {
            return;
        }
        let unit = "aé€😀";
        let text: String = unit.repeat(64 * 260 / unit.len() + 2);
        let mut lengths: Vec<usize> = (0..200).collect();
        lengths.extend(64 * 255 - 40..64 * 255 + 140);
        for len in lengths {
            let mut end = len.min(text.len());
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            let s = &text[..end];
            // SAFETY: the CPU has the features (checked above).
            let got = unsafe { count_chars(s.as_bytes()) };
            assert_eq!(got, s.chars().count(), "{end} bytes");
        }
    }

    /// Every byte value counts as `core` would count it, in each lane.
    #[test]
    fn every_byte_value_in_every_lane() {
        if !super::super::sse41_transcode() {
            return;
        }
        for b in 0..=255u8 {
            for lane in 0..80 {
                let mut bytes = [b'a'; 80];
                bytes[lane] = b;
                let want = bytes.iter().filter(|&&x| (x as i8) >= -64).count();
                // SAFETY: the CPU has the features (checked above).
                assert_eq!(unsafe { count_chars(&bytes) }, want, "{b:#X} at {lane}");
            }
        }
    }
}
