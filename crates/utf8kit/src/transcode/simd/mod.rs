//! SIMD transcoding kernels for x86-64 and the choice between them.
//!
//! The kernels do the bulk of a conversion a block at a time and stop where
//! a block would not fit (near the end of the input or of the output) or
//! needs care they leave to the scalar kernels (unpaired surrogates); the
//! wrappers in the parent module finish with the scalar kernel from there.
//! Most AVX-512 kernels also finish the input themselves with masked loads
//! and stores that touch exactly the bytes they may. Either way every
//! result is the scalar kernel's result.
//!
//! Three kernels also validate: `utf16_fused_avx512`, `utf32_fused_avx512`
//! (both with the block check of `check_avx512`) and `utf8_to_utf16_avx2`
//! check UTF-8 with the validator's lookup rules in the same loop that
//! converts it to UTF-16 or UTF-32, and hand the exact error back to the
//! validator's scalar rescan. The other validating UTF-8 transcoders
//! validate a chunk, then convert it.
//!
//! [`Engine`] is the transcoder a [`Kernel`] maps to: the AVX-512
//! transcoders need VBMI2 (byte and word compress) and GFNI (bit-matrix
//! byte maps, in the Latin-1 kernels) on top of what [`Kernel::Avx512`]
//! validates with; every CPU with VBMI2 so far has GFNI. Without them,
//! [`Kernel::Avx512`] converts with the AVX2 kernels, as [`Kernel::Avx2`] does (those need
//! BMI1/2 and POPCNT besides, which every AVX2 CPU has).
//! [`Kernel::Sse42`], and the AVX CPUs without what those need, convert
//! with the SSE4.1 kernels (`utf16_sse41`, `count_sse41`: SSSE3, SSE4.1,
//! SSE4.2 and POPCNT, no BMI) where there are some, else the scalar ones.

#[cfg(target_arch = "x86_64")]
pub(crate) mod check_avx512;
#[cfg(target_arch = "x86_64")]
pub(crate) mod count_avx2;
#[cfg(target_arch = "x86_64")]
pub(crate) mod count_avx512;
#[cfg(target_arch = "x86_64")]
pub(crate) mod count_sse41;
#[cfg(target_arch = "x86_64")]
pub(crate) mod latin1_avx2;
#[cfg(target_arch = "x86_64")]
pub(crate) mod latin1_avx512;
#[cfg(target_arch = "x86_64")]
pub(crate) mod latin1_sse41;
#[cfg(target_arch = "x86_64")]
pub(crate) mod utf16_ascii_avx512;
#[cfg(target_arch = "x86_64")]
pub(crate) mod utf16_avx512;
#[cfg(target_arch = "x86_64")]
pub(crate) mod utf16_fused_avx512;
#[cfg(target_arch = "x86_64")]
pub(crate) mod utf16_len_avx512;
#[cfg(target_arch = "x86_64")]
pub(crate) mod utf16_shared;
#[cfg(target_arch = "x86_64")]
pub(crate) mod utf16_sse41;
#[cfg(target_arch = "x86_64")]
pub(crate) mod utf16_to_utf8_avx2;
#[cfg(target_arch = "x86_64")]
pub(crate) mod utf32_avx2;
#[cfg(target_arch = "x86_64")]
pub(crate) mod utf32_avx512;
#[cfg(target_arch = "x86_64")]
pub(crate) mod utf32_fused_avx512;
#[cfg(target_arch = "x86_64")]
pub(crate) mod utf32_sse41;
#[cfg(target_arch = "x86_64")]
pub(crate) mod utf8_to_utf16_avx2;

use crate::Kernel;
#[cfg(target_arch = "x86_64")]
use core::sync::atomic::{AtomicU8, Ordering};

/// The transcoder that runs: SIMD kernels when the CPU has them, else the
/// scalar kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Engine {
    /// The scalar kernels.
    Scalar,
    /// The AVX-512 kernels (F, BW, VL, VBMI, VBMI2, plus GFNI and BMI1/2).
    #[cfg(target_arch = "x86_64")]
    Avx512,
    /// The AVX2 kernels (plus BMI1/2 and POPCNT); where a conversion has
    /// none, the scalar kernel.
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// The SSE4.1 kernels (plus SSSE3, SSE4.2 and POPCNT, but no BMI: they
    /// serve the CPUs before Haswell); where a conversion has none, the
    /// scalar kernel.
    #[cfg(target_arch = "x86_64")]
    Sse41,
}

