//! Output lengths and character counts, computed without converting.
//!
//! The byte-oriented counts read eight bytes per step as a `u64` and count
//! bits: for a continuation byte (`10xxxxxx`) bit 7 is set and bit 6 clear,
//! so `w & !(w << 1)` has bit 7 set in exactly those bytes (the shift moves
//! each byte's bit 6 to its bit 7; bits crossing into the next byte land in
//! bit 0, which the mask drops).

use super::simd::Engine;
#[cfg(target_arch = "x86_64")]
use super::simd::{count_avx2, count_avx512, count_sse41};
use super::step::HIGH_BITS;
use crate::Kernel;

/// Inputs shorter than this (in elements) are counted by the scalar code
/// instead of the SSE4.1 count.
const SIMD_MIN: usize = 64;

/// Inputs shorter than this go to the scalar code instead of the AVX-512
/// count and UTF-8 length, which read any tail with a masked load.
const AVX512_MIN: usize = 16;

/// The AVX2 UTF-8 length of UTF-32 counts inputs of this many values and
/// more (its straight path would take 8..=15 too; they were not measured
/// against the scalar count).
#[cfg(target_arch = "x86_64")]
const AVX2_UTF32_MIN: usize = 16;

/// Bit 7 set in each byte of `w` that is a continuation byte (`80..=BF`).
#[inline(always)]
const fn continuation_bits(w: u64) -> u64 {
    w & !(w << 1) & HIGH_BITS
}

/// Bit 7 set in each byte of `w` that is `F0..=FF` (a 4-byte lead in valid
/// UTF-8): bits 7, 6, 5 and 4 all set.
#[inline(always)]
const fn four_byte_lead_bits(w: u64) -> u64 {
    w & (w << 1) & (w << 2) & (w << 3) & HIGH_BITS
}

/// The number of bytes that are not continuation bytes (`80..=BF`), by the
/// SIMD code of `engine` if it has some for this length: AVX-512, AVX2
/// (every length) or SSE4.1.
#[inline]
fn simd_count_non_continuation(engine: Engine, bytes: &[u8]) -> Option<usize> {
    match engine {
        #[cfg(target_arch = "x86_64")]
        Engine::Avx512 if bytes.len() >= AVX512_MIN => {
            // SAFETY: `Engine::Avx512` is only chosen when the CPU has its
            // features, which include AVX-512 F, BW, BMI2 and POPCNT.
            Some(unsafe { count_avx512::count_chars(bytes) })
        }
        #[cfg(target_arch = "x86_64")]
        Engine::Avx2 => {
            // SAFETY: `Engine::Avx2` is only chosen when the CPU has its
            // features, which include AVX2 and POPCNT. (It counts inputs of
            // any length, the short ones in overlapping pieces.)
            Some(unsafe { count_avx2::count_chars(bytes) })
        }
        #[cfg(target_arch = "x86_64")]
        Engine::Sse41 if bytes.len() >= SIMD_MIN => {
            // SAFETY: `Engine::Sse41` is only chosen when the CPU has its
            // features, which include SSE4.1.
            Some(unsafe { count_sse41::count_chars(bytes) })
        }
        _ => None,
    }
}

/// The number of bytes that are not continuation bytes (`80..=BF`): the
/// number of characters of valid UTF-8. By the SIMD code of `engine` where
/// there is some, else eight bytes at a time.
#[inline]
pub(super) fn count_non_continuation_by(engine: Engine, bytes: &[u8]) -> usize {
    simd_count_non_continuation(engine, bytes).unwrap_or_else(|| count_non_continuation(bytes))
}

/// The number of bytes that are not continuation bytes (`80..=BF`), eight
/// at a time.
#[inline]
pub(super) fn count_non_continuation(bytes: &[u8]) -> usize {
    let (words, tail) = bytes.as_chunks::<8>();
    let mut continuation = 0;
    for word in words {
        continuation += continuation_bits(u64::from_le_bytes(*word)).count_ones() as usize;
    }
    for &b in tail {
        continuation += usize::from(super::step::is_continuation(b));
    }
    bytes.len() - continuation
}

/// Counts the characters of `text`, like `text.chars().count()`: a
/// character is any byte that is not a continuation byte. With AVX-512,
/// AVX2 or SSE4.1 (detected at run time) 256, 128 or 64 bytes per step,
/// else as `core` does it.
///
/// # Example
///
/// ```
/// use utf8kit::transcode::count_chars;
///
/// assert_eq!(count_chars("Grüße, 世界 😀"), "Grüße, 世界 😀".chars().count());
/// assert_eq!(count_chars("😀"), 1);
/// ```
#[inline]
pub fn count_chars(text: &str) -> usize {
    count_chars_by(Engine::detected(), text)
}

