//! The lookup algorithm on 512-bit registers.
//!
//! Requires `avx512f`, `avx512bw` and `avx512vbmi`. AVX-512 changes three
//! things over AVX2, all inside the [`Vector`] operations:
//!
//! * `vpermb` (VBMI) looks bytes up by the low six bits of the index and
//!   ignores the rest, so with the 16-entry table repeated four times it
//!   needs no `& 0x0F` before a nibble lookup;
//! * `vpermt2b` (VBMI) builds each of `prev1..3` from two registers in one
//!   instruction;
//! * `vpternlogd` computes any three-input logic function, which fuses the
//!   three-way AND of the lookups and the `error |= classes ^ must23` step;
//! * a masked load reads the tail of the input without touching the bytes
//!   after it.

use super::{Vector, lookup};
use crate::error::Utf8Error;
use core::arch::x86_64::*;

/// `vpermt2b` indices selecting, for lane `i`, the byte `n` lanes before
/// it: `i - n` from the current register, or lane `64 - n + i` of the
/// previous one (bit 6 set) at the start.
const fn prev_index(n: usize) -> [u8; 64] {
    let mut index = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        index[i] = if i >= n { i - n } else { 64 + 64 - n + i } as u8;
        i += 1;
    }
    index
}

static PREV1: [u8; 64] = prev_index(1);
static PREV2: [u8; 64] = prev_index(2);

/// The truth tables for `vpternlogd`, from its operands' canonical
/// patterns `a = 0xF0`, `b = 0xCC`, `c = 0xAA`.
const A: i32 = 0xF0;
const B: i32 = 0xCC;
const C: i32 = 0xAA;

impl Vector for __m512i {
    const LANES: usize = 64;

    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: the caller guarantees AVX-512F.
        unsafe { _mm512_setzero_si512() }
    }

    #[inline(always)]
    unsafe fn splat(b: u8) -> Self {
        // SAFETY: the caller guarantees AVX-512F.
        unsafe { _mm512_set1_epi8(b as i8) }
    }

    #[inline(always)]
    unsafe fn table(table: &[u8; 16]) -> Self {
        // SAFETY: `table` is 16 readable bytes; the caller guarantees
        // AVX-512F.
        unsafe { _mm512_broadcast_i32x4(_mm_loadu_si128(table.as_ptr().cast())) }
    }

    #[inline(always)]
    unsafe fn load(ptr: *const u8) -> Self {
        // SAFETY: the caller makes 64 bytes at `ptr` readable; `loadu` needs
        // no alignment.
        unsafe { _mm512_loadu_si512(ptr.cast()) }
    }

    #[inline(always)]
    unsafe fn store(self, ptr: *mut u8) {
        // SAFETY: the caller makes 64 bytes at `ptr` writable; `storeu` needs
        // no alignment.
        unsafe { _mm512_storeu_si512(ptr.cast(), self) }
    }

    #[inline(always)]
    unsafe fn load_partial(ptr: *const u8, len: usize) -> Self {
        debug_assert!(len < 64);
        // SAFETY: the caller makes `len` bytes at `ptr` readable; the mask
        // enables exactly those lanes, and masked-off lanes are neither read
        // nor able to fault. The caller guarantees AVX-512BW.
        unsafe { _mm512_maskz_loadu_epi8(!(u64::MAX << len), ptr.cast()) }
    }

    #[inline(always)]
    unsafe fn or(self, other: Self) -> Self {
        // SAFETY: the caller guarantees AVX-512F.
        unsafe { _mm512_or_si512(self, other) }
    }

    #[inline(always)]
    unsafe fn and(self, other: Self) -> Self {
        // SAFETY: the caller guarantees AVX-512F.
        unsafe { _mm512_and_si512(self, other) }
    }

    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        // SAFETY: the caller guarantees AVX-512F.
        unsafe { _mm512_xor_si512(self, other) }
    }

    #[inline(always)]
    unsafe fn saturating_sub(self, other: Self) -> Self {
        // SAFETY: the caller guarantees AVX-512BW.
        unsafe { _mm512_subs_epu8(self, other) }
    }

    #[inline(always)]
    unsafe fn lookup_high_nibble(self, table: Self) -> Self {
        // SAFETY: the caller guarantees AVX-512BW and VBMI. After the 16-bit
        // shift, bits 0..=3 of each byte are its high nibble and bits 4..=5
        // come from the neighbour; `vpermb` uses bits 0..=5, and the table
        // repeats every 16 entries, so the neighbour's bits do not matter.
        unsafe { _mm512_permutexvar_epi8(_mm512_srli_epi16::<4>(self), table) }
    }

    #[inline(always)]
    unsafe fn lookup_low_nibble(self, table: Self) -> Self {
        // SAFETY: the caller guarantees VBMI. `vpermb` uses bits 0..=5 and
        // the table repeats every 16 entries, so bits 4..=7 do not matter.
        unsafe { _mm512_permutexvar_epi8(self, table) }
    }

    #[inline(always)]
    unsafe fn lookup_prev(self, _high: Self, _low: Self) -> Self {
        // SAFETY: the caller guarantees AVX-512BW and VBMI; `PREV_LEAD` is
        // 64 readable bytes. Lanes holding a lead (`>= 0xC0`) look up its
        // low six bits; the others keep the default.
        unsafe {
            let is_lead = _mm512_cmpge_epu8_mask(self, _mm512_set1_epi8(0xC0u8 as i8));
            _mm512_mask_permutexvar_epi8(
                _mm512_set1_epi8(lookup::NON_LEAD as i8),
                is_lead,
                self,
                Self::load(lookup::PREV_LEAD.as_ptr()),
            )
        }
    }

    #[inline(always)]
    unsafe fn prev1(self, prev: Self) -> Self {
        // SAFETY: the caller guarantees AVX-512F and VBMI; `PREV1` is 64
        // readable bytes.
        unsafe { _mm512_permutex2var_epi8(self, Self::load(PREV1.as_ptr()), prev) }
    }

    #[inline(always)]
    unsafe fn prev2(self, prev: Self) -> Self {
        // SAFETY: as in `prev1`.
        unsafe { _mm512_permutex2var_epi8(self, Self::load(PREV2.as_ptr()), prev) }
    }

    #[inline(always)]
    unsafe fn is_ascii(self) -> bool {
        // SAFETY: the caller guarantees AVX-512BW.
        unsafe { _mm512_movepi8_mask(self) == 0 }
    }

    #[inline(always)]
    unsafe fn is_zero(self) -> bool {
        // SAFETY: the caller guarantees AVX-512BW.
        unsafe { _mm512_test_epi8_mask(self, self) == 0 }
    }

    #[inline(always)]
    unsafe fn first_nonzero_lane(self) -> usize {
        // SAFETY: the caller guarantees AVX-512BW.
        let mask = unsafe { _mm512_test_epi8_mask(self, self) };
        // At most 64, which the caller's "some lane" rules out.
        mask.trailing_zeros() as usize
    }

    #[inline(always)]
    unsafe fn or_and(self, b: Self, c: Self) -> Self {
        // SAFETY: the caller guarantees AVX-512F.
        unsafe { _mm512_ternarylogic_epi32::<{ (A | B) & C }>(self, b, c) }
    }

    #[inline(always)]
    unsafe fn or_xor(self, b: Self, c: Self) -> Self {
        // SAFETY: the caller guarantees AVX-512F.
        unsafe { _mm512_ternarylogic_epi32::<{ A | (B ^ C) }>(self, b, c) }
    }
}

