//! The lookup algorithm on 128-bit registers.
//!
//! Requires `sse4.2` (the code uses SSSE3 `pshufb`/`palignr` and SSE4.1
//! `ptest`; every CPU with SSE4.2 has both).

use super::{Vector, lookup};
use crate::error::Utf8Error;
use core::arch::x86_64::*;

/// `pshufb` masks for [`load_end`]: the 16 bytes from offset `s` move
/// lanes `s..16` down to `0..16 - s` and zero the rest.
static SHIFT_DOWN: [u8; 32] = {
    let mut t = [0x80u8; 32];
    let mut i = 0;
    while i < 16 {
        t[i] = i as u8;
        i += 1;
    }
    t
};

/// The `len < 16` bytes at `ptr` in the first lanes, the rest zero, read
/// as the 16 bytes that end where they end, shifted down.
///
/// # Safety
///
/// * The CPU supports SSSE3.
/// * `len < 16` and `ptr + len - 16..ptr + len` is readable.
#[inline(always)]
pub(crate) unsafe fn load_end(ptr: *const u8, len: usize) -> __m128i {
    debug_assert!(len < 16);
    // SAFETY: the caller makes the 16 bytes ending at `ptr + len` readable
    // and guarantees SSSE3; `16 - len <= 16` keeps the mask load inside
    // `SHIFT_DOWN`.
    unsafe {
        let v = _mm_loadu_si128(ptr.add(len).sub(16).cast());
        let mask = _mm_loadu_si128(SHIFT_DOWN.as_ptr().add(16 - len).cast());
        _mm_shuffle_epi8(v, mask)
    }
}

/// The `len < 16` bytes at `ptr` in the first lanes, the rest zero, read
/// with at most two scalar loads (overlapping ones put equal bytes in the
/// same lanes), so no byte outside `ptr..ptr + len` is touched and nothing
/// goes through a stack buffer.
///
/// # Safety
///
/// * `len < 16` and `ptr..ptr + len` is readable.
#[inline(always)]
pub(crate) unsafe fn load_small(ptr: *const u8, len: usize) -> __m128i {
    debug_assert!(len < 16);
    // SAFETY: every read below lies inside `ptr..ptr + len`: 8-byte reads
    // at 0 and `len - 8` when `len >= 8`, 4-byte ones at 0 and `len - 4`
    // when `len >= 4`, single bytes at 0, `len / 2` and `len - 1` when
    // `len >= 1`. SSE2 is part of x86-64.
    unsafe {
        let (lo, hi) = if len >= 8 {
            let lo = ptr.cast::<u64>().read_unaligned();
            let last = ptr.add(len - 8).cast::<u64>().read_unaligned();
            // `last` holds bytes `len - 8..len`; keep those from 8 on.
            let hi = if len > 8 { last >> (8 * (16 - len)) } else { 0 };
            (lo, hi)
        } else if len >= 4 {
            let first = u64::from(ptr.cast::<u32>().read_unaligned());
            let last = u64::from(ptr.add(len - 4).cast::<u32>().read_unaligned());
            (first | last << (8 * (len - 4)), 0)
        } else if len >= 1 {
            let byte = |i: usize| u64::from(*ptr.add(i)) << (8 * i);
            (byte(0) | byte(len / 2) | byte(len - 1), 0)
        } else {
            (0, 0)
        };
        _mm_set_epi64x(hi as i64, lo as i64)
    }
}