/// Whether the CPU has all the `target_feature`s named by the literals.
#[cfg(all(target_arch = "x86_64", feature = "std"))]
macro_rules! has {
    ($($feature:tt),+) => {
        $(std::is_x86_feature_detected!($feature))&&+
    };
}

/// Whether the compilation target has all the `target_feature`s named by
/// the literals (no run-time detection without `std`).
#[cfg(all(target_arch = "x86_64", not(feature = "std")))]
macro_rules! has {
    ($($feature:tt),+) => {
        cfg!(all($(target_feature = $feature),+))
    };
}

impl Engine {
    /// The transcoder for validation kernel `kernel`, given that the CPU
    /// supports `kernel`.
    #[inline]
    pub(crate) fn for_kernel(kernel: Kernel) -> Engine {
        match kernel {
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 if transcoders() & AVX512 != 0 => Engine::Avx512,
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 | Kernel::Avx2 if transcoders() & AVX2 != 0 => Engine::Avx2,
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 | Kernel::Avx2 | Kernel::Sse42 if transcoders() & SSE41 != 0 => {
                Engine::Sse41
            }
            _ => Engine::Scalar,
        }
    }

    /// The transcoder for the detected kernel, cached: one load on every
    /// call instead of the kernel's and the transcoder's (short calls feel
    /// the difference).
    #[inline]
    pub(crate) fn detected() -> Engine {
        #[cfg(target_arch = "x86_64")]
        match DETECTED_ENGINE.load(Ordering::Relaxed) {
            2 => Engine::Avx512,
            3 => Engine::Avx2,
            4 => Engine::Sse41,
            1 => Engine::Scalar,
            _ => detect_engine(),
        }
        #[cfg(not(target_arch = "x86_64"))]
        Engine::Scalar
    }
}

/// [`Engine::detected`]'s cache: 0 before the first call, 1 scalar, 2
/// AVX-512, 3 AVX2, 4 SSE4.1 (`Relaxed`, as [`TRANSCODERS`]).
#[cfg(target_arch = "x86_64")]
static DETECTED_ENGINE: AtomicU8 = AtomicU8::new(0);

#[cfg(target_arch = "x86_64")]
#[cold]
#[inline(never)]
fn detect_engine() -> Engine {
    let engine = Engine::for_kernel(Kernel::detected());
    let code = match engine {
        Engine::Scalar => 1,
        Engine::Avx512 => 2,
        Engine::Avx2 => 3,
        Engine::Sse41 => 4,
    };
    DETECTED_ENGINE.store(code, Ordering::Relaxed);
    engine
}

/// Which transcoders the CPU has what it takes for, asked once and cached
/// (asking for eight CPU features on every call costs more than converting
/// a short string): 0 before the first call, then [`KNOWN`] with
/// [`AVX512`], [`AVX2`] and [`SSE41`] as they apply. Every thread computes the same
/// value, so `Relaxed` is enough: a race only means asking twice.
#[cfg(target_arch = "x86_64")]
static TRANSCODERS: AtomicU8 = AtomicU8::new(0);

/// [`TRANSCODERS`] has been computed.
#[cfg(target_arch = "x86_64")]
const KNOWN: u8 = 1;
/// The CPU has what the AVX-512 transcoders use.
#[cfg(target_arch = "x86_64")]
const AVX512: u8 = 2;
/// The CPU has what the AVX2 transcoders use.
#[cfg(target_arch = "x86_64")]
const AVX2: u8 = 4;
/// The CPU has what the SSE4.1 transcoders use.
#[cfg(target_arch = "x86_64")]
const SSE41: u8 = 8;

/// Whether the CPU has what the AVX-512 transcoders use (for the kernels'
/// own tests).
#[cfg(all(target_arch = "x86_64", test, feature = "std"))]
fn avx512_transcode() -> bool {
    transcoders() & AVX512 != 0
}

/// Whether the CPU has what the AVX2 transcoders use (for the kernels'
/// own tests).
#[cfg(all(target_arch = "x86_64", test, feature = "std"))]
fn avx2_transcode() -> bool {
    transcoders() & AVX2 != 0
}

