//! UTF-8 ⇄ UTF-16, in native code units and as little- or big-endian bytes.
//!
//! The two kernels are generic over how a code unit is stored: `u16` for
//! native units, `[u8; 2]` for byte-oriented UTF-16LE/BE (a byte slice is
//! viewed as `[[u8; 2]]` with `as_chunks`, so no copy and no alignment
//! requirement). Monomorphisation gives each a loop of its own.

use core::convert::Infallible;

use super::count::{utf8_len_from_utf16_by, utf16_len_from_utf8_scalar};
#[cfg(target_arch = "x86_64")]
use super::next_valid_chunk;
#[cfg(target_arch = "x86_64")]
use super::simd::check_avx512::Fused;
use super::simd::utf16_fused_avx512;
use super::simd::{Engine, Progress};
#[cfg(target_arch = "x86_64")]
use super::simd::{
    utf8_to_utf16_avx2, utf16_avx512, utf16_len_avx512, utf16_sse41, utf16_to_utf8_avx2,
};
use super::step::{copy_ascii_word, decode_utf8, put, put_replacement, put_utf8};
use super::{TranscodeError, Utf16Error, chunk_len, fit};
use crate::validate::Splitter;
use crate::{Kernel, Utf8Error};

#[cfg(feature = "alloc")]
use super::{run_to_vec, string_from_kernel};
#[cfg(feature = "alloc")]
use alloc::{string::String, vec::Vec};

/// The UTF-8 → UTF-16 kernel: validates `src`, writes the code units
/// (through `unit`) into `dst` as far as they fit, and returns how many the
/// whole conversion needs.
#[inline(always)]
fn utf8_to_utf16_scalar<T>(
    src: &[u8],
    dst: &mut [T],
    unit: impl Fn(u16) -> T,
) -> Result<usize, Utf8Error> {
    let mut i = 0;
    let mut o = 0;
    while let Some(rest) = src.get(i..).filter(|r| !r.is_empty()) {
        // ASCII, eight bytes per step while input and output both have room.
        let out = dst.get_mut(o..).unwrap_or_default();
        let ascii = copy_ascii_word(rest, out, |b| unit(u16::from(b)));
        i += ascii;
        o += ascii;
        if ascii == 8 {
            continue;
        }
        let Some(rest) = src.get(i..).filter(|r| !r.is_empty()) else {
            break;
        };
        match decode_utf8(rest) {
            Ok((cp, n)) => {
                if cp < 0x1_0000 {
                    // A BMP scalar value fits a unit (the cast is lossless).
                    put(dst, o, unit(cp as u16));
                    o += 1;
                } else {
                    let c = cp - 0x1_0000; // 20 bits
                    put(dst, o, unit(0xD800 | (c >> 10) as u16));
                    put(dst, o + 1, unit(0xDC00 | (c & 0x3FF) as u16));
                    o += 2;
                }
                i += n;
            }
            Err((len, kind)) => return Err(Utf8Error::new(i, len, kind)),
        }
    }
    Ok(o)
}

/// The UTF-16 → UTF-8 kernel. With `LOSSY` each unpaired surrogate becomes
/// U+FFFD (as `String::from_utf16_lossy`), otherwise the first one is the
/// error: its index and value.
#[inline(always)]
fn utf16_to_utf8_scalar<S: Copy, const LOSSY: bool>(
    src: &[S],
    dst: &mut [u8],
    unit: impl Fn(S) -> u16,
) -> Result<usize, Utf16Error> {
    let mut i = 0;
    let mut o = 0;
    while let Some(&first) = src.get(i) {
        // ASCII, four units per step while input and output both have room.
        if let (Some(&[a, b, c, d]), Some(out)) = (
            src.get(i..).and_then(|s| s.first_chunk::<4>()),
            dst.get_mut(o..).and_then(|d| d.first_chunk_mut::<4>()),
        ) {
            let (a, b, c, d) = (unit(a), unit(b), unit(c), unit(d));
            if (a | b | c | d) < 0x80 {
                // All four are below 0x80, so the casts are lossless.
                *out = [a as u8, b as u8, c as u8, d as u8];
                i += 4;
                o += 4;
                continue;
            }
        }
        let u = unit(first);
        match (u, src.get(i + 1).map(|&s| unit(s))) {
            (0xD800..=0xDBFF, Some(low @ 0xDC00..=0xDFFF)) => {
                let cp = 0x1_0000 + ((u32::from(u - 0xD800) << 10) | u32::from(low - 0xDC00));
                o += put_utf8(dst, o, cp);
                i += 2;
                continue;
            }
            (0xD800..=0xDFFF, _) => {}
            _ => {
                o += put_utf8(dst, o, u32::from(u));
                i += 1;
                continue;
            }
        }
        // An unpaired surrogate.
        if !LOSSY {
            return Err(Utf16Error::UnpairedSurrogate { index: i, unit: u });
        }
        o += put_replacement(dst, o);
        i += 1;
    }
    Ok(o)
}

/// The SSE4.1 length functions ([`utf16_len_by`], [`utf8_len_by`]) leave
/// inputs shorter than this (bytes or units) to the scalar code; the AVX2
/// ones take theirs from their kernels' `LEN_MIN`, the AVX-512 ones from
/// [`AVX512_LEN_MIN`].
const SIMD_MIN_LEN: usize = 64;

/// Inputs of at least this many bytes (UTF-8) or units (UTF-16) take the
/// AVX-512 length kernels, which count their last block (up to 64 bytes,
/// or 32 units) with one masked load: from 16 on that is faster than the
/// scalar count.
const AVX512_LEN_MIN: usize = 16;

/// UTF-16 inputs shorter than this are converted to UTF-8 by the scalar
/// kernel alone; from here on the SIMD kernel (which, like the UTF-8 one,
/// masks its last steps) is faster.
const SIMD_MIN_UTF16: usize = 8;

/// UTF-8 inputs shorter than this are converted to UTF-16 by the scalar
/// kernel alone; from here on the SIMD kernel, which masks its last load
/// and its stores, is faster even for one partial block.
const SIMD_MIN_UTF8: usize = 16;

/// Storage for one UTF-16 code unit that kernels may write and read as two
/// raw bytes.
///
/// # Safety
///
/// Implementors are exactly 2 bytes, alignment at most 2, with every bit
/// pattern valid.
unsafe trait Unit16: Copy {}
// SAFETY: 2 bytes, any bits.
unsafe impl Unit16 for u16 {}
// SAFETY: 2 bytes, any bits, alignment 1.
unsafe impl Unit16 for [u8; 2] {}

/// The SIMD part of UTF-8 → UTF-16 for valid `src` (units big-endian if
/// `be`, else little-endian, which is native on x86-64).
#[inline]
fn simd_utf8_to_utf16<T: Unit16>(engine: Engine, be: bool, src: &[u8], dst: &mut [T]) -> Progress {
    match engine {
        #[cfg(target_arch = "x86_64")]
        Engine::Avx512 if src.len() >= SIMD_MIN_UTF8 => {
            let (ptr, cap) = (dst.as_mut_ptr().cast::<u8>(), dst.len());
            // SAFETY: `Engine::Avx512` is only chosen when the CPU has the
            // kernel's features; `dst` is `2 * cap` writable bytes (`T` is
            // two bytes, any bits).
            unsafe {
                if be {
                    utf16_avx512::utf8_to_utf16::<true>(src, ptr, cap)
                } else {
                    utf16_avx512::utf8_to_utf16::<false>(src, ptr, cap)
                }
            }
        }
        #[cfg(target_arch = "x86_64")]
        Engine::Avx2 if src.len() >= SIMD_MIN_UTF8 => {
            let (ptr, cap) = (dst.as_mut_ptr().cast::<u8>(), dst.len());
            // SAFETY: `Engine::Avx2` is only chosen when the CPU has the
            // kernel's features; `dst` is `2 * cap` writable bytes.
            unsafe {
                if be {
                    utf8_to_utf16_avx2::utf8_to_utf16::<true>(src, ptr, cap)
                } else {
                    utf8_to_utf16_avx2::utf8_to_utf16::<false>(src, ptr, cap)
                }
            }
        }
        #[cfg(target_arch = "x86_64")]
        Engine::Sse41 => {
            let (ptr, cap) = (dst.as_mut_ptr().cast::<u8>(), dst.len());
            // SAFETY: `Engine::Sse41` is only chosen when the CPU has the
            // kernel's features; `dst` is `2 * cap` writable bytes.
            unsafe {
                if be {
                    utf16_sse41::utf8_to_utf16::<true>(src, ptr, cap)
                } else {
                    utf16_sse41::utf8_to_utf16::<false>(src, ptr, cap)
                }
            }
        }
        _ => Progress::default(),
    }
}

