//! AVX2 byte counts: the characters of UTF-8 ([`count_chars`]) and the
//! bytes `80..=FF` of Latin-1 ([`count_high`], for the UTF-8 length of
//! Latin-1).
//!
//! Both count the bytes that are below a threshold as `i8`s: the
//! continuation bytes `80..=BF` are `-128..=-65` (below `-64`; the
//! characters are the other bytes), the bytes `80..=FF` are the negative
//! ones (below `0`). `vpcmpgtb` of the threshold against the input gives
//! `-1` in those bytes (with the load folded into the compare) and four
//! registers a step (128 bytes) subtract that from their own byte counters.
//! Every 60 steps (or fewer at the end) the four counters are added
//! bytewise (at most 4 × 60 = 240, no wrap) and `vpsadbw` sums them into
//! 64-bit lanes, with one horizontal sum at the end.
//!
//! The 0..=3 words of 32 bytes after the steps are counted by `pmovmskb`
//! and `popcnt`, then the last 1..=31 bytes as the last 32 bytes of the
//! input (read again, overlapping) with the mask shifted past the bytes
//! already counted: an input below 128 bytes has no counter to reduce,
//! which shortens its dependency chain by about ten cycles. Inputs shorter
//! than 32 bytes are read as two overlapping 16-, 8- or 4-byte pieces (the
//! second shifted past the overlap in its mask), so that no input leaves
//! this module (below 4 bytes, a byte at a time).
//!
//! # Tried and dropped
//!
//! Measured on an AMD Zen 3 (AVX2, 2026-11-26, shared with other jobs):
//!
//! - The previous count (four counters, one `vpsadbw` reduction per counter
//!   every 255 steps, a scalar loop over the last 0..=31 bytes, the scalar
//!   count below 64 bytes) was 0.41–0.55× the best of `bytecount` and
//!   simdutf on the 64-byte lipsum rows and 0.60–0.81× on the 1 KiB rows:
//!   the tail and the reductions, not the loop.
//! - The last bytes masked into a counter (an overlapping load `and` a
//!   sliding mask, as `bytecount` does) and the four counters always
//!   reduced: 0.70–0.85× at 64 B. With `pmovmskb`/`popcnt` for what the
//!   steps leave (this code): 0.93–1.34× at 64 B, 0.90–1.17× at 1 KiB
//!   (noisy machine), and about 20 instructions fewer than `bytecount`
//!   per 64-byte call under callgrind (80 against 99, with the caller's
//!   loop). One count function taking the threshold as an argument was
//!   not inlined into its two callers (an extra call per count); the
//!   threshold is a const parameter now.

use core::arch::x86_64::*;

/// Steps (of 128 bytes) between two reductions of the byte counters: each
/// of the four gains at most 1 per step, so their bytewise sum stays below
/// 256.
const GROUP: usize = 60;

/// Threshold of the continuation bytes `80..=BF` (`-128..=-65`).
const CONT: i8 = -64;

/// Threshold of the bytes `80..=FF` (the negative ones).
const HIGH: i8 = 0;

/// The sums of each 8 bytes of `v`, in 64-bit lanes.
#[target_feature(enable = "avx2")]
#[inline]
fn sum_bytes(v: __m256i) -> __m256i {
    _mm256_sad_epu8(v, _mm256_setzero_si256())
}

/// The sum of the four 64-bit lanes of `v`.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn sum_lanes(v: __m256i) -> usize {
    let s = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
    let s = _mm_add_epi64(s, _mm_unpackhi_epi64(s, s));
    _mm_cvtsi128_si64(s) as usize
}