/// Whether the CPU has what the SSE4.1 transcoders use (for the kernels'
/// own tests).
#[cfg(all(target_arch = "x86_64", test, feature = "std"))]
fn sse41_transcode() -> bool {
    transcoders() & SSE41 != 0
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn transcoders() -> u8 {
    match TRANSCODERS.load(Ordering::Relaxed) {
        0 => detect_transcoders(),
        bits => bits,
    }
}

#[cfg(target_arch = "x86_64")]
#[cold]
#[inline(never)]
fn detect_transcoders() -> u8 {
    let mut bits = KNOWN;
    if has!(
        "avx512f",
        "avx512bw",
        "avx512vl",
        "avx512vbmi",
        "avx512vbmi2",
        "gfni",
        "bmi1",
        "bmi2",
        "popcnt"
    ) {
        bits |= AVX512;
    }
    if has!("avx2", "bmi1", "bmi2", "popcnt") {
        bits |= AVX2;
    }
    if has!("sse4.1", "sse4.2", "ssse3", "popcnt") {
        bits |= SSE41;
    }
    TRANSCODERS.store(bits, Ordering::Relaxed);
    bits
}

/// Copies `n < 96` bytes from `src` to `dst` with a few overlapping loads
/// and stores, no `memcpy` call: how the AVX2 kernels copy their last
/// bytes exactly out of (or into) a local buffer.
///
/// # Safety
///
/// * The CPU has AVX2.
/// * `src` is valid for reads and `dst` for writes of `n < 96` bytes, and
///   the two do not overlap.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn copy_short(src: *const u8, dst: *mut u8, n: usize) {
    use core::arch::x86_64::{
        _mm_loadu_si128, _mm_storeu_si128, _mm256_loadu_si256, _mm256_storeu_si256,
    };
    debug_assert!(n < 96);
    // SAFETY: every read and write (of every branch) is inside the `n`
    // bytes at `src` and `dst`; the caller guarantees AVX2.
    unsafe {
        if n >= 32 {
            let a = _mm256_loadu_si256(src.cast());
            let b = _mm256_loadu_si256(src.add(n - 32).cast());
            if n > 64 {
                _mm256_storeu_si256(dst.add(32).cast(), _mm256_loadu_si256(src.add(32).cast()));
            }
            _mm256_storeu_si256(dst.cast(), a);
            _mm256_storeu_si256(dst.add(n - 32).cast(), b);
        } else if n >= 16 {
            let a = _mm_loadu_si128(src.cast());
            let b = _mm_loadu_si128(src.add(n - 16).cast());
            _mm_storeu_si128(dst.cast(), a);
            _mm_storeu_si128(dst.add(n - 16).cast(), b);
        } else if n >= 8 {
            let a = src.cast::<u64>().read_unaligned();
            let b = src.add(n - 8).cast::<u64>().read_unaligned();
            dst.cast::<u64>().write_unaligned(a);
            dst.add(n - 8).cast::<u64>().write_unaligned(b);
        } else if n >= 4 {
            let a = src.cast::<u32>().read_unaligned();
            let b = src.add(n - 4).cast::<u32>().read_unaligned();
            dst.cast::<u32>().write_unaligned(a);
            dst.add(n - 4).cast::<u32>().write_unaligned(b);
        } else {
            for k in 0..n {
                dst.add(k).write(src.add(k).read());
            }
        }
    }
}

/// How far ahead of its stores a bulk copy asks for its output's cache
/// lines ([`prefetch_output`]).
///
/// A store that misses the cache waits in the store queue while its line is
/// read in (the hardware prefetchers follow loads, not stores), so a copy
/// whose output is in L2 or L3 runs at the speed of those reads, one after
/// the other. Asking for the lines 2 KiB (32 lines) ahead keeps several in
/// flight. Measured on an Intel Xeon with AVX-512 FP16 (2026-11-27; an
/// ASCII copy in 128-byte steps with two prefetches a step, ÷ the same
/// loop without them): 1.08–1.09 at 64 KiB and 1.08–1.13 at 1 MiB for any
/// distance from 256 B to 4 KiB, 1.00 at 4 MiB; `prefetchw` (for writing)
/// measured the same as `prefetcht0`.
#[cfg(target_arch = "x86_64")]
const STORE_AHEAD: usize = 2048;