/// UTF-8 → UTF-16 for `src` known to be valid: the SIMD kernel, then the
/// scalar kernel from where it stopped. Returns the units needed.
#[inline]
fn valid_utf8_to_utf16_run<T: Unit16>(
    engine: Engine,
    be: bool,
    src: &[u8],
    dst: &mut [T],
    unit: impl Fn(u16) -> T,
) -> usize {
    let p = simd_utf8_to_utf16(engine, be, src, dst);
    let rest = src.get(p.read..).unwrap_or_default();
    let out = dst.get_mut(p.written..).unwrap_or_default();
    // The input is valid and the kernel stops at a character boundary, so
    // the scalar kernel cannot fail on the rest.
    p.written + utf8_to_utf16_scalar(rest, out, unit).unwrap_or(0)
}

/// The fused AVX-512 UTF-8 → UTF-16 kernel on `dst`, big-endian units if
/// `be`.
///
/// # Safety
///
/// * The CPU has the kernel's features (`Engine::Avx512` was chosen).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn fused_avx512<T: Unit16>(be: bool, src: &[u8], dst: &mut [T]) -> Fused {
    let (ptr, cap) = (dst.as_mut_ptr().cast::<u8>(), dst.len());
    // SAFETY: the caller guarantees the features; `dst` is `2 * cap`
    // writable bytes (`T` is two bytes, any bits).
    unsafe {
        if be {
            utf16_fused_avx512::utf8_to_utf16::<true>(src, ptr, cap)
        } else {
            utf16_fused_avx512::utf8_to_utf16::<false>(src, ptr, cap)
        }
    }
}

/// The `_into` functions' end after the fused AVX-512 kernel stopped early
/// (out of their hot code): the rest of [`utf8_to_utf16_after_fused`],
/// fitted to `out`.
#[cfg(target_arch = "x86_64")]
#[cold]
#[inline(never)]
fn fused_into_finish<T: Unit16>(
    be: bool,
    bytes: &[u8],
    out: &mut [T],
    fused: Fused,
    unit: impl Fn(u16) -> T,
) -> Result<usize, TranscodeError> {
    let capacity = out.len();
    fit(
        utf8_to_utf16_after_fused(Engine::Avx512, be, bytes, out, fused, unit),
        capacity,
    )
}

/// UTF-8 → UTF-16, validating, by `engine`.
///
/// With the AVX-512 or the AVX2 transcoder, one pass validates and
/// converts (`utf16_fused_avx512`, `utf8_to_utf16_avx2`); with the SSE4.1
/// one, [`utf8_to_utf16_two_pass`]; otherwise the scalar kernel does both. (Only
/// [`Kernel::Avx512`] maps to [`Engine::Avx512`], so the engine says which
/// validation kernel a forced call asked for; [`Engine::Sse41`] validates
/// with [`Kernel::Sse42`] even when an AVX CPU without the AVX2
/// transcoders' features chose it for [`Kernel::Avx2`], with the same
/// result.)
#[inline]
fn utf8_to_utf16_run<T: Unit16>(
    engine: Engine,
    be: bool,
    src: &[u8],
    dst: &mut [T],
    unit: impl Fn(u16) -> T,
) -> Result<usize, Utf8Error> {
    match engine {
        #[cfg(target_arch = "x86_64")]
        Engine::Avx512 if src.len() >= SIMD_MIN_UTF8 => {
            // SAFETY: `Engine::Avx512` is only chosen when the CPU has the
            // kernel's features.
            let fused = unsafe { fused_avx512(be, src, dst) };
            match fused.all_of(src.len()) {
                Some(written) => Ok(written),
                None => utf8_to_utf16_after_fused(Engine::Avx512, be, src, dst, fused, unit),
            }
        }
        #[cfg(target_arch = "x86_64")]
        Engine::Avx2 if src.len() >= SIMD_MIN_UTF8 => {
            let (ptr, cap) = (dst.as_mut_ptr().cast::<u8>(), dst.len());
            // SAFETY: `Engine::Avx2` is only chosen when the CPU has the
            // kernel's features; `dst` is `2 * cap` writable bytes.
            let fused = unsafe {
                if be {
                    utf8_to_utf16_avx2::utf8_to_utf16_checked::<true>(src, ptr, cap)
                } else {
                    utf8_to_utf16_avx2::utf8_to_utf16_checked::<false>(src, ptr, cap)
                }
            };
            match fused.all_of(src.len()) {
                Some(written) => Ok(written),
                None => utf8_to_utf16_after_fused(Engine::Avx2, be, src, dst, fused, unit),
            }
        }
        #[cfg(target_arch = "x86_64")]
        Engine::Sse41 if src.len() >= SIMD_MIN_UTF8 => utf8_to_utf16_two_pass(be, src, dst, unit),
        _ => utf8_to_utf16_scalar_out_of_line(src, dst, unit),
    }
}

/// UTF-8 → UTF-16 by the SSE4.1 transcoder, which has no fused kernel:
/// the validator of the same width (SSE4.2) checks a chunk, then the
/// transcoder converts it without checks, so the conversion reads bytes
/// the validator just brought into L1.
#[cfg(target_arch = "x86_64")]
#[inline(never)]
fn utf8_to_utf16_two_pass<T: Unit16>(
    be: bool,
    src: &[u8],
    dst: &mut [T],
    unit: impl Fn(u16) -> T,
) -> Result<usize, Utf8Error> {
    let (engine, kernel) = (Engine::Sse41, Kernel::Sse42);
    let mut start = 0;
    let mut o = 0;
    while let Some(rest) = src.get(start..).filter(|r| !r.is_empty()) {
        let len = next_valid_chunk(kernel, rest).map_err(|e| e.offset_by(start))?;
        let chunk = rest.get(..len).unwrap_or_default();
        let out = dst.get_mut(o..).unwrap_or_default();
        o += valid_utf8_to_utf16_run(engine, be, chunk, out, &unit);
        start += len;
    }
    Ok(o)
}

/// The scalar kernel, out of line, so that the SIMD path of its callers
/// stays a short call without the scalar loop's register spills.
#[inline(never)]
fn utf8_to_utf16_scalar_out_of_line<T>(
    src: &[u8],
    dst: &mut [T],
    unit: impl Fn(u16) -> T,
) -> Result<usize, Utf8Error> {
    utf8_to_utf16_scalar(src, dst, unit)
}

/// Finishes [`utf8_to_utf16_run`] after the fused kernel of `engine`
/// (AVX-512 or AVX2) stopped early at `p`. At an error, locates it exactly. Out of room (`src[..p.read]` valid
/// and converted): checks the rest (an error there is the input's error),
/// converts what still fits and counts the units of the rest.
#[cfg(target_arch = "x86_64")]
#[cold]
#[inline(never)]
fn utf8_to_utf16_after_fused<T: Unit16>(
    engine: Engine,
    be: bool,
    src: &[u8],
    dst: &mut [T],
    p: Fused,
    unit: impl Fn(u16) -> T,
) -> Result<usize, Utf8Error> {
    if p.written == Fused::INVALID {
        return Err(crate::validate::locate(src, p.read));
    }
    let rest = src.get(p.read..).unwrap_or_default();
    // `p.read` is a character boundary after valid UTF-8, so the input's
    // first error is the rest's, moved by `p.read`.
    let kernel = if engine == Engine::Avx512 {
        Kernel::Avx512
    } else {
        Kernel::Avx2
    };
    crate::validate::validate_by(kernel, rest).map_err(|e| e.offset_by(p.read))?;
    let out = dst.get_mut(p.written..).unwrap_or_default();
    // A unit takes at most 3 bytes: this prefix (cut before a lead, which
    // valid UTF-8 has among any 4 bytes) makes more units than fit, or is
    // all of the rest.
    let mut pre = rest
        .len()
        .min(out.len().saturating_mul(3).saturating_add(8));
    while pre > 0 && rest.get(pre).is_some_and(|&b| (b as i8) < -64) {
        pre -= 1;
    }
    let (head, tail) = rest.split_at(pre);
    let written = valid_utf8_to_utf16_run(engine, be, head, out, unit);
    Ok(p.written + written + utf16_len_by(engine, tail))
}

