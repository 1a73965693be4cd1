//! The lookup algorithm on 256-bit registers.
//!
//! Requires `avx2`.

use super::{Vector, lookup, sse42};
use crate::error::Utf8Error;
use core::arch::x86_64::*;

impl Vector for __m256i {
    const LANES: usize = 32;
    const LOAD_PREV: bool = true;

    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: the caller guarantees AVX2.
        unsafe { _mm256_setzero_si256() }
    }

    #[inline(always)]
    unsafe fn splat(b: u8) -> Self {
        // SAFETY: the caller guarantees AVX2.
        unsafe { _mm256_set1_epi8(b as i8) }
    }

    #[inline(always)]
    unsafe fn table(table: &[u8; 16]) -> Self {
        // SAFETY: `table` is 16 readable bytes; the caller guarantees AVX2.
        unsafe { _mm256_broadcastsi128_si256(_mm_loadu_si128(table.as_ptr().cast())) }
    }

    #[inline(always)]
    unsafe fn load(ptr: *const u8) -> Self {
        // SAFETY: the caller makes 32 bytes at `ptr` readable; `loadu` needs
        // no alignment.
        unsafe { _mm256_loadu_si256(ptr.cast()) }
    }

    #[inline(always)]
    unsafe fn store(self, ptr: *mut u8) {
        // SAFETY: the caller makes 32 bytes at `ptr` writable; `storeu` needs
        // no alignment.
        unsafe { _mm256_storeu_si256(ptr.cast(), self) }
    }

    #[inline(always)]
    unsafe fn load_partial(ptr: *const u8, len: usize) -> Self {
        debug_assert!(len < 32);
        // SAFETY: the caller makes `ptr..ptr + len` readable and guarantees
        // AVX2. With `len >= 16`, the low half is a full load and the high
        // half the 16 bytes ending at `ptr + len`, shifted; otherwise the
        // low half is read piecewise.
        unsafe {
            let (lo, hi) = if len >= 16 {
                let hi = if len > 16 {
                    sse42::load_end(ptr.add(16), len - 16)
                } else {
                    _mm_setzero_si128()
                };
                (_mm_loadu_si128(ptr.cast()), hi)
            } else {
                (sse42::load_small(ptr, len), _mm_setzero_si128())
            };
            _mm256_set_m128i(hi, lo)
        }
    }

    #[inline(always)]
    unsafe fn load_end(ptr: *const u8, len: usize) -> Self {
        debug_assert!(len < 32);
        // SAFETY: the caller makes the 32 bytes ending at `ptr + len`
        // readable and guarantees AVX2 (which includes SSSE3). Each half
        // is a full load of bytes inside `ptr..ptr + len`, or a shifted
        // load of 16 bytes ending at `ptr + len`, or zero.
        unsafe {
            let (lo, hi) = if len >= 16 {
                let lo = _mm_loadu_si128(ptr.cast());
                let hi = if len > 16 {
                    sse42::load_end(ptr.add(16), len - 16)
                } else {
                    _mm_setzero_si128()
                };
                (lo, hi)
            } else {
                (sse42::load_end(ptr, len), _mm_setzero_si128())
            };
            _mm256_set_m128i(hi, lo)
        }
    }

    #[inline(always)]
    unsafe fn or(self, other: Self) -> Self {
        // SAFETY: the caller guarantees AVX2.
        unsafe { _mm256_or_si256(self, other) }
    }

    #[inline(always)]
    unsafe fn and(self, other: Self) -> Self {
        // SAFETY: the caller guarantees AVX2.
        unsafe { _mm256_and_si256(self, other) }
    }

    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        // SAFETY: the caller guarantees AVX2.
        unsafe { _mm256_xor_si256(self, other) }
    }

    #[inline(always)]
    unsafe fn saturating_sub(self, other: Self) -> Self {
        // SAFETY: the caller guarantees AVX2.
        unsafe { _mm256_subs_epu8(self, other) }
    }

    #[inline(always)]
    unsafe fn lookup_high_nibble(self, table: Self) -> Self {
        // SAFETY: the caller guarantees AVX2. The mask keeps bit 7 clear,
        // which would otherwise zero the lane.
        unsafe {
            let nibble = _mm256_and_si256(_mm256_srli_epi16::<4>(self), _mm256_set1_epi8(0x0F));
            _mm256_shuffle_epi8(table, nibble)
        }
    }

    #[inline(always)]
    unsafe fn lookup_low_nibble(self, table: Self) -> Self {
        // SAFETY: the caller guarantees AVX2.
        unsafe { _mm256_shuffle_epi8(table, _mm256_and_si256(self, _mm256_set1_epi8(0x0F))) }
    }

    #[inline(always)]
    unsafe fn prev1(self, prev: Self) -> Self {
        // SAFETY: the caller guarantees AVX2. `palignr` works within 128-bit
        // halves, so it is given, as its "previous" half, the register
        // [prev's high half, self's low half].
        unsafe { _mm256_alignr_epi8::<15>(self, _mm256_permute2x128_si256::<0x21>(prev, self)) }
    }

    #[inline(always)]
    unsafe fn prev2(self, prev: Self) -> Self {
        // SAFETY: as in `prev1`.
        unsafe { _mm256_alignr_epi8::<14>(self, _mm256_permute2x128_si256::<0x21>(prev, self)) }
    }

    #[inline(always)]
    unsafe fn is_ascii(self) -> bool {
        // SAFETY: the caller guarantees AVX2.
        unsafe { _mm256_movemask_epi8(self) == 0 }
    }

    #[inline(always)]
    unsafe fn is_zero(self) -> bool {
        // SAFETY: the caller guarantees AVX2.
        unsafe { _mm256_testz_si256(self, self) == 1 }
    }

    #[inline(always)]
    unsafe fn first_nonzero_lane(self) -> usize {
        // SAFETY: the caller guarantees AVX2.
        let zero = unsafe { _mm256_movemask_epi8(_mm256_cmpeq_epi8(self, _mm256_setzero_si256())) };
        (!zero).trailing_zeros() as usize
    }
}