impl Vector for __m128i {
    const LANES: usize = 16;
    const LOAD_PREV: bool = true;

    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: SSE2 is part of x86-64.
        unsafe { _mm_setzero_si128() }
    }

    #[inline(always)]
    unsafe fn splat(b: u8) -> Self {
        // SAFETY: SSE2 is part of x86-64.
        unsafe { _mm_set1_epi8(b as i8) }
    }

    #[inline(always)]
    unsafe fn table(table: &[u8; 16]) -> Self {
        // SAFETY: `table` is 16 readable bytes.
        unsafe { Self::load(table.as_ptr()) }
    }

    #[inline(always)]
    unsafe fn load(ptr: *const u8) -> Self {
        // SAFETY: the caller makes 16 bytes at `ptr` readable; `loadu` needs
        // no alignment.
        unsafe { _mm_loadu_si128(ptr.cast()) }
    }

    #[inline(always)]
    unsafe fn store(self, ptr: *mut u8) {
        // SAFETY: the caller makes 16 bytes at `ptr` writable; `storeu` needs
        // no alignment.
        unsafe { _mm_storeu_si128(ptr.cast(), self) }
    }

    #[inline(always)]
    unsafe fn load_partial(ptr: *const u8, len: usize) -> Self {
        // SAFETY: the caller's obligations are `load_small`'s.
        unsafe { load_small(ptr, len) }
    }

    #[inline(always)]
    unsafe fn load_end(ptr: *const u8, len: usize) -> Self {
        // SAFETY: the caller's obligations are `load_end`'s.
        unsafe { load_end(ptr, len) }
    }

    #[inline(always)]
    unsafe fn or(self, other: Self) -> Self {
        // SAFETY: SSE2 is part of x86-64.
        unsafe { _mm_or_si128(self, other) }
    }

    #[inline(always)]
    unsafe fn and(self, other: Self) -> Self {
        // SAFETY: SSE2 is part of x86-64.
        unsafe { _mm_and_si128(self, other) }
    }

    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        // SAFETY: SSE2 is part of x86-64.
        unsafe { _mm_xor_si128(self, other) }
    }

    #[inline(always)]
    unsafe fn saturating_sub(self, other: Self) -> Self {
        // SAFETY: SSE2 is part of x86-64.
        unsafe { _mm_subs_epu8(self, other) }
    }

    #[inline(always)]
    unsafe fn lookup_high_nibble(self, table: Self) -> Self {
        // SAFETY: the caller guarantees SSSE3 (`pshufb`). The mask keeps
        // bit 7 clear, which would otherwise zero the lane.
        unsafe {
            let nibble = _mm_and_si128(_mm_srli_epi16::<4>(self), _mm_set1_epi8(0x0F));
            _mm_shuffle_epi8(table, nibble)
        }
    }

    #[inline(always)]
    unsafe fn lookup_low_nibble(self, table: Self) -> Self {
        // SAFETY: the caller guarantees SSSE3 (`pshufb`).
        unsafe { _mm_shuffle_epi8(table, _mm_and_si128(self, _mm_set1_epi8(0x0F))) }
    }

    #[inline(always)]
    unsafe fn prev1(self, prev: Self) -> Self {
        // SAFETY: the caller guarantees SSSE3 (`palignr`).
        unsafe { _mm_alignr_epi8::<15>(self, prev) }
    }

    #[inline(always)]
    unsafe fn prev2(self, prev: Self) -> Self {
        // SAFETY: the caller guarantees SSSE3 (`palignr`).
        unsafe { _mm_alignr_epi8::<14>(self, prev) }
    }

    #[inline(always)]
    unsafe fn is_ascii(self) -> bool {
        // SAFETY: SSE2 is part of x86-64.
        unsafe { _mm_movemask_epi8(self) == 0 }
    }

    #[inline(always)]
    unsafe fn is_zero(self) -> bool {
        // SAFETY: the caller guarantees SSE4.1 (`ptest`).
        unsafe { _mm_testz_si128(self, self) == 1 }
    }

    #[inline(always)]
    unsafe fn first_nonzero_lane(self) -> usize {
        // SAFETY: SSE2 is part of x86-64.
        let zero = unsafe { _mm_movemask_epi8(_mm_cmpeq_epi8(self, _mm_setzero_si128())) };
        (!zero).trailing_zeros() as usize
    }
}

/// Where the check of `bytes` first fails: the start of the failing
/// chunk, or [`VALID`](crate::validate::VALID).
///
/// # Safety
///
/// * The CPU supports SSE4.2.
#[target_feature(enable = "sse4.2")]
pub(crate) unsafe fn first_failure(bytes: &[u8]) -> usize {
    // SAFETY: SSE4.2 (and so SSSE3 and SSE4.1) is enabled here and, by the
    // caller, present.
    unsafe { lookup::first_failure::<__m128i>(bytes) }
}

/// Validates `bytes` with exact errors, checking every block (for input
/// expected to hold errors; see `lookup::validate_fine`).
///
/// # Safety
///
/// * The CPU supports SSE4.2.
#[target_feature(enable = "sse4.2")]
pub(crate) unsafe fn validate_fine(bytes: &[u8]) -> Result<(), Utf8Error> {
    // SAFETY: the features are enabled here and, by the caller, present.
    unsafe { lookup::validate_fine::<__m128i, false>(bytes, core::ptr::null_mut()) }
}

/// [`validate_fine`], also copying the bytes it checks to `dst` (see
/// `lookup::validate_fine`).
///
/// # Safety
///
/// * The CPU supports SSE4.2.
/// * `dst..dst + bytes.len()` is writable and does not overlap `bytes`.
#[cfg(feature = "alloc")]
#[target_feature(enable = "sse4.2")]
pub(crate) unsafe fn validate_copy(bytes: &[u8], dst: *mut u8) -> Result<(), Utf8Error> {
    // SAFETY: the features are enabled here and, by the caller, present;
    // the caller makes `dst` writable.
    unsafe { lookup::validate_fine::<__m128i, true>(bytes, dst) }
}

/// Lossy decoding of `bytes` into `dst` (`cap` bytes of room); see
/// `lookup::lossy`.
///
/// # Safety
///
/// * The CPU supports SSE4.2.
/// * `dst..dst + cap` is writable and does not overlap `bytes`.
#[cfg(feature = "alloc")]
#[target_feature(enable = "sse4.2")]
pub(crate) unsafe fn lossy(bytes: &[u8], dst: *mut u8, cap: usize) -> lookup::Lossy {
    // SAFETY: the features are enabled here and, by the caller, present;
    // the caller makes `dst` writable.
    unsafe { lookup::lossy::<__m128i>(bytes, dst, cap) }
}

/// Whether `bytes` is valid UTF-8.
///
/// # Safety
///
/// * The CPU supports SSE4.2.
#[target_feature(enable = "sse4.2")]
pub(crate) unsafe fn is_valid(bytes: &[u8]) -> bool {
    // SAFETY: as in `first_failure`.
    unsafe { lookup::is_valid::<__m128i>(bytes) }
}