/// Where the check of `bytes` first fails: the start of the failing
/// chunk, or [`VALID`](crate::validate::VALID).
///
/// # Safety
///
/// * The CPU supports AVX-512F, AVX-512BW and AVX-512VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(crate) unsafe fn first_failure(bytes: &[u8]) -> usize {
    // SAFETY: the features are enabled here and, by the caller, present.
    unsafe { lookup::first_failure::<__m512i>(bytes) }
}

/// Validates `bytes` with exact errors, checking every block (for input
/// expected to hold errors; see `lookup::validate_fine`).
///
/// # Safety
///
/// * The CPU supports AVX-512F, AVX-512BW and AVX-512VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(crate) unsafe fn validate_fine(bytes: &[u8]) -> Result<(), Utf8Error> {
    // SAFETY: the features are enabled here and, by the caller, present.
    unsafe { lookup::validate_fine::<__m512i, false>(bytes, core::ptr::null_mut()) }
}

/// [`validate_fine`], also copying the bytes it checks to `dst` (see
/// `lookup::validate_fine`).
///
/// # Safety
///
/// * The CPU supports AVX-512F, AVX-512BW and AVX-512VBMI.
/// * `dst..dst + bytes.len()` is writable and does not overlap `bytes`.
#[cfg(feature = "alloc")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(crate) unsafe fn validate_copy(bytes: &[u8], dst: *mut u8) -> Result<(), Utf8Error> {
    // SAFETY: the features are enabled here and, by the caller, present;
    // the caller makes `dst` writable.
    unsafe { lookup::validate_fine::<__m512i, true>(bytes, dst) }
}

/// Lossy decoding of `bytes` into `dst` (`cap` bytes of room); see
/// `lookup::lossy`.
///
/// # Safety
///
/// * The CPU supports AVX-512F, AVX-512BW and AVX-512VBMI.
/// * `dst..dst + cap` is writable and does not overlap `bytes`.
#[cfg(feature = "alloc")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(crate) unsafe fn lossy(bytes: &[u8], dst: *mut u8, cap: usize) -> lookup::Lossy {
    // SAFETY: the features are enabled here and, by the caller, present;
    // the caller makes `dst` writable.
    unsafe { lookup::lossy::<__m512i>(bytes, dst, cap) }
}

/// Whether `bytes` is valid UTF-8.
///
/// # Safety
///
/// * The CPU supports AVX-512F, AVX-512BW and AVX-512VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(crate) unsafe fn is_valid(bytes: &[u8]) -> bool {
    // SAFETY: as in `first_failure`.
    unsafe { lookup::is_valid::<__m512i>(bytes) }
}