/// Asks the CPU for the `LINES` cache lines [`STORE_AHEAD`] bytes after
/// offset `o` of the output at `dst` (`cap` bytes), or the last `LINES` of
/// the output when those are nearer its end: a loop that writes up to
/// `64 * LINES` bytes a step calls it once a step, before its stores at
/// `o`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn prefetch_output<const LINES: usize>(dst: *mut u8, o: usize, cap: usize) {
    use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
    let p = dst.wrapping_add((o + STORE_AHEAD).min(cap.saturating_sub(64 * LINES)));
    for k in 0..LINES {
        // SAFETY: `prefetcht0` reads nothing architecturally and cannot
        // fault, whatever the address (here one inside the output anyway).
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(64 * k).cast_const().cast()) };
    }
}

/// How far ahead of its loads a main loop asks for its input, in bytes
/// ([`prefetch_input`]).
pub(crate) const LOAD_AHEAD: usize = 2048;

/// Asks for the input line [`LOAD_AHEAD`] bytes past `src + i`. The AVX-512
/// transcoding loops call it once a step (a step reads one 64-byte line),
/// every step, whatever the input's length (a hint cannot fault, so short
/// inputs pay one instruction a step and no test; past the input's end it
/// reads nothing), except Latin-1 → UTF-8, which asks only from 2 KiB
/// (`latin1_avx512`'s `AHEAD_MIN`: +5–10 % at 1 KiB), and UTF-32 → UTF-8,
/// which asks from 1 Mi values (`utf32_avx512`'s `AHEAD_MIN_VALUES`,
/// in a second copy of its loop); the AVX-512 char
/// count and output lengths, whose steps are a handful of instructions,
/// only from [`PREFETCH_COUNT_MIN`]; the
/// AVX2 UTF-16 → UTF-8 loop for long inputs once per line it reads. The
/// hardware prefetchers alone fell behind on long inputs whose steps do
/// much work. Intel Xeon with AVX-512 FP16, 2026-11-27,
/// ÷ simdutf in the same rounds, before → after: UTF-16LE → UTF-8 at 64 MiB
/// random 1.08–1.18 → 1.79–2.07, Emoji 0.70 → 1.42–1.55, `sparse` 0.81 →
/// 1.02–1.11, and at 1 MiB the non-Latin lipsum files +5–15 %; UTF-8 →
/// UTF-16LE at 64 MiB random 1.15–1.33 → 2.8, CJK 2.3–3.0 → 4.0–5.1,
/// `sparse` 1.03–1.06 → 1.19; UTF-8 → UTF-32 at 64 MiB +15–40 %; Latin-1
/// → UTF-8 at 64 MiB Latin-1 text 1.0 → 1.1–1.2, random 0.86–0.99 →
/// 1.06–1.10; UTF-8 → Latin-1 on Latin-1 text 1.03 → 1.1–1.16 (64 KiB),
/// 1.04 → 1.15–1.21 (1 MiB), 0.96 → 1.1–1.25 (64 MiB). 64 B and 1 KiB
/// within the noise. Prefetching only in inputs from 1 Mi units (a second
/// copy of the UTF-16 → UTF-8 loop for them) made the loop of the short
/// inputs slower: its step was no longer inlined (Russian 1 KiB 1.29 →
/// 0.86).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn prefetch_input(src: *const u8, i: usize) {
    use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
    // SAFETY: `prefetcht0` reads nothing architecturally and cannot fault,
    // whatever the address.
    unsafe { _mm_prefetch::<_MM_HINT_T0>(src.wrapping_add(i + LOAD_AHEAD).cast()) };
}

/// Inputs of at least this many bytes ask for their input ahead
/// ([`prefetch_input`]) in the counting loops: the char count and the
/// output lengths (UTF-16 of UTF-8, UTF-8 of UTF-16, UTF-32 and Latin-1).
/// Their steps are a handful of instructions, which the hint's costs 5–15 %
/// in inputs that stay in cache (the char count: 1 KiB 1.36 → 1.25, 16 KiB
/// 2.14 → 1.95 ÷ the best of simdutf and `bytecount`); those take a copy of
/// the loop without it, and the long inputs one out of line, so that the
/// short path stays as it was (the test inside one loop, or two inlined
/// copies, cost 64 B and 1 KiB 7–15 %). The char count first, 2026-11-27,
/// ÷ the best peer, Latin, ASCII, random and `sparse`: 64 KiB 1.67–1.94 →
/// 1.84–1.97, 1 MiB 1.70–1.82 → 1.94–2.01, 64 MiB 0.97–1.14 → 1.09–1.25.
/// The lengths, Intel Xeon with AVX-512 FP16, 2026-11-28,
/// ÷ simdutf in the same rounds, before → after, random, ASCII and Latin:
/// UTF-16 length of UTF-8 1 MiB 0.99–1.06 → 1.10–1.15, 64 MiB 0.52–0.86 →
/// 0.91–1.18 (both copies inlined in one function measured 1.19–1.28 at 1
/// MiB, but cost 64 B and 1 KiB); UTF-8 length of UTF-16 1 MiB (random)
/// 0.64–0.65 → 0.77–0.80, 64 MiB 0.80–1.00 → 1.12–1.32; of UTF-32 64 MiB
/// 0.89–1.02 → 1.18–1.30; of Latin-1 64 MiB 0.86–0.90 → 1.03–1.07. The 64 B
/// rows of the UTF-8 lengths of UTF-16 and UTF-32 lost 0.05–0.1 to the
/// length test (both stayed above 1.3); the other two counts take one block
/// in a straight line now.
#[cfg(target_arch = "x86_64")]
pub(crate) const PREFETCH_COUNT_MIN: usize = 64 << 10;