/// Where the check of `bytes` first fails: the start of the failing
/// chunk, or [`VALID`](crate::validate::VALID).
///
/// # Safety
///
/// * The CPU supports AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn first_failure(bytes: &[u8]) -> usize {
    // SAFETY: AVX2 is enabled here and, by the caller, present.
    unsafe { lookup::first_failure::<__m256i>(bytes) }
}

/// Validates `bytes` with exact errors, checking every block (for input
/// expected to hold errors; see `lookup::validate_fine`).
///
/// # Safety
///
/// * The CPU supports AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn validate_fine(bytes: &[u8]) -> Result<(), Utf8Error> {
    // SAFETY: the features are enabled here and, by the caller, present.
    unsafe { lookup::validate_fine::<__m256i, false>(bytes, core::ptr::null_mut()) }
}

/// [`validate_fine`], also copying the bytes it checks to `dst` (see
/// `lookup::validate_fine`).
///
/// # Safety
///
/// * The CPU supports AVX2.
/// * `dst..dst + bytes.len()` is writable and does not overlap `bytes`.
#[cfg(feature = "alloc")]
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn validate_copy(bytes: &[u8], dst: *mut u8) -> Result<(), Utf8Error> {
    // SAFETY: the features are enabled here and, by the caller, present;
    // the caller makes `dst` writable.
    unsafe { lookup::validate_fine::<__m256i, true>(bytes, dst) }
}

/// Lossy decoding of `bytes` into `dst` (`cap` bytes of room); see
/// `lookup::lossy`.
///
/// # Safety
///
/// * The CPU supports AVX2.
/// * `dst..dst + cap` is writable and does not overlap `bytes`.
#[cfg(feature = "alloc")]
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn lossy(bytes: &[u8], dst: *mut u8, cap: usize) -> lookup::Lossy {
    // SAFETY: the features are enabled here and, by the caller, present;
    // the caller makes `dst` writable.
    unsafe { lookup::lossy::<__m256i>(bytes, dst, cap) }
}

/// Whether `bytes` is valid UTF-8.
///
/// # Safety
///
/// * The CPU supports AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn is_valid(bytes: &[u8]) -> bool {
    // SAFETY: as in `first_failure`.
    unsafe { lookup::is_valid::<__m256i>(bytes) }
}