/// The number of bytes of `bytes` below `K` as `i8`s (a constant, so that
/// each count is its own function with the call inlined).
///
/// # Safety
///
/// * The CPU supports the enabled features.
#[target_feature(enable = "avx2,popcnt")]
#[inline]
unsafe fn count_below<const K: i8>(bytes: &[u8]) -> usize {
    let len = bytes.len();
    let p = bytes.as_ptr();
    if len < 32 {
        // SAFETY: `bytes` is `len` readable bytes.
        return unsafe { count_below_short::<K>(p, len) };
    }
    let kv = _mm256_set1_epi8(K);
    // -1 in each byte of `v` below `K`.
    let below = |v: __m256i| _mm256_cmpgt_epi8(kv, v);
    // The 32 bytes at `q`.
    // SAFETY: (the caller's) 32 readable bytes at `q`.
    let load = |q: *const u8| unsafe { _mm256_loadu_si256(q.cast()) };
    // The number of those bytes.
    let count = |v: __m256i| (_mm256_movemask_epi8(v) as u32).count_ones() as usize;
    let zero = _mm256_setzero_si256();
    let mut sums = zero;
    let mut i = 0;
    // Invariant: `i <= len`, everything before `i` counted in `sums`.
    while len - i >= 128 {
        let steps = ((len - i) / 128).min(GROUP);
        let (mut c0, mut c1, mut c2, mut c3) = (zero, zero, zero, zero);
        for _ in 0..steps {
            // SAFETY: `i + 128 <= len`: 128 readable bytes at `q`.
            let q = unsafe { p.add(i) };
            c0 = _mm256_sub_epi8(c0, below(load(q)));
            c1 = _mm256_sub_epi8(c1, below(load(q.wrapping_add(32))));
            c2 = _mm256_sub_epi8(c2, below(load(q.wrapping_add(64))));
            c3 = _mm256_sub_epi8(c3, below(load(q.wrapping_add(96))));
            i += 128;
        }
        // Each counter byte is at most 60: their sum at most 240.
        let c = _mm256_add_epi8(_mm256_add_epi8(c0, c1), _mm256_add_epi8(c2, c3));
        sums = _mm256_add_epi64(sums, sum_bytes(c));
    }
    // The 0..=3 words left, then the last bytes, by `pmovmskb` and
    // `popcnt` (shorter dependency chains than a counter's reduction).
    let mut n = if i == 0 { 0 } else { sum_lanes(sums) };
    while len - i >= 32 {
        // SAFETY: `i + 32 <= len`.
        n += count(below(load(unsafe { p.add(i) })));
        i += 32;
    }
    if i < len {
        // The last 32 bytes, of which the first `32 - (len - i)` were
        // counted already.
        // SAFETY: `len >= 32`.
        let m = _mm256_movemask_epi8(below(load(unsafe { p.add(len - 32) }))) as u32;
        n += (m >> (32 - (len - i))).count_ones() as usize;
    }
    n
}

/// [`count_below`] for `len < 32`: two overlapping pieces of 16, 8 or 4
/// bytes (zero bytes never count: neither threshold is above 0), or the
/// bytes one by one below 4.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `p` is valid for reads of `len < 32` bytes.
#[target_feature(enable = "avx2,popcnt")]
#[inline]
unsafe fn count_below_short<const K: i8>(p: *const u8, len: usize) -> usize {
    let kv = _mm_set1_epi8(K);
    let mask = |v: __m128i| _mm_movemask_epi8(_mm_cmpgt_epi8(kv, v)) as u32;
    // SAFETY: each read stays inside the `len` bytes at `p`.
    let (a, b, piece) = unsafe {
        if len >= 16 {
            (
                _mm_loadu_si128(p.cast()),
                _mm_loadu_si128(p.add(len - 16).cast()),
                16,
            )
        } else if len >= 8 {
            (
                _mm_loadl_epi64(p.cast()),
                _mm_loadl_epi64(p.add(len - 8).cast()),
                8,
            )
        } else if len >= 4 {
            (
                _mm_cvtsi32_si128(p.cast::<i32>().read_unaligned()),
                _mm_cvtsi32_si128(p.add(len - 4).cast::<i32>().read_unaligned()),
                4,
            )
        } else {
            let mut n = 0;
            for j in 0..len {
                n += usize::from((p.add(j).read() as i8) < K);
            }
            return n;
        }
    };
    // The second piece's first `2 * piece - len` bytes are in the first.
    (mask(a).count_ones() + (mask(b) >> (2 * piece - len)).count_ones()) as usize
}