/// [`count_chars`] by the SIMD code of `engine` where there is some, else
/// by `core`'s `chars().count()` (a machine word at a time, with fewer
/// `popcnt`s than a count per 8 bytes).
#[inline]
fn count_chars_by(engine: Engine, text: &str) -> usize {
    simd_count_non_continuation(engine, text.as_bytes()).unwrap_or_else(|| text.chars().count())
}

/// [`count_chars`] by the code of a forced `kernel` (AVX-512, AVX2, SSE4.1
/// for [`Kernel::Sse42`], or the scalar code for the others); `None` if the CPU lacks the kernel. For
/// tests and benchmarks.
///
/// ```
/// use utf8kit::{Kernel, transcode::count_chars_with};
///
/// for kernel in Kernel::available() {
///     assert_eq!(count_chars_with(kernel, "Grüße, 世界 😀"), Some(11));
/// }
/// ```
#[doc(hidden)]
pub fn count_chars_with(kernel: Kernel, text: &str) -> Option<usize> {
    kernel
        .is_available()
        .then(|| count_chars_by(Engine::for_kernel(kernel), text))
}

/// The number of UTF-16 code units the UTF-8 `bytes` convert to.
///
/// It counts one unit per byte that is not a continuation byte (`80..=BF`)
/// and one more per byte `F0..=FF` (a 4-byte lead, which becomes a
/// surrogate pair). For valid UTF-8 that is exactly the length of
/// [`utf8_to_utf16`](super::utf8_to_utf16)'s output. For invalid input it is
/// the same formula, an estimate that is neither the length of a lossy
/// conversion nor a bound on it; the input is not validated. With AVX-512,
/// AVX2 or SSE4.1 (detected at run time) a SIMD kernel counts from 64
/// bytes on (AVX2 from 32).
///
/// # Example
///
/// ```
/// use utf8kit::transcode::utf16_len_from_utf8;
///
/// let text = "a€😀";
/// assert_eq!(utf16_len_from_utf8(text.as_bytes()), text.encode_utf16().count());
/// assert_eq!(utf16_len_from_utf8(text.as_bytes()), 4);
/// ```
#[inline]
pub fn utf16_len_from_utf8(bytes: &[u8]) -> usize {
    super::utf16::utf16_len_by(Engine::detected(), bytes)
}

/// [`utf16_len_from_utf8`], eight bytes per step.
#[inline]
pub(super) fn utf16_len_from_utf8_scalar(bytes: &[u8]) -> usize {
    let (words, tail) = bytes.as_chunks::<8>();
    let mut continuation = 0;
    let mut four = 0;
    for word in words {
        let w = u64::from_le_bytes(*word);
        continuation += continuation_bits(w).count_ones() as usize;
        four += four_byte_lead_bits(w).count_ones() as usize;
    }
    for &b in tail {
        continuation += usize::from(super::step::is_continuation(b));
        four += usize::from(b >= 0xF0);
    }
    bytes.len() - continuation + four
}

/// The number of UTF-8 bytes the UTF-16 `units` convert to, counting each
/// unpaired surrogate as 3 bytes (U+FFFD).
///
/// That is the length of [`utf16_to_utf8_lossy`](super::utf16_to_utf8_lossy)'s
/// output, and of [`utf16_to_utf8`](super::utf16_to_utf8)'s for valid input.
/// With AVX-512, AVX2 or SSE4.1 (detected at run time) a SIMD kernel counts
/// from 64 units on.
///
/// # Example
///
/// ```
/// use utf8kit::transcode::utf8_len_from_utf16;
///
/// assert_eq!(utf8_len_from_utf16(&[0x61, 0x20AC, 0xD83D, 0xDE00]), 1 + 3 + 4);
/// assert_eq!(utf8_len_from_utf16(&[0xD800]), 3);
/// ```
#[inline]
pub fn utf8_len_from_utf16(units: &[u16]) -> usize {
    super::utf16::utf8_len_from_native_utf16(Engine::detected(), units)
}

/// [`utf8_len_from_utf16`] over units stored as `S` (native or LE/BE bytes).
#[inline]
pub(super) fn utf8_len_from_utf16_by<S: Copy>(src: &[S], unit: impl Fn(S) -> u16) -> usize {
    let mut n = 0;
    let mut i = 0;
    while let Some(&s) = src.get(i) {
        let u = unit(s);
        i += 1;
        n += match u {
            0..=0x7F => 1,
            0x80..=0x7FF => 2,
            0xD800..=0xDBFF => match src.get(i).map(|&s| unit(s)) {
                Some(0xDC00..=0xDFFF) => {
                    i += 1;
                    4
                }
                _ => 3,
            },
            _ => 3,
        };
    }
    n
}