/// The `bytes.len() <= 64` bytes of `bytes` in one register (zeros past
/// them), and the mask of their lanes: the one-block straight lines and the
/// last blocks of the AVX-512 counting loops.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,bmi2")]
#[inline]
pub(crate) fn load_upto64(bytes: &[u8]) -> (core::arch::x86_64::__m512i, u64) {
    use core::arch::x86_64::{_bzhi_u64, _mm512_maskz_loadu_epi8};
    debug_assert!(bytes.len() <= 64);
    let present = _bzhi_u64(u64::MAX, bytes.len() as u32);
    // SAFETY: the mask enables the `bytes.len()` readable bytes only;
    // masked-off lanes are not read and cannot fault.
    let v = unsafe { _mm512_maskz_loadu_epi8(present, bytes.as_ptr().cast()) };
    (v, present)
}

/// A table whose rows start on cache-line boundaries: no row load splits
/// across two lines.
#[cfg(target_arch = "x86_64")]
#[repr(C, align(64))]
pub(crate) struct Aligned<T>(pub(crate) T);

/// A `pshufb` table over eight lanes of `width` bytes: row `mask` holds,
/// lane after lane, the indices of lane `k`'s bytes at the offsets `set` if
/// bit `k` of `mask` is set, `clear` if it is not, packed to the start;
/// `80` (a zero byte) after them. Every 8-lane packing table of the
/// kernels is one of these.
#[cfg(target_arch = "x86_64")]
pub(crate) const fn lane_table(width: u8, clear: &[u8], set: &[u8]) -> [[u8; 16]; 256] {
    let mut table = [[0x80u8; 16]; 256];
    let mut mask = 0;
    while mask < 256 {
        let mut out = 0;
        let mut lane = 0;
        while lane < 8 {
            let offsets = if mask & (1 << lane) != 0 { set } else { clear };
            let mut j = 0;
            while j < offsets.len() {
                table[mask][out] = width * lane as u8 + offsets[j];
                out += 1;
                j += 1;
            }
            lane += 1;
        }
        mask += 1;
    }
    table
}

/// `pshufb` indices that pack the UTF-8 of eight 16-bit lanes, each holding
/// its character's 1 or 2 bytes in memory order: byte `2k` of lane `k`,
/// and byte `2k + 1` too if bit `k` of the index is set. For the Latin-1 →
/// UTF-8 of `latin1_sse41` (and `utf32_sse41`), the UTF-16 → UTF-8 of
/// `utf16_sse41` and the UTF-32 → UTF-8 of `utf32_avx2` (2-byte values).
#[cfg(target_arch = "x86_64")]
pub(crate) static WIDEN: Aligned<[[u8; 16]; 256]> = Aligned(lane_table(2, &[0], &[0, 1]));

/// How far a kernel got: input elements read and output elements written.
/// It stops at a character boundary, where the scalar kernel takes over.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Progress {
    /// Input elements (bytes or units) converted.
    pub(crate) read: usize,
    /// Output elements written.
    pub(crate) written: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cached engine is the one the detected kernel maps to, on the
    /// first call and on every later one (the cache must keep every
    /// engine apart, not only AVX-512 from the rest).
    #[test]
    fn detected_engine_is_cached_faithfully() {
        let expected = Engine::for_kernel(Kernel::detected());
        for _ in 0..3 {
            assert_eq!(Engine::detected(), expected);
        }
    }
}