/// Lossy UTF-8 → UTF-16: the validator splits `src` into valid runs and
/// invalid sequences; each run is converted in bulk (SIMD when `splitter`'s
/// kernel has a transcoder), each maximal invalid subpart becomes one
/// U+FFFD. Writes what fits into `dst` and returns the units the whole
/// output needs (never more than `src.len()`).
#[inline]
fn utf8_to_utf16_lossy_run<T: Unit16>(
    splitter: Splitter,
    be: bool,
    src: &[u8],
    dst: &mut [T],
    unit: impl Fn(u16) -> T,
) -> usize {
    let engine = Engine::for_kernel(splitter.kernel());
    let mut pos = 0;
    let mut o = 0;
    // The first run is checked a KiB at a time; after an error, more are
    // likely, and every block is checked (see `Splitter::split`).
    let mut fine = false;
    while let Some(rest) = src.get(pos..).filter(|r| !r.is_empty()) {
        // At most a chunk at a time, so that the conversion reads bytes the
        // validator just brought into L1 (as `utf8_to_utf16_run` does).
        let piece = rest.get(..chunk_len(rest)).unwrap_or_default();
        let (valid, error) = splitter.split(piece, fine);
        let out = dst.get_mut(o..).unwrap_or_default();
        o += valid_utf8_to_utf16_run(engine, be, valid.as_bytes(), out, &unit);
        pos += match error {
            None => piece.len(),
            Some(error) => {
                put(dst, o, unit(0xFFFD));
                o += 1;
                fine = true;
                valid.len() + error.error_len().unwrap_or(piece.len() - valid.len())
            }
        };
    }
    o
}

