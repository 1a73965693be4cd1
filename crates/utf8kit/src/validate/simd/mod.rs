//! SIMD kernels for x86-64: the Keiser–Lemire "lookup" algorithm
//! ([`lookup`]) written once over the small [`Vector`] trait, and one thin
//! implementation of the trait per instruction set.
//!
//! | module | vector | required `target_feature`s |
//! |---|---|---|
//! | [`sse42`] | `__m128i` | `sse4.2` (uses SSSE3 `pshufb`/`palignr`, SSE4.1 `ptest`) |
//! | [`avx2`] | `__m256i` | `avx2` |
//! | [`avx512`] | `__m512i` | `avx512f`, `avx512bw`, `avx512vbmi` |
//!
//! Each module exposes the same `unsafe` entry points, `first_failure` (where
//! the check first fails, for [`super::locate`] to turn into the exact
//! error), `is_valid`, `validate_fine`, `validate_copy` and `lossy` (see
//! [`lookup`]), compiled with its features enabled (`#[target_feature]`); the
//! generic code is `#[inline(always)]` so that it is compiled once per entry
//! point, with those features. The callers in `super::dispatch` check the
//! CPU first.

pub(crate) mod avx2;
pub(crate) mod avx512;
pub(crate) mod lookup;
pub(crate) mod sse42;

/// The operations the lookup algorithm needs from a SIMD register of
/// `LANES` bytes.
///
/// Several operations are fused (`lookup_high_nibble`, `lookup_prev`,
/// `or_and`, `or_xor`, `load_end`) because instruction sets differ in how
/// cheaply they do them: AVX-512 has a three-input logic instruction,
/// masked loads, and byte permutes that ignore the high index bits, so it
/// skips masks and copies the others need.
///
/// # Safety
///
/// Every method requires the CPU features of the implementing instruction
/// set; callers are `#[target_feature]` functions whose own callers checked
/// the CPU. Implementations are `#[inline(always)]`, never
/// `#[target_feature]`, so that they inline into those functions.
pub(crate) trait Vector: Copy {
    /// Bytes per register; divides 64.
    const LANES: usize;

    /// Whether blocks past the start read the one, two and three bytes
    /// before each lane with unaligned loads (see
    /// [`lookup`]'s `Inner`) instead of shifting them in from the
    /// previous register. True for SSE and AVX2, where the shifts (two
    /// shuffle-port instructions each) cost more than three loads.
    const LOAD_PREV: bool = false;

    /// All lanes zero.
    unsafe fn zero() -> Self;

    /// All lanes `b`.
    unsafe fn splat(b: u8) -> Self;

    /// The 16-byte `table` in every 128-bit lane, ready for the two nibble
    /// lookups.
    unsafe fn table(table: &[u8; 16]) -> Self;

    /// Loads `LANES` bytes from `ptr` (no alignment needed).
    ///
    /// # Safety
    ///
    /// * `ptr..ptr + LANES` is readable.
    unsafe fn load(ptr: *const u8) -> Self;

    /// Stores the `LANES` bytes at `ptr` (no alignment needed).
    ///
    /// # Safety
    ///
    /// * `ptr..ptr + LANES` is writable.
    unsafe fn store(self, ptr: *mut u8);

    /// Loads `len < LANES` bytes from `ptr`, the other lanes zero. The
    /// default copies them to a zeroed buffer; AVX-512 uses a masked load.
    ///
    /// # Safety
    ///
    /// * `len < LANES` and `ptr..ptr + len` is readable.
    #[inline(always)]
    unsafe fn load_partial(ptr: *const u8, len: usize) -> Self {
        debug_assert!(len < Self::LANES);
        let mut buf = [0u8; 64];
        // SAFETY: the caller makes `len` bytes at `ptr` readable, and
        // `len < LANES <= 64` fits in `buf`, a distinct local.
        unsafe { core::ptr::copy_nonoverlapping(ptr, buf.as_mut_ptr(), len) };
        // SAFETY: `buf` holds 64 >= LANES bytes.
        unsafe { Self::load(buf.as_ptr()) }
    }

    /// Loads `len < LANES` bytes from `ptr` like
    /// [`load_partial`](Self::load_partial), given that the `LANES` bytes
    /// ending where they end are readable. The default is `load_partial`;
    /// SSE and AVX2 load those `LANES` bytes and shift them down, which
    /// avoids a round trip through memory.
    ///
    /// # Safety
    ///
    /// * `len < LANES` and `ptr + len - LANES..ptr + len` is readable.
    #[inline(always)]
    unsafe fn load_end(ptr: *const u8, len: usize) -> Self {
        // SAFETY: the caller makes the `len` bytes at `ptr` readable.
        unsafe { Self::load_partial(ptr, len) }
    }

    /// Bitwise or.
    unsafe fn or(self, other: Self) -> Self;

    /// Bitwise and.
    unsafe fn and(self, other: Self) -> Self;

    /// Bitwise exclusive or.
    unsafe fn xor(self, other: Self) -> Self;

    /// Per-byte unsigned subtraction clamped at 0.
    unsafe fn saturating_sub(self, other: Self) -> Self;

    /// `table[byte >> 4]` for every byte; `table` comes from
    /// [`table`](Self::table).
    unsafe fn lookup_high_nibble(self, table: Self) -> Self;

    /// `table[byte & 15]` for every byte; `table` comes from
    /// [`table`](Self::table).
    unsafe fn lookup_low_nibble(self, table: Self) -> Self;

    /// The error classes of each byte as the previous byte of a pair:
    /// `high[byte >> 4] & low[byte & 15]` (tables from
    /// [`table`](Self::table)). AVX-512 overrides it with one lookup in
    /// [`lookup::PREV_LEAD`].
    #[inline(always)]
    unsafe fn lookup_prev(self, high: Self, low: Self) -> Self {
        // SAFETY: the caller's features cover the lookups and `and`.
        unsafe {
            self.lookup_high_nibble(high)
                .and(self.lookup_low_nibble(low))
        }
    }

    /// The bytes one lane back: lane `i` of the result is lane `i - 1` of
    /// `self`, and lane 0 is the last lane of `prev` (the register before
    /// `self` in the input).
    unsafe fn prev1(self, prev: Self) -> Self;

    /// The bytes two lanes back, the first two from the end of `prev`.
    unsafe fn prev2(self, prev: Self) -> Self;

    /// No byte has its high bit set.
    unsafe fn is_ascii(self) -> bool;

    /// Every byte is zero.
    unsafe fn is_zero(self) -> bool;

    /// The index of the first lane that is not zero, given that some lane
    /// is not; a lower bound is allowed. The default answers 0 (no
    /// information); every kernel overrides it with one mask test.
    #[inline(always)]
    unsafe fn first_nonzero_lane(self) -> usize {
        0
    }

    /// `(self | b) & c`.
    #[inline(always)]
    unsafe fn or_and(self, b: Self, c: Self) -> Self {
        // SAFETY: the caller's features cover `or` and `and`.
        unsafe { self.or(b).and(c) }
    }

    /// `self | (b ^ c)`.
    #[inline(always)]
    unsafe fn or_xor(self, b: Self, c: Self) -> Self {
        // SAFETY: the caller's features cover `or` and `xor`.
        unsafe { self.or(b.xor(c)) }
    }
}