/// The number of bytes of `bytes` that are not continuation bytes
/// (`80..=BF`): the number of characters of valid UTF-8.
///
/// # Safety
///
/// * The CPU supports the enabled features.
#[target_feature(enable = "avx2,popcnt")]
pub(crate) unsafe fn count_chars(bytes: &[u8]) -> usize {
    // SAFETY: the same features.
    bytes.len() - unsafe { count_below::<CONT>(bytes) }
}

/// The number of bytes `80..=FF` in `bytes`.
///
/// # Safety
///
/// * The CPU supports the enabled features.
#[target_feature(enable = "avx2,popcnt")]
pub(crate) unsafe fn count_high(bytes: &[u8]) -> usize {
    // SAFETY: the same features.
    unsafe { count_below::<HIGH>(bytes) }
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;
    use std::string::String;
    use std::vec::Vec;

    /// The counts agree with `chars().count()` and a filter for every
    /// length 0..=300 and every length around the first reductions (60
    /// and 120 steps of 128 bytes).
    #[test]
    fn counts_like_chars_around_every_boundary() {
        if !super::super::avx2_transcode() {
            return;
        }
        let unit = "aé€😀\u{FF}";
        let text: String = unit.repeat(128 * 125 / unit.len() + 2);
        let mut lengths: Vec<usize> = (0..=300).collect();
        lengths.extend(128 * 60 - 140..128 * 60 + 140);
        lengths.extend(128 * 120 - 40..128 * 120 + 40);
        for len in lengths {
            let mut end = len.min(text.len());
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            let s = &text[..end];
            // SAFETY: the CPU has the features (checked above).
            let got = unsafe { count_chars(s.as_bytes()) };
            assert_eq!(got, s.chars().count(), "{end} bytes");
            // Any byte length, for the Latin-1 count.
            let b = &text.as_bytes()[..len.min(text.len())];
            // SAFETY: as above.
            let high = unsafe { count_high(b) };
            assert_eq!(high, b.iter().filter(|&&x| x >= 0x80).count(), "{len}");
        }
    }

    /// Every byte value counts as `core` would count it, in each position
    /// of every length up to 80, among ASCII and among other high bytes.
    #[test]
    fn every_byte_value_at_every_position() {
        if !super::super::avx2_transcode() {
            return;
        }
        for fill in [b'a', 0xE9, 0x80] {
            for len in 1..=80 {
                for at in 0..len {
                    for b in 0..=255u8 {
                        let mut bytes = [fill; 80];
                        bytes[at] = b;
                        let bytes = &bytes[..len];
                        let lead = bytes.iter().filter(|&&x| (x as i8) >= -64).count();
                        let high = bytes.iter().filter(|&&x| x >= 0x80).count();
                        // SAFETY: the CPU has the features (checked above).
                        unsafe {
                            assert_eq!(count_chars(bytes), lead, "{b:#X} at {at} of {len}");
                            assert_eq!(count_high(bytes), high, "{b:#X} at {at} of {len}");
                        }
                    }
                }
            }
        }
    }

    /// All bytes counted over long inputs: no counter wraps.
    #[test]
    fn all_counted_bytes_do_not_wrap() {
        if !super::super::avx2_transcode() {
            return;
        }
        for len in [128 * 60, 128 * 61 + 31, 128 * 200 + 97, 100_000] {
            let cont = std::vec![0x80u8; len];
            let high = std::vec![0xFFu8; len];
            // SAFETY: the CPU has the features (checked above).
            unsafe {
                assert_eq!(count_chars(&cont), 0);
                assert_eq!(count_chars(&high), len);
                assert_eq!(count_high(&high), len);
                assert_eq!(count_high(&cont), len);
            }
        }
    }
}