/// [`utf16_len_from_utf8`](super::utf16_len_from_utf8) by `engine`.
#[inline]
pub(super) fn utf16_len_by(engine: Engine, bytes: &[u8]) -> usize {
    match engine {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Engine::Avx512` is only chosen when the CPU has the
        // kernel's features.
        Engine::Avx512 if bytes.len() >= AVX512_LEN_MIN => unsafe {
            utf16_len_avx512::utf16_len_from_utf8(bytes)
        },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Engine::Avx2` is only chosen when the CPU has the
        // kernel's features; `bytes` is as long as the kernel needs.
        Engine::Avx2 if bytes.len() >= utf8_to_utf16_avx2::LEN_MIN => unsafe {
            utf8_to_utf16_avx2::utf16_len_from_utf8(bytes)
        },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Engine::Sse41` is only chosen when the CPU has the
        // kernel's features.
        Engine::Sse41 if bytes.len() >= SIMD_MIN_LEN => unsafe {
            utf16_sse41::utf16_len_from_utf8(bytes)
        },
        _ => utf16_len_from_utf8_scalar(bytes),
    }
}

/// The UTF-8 length of UTF-16 `src` by `engine` (units big-endian if `be`).
#[inline]
fn utf8_len_by<S: Unit16>(engine: Engine, be: bool, src: &[S], unit: impl Fn(S) -> u16) -> usize {
    let (read, n) = match engine {
        #[cfg(target_arch = "x86_64")]
        Engine::Avx512 if src.len() >= AVX512_LEN_MIN => {
            let (ptr, len) = (src.as_ptr().cast::<u8>(), src.len());
            // SAFETY: the CPU has the kernel's features (as above); `src`
            // is `2 * len` readable bytes.
            unsafe {
                if be {
                    utf16_len_avx512::utf8_len_from_utf16::<true>(ptr, len)
                } else {
                    utf16_len_avx512::utf8_len_from_utf16::<false>(ptr, len)
                }
            }
        }
        #[cfg(target_arch = "x86_64")]
        // From `LEN_MIN` units the kernel counts every unit.
        Engine::Avx2 if src.len() >= utf16_to_utf8_avx2::LEN_MIN => {
            let (ptr, len) = (src.as_ptr().cast::<u8>(), src.len());
            // SAFETY: as above, for `Engine::Avx2`.
            unsafe {
                if be {
                    utf16_to_utf8_avx2::utf8_len_from_utf16::<true>(ptr, len)
                } else {
                    utf16_to_utf8_avx2::utf8_len_from_utf16::<false>(ptr, len)
                }
            }
        }
        #[cfg(target_arch = "x86_64")]
        Engine::Sse41 if src.len() >= SIMD_MIN_LEN => {
            let (ptr, len) = (src.as_ptr().cast::<u8>(), src.len());
            // SAFETY: as above, for `Engine::Sse41`.
            unsafe {
                if be {
                    utf16_sse41::utf8_len_from_utf16::<true>(ptr, len)
                } else {
                    utf16_sse41::utf8_len_from_utf16::<false>(ptr, len)
                }
            }
        }
        _ => (0, 0),
    };
    n + utf8_len_from_utf16_by(src.get(read..).unwrap_or_default(), unit)
}

/// UTF-16 → UTF-8 by `engine`: SIMD blocks, the scalar kernel for blocks
/// with unpaired surrogates and for the end. Returns the bytes needed.
#[inline]
fn utf16_to_utf8_run<S: Unit16, const LOSSY: bool>(
    engine: Engine,
    be: bool,
    src: &[S],
    dst: &mut [u8],
    unit: impl Fn(S) -> u16 + Copy,
) -> Result<usize, Utf16Error> {
    if let Some(n) = short_utf16_to_utf8(engine, be, src, dst) {
        return Ok(n);
    }
    let (p, window_end) = simd_utf16_to_utf8(engine, be, src, dst);
    if p.read == src.len() {
        // The kernel converted all of it (the common end).
        return Ok(p.written);
    }
    utf16_to_utf8_rest::<S, LOSSY>(engine, be, src, dst, unit, p, window_end)
}

/// [`utf16_to_utf8_run`] after the first SIMD call stopped at `p` (before
/// the block ending at `window_end` that has an unpaired surrogate, or at
/// the end of its room): the scalar kernel, then SIMD again, in turn.
#[inline(never)]
fn utf16_to_utf8_rest<S: Unit16, const LOSSY: bool>(
    engine: Engine,
    be: bool,
    src: &[S],
    dst: &mut [u8],
    unit: impl Fn(S) -> u16 + Copy,
    mut p: Progress,
    mut window_end: Option<usize>,
) -> Result<usize, Utf16Error> {
    let mut i = 0;
    let mut o = 0;
    loop {
        let start = i + p.read;
        o += p.written;
        if start == src.len() {
            return Ok(o);
        }
        let end = window_end.map_or(src.len(), |e| i + e);
        let window = src.get(start..end).unwrap_or_default();
        let out = dst.get_mut(o..).unwrap_or_default();
        o += utf16_to_utf8_scalar::<S, LOSSY>(window, out, unit).map_err(|e| match e {
            Utf16Error::UnpairedSurrogate { index, unit } => Utf16Error::UnpairedSurrogate {
                index: index + start,
                unit,
            },
            other => other,
        })?;
        i = end;
        if window_end.is_none() || i >= src.len() {
            return Ok(o);
        }
        let rest = src.get(i..).unwrap_or_default();
        (p, window_end) =
            simd_utf16_to_utf8(engine, be, rest, dst.get_mut(o..).unwrap_or_default());
    }
}

/// Inputs of up to this many UTF-16 units go to the AVX-512 kernel's masked
/// steps alone (`utf16_to_utf8_masked`), without its main loop (see the
/// module docs of `utf16_avx512`). With 64 instead, ÷ simdutf with exact
/// buffers: ASCII of 100 units 0.90–0.92 → 0.70–0.71, Cyrillic of 107
/// units 0.95–1.01 → 0.86, CJK of 58 units 1.0 → 0.95–0.97, but text with
/// 4-byte characters of 126 units 1.18–1.20 → 1.27.
const SHORT_UTF16: usize = 128;

/// The whole UTF-16 → UTF-8 conversion of a `src` of one block (up to 32
/// units) in one SIMD step, if `engine` has one and the block has no
/// unpaired surrogate and fits in `dst`; else `None`, and
/// [`utf16_to_utf8_run`] goes on as for any input.
#[inline(always)]
fn short_utf16_to_utf8<S: Unit16>(
    engine: Engine,
    be: bool,
    src: &[S],
    dst: &mut [u8],
) -> Option<usize> {
    match engine {
        #[cfg(target_arch = "x86_64")]
        Engine::Avx512 if (SIMD_MIN_UTF16..=32).contains(&src.len()) => {
            let (ptr, len) = (src.as_ptr().cast::<u8>(), src.len());
            let (out, cap) = (dst.as_mut_ptr(), dst.len());
            // SAFETY: the CPU has the kernel's features (`Engine::Avx512`);
            // `len <= 32` and `src` is `2 * len` readable bytes, `dst` `cap`
            // writable ones.
            unsafe {
                if be {
                    utf16_avx512::utf16_to_utf8_one_block::<true>(ptr, len, out, cap)
                } else {
                    utf16_avx512::utf16_to_utf8_one_block::<false>(ptr, len, out, cap)
                }
            }
        }
        _ => None,
    }
}

/// The SIMD part of UTF-16 → UTF-8: how far it got, and the end of a block
/// the scalar kernel must convert before it continues (if it stopped at one).
#[inline]
fn simd_utf16_to_utf8<S: Unit16>(
    engine: Engine,
    be: bool,
    src: &[S],
    dst: &mut [u8],
) -> (Progress, Option<usize>) {
    match engine {
        #[cfg(target_arch = "x86_64")]
        Engine::Avx512 if src.len() >= SIMD_MIN_UTF16 => {
            let (ptr, len) = (src.as_ptr().cast::<u8>(), src.len());
            let (out, cap) = (dst.as_mut_ptr(), dst.len());
            // SAFETY: the CPU has the kernel's features (`Engine::Avx512`);
            // `src` is `2 * len` readable bytes, `dst` `cap` writable ones.
            let stop = unsafe {
                match (be, len <= SHORT_UTF16) {
                    (true, true) => utf16_avx512::utf16_to_utf8_masked::<true>(ptr, len, out, cap),
                    (false, true) => {
                        utf16_avx512::utf16_to_utf8_masked::<false>(ptr, len, out, cap)
                    }
                    (true, false) => utf16_avx512::utf16_to_utf8::<true>(ptr, len, out, cap),
                    (false, false) => utf16_avx512::utf16_to_utf8::<false>(ptr, len, out, cap),
                }
            };
            (stop.progress, stop.window_end)
        }
        #[cfg(target_arch = "x86_64")]
        Engine::Avx2 => {
            let (ptr, len) = (src.as_ptr().cast::<u8>(), src.len());
            let (out, cap) = (dst.as_mut_ptr(), dst.len());
            // SAFETY: the CPU has the kernel's features (`Engine::Avx2`);
            // `src` is `2 * len` readable bytes, `dst` `cap` writable ones.
            let stop = unsafe {
                if be {
                    utf16_to_utf8_avx2::utf16_to_utf8::<true>(ptr, len, out, cap)
                } else {
                    utf16_to_utf8_avx2::utf16_to_utf8::<false>(ptr, len, out, cap)
                }
            };
            (stop.progress, stop.window_end)
        }
        #[cfg(target_arch = "x86_64")]
        Engine::Sse41 => {
            let (ptr, len) = (src.as_ptr().cast::<u8>(), src.len());
            let (out, cap) = (dst.as_mut_ptr(), dst.len());
            // SAFETY: the CPU has the kernel's features (`Engine::Sse41`);
            // `src` is `2 * len` readable bytes, `dst` `cap` writable ones.
            let stop = unsafe {
                if be {
                    utf16_sse41::utf16_to_utf8::<true>(ptr, len, out, cap)
                } else {
                    utf16_sse41::utf16_to_utf8::<false>(ptr, len, out, cap)
                }
            };
            (stop.progress, stop.window_end)
        }
        _ => (Progress::default(), None),
    }
}

/// Views UTF-16 bytes as units, or reports an odd length.
#[inline]
fn as_units(bytes: &[u8]) -> Result<&[[u8; 2]], Utf16Error> {
    match bytes.as_chunks::<2>() {
        (units, []) => Ok(units),
        _ => Err(Utf16Error::OddLength { len: bytes.len() }),
    }
}

/// Converts UTF-8 to UTF-16, validating it.
///
/// # Errors
///
/// If `bytes` is not UTF-8, exactly the error [`validate`](crate::validate())
/// returns.
///
/// # Example
///
/// ```
/// use utf8kit::transcode::utf8_to_utf16;
///
/// assert_eq!(utf8_to_utf16("a€😀".as_bytes()).unwrap(), [0x61, 0x20AC, 0xD83D, 0xDE00]);
/// let err = utf8_to_utf16(b"ab\xED\xA0\x80").unwrap_err();
/// assert_eq!(err, utf8kit::validate(b"ab\xED\xA0\x80").unwrap_err());
/// ```
#[cfg(feature = "alloc")]
pub fn utf8_to_utf16(bytes: &[u8]) -> Result<Vec<u16>, Utf8Error> {
    let engine = Engine::detected();
    run_to_vec(utf16_len_by(engine, bytes), |dst| {
        utf8_to_utf16_run(engine, NATIVE_BE, bytes, dst, |u| u)
    })
}

/// Converts a string to UTF-16. The `&str` is valid UTF-8 by its type, so
/// this skips validation.
///
/// # Example
///
/// ```
/// use utf8kit::transcode::valid_utf8_to_utf16;
///
/// let text = "a€😀";
/// assert_eq!(valid_utf8_to_utf16(text), text.encode_utf16().collect::<Vec<_>>());
/// ```
#[cfg(feature = "alloc")]
pub fn valid_utf8_to_utf16(text: &str) -> Vec<u16> {
    let engine = Engine::detected();
    let bytes = text.as_bytes();
    let units = run_to_vec(utf16_len_by(engine, bytes), |dst| {
        Ok::<_, Infallible>(valid_utf8_to_utf16_run(
            engine,
            NATIVE_BE,
            bytes,
            dst,
            |u| u,
        ))
    });
    units.unwrap_or_default()
}

/// Converts a string to UTF-16 in `out`, returning the number of code units
/// written. It skips validation, as the `&str` is valid UTF-8.
///
/// # Errors
///
/// [`TranscodeError::BufferTooSmall`] if `out` is shorter than
/// [`utf16_len_from_utf8`](super::utf16_len_from_utf8).
///
/// # Example
///
/// ```
/// use utf8kit::transcode::valid_utf8_to_utf16_into;
///
/// let mut out = [0u16; 4];
/// assert_eq!(valid_utf8_to_utf16_into("é😀", &mut out), Ok(3));
/// assert_eq!(out[..3], [0xE9, 0xD83D, 0xDE00]);
/// ```
pub fn valid_utf8_to_utf16_into(
    text: &str,
    out: &mut [u16],
) -> Result<usize, TranscodeError<Infallible>> {
    let capacity = out.len();
    let needed =
        valid_utf8_to_utf16_run(Engine::detected(), NATIVE_BE, text.as_bytes(), out, |u| u);
    fit(Ok(needed), capacity)
}

/// Converts UTF-8 to UTF-16 in `out`, returning the number of code units
/// written.
///
/// [`utf16_len_from_utf8`](super::utf16_len_from_utf8) gives the length `out` needs.
///
/// # Errors
///
/// [`TranscodeError::Invalid`] with the error of [`validate`](crate::validate())
/// if `bytes` is not UTF-8 (anywhere in the input, even past what fits in
/// `out`), otherwise [`TranscodeError::BufferTooSmall`] if `out` is too
/// short; `out` then holds as much of the output as fits.
///
/// With AVX-512 or AVX2 the input is validated and converted in one pass.
///
/// # Example
///
/// ```
/// use utf8kit::transcode::utf8_to_utf16_into;
///
/// let mut out = [0u16; 8];
/// let n = utf8_to_utf16_into("hé😀".as_bytes(), &mut out).unwrap();
/// assert_eq!(&out[..n], [0x68, 0xE9, 0xD83D, 0xDE00]);
/// ```
#[inline]
pub fn utf8_to_utf16_into(bytes: &[u8], out: &mut [u16]) -> Result<usize, TranscodeError> {
    #[cfg(target_arch = "x86_64")]
    if Engine::detected() == Engine::Avx512 && bytes.len() >= SIMD_MIN_UTF8 {
        // The fused kernel directly, so that its common end (all of the
        // input converted, which means it fit) returns `Ok` without going
        // through a `Result` of the run and `fit`.
        // SAFETY: `Engine::Avx512` is only chosen when the CPU has the
        // kernel's features.
        let fused = unsafe { fused_avx512(NATIVE_BE, bytes, out) };
        return match fused.all_of(bytes.len()) {
            Some(written) => Ok(written),
            None => fused_into_finish(NATIVE_BE, bytes, out, fused, |u| u),
        };
    }
    utf8_to_utf16_into_slow(bytes, out)
}

/// [`utf8_to_utf16_into`] in full (every engine, every end).
#[inline(never)]
fn utf8_to_utf16_into_slow(bytes: &[u8], out: &mut [u16]) -> Result<usize, TranscodeError> {
    let capacity = out.len();
    fit(
        utf8_to_utf16_run(Engine::detected(), NATIVE_BE, bytes, out, |u| u),
        capacity,
    )
}

/// Whether native `u16` units are big-endian.
const NATIVE_BE: bool = cfg!(target_endian = "big");

/// Converts a string to UTF-16LE bytes (no byte order mark).
///
/// # Example
///
/// ```
/// use utf8kit::transcode::utf8_to_utf16le;
///
/// assert_eq!(utf8_to_utf16le("a€"), [0x61, 0x00, 0xAC, 0x20]);
/// ```
#[cfg(feature = "alloc")]
pub fn utf8_to_utf16le(text: &str) -> Vec<u8> {
    let engine = Engine::detected();
    let bytes = text.as_bytes();
    let units = run_to_vec(utf16_len_by(engine, bytes), |dst| {
        Ok::<_, Infallible>(valid_utf8_to_utf16_run(
            engine,
            false,
            bytes,
            dst,
            u16::to_le_bytes,
        ))
    });
    units.unwrap_or_default().into_flattened()
}

/// Converts a string to UTF-16BE bytes (no byte order mark).
///
/// # Example
///
/// ```
/// use utf8kit::transcode::utf8_to_utf16be;
///
/// assert_eq!(utf8_to_utf16be("a€"), [0x00, 0x61, 0x20, 0xAC]);
/// ```
#[cfg(feature = "alloc")]
pub fn utf8_to_utf16be(text: &str) -> Vec<u8> {
    let engine = Engine::detected();
    let bytes = text.as_bytes();
    let units = run_to_vec(utf16_len_by(engine, bytes), |dst| {
        Ok::<_, Infallible>(valid_utf8_to_utf16_run(
            engine,
            true,
            bytes,
            dst,
            u16::to_be_bytes,
        ))
    });
    units.unwrap_or_default().into_flattened()
}

/// Converts UTF-8 to UTF-16LE bytes in `out`, returning the number of
/// **bytes** written. A trailing odd byte of `out` is never used.
///
/// # Errors
///
/// As [`utf8_to_utf16_into`]; `needed` counts bytes.
///
/// # Example
///
/// ```
/// let mut out = [0u8; 4];
/// assert_eq!(utf8kit::transcode::utf8_to_utf16le_into("é".as_bytes(), &mut out), Ok(2));
/// assert_eq!(out[..2], [0xE9, 0x00]);
/// ```
#[inline]
pub fn utf8_to_utf16le_into(bytes: &[u8], out: &mut [u8]) -> Result<usize, TranscodeError> {
    utf8_to_utf16_bytes_into(Engine::detected(), false, bytes, out, u16::to_le_bytes)
}

/// Converts UTF-8 to UTF-16BE bytes in `out`, returning the number of
/// **bytes** written. A trailing odd byte of `out` is never used.
///
/// # Errors
///
/// As [`utf8_to_utf16_into`]; `needed` counts bytes.
///
/// # Example
///
/// ```
/// let mut out = [0u8; 4];
/// assert_eq!(utf8kit::transcode::utf8_to_utf16be_into("é".as_bytes(), &mut out), Ok(2));
/// assert_eq!(out[..2], [0x00, 0xE9]);
/// ```
#[inline]
pub fn utf8_to_utf16be_into(bytes: &[u8], out: &mut [u8]) -> Result<usize, TranscodeError> {
    utf8_to_utf16_bytes_into(Engine::detected(), true, bytes, out, u16::to_be_bytes)
}

#[inline]
fn utf8_to_utf16_bytes_into(
    engine: Engine,
    be: bool,
    bytes: &[u8],
    out: &mut [u8],
    unit: impl Fn(u16) -> [u8; 2],
) -> Result<usize, TranscodeError> {
    let (units, _) = out.as_chunks_mut::<2>();
    let capacity = units.len();
    #[cfg(target_arch = "x86_64")]
    if engine == Engine::Avx512 && bytes.len() >= SIMD_MIN_UTF8 {
        // The fused kernel directly, as `utf8_to_utf16_into` calls it: the
        // common end returns `Ok` without a `Result` of the run and `fit`
        // (UTF-8 → UTF-16BE at 64 B measured 0.86 ÷ simdutf through them).
        // SAFETY: `Engine::Avx512` is only chosen when the CPU has the
        // kernel's features.
        let fused = unsafe { fused_avx512(be, bytes, units) };
        return match fused.all_of(bytes.len()) {
            Some(written) => Ok(2 * written),
            None => in_bytes(fused_into_finish(be, bytes, units, fused, unit)),
        };
    }
    in_bytes(fit(
        utf8_to_utf16_run(engine, be, bytes, units, unit),
        capacity,
    ))
}

/// A result counted in units, counted in bytes.
fn in_bytes(r: Result<usize, TranscodeError>) -> Result<usize, TranscodeError> {
    match r {
        Ok(n) => Ok(2 * n),
        Err(TranscodeError::BufferTooSmall { needed }) => {
            Err(TranscodeError::BufferTooSmall { needed: 2 * needed })
        }
        Err(e) => Err(e),
    }
}

/// Converts UTF-8 to UTF-16, replacing each invalid sequence with U+FFFD.
///
/// The result is identical to
/// `String::from_utf8_lossy(bytes).encode_utf16().collect::<Vec<u16>>()`:
/// one U+FFFD per maximal subpart of an invalid sequence (the longest
/// prefix of a valid character, or one byte), the Unicode "best practice"
/// that browsers and [`decode_lossy`](crate::decode_lossy) follow. Valid runs
/// are validated and converted by the SIMD kernels in bulk.
///
/// The vector is allocated once, with room for `bytes.len()` units (the
/// most any input needs), and truncated to the output's length.
///
/// # Example
///
/// ```
/// use utf8kit::transcode::utf8_to_utf16_lossy;
///
/// // 'a', then F0 9F 98 (a 4-byte character cut short: one U+FFFD),
/// // then C0 AF (an overlong '/': two U+FFFD, as C0 is never valid).
/// let units = utf8_to_utf16_lossy(b"a\xF0\x9F\x98\xC0\xAF\xE2\x82\xAC");
/// assert_eq!(units, [0x61, 0xFFFD, 0xFFFD, 0xFFFD, 0x20AC]);
/// let text = b"ok \xED\xA0\x80 \xF0\x9F\x98\x80";
/// let std: Vec<u16> = String::from_utf8_lossy(text).encode_utf16().collect();
/// assert_eq!(utf8_to_utf16_lossy(text), std);
/// ```
#[cfg(feature = "alloc")]
pub fn utf8_to_utf16_lossy(bytes: &[u8]) -> Vec<u16> {
    let mut out = alloc::vec![0u16; bytes.len()];
    let n = utf8_to_utf16_lossy_run(Splitter::detected(), NATIVE_BE, bytes, &mut out, |u| u);
    out.truncate(n);
    out
}

/// Converts UTF-8 to UTF-16 in `out`, replacing each invalid sequence with
/// U+FFFD, and returns the number of code units written.
///
/// The output is that of [`utf8_to_utf16_lossy`]. It is never longer than
/// the input: an `out` of `bytes.len()` units always suffices.
///
/// # Errors
///
/// [`TranscodeError::BufferTooSmall`] with the number of units needed if
/// `out` is too short; `out` then holds a prefix of the output, and nothing
/// is written past `needed`.
///
/// # Example
///
/// ```
/// use utf8kit::transcode::{TranscodeError, utf8_to_utf16_lossy_into};
///
/// let mut out = [0u16; 8];
/// assert_eq!(utf8_to_utf16_lossy_into(b"\xFFab\xE4\xB8", &mut out), Ok(4));
/// assert_eq!(out[..4], [0xFFFD, 0x61, 0x62, 0xFFFD]);
/// assert_eq!(
///     utf8_to_utf16_lossy_into(b"\xFFab", &mut out[..2]),
///     Err(TranscodeError::BufferTooSmall { needed: 3 })
/// );
/// ```
pub fn utf8_to_utf16_lossy_into(
    bytes: &[u8],
    out: &mut [u16],
) -> Result<usize, TranscodeError<Infallible>> {
    let capacity = out.len();
    fit(
        Ok(utf8_to_utf16_lossy_run(
            Splitter::detected(),
            NATIVE_BE,
            bytes,
            out,
            |u| u,
        )),
        capacity,
    )
}

/// Converts UTF-8 to UTF-16LE bytes, replacing each invalid sequence with
/// U+FFFD (as [`utf8_to_utf16_lossy`]).
///
/// # Example
///
/// ```
/// use utf8kit::transcode::utf8_to_utf16le_lossy;
///
/// assert_eq!(utf8_to_utf16le_lossy(b"a\xFF"), [0x61, 0x00, 0xFD, 0xFF]);
/// ```
#[cfg(feature = "alloc")]
pub fn utf8_to_utf16le_lossy(bytes: &[u8]) -> Vec<u8> {
    utf8_to_utf16_bytes_lossy(bytes, false, u16::to_le_bytes)
}

/// Converts UTF-8 to UTF-16BE bytes, replacing each invalid sequence with
/// U+FFFD (as [`utf8_to_utf16_lossy`]).
///
/// # Example
///
/// ```
/// use utf8kit::transcode::utf8_to_utf16be_lossy;
///
/// assert_eq!(utf8_to_utf16be_lossy(b"a\xFF"), [0x00, 0x61, 0xFF, 0xFD]);
/// ```
#[cfg(feature = "alloc")]
pub fn utf8_to_utf16be_lossy(bytes: &[u8]) -> Vec<u8> {
    utf8_to_utf16_bytes_lossy(bytes, true, u16::to_be_bytes)
}

#[cfg(feature = "alloc")]
fn utf8_to_utf16_bytes_lossy(bytes: &[u8], be: bool, unit: fn(u16) -> [u8; 2]) -> Vec<u8> {
    let mut out = alloc::vec![[0u8; 2]; bytes.len()];
    let n = utf8_to_utf16_lossy_run(Splitter::detected(), be, bytes, &mut out, unit);
    out.truncate(n);
    out.into_flattened()
}

/// Converts UTF-8 to UTF-16LE bytes in `out`, replacing each invalid
/// sequence with U+FFFD, and returns the number of **bytes** written. A
/// trailing odd byte of `out` is never used.
///
/// # Errors
///
/// As [`utf8_to_utf16_lossy_into`]; `needed` counts bytes.
///
/// # Example
///
/// ```
/// let mut out = [0u8; 4];
/// assert_eq!(utf8kit::transcode::utf8_to_utf16le_lossy_into(b"\xC3", &mut out), Ok(2));
/// assert_eq!(out[..2], [0xFD, 0xFF]);
/// ```
pub fn utf8_to_utf16le_lossy_into(
    bytes: &[u8],
    out: &mut [u8],
) -> Result<usize, TranscodeError<Infallible>> {
    utf8_to_utf16_bytes_lossy_into(Splitter::detected(), false, bytes, out, u16::to_le_bytes)
}

/// Converts UTF-8 to UTF-16BE bytes in `out`, replacing each invalid
/// sequence with U+FFFD, and returns the number of **bytes** written. A
/// trailing odd byte of `out` is never used.
///
/// # Errors
///
/// As [`utf8_to_utf16_lossy_into`]; `needed` counts bytes.
///
/// # Example
///
/// ```
/// let mut out = [0u8; 4];
/// assert_eq!(utf8kit::transcode::utf8_to_utf16be_lossy_into(b"\xC3", &mut out), Ok(2));
/// assert_eq!(out[..2], [0xFF, 0xFD]);
/// ```
pub fn utf8_to_utf16be_lossy_into(
    bytes: &[u8],
    out: &mut [u8],
) -> Result<usize, TranscodeError<Infallible>> {
    utf8_to_utf16_bytes_lossy_into(Splitter::detected(), true, bytes, out, u16::to_be_bytes)
}

#[inline]
fn utf8_to_utf16_bytes_lossy_into(
    splitter: Splitter,
    be: bool,
    bytes: &[u8],
    out: &mut [u8],
    unit: impl Fn(u16) -> [u8; 2],
) -> Result<usize, TranscodeError<Infallible>> {
    let (units, _) = out.as_chunks_mut::<2>();
    let capacity = units.len();
    let needed = utf8_to_utf16_lossy_run(splitter, be, bytes, units, unit);
    if needed <= capacity {
        Ok(2 * needed)
    } else {
        Err(TranscodeError::BufferTooSmall { needed: 2 * needed })
    }
}

/// Converts UTF-16 to UTF-8.
///
/// # Errors
///
/// [`Utf16Error::UnpairedSurrogate`] with the index of the first unpaired
/// surrogate.
///
/// # Example
///
/// ```
/// use utf8kit::transcode::utf16_to_utf8;
///
/// assert_eq!(utf16_to_utf8(&[0x61, 0xD83D, 0xDE00]).unwrap(), "a😀");
/// assert_eq!(utf16_to_utf8(&[0x61, 0xDE00, 0xD83D]).unwrap_err().index(), 1);
/// ```
#[cfg(feature = "alloc")]
pub fn utf16_to_utf8(units: &[u16]) -> Result<String, Utf16Error> {
    utf16_to_string::<u16, false>(units, NATIVE_BE, |u| u)
}

/// Converts UTF-16 to UTF-8, replacing each unpaired surrogate with U+FFFD.
///
/// The result is identical to [`String::from_utf16_lossy`].
///
/// # Example
///
/// ```
/// use utf8kit::transcode::utf16_to_utf8_lossy;
///
/// assert_eq!(utf16_to_utf8_lossy(&[0x61, 0xD800, 0x62]), "a\u{FFFD}b");
/// ```
#[cfg(feature = "alloc")]
pub fn utf16_to_utf8_lossy(units: &[u16]) -> String {
    utf16_to_string::<u16, true>(units, NATIVE_BE, |u| u).unwrap_or_default()
}

/// Converts UTF-16LE bytes to UTF-8. A byte order mark, if any, is kept
/// (as U+FEFF); strip it first with [`bom`](crate::bom) if needed.
///
/// # Errors
///
/// [`Utf16Error::OddLength`] if `bytes` has an odd length (checked first),
/// otherwise [`Utf16Error::UnpairedSurrogate`].
///
/// # Example
///
/// ```
/// use utf8kit::transcode::utf16le_to_utf8;
///
/// assert_eq!(utf16le_to_utf8(b"h\x00i\x00").unwrap(), "hi");
/// assert!(utf16le_to_utf8(b"h\x00i").is_err());
/// ```
#[cfg(feature = "alloc")]
pub fn utf16le_to_utf8(bytes: &[u8]) -> Result<String, Utf16Error> {
    utf16_to_string::<[u8; 2], false>(as_units(bytes)?, false, u16::from_le_bytes)
}

/// Converts UTF-16BE bytes to UTF-8. A byte order mark, if any, is kept.
///
/// # Errors
///
/// As [`utf16le_to_utf8`].
///
/// # Example
///
/// ```
/// use utf8kit::transcode::utf16be_to_utf8;
///
/// assert_eq!(utf16be_to_utf8(b"\x00h\x00i").unwrap(), "hi");
/// assert_eq!(utf16be_to_utf8(b"\xD8\x00").unwrap_err().index(), 0);
/// ```
#[cfg(feature = "alloc")]
pub fn utf16be_to_utf8(bytes: &[u8]) -> Result<String, Utf16Error> {
    utf16_to_string::<[u8; 2], false>(as_units(bytes)?, true, u16::from_be_bytes)
}

/// Converts UTF-16LE bytes to UTF-8, replacing each unpaired surrogate with
/// U+FFFD, and a final odd byte with one more U+FFFD.
///
/// # Example
///
/// ```
/// use utf8kit::transcode::utf16le_to_utf8_lossy;
///
/// assert_eq!(utf16le_to_utf8_lossy(b"a\x00\x00\xD8b"), "a\u{FFFD}\u{FFFD}");
/// ```
#[cfg(feature = "alloc")]
pub fn utf16le_to_utf8_lossy(bytes: &[u8]) -> String {
    utf16_bytes_lossy(bytes, false, u16::from_le_bytes)
}

/// Converts UTF-16BE bytes to UTF-8, replacing each unpaired surrogate with
/// U+FFFD, and a final odd byte with one more U+FFFD.
///
/// # Example
///
/// ```
/// use utf8kit::transcode::utf16be_to_utf8_lossy;
///
/// assert_eq!(utf16be_to_utf8_lossy(b"\x00a\xDC\x00"), "a\u{FFFD}");
/// ```
#[cfg(feature = "alloc")]
pub fn utf16be_to_utf8_lossy(bytes: &[u8]) -> String {
    utf16_bytes_lossy(bytes, true, u16::from_be_bytes)
}

#[cfg(feature = "alloc")]
fn utf16_bytes_lossy(bytes: &[u8], be: bool, unit: fn([u8; 2]) -> u16) -> String {
    let (units, odd) = bytes.as_chunks::<2>();
    let mut s = utf16_to_string::<[u8; 2], true>(units, be, unit).unwrap_or_default();
    if !odd.is_empty() {
        s.push(char::REPLACEMENT_CHARACTER);
    }
    s
}

#[cfg(feature = "alloc")]
#[inline]
fn utf16_to_string<S: Unit16, const LOSSY: bool>(
    units: &[S],
    be: bool,
    unit: impl Fn(S) -> u16 + Copy,
) -> Result<String, Utf16Error> {
    let engine = Engine::detected();
    let bytes = run_to_vec(utf8_len_by(engine, be, units, unit), |dst| {
        utf16_to_utf8_run::<S, LOSSY>(engine, be, units, dst, unit)
    })?;
    // SAFETY: `bytes` is the output of `utf16_to_utf8_scalar`, which writes
    // only ASCII copies, `put_utf8` of scalar values (BMP non-surrogates and
    // decoded pairs) and `put_replacement`, and of the SIMD kernel, which
    // writes the same encodings of units it checked (no unpaired
    // surrogates: those blocks go to the scalar kernel).
    Ok(unsafe { string_from_kernel(bytes) })
}

/// Converts UTF-16 to UTF-8 in `out`, returning the number of bytes written.
///
/// [`utf8_len_from_utf16`](super::utf8_len_from_utf16) gives the length `out`
/// needs.
///
/// # Errors
///
/// [`TranscodeError::Invalid`] with the first unpaired surrogate, otherwise
/// [`TranscodeError::BufferTooSmall`] if `out` is too short.
///
/// # Example
///
/// ```
/// use utf8kit::transcode::utf16_to_utf8_into;
///
/// let mut out = [0u8; 8];
/// let n = utf16_to_utf8_into(&[0x41, 0x20AC], &mut out).unwrap();
/// assert_eq!(&out[..n], "A€".as_bytes());
/// ```
#[inline]
pub fn utf16_to_utf8_into(
    units: &[u16],
    out: &mut [u8],
) -> Result<usize, TranscodeError<Utf16Error>> {
    #[cfg(target_arch = "x86_64")]
    if let Some(n) = utf16_to_utf8_whole(NATIVE_BE, units, out) {
        return Ok(n);
    }
    utf16_to_utf8_into_slow(units, out)
}

/// The common case of the `_into` functions from UTF-16, inline in their
/// callers: the AVX-512 kernel converts all of `src` (which means it fit
/// and held no unpaired surrogate); returns the bytes written, or `None`
/// for every other case, which the callers then do from the start out of
/// line. Until 2026-11-28 every call went through a function that saved
/// six registers and chose the kernel by a jump table.
#[cfg(target_arch = "x86_64")]
#[inline]
fn utf16_to_utf8_whole<S: Unit16>(be: bool, src: &[S], dst: &mut [u8]) -> Option<usize> {
    if Engine::detected() != Engine::Avx512 {
        return None;
    }
    if let Some(n) = short_utf16_to_utf8(Engine::Avx512, be, src, dst) {
        return Some(n);
    }
    let (p, _) = simd_utf16_to_utf8(Engine::Avx512, be, src, dst);
    (p.read == src.len()).then_some(p.written)
}

/// [`utf16_to_utf8_into`] in full (every engine, every end), from the
/// start.
#[inline(never)]
fn utf16_to_utf8_into_slow(
    units: &[u16],
    out: &mut [u8],
) -> Result<usize, TranscodeError<Utf16Error>> {
    let capacity = out.len();
    fit(
        utf16_to_utf8_run::<u16, false>(Engine::detected(), NATIVE_BE, units, out, |u| u),
        capacity,
    )
}

/// Converts UTF-16 to UTF-8 in `out`, replacing unpaired surrogates with
/// U+FFFD, and returns the number of bytes written.
///
/// # Errors
///
/// [`TranscodeError::BufferTooSmall`] if `out` is shorter than
/// [`utf8_len_from_utf16`](super::utf8_len_from_utf16).
///
/// # Example
///
/// ```
/// let mut out = [0u8; 4];
/// assert_eq!(utf8kit::transcode::utf16_to_utf8_lossy_into(&[0x61, 0xDFFF], &mut out), Ok(4));
/// assert_eq!(&out, "a\u{FFFD}".as_bytes());
/// ```
pub fn utf16_to_utf8_lossy_into(
    units: &[u16],
    out: &mut [u8],
) -> Result<usize, TranscodeError<Infallible>> {
    let capacity = out.len();
    match utf16_to_utf8_run::<u16, true>(Engine::detected(), NATIVE_BE, units, out, |u| u) {
        Ok(n) => fit(Ok(n), capacity),
        // Unreachable: the lossy kernel reports no errors.
        Err(_) => {
            debug_assert!(false, "lossy UTF-16 kernel returned an error");
            Ok(0)
        }
    }
}

/// Converts UTF-16LE bytes to UTF-8 in `out`, returning the number of bytes
/// written.
///
/// # Errors
///
/// [`TranscodeError::Invalid`] with [`Utf16Error::OddLength`] or the first
/// unpaired surrogate, otherwise [`TranscodeError::BufferTooSmall`].
///
/// # Example
///
/// ```
/// let mut out = [0u8; 3];
/// assert_eq!(utf8kit::transcode::utf16le_to_utf8_into(b"\xAC\x20", &mut out), Ok(3));
/// assert_eq!(&out, "€".as_bytes());
/// ```
#[inline]
pub fn utf16le_to_utf8_into(
    bytes: &[u8],
    out: &mut [u8],
) -> Result<usize, TranscodeError<Utf16Error>> {
    let units = as_units(bytes).map_err(TranscodeError::Invalid)?;
    #[cfg(target_arch = "x86_64")]
    if let Some(n) = utf16_to_utf8_whole(false, units, out) {
        return Ok(n);
    }
    utf16_bytes_to_utf8_into_slow(false, units, out, u16::from_le_bytes)
}

/// [`utf16le_to_utf8_into`] and [`utf16be_to_utf8_into`] in full (every
/// engine, every end), from the start.
#[inline(never)]
fn utf16_bytes_to_utf8_into_slow(
    be: bool,
    units: &[[u8; 2]],
    out: &mut [u8],
    unit: fn([u8; 2]) -> u16,
) -> Result<usize, TranscodeError<Utf16Error>> {
    let capacity = out.len();
    fit(
        utf16_to_utf8_run::<[u8; 2], false>(Engine::detected(), be, units, out, unit),
        capacity,
    )
}

/// Converts UTF-16BE bytes to UTF-8 in `out`, returning the number of bytes
/// written.
///
/// # Errors
///
/// As [`utf16le_to_utf8_into`].
///
/// # Example
///
/// ```
/// let mut out = [0u8; 3];
/// assert_eq!(utf8kit::transcode::utf16be_to_utf8_into(b"\x20\xAC", &mut out), Ok(3));
/// assert_eq!(&out, "€".as_bytes());
/// ```
#[inline]
pub fn utf16be_to_utf8_into(
    bytes: &[u8],
    out: &mut [u8],
) -> Result<usize, TranscodeError<Utf16Error>> {
    let units = as_units(bytes).map_err(TranscodeError::Invalid)?;
    #[cfg(target_arch = "x86_64")]
    if let Some(n) = utf16_to_utf8_whole(true, units, out) {
        return Ok(n);
    }
    utf16_bytes_to_utf8_into_slow(true, units, out, u16::from_be_bytes)
}

/// [`utf8_to_utf16_into`] with a forced validation `kernel` (and the
/// transcoder that goes with it); `None` if the CPU lacks the kernel. For
/// tests and benchmarks.
///
/// # Errors
///
/// Inside the `Some`: as [`utf8_to_utf16_into`].
#[doc(hidden)]
pub fn utf8_to_utf16_with(
    kernel: Kernel,
    bytes: &[u8],
    out: &mut [u16],
) -> Option<Result<usize, TranscodeError>> {
    let capacity = out.len();
    kernel.is_available().then(|| {
        fit(
            utf8_to_utf16_run(Engine::for_kernel(kernel), NATIVE_BE, bytes, out, |u| u),
            capacity,
        )
    })
}

/// [`utf8_to_utf16le_into`] with a forced `kernel`; see [`utf8_to_utf16_with`].
///
/// # Errors
///
/// Inside the `Some`: as [`utf8_to_utf16le_into`].
#[doc(hidden)]
pub fn utf8_to_utf16le_with(
    kernel: Kernel,
    bytes: &[u8],
    out: &mut [u8],
) -> Option<Result<usize, TranscodeError>> {
    kernel.is_available().then(|| {
        utf8_to_utf16_bytes_into(
            Engine::for_kernel(kernel),
            false,
            bytes,
            out,
            u16::to_le_bytes,
        )
    })
}

/// [`utf8_to_utf16be_into`] with a forced `kernel`; see [`utf8_to_utf16_with`].
///
/// # Errors
///
/// Inside the `Some`: as [`utf8_to_utf16be_into`].
#[doc(hidden)]
pub fn utf8_to_utf16be_with(
    kernel: Kernel,
    bytes: &[u8],
    out: &mut [u8],
) -> Option<Result<usize, TranscodeError>> {
    kernel.is_available().then(|| {
        utf8_to_utf16_bytes_into(
            Engine::for_kernel(kernel),
            true,
            bytes,
            out,
            u16::to_be_bytes,
        )
    })
}

/// [`utf8_to_utf16_lossy_into`] with a forced validation `kernel` (and the
/// transcoder that goes with it); `None` if the CPU lacks the kernel. For
/// tests and benchmarks.
///
/// # Errors
///
/// Inside the `Some`: as [`utf8_to_utf16_lossy_into`].
#[doc(hidden)]
pub fn utf8_to_utf16_lossy_with(
    kernel: Kernel,
    bytes: &[u8],
    out: &mut [u16],
) -> Option<Result<usize, TranscodeError<Infallible>>> {
    let capacity = out.len();
    Splitter::forced(kernel).map(|splitter| {
        fit(
            Ok(utf8_to_utf16_lossy_run(
                splitter,
                NATIVE_BE,
                bytes,
                out,
                |u| u,
            )),
            capacity,
        )
    })
}

/// [`utf8_to_utf16le_lossy_into`] with a forced `kernel`; see
/// [`utf8_to_utf16_lossy_with`].
///
/// # Errors
///
/// Inside the `Some`: as [`utf8_to_utf16le_lossy_into`].
#[doc(hidden)]
pub fn utf8_to_utf16le_lossy_with(
    kernel: Kernel,
    bytes: &[u8],
    out: &mut [u8],
) -> Option<Result<usize, TranscodeError<Infallible>>> {
    Splitter::forced(kernel)
        .map(|s| utf8_to_utf16_bytes_lossy_into(s, false, bytes, out, u16::to_le_bytes))
}

/// [`utf8_to_utf16be_lossy_into`] with a forced `kernel`; see
/// [`utf8_to_utf16_lossy_with`].
///
/// # Errors
///
/// Inside the `Some`: as [`utf8_to_utf16be_lossy_into`].
#[doc(hidden)]
pub fn utf8_to_utf16be_lossy_with(
    kernel: Kernel,
    bytes: &[u8],
    out: &mut [u8],
) -> Option<Result<usize, TranscodeError<Infallible>>> {
    Splitter::forced(kernel)
        .map(|s| utf8_to_utf16_bytes_lossy_into(s, true, bytes, out, u16::to_be_bytes))
}

/// [`utf16_to_utf8_into`] with the transcoder of a forced `kernel`; `None`
/// if the CPU lacks the kernel.
///
/// # Errors
///
/// Inside the `Some`: as [`utf16_to_utf8_into`].
#[doc(hidden)]
pub fn utf16_to_utf8_with(
    kernel: Kernel,
    units: &[u16],
    out: &mut [u8],
) -> Option<Result<usize, TranscodeError<Utf16Error>>> {
    let capacity = out.len();
    kernel.is_available().then(|| {
        let engine = Engine::for_kernel(kernel);
        fit(
            utf16_to_utf8_run::<u16, false>(engine, NATIVE_BE, units, out, |u| u),
            capacity,
        )
    })
}

/// [`utf16_to_utf8_lossy_into`] with the transcoder of a forced `kernel`;
/// `None` if the CPU lacks the kernel. Returns the bytes needed, which may
/// exceed `out.len()` (then `out` holds a prefix).
#[doc(hidden)]
pub fn utf16_to_utf8_lossy_with(kernel: Kernel, units: &[u16], out: &mut [u8]) -> Option<usize> {
    kernel.is_available().then(|| {
        let engine = Engine::for_kernel(kernel);
        utf16_to_utf8_run::<u16, true>(engine, NATIVE_BE, units, out, |u| u).unwrap_or(0)
    })
}

/// [`utf16le_to_utf8_into`] with the transcoder of a forced `kernel`.
///
/// # Errors
///
/// Inside the `Some`: as [`utf16le_to_utf8_into`].
#[doc(hidden)]
pub fn utf16le_to_utf8_with(
    kernel: Kernel,
    bytes: &[u8],
    out: &mut [u8],
) -> Option<Result<usize, TranscodeError<Utf16Error>>> {
    utf16_bytes_to_utf8_with(kernel, false, bytes, out, u16::from_le_bytes)
}

/// [`utf16be_to_utf8_into`] with the transcoder of a forced `kernel`.
///
/// # Errors
///
/// Inside the `Some`: as [`utf16be_to_utf8_into`].
#[doc(hidden)]
pub fn utf16be_to_utf8_with(
    kernel: Kernel,
    bytes: &[u8],
    out: &mut [u8],
) -> Option<Result<usize, TranscodeError<Utf16Error>>> {
    utf16_bytes_to_utf8_with(kernel, true, bytes, out, u16::from_be_bytes)
}

fn utf16_bytes_to_utf8_with(
    kernel: Kernel,
    be: bool,
    bytes: &[u8],
    out: &mut [u8],
    unit: fn([u8; 2]) -> u16,
) -> Option<Result<usize, TranscodeError<Utf16Error>>> {
    kernel.is_available().then(|| {
        let units = as_units(bytes).map_err(TranscodeError::Invalid)?;
        let capacity = out.len();
        let engine = Engine::for_kernel(kernel);
        fit(
            utf16_to_utf8_run::<[u8; 2], false>(engine, be, units, out, unit),
            capacity,
        )
    })
}

/// [`utf16_len_from_utf8`] by the transcoder of a forced `kernel`; `None`
/// if the CPU lacks the kernel.
#[doc(hidden)]
pub fn utf16_len_from_utf8_with(kernel: Kernel, bytes: &[u8]) -> Option<usize> {
    kernel
        .is_available()
        .then(|| utf16_len_by(Engine::for_kernel(kernel), bytes))
}

/// [`utf8_len_from_utf16`](super::utf8_len_from_utf16) of native-order
/// `units` by `engine`.
#[inline]
pub(super) fn utf8_len_from_native_utf16(engine: Engine, units: &[u16]) -> usize {
    utf8_len_by(engine, NATIVE_BE, units, |u| u)
}

/// [`utf8_len_from_utf16`](super::utf8_len_from_utf16) by the transcoder of
/// a forced `kernel`; `None` if the CPU lacks the kernel.
#[doc(hidden)]
pub fn utf8_len_from_utf16_with(kernel: Kernel, units: &[u16]) -> Option<usize> {
    kernel
        .is_available()
        .then(|| utf8_len_from_native_utf16(Engine::for_kernel(kernel), units))
}