/// The number of UTF-8 bytes the Latin-1 `bytes` convert to: one per byte,
/// plus one per byte `80..=FF` (64 bytes per step with AVX-512, 128 with
/// AVX2).
///
/// # Example
///
/// ```
/// use utf8kit::transcode::utf8_len_from_latin1;
///
/// assert_eq!(utf8_len_from_latin1(b"caf\xE9"), "café".len());
/// ```
#[inline]
pub fn utf8_len_from_latin1(bytes: &[u8]) -> usize {
    super::latin1::utf8_len_by(Engine::detected(), bytes)
}

/// [`utf8_len_from_latin1`], eight bytes per step.
#[inline]
pub(super) fn utf8_len_from_latin1_scalar(bytes: &[u8]) -> usize {
    let (words, tail) = bytes.as_chunks::<8>();
    let mut high = 0;
    for word in words {
        high += (u64::from_le_bytes(*word) & HIGH_BITS).count_ones() as usize;
    }
    for &b in tail {
        high += usize::from(b >= 0x80);
    }
    bytes.len() + high
}

/// The number of Latin-1 bytes `text` converts to: its number of characters
/// (bytes that are not continuation bytes, counted as [`count_chars`] does).
///
/// For text with characters above U+00FF (which
/// [`utf8_to_latin1`](super::utf8_to_latin1) rejects) it is still the number
/// of characters.
///
/// # Example
///
/// ```
/// use utf8kit::transcode::latin1_len_from_utf8;
///
/// assert_eq!(latin1_len_from_utf8("café"), 4);
/// ```
#[inline]
pub fn latin1_len_from_utf8(text: &str) -> usize {
    count_non_continuation_by(Engine::detected(), text.as_bytes())
}

/// The number of UTF-8 bytes the UTF-32 `units` convert to, counting each
/// value that is not a scalar value as 3 bytes (U+FFFD).
///
/// That is the length of [`utf32_to_utf8_lossy`](super::utf32_to_utf8_lossy)'s
/// output, and of [`utf32_to_utf8`](super::utf32_to_utf8)'s for valid input.
/// With AVX-512 (detected at run time) 64 values per step, with AVX2 16.
///
/// # Example
///
/// ```
/// use utf8kit::transcode::utf8_len_from_utf32;
///
/// assert_eq!(utf8_len_from_utf32(&[0x61, 0xE9, 0x20AC, 0x1F600]), 1 + 2 + 3 + 4);
/// assert_eq!(utf8_len_from_utf32(&[0x11_0000]), 3);
/// ```
#[inline]
pub fn utf8_len_from_utf32(units: &[u32]) -> usize {
    utf8_len_from_utf32_by(Kernel::detected(), units)
}

/// [`utf8_len_from_utf32`] by the code of a forced `kernel` (AVX-512,
/// AVX2, or the scalar code for the others); `None` if the CPU lacks the
/// kernel.
/// For tests and benchmarks.
///
/// ```
/// use utf8kit::{Kernel, transcode::utf8_len_from_utf32_with};
///
/// for kernel in Kernel::available() {
///     assert_eq!(utf8_len_from_utf32_with(kernel, &[0x61, 0xD800, 0x1F600]), Some(1 + 3 + 4));
/// }
/// ```
#[doc(hidden)]
pub fn utf8_len_from_utf32_with(kernel: Kernel, units: &[u32]) -> Option<usize> {
    kernel
        .is_available()
        .then(|| utf8_len_from_utf32_by(kernel, units))
}

/// [`utf8_len_from_utf32`] by `kernel`, which the CPU supports.
#[inline]
pub(super) fn utf8_len_from_utf32_by(kernel: Kernel, units: &[u32]) -> usize {
    match kernel {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Kernel::Avx512` is supported (the caller's promise), which
        // includes AVX-512 F and BW.
        Kernel::Avx512 if units.len() >= AVX512_MIN => unsafe {
            count_avx512::utf8_len_from_utf32(units)
        },
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2
            if units.len() >= AVX2_UTF32_MIN && Engine::for_kernel(kernel) == Engine::Avx2 =>
        {
            // SAFETY: `Engine::Avx2` is only chosen when the CPU has the
            // kernel's features.
            let (len, rest) = unsafe { super::simd::utf32_avx2::utf8_len_from_utf32(units) };
            len + utf8_len_from_utf32_scalar(rest)
        }
        _ => utf8_len_from_utf32_scalar(units),
    }
}

/// [`utf8_len_from_utf32`], one value at a time.
#[inline]
fn utf8_len_from_utf32_scalar(units: &[u32]) -> usize {
    units
        .iter()
        .map(|&v| match v {
            0..=0x7F => 1,
            0x80..=0x7FF => 2,
            0x1_0000..=0x10_FFFF => 4,
            _ => 3, // BMP, surrogates and out of range (U+FFFD)
        })
        .sum()
}
