//! UTF-8 ⇄ UTF-32 (native `u32` code units).

use core::convert::Infallible;

#[cfg(any(target_arch = "x86_64", feature = "alloc"))]
use super::count::count_non_continuation_by;
#[cfg(feature = "alloc")]
use super::count::utf8_len_from_utf32_by;
#[cfg(target_arch = "x86_64")]
use super::simd::check_avx512::Fused;
use super::simd::{Engine, Progress};
#[cfg(target_arch = "x86_64")]
use super::simd::{utf32_avx512, utf32_fused_avx512};
use super::step::{copy_ascii_word, decode_utf8, put, put_replacement, put_utf8};
use super::{CHUNK, TranscodeError, Utf32Error, fit, next_valid_chunk};
use crate::validate::validate_by;
use crate::{Kernel, Utf8Error};

#[cfg(feature = "alloc")]
use super::{run_to_vec, string_from_kernel};
#[cfg(feature = "alloc")]
use alloc::{string::String, vec::Vec};

/// The UTF-8 → UTF-32 kernel: validates `src`, writes the scalar values into
/// `dst` as far as they fit, and returns how many there are.
#[inline(always)]
fn utf8_to_utf32_scalar(src: &[u8], dst: &mut [u32]) -> Result<usize, Utf8Error> {
    let mut i = 0;
    let mut o = 0;
    while let Some(rest) = src.get(i..).filter(|r| !r.is_empty()) {
        // ASCII, eight bytes per step while input and output both have room.
        let ascii = copy_ascii_word(rest, dst.get_mut(o..).unwrap_or_default(), u32::from);
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
                put(dst, o, cp);
                o += 1;
                i += n;
            }
            Err((len, kind)) => return Err(Utf8Error::new(i, len, kind)),
        }
    }
    Ok(o)
}

/// Inputs shorter than this go to the scalar kernel alone.
const SIMD_MIN: usize = 16;

/// UTF-8 → UTF-32 for `src` known to be valid: the SIMD kernel, then the
/// scalar kernel from where it stopped. Returns the values needed.
#[inline]
fn valid_utf8_to_utf32_run(engine: Engine, src: &[u8], dst: &mut [u32]) -> usize {
    // A short ASCII input in one step, as in the validating conversion.
    // (Without it, 64 bytes of ASCII took 1.8 times as long as there.)
    if src.len() >= SIMD_MIN
        && let Some(n) = short_ascii_to_utf32(engine, src, dst)
    {
        return n;
    }
    let p = match engine {
        #[cfg(target_arch = "x86_64")]
        Engine::Avx512 if src.len() >= SIMD_MIN => {
            let (ptr, cap) = (dst.as_mut_ptr(), dst.len());
            // SAFETY: `Engine::Avx512` is only chosen when the CPU has the
            // kernel's features; `dst` is `cap` writable values.
            unsafe { utf32_avx512::utf8_to_utf32::<false>(src, ptr, cap) }
        }
        #[cfg(target_arch = "x86_64")]
        Engine::Avx2 => {
            let (ptr, cap) = (dst.as_mut_ptr(), dst.len());
            // SAFETY: `Engine::Avx2` is only chosen when the CPU has the
            // kernel's features; `dst` is `cap` writable values.
            unsafe { super::simd::utf32_avx2::utf8_to_utf32::<false>(src, ptr, cap) }
        }
        #[cfg(target_arch = "x86_64")]
        Engine::Sse41 => {
            let (ptr, cap) = (dst.as_mut_ptr(), dst.len());
            // SAFETY: `Engine::Sse41` is only chosen when the CPU has the
            // kernel's features; `dst` is `cap` writable values.
            unsafe { super::simd::utf32_sse41::utf8_to_utf32::<false>(src, ptr, cap) }
        }
        _ => Progress::default(),
    };
    let rest = src.get(p.read..).unwrap_or_default();
    let out = dst.get_mut(p.written..).unwrap_or_default();
    // Valid input, cut at a character boundary: the scalar kernel cannot fail.
    p.written + utf8_to_utf32_scalar(rest, out).unwrap_or(0)
}

/// Converts the ASCII blocks at the start of `src` (any bytes) by `engine`.
#[inline]
fn ascii_prefix_to_utf32(engine: Engine, src: &[u8], dst: &mut [u32]) -> Progress {
    match engine {
        #[cfg(target_arch = "x86_64")]
        Engine::Avx512 => {
            let (ptr, cap) = (dst.as_mut_ptr(), dst.len());
            // SAFETY: `Engine::Avx512` is only chosen when the CPU has the
            // kernel's features; `dst` is `cap` writable values.
            unsafe { utf32_avx512::utf8_to_utf32::<true>(src, ptr, cap) }
        }
        #[cfg(target_arch = "x86_64")]
        Engine::Avx2 => {
            let (ptr, cap) = (dst.as_mut_ptr(), dst.len());
            // SAFETY: as above, for `Engine::Avx2`.
            unsafe { super::simd::utf32_avx2::utf8_to_utf32::<true>(src, ptr, cap) }
        }
        #[cfg(target_arch = "x86_64")]
        Engine::Sse41 => {
            let (ptr, cap) = (dst.as_mut_ptr(), dst.len());
            // SAFETY: as above, for `Engine::Sse41`.
            unsafe { super::simd::utf32_sse41::utf8_to_utf32::<true>(src, ptr, cap) }
        }
        _ => Progress::default(),
    }
}

/// Bytes of two SIMD blocks: an ASCII input up to this long is converted
/// in a straight line. (64 until 2026-11-28: ASCII of 65 to 128 bytes then
/// went through the general path at about 0.6–0.9 × simdutf.)
const SHORT: usize = 128;

/// The whole conversion of a short (`<= SHORT` bytes) ASCII `src` that
/// fits in `dst`, by `engine` in one step; else `None`, and the general
/// path decides.
#[inline(always)]
fn short_ascii_to_utf32(engine: Engine, src: &[u8], dst: &mut [u32]) -> Option<usize> {
    match engine {
        #[cfg(target_arch = "x86_64")]
        Engine::Avx512 if src.len() <= SHORT => {
            let (ptr, cap) = (dst.as_mut_ptr(), dst.len());
            // SAFETY: `Engine::Avx512` is only chosen when the CPU has the
            // kernel's features; `src.len() <= 128`, split between the
            // one-block and the two-block path; `dst` is `cap` writable
            // values.
            unsafe {
                if src.len() <= SHORT / 2 {
                    utf32_avx512::ascii_to_utf32_short(src, ptr, cap)
                } else {
                    utf32_avx512::ascii_to_utf32_two_blocks(src, ptr, cap)
                }
            }
        }
        _ => None,
    }
}

/// UTF-8 → UTF-32 with validation by `kernel` (which the CPU supports):
/// with the AVX-512 transcoder, one pass validates and converts
/// (`utf32_fused_avx512`); with the others, a chunk at a time is
/// validated, then converted by the SIMD kernel and the scalar kernel from
/// where it stopped (so the conversion reads bytes the validator just
/// brought into L1).
///
/// `None` stands for the detected kernel, whose transcoder is one cached
/// load away ([`Engine::detected`]); the kernel itself is only looked up
/// past the short ASCII path. (Until 2026-11-27 every call looked up the
/// kernel and then its transcoder: all-ASCII, Latin and `sparse` at 64 B
/// measured 0.93–0.95 ÷ simdutf that way and 1.14–1.20 this way, Intel
/// Xeon with AVX-512 FP16.)
#[inline(always)]
fn utf8_to_utf32_run(
    kernel: Option<Kernel>,
    src: &[u8],
    dst: &mut [u32],
) -> Result<usize, Utf8Error> {
    let engine = kernel.map_or_else(Engine::detected, Engine::for_kernel);
    if engine == Engine::Scalar || src.len() < SIMD_MIN {
        return utf8_to_utf32_scalar(src, dst);
    }
    if let Some(n) = short_ascii_to_utf32(engine, src, dst) {
        return Ok(n);
    }
    utf8_to_utf32_long(kernel.unwrap_or_else(Kernel::detected), engine, src, dst)
}

/// [`utf8_to_utf32_run`] past the short ASCII path: out of line, so that
/// short calls do not pay for the registers the chunk loop saves. An ASCII
/// start is converted first, by the ASCII-only kernel (which streams a
/// large one to memory).
#[inline(never)]
fn utf8_to_utf32_long(
    kernel: Kernel,
    engine: Engine,
    src: &[u8],
    dst: &mut [u32],
) -> Result<usize, Utf8Error> {
    // An ASCII start needs no validation: convert it right away (short
    // ASCII inputs end here).
    let ascii = ascii_prefix_to_utf32(engine, src, dst);
    if ascii.read == src.len() {
        return Ok(ascii.written);
    }
    #[cfg(target_arch = "x86_64")]
    if engine == Engine::Avx512 {
        let (ptr, cap) = (dst.as_mut_ptr(), dst.len());
        // SAFETY: `Engine::Avx512` is only chosen when the CPU has the
        // kernel's features; `dst` is `cap` writable values; the ASCII
        // prefix kernel converted `src[..ascii.read]`, ASCII, to as many
        // values, so `ascii.read <= cap` and is a character boundary.
        let fused = unsafe { utf32_fused_avx512::utf8_to_utf32(src, ptr, cap, ascii.read) };
        return match fused.all_of(src.len()) {
            Some(written) => Ok(written),
            None => utf8_to_utf32_after_fused(src, fused),
        };
    }
    // (A SIMD engine implies the kernel is available: its features are a
    // superset; `validate_by` checks it anyway.)
    let mut start = ascii.read;
    let mut o = ascii.written;
    if let Some(rest) = src.get(start..).filter(|r| r.len() <= CHUNK) {
        validate_by(kernel, rest).map_err(|e| e.offset_by(start))?;
        let out = dst.get_mut(o..).unwrap_or_default();
        return Ok(o + valid_utf8_to_utf32_run(engine, rest, out));
    }
    while let Some(rest) = src.get(start..).filter(|r| !r.is_empty()) {
        if start > ascii.read {
            // Each chunk's ASCII start, likewise.
            let ascii = ascii_prefix_to_utf32(engine, rest, dst.get_mut(o..).unwrap_or_default());
            start += ascii.read;
            o += ascii.written;
        }
        let Some(rest) = src.get(start..).filter(|r| !r.is_empty()) else {
            break;
        };
        let len = next_valid_chunk(kernel, rest).map_err(|e| e.offset_by(start))?;
        let chunk = rest.get(..len).unwrap_or_default();
        let out = dst.get_mut(o..).unwrap_or_default();
        o += valid_utf8_to_utf32_run(engine, chunk, out);
        start += len;
    }
    Ok(o)
}

/// Finishes [`utf8_to_utf32_long`] after the fused AVX-512 kernel stopped
/// early at `p`. At an error, locates it exactly. Out of room (`src[..p.read]`
/// valid and converted to `p.written` values, which filled the buffer):
/// checks the rest (an error there is the input's error) and counts its
/// characters.
#[cfg(target_arch = "x86_64")]
#[cold]
#[inline(never)]
fn utf8_to_utf32_after_fused(src: &[u8], p: Fused) -> Result<usize, Utf8Error> {
    if p.written == Fused::INVALID {
        return Err(crate::validate::locate(src, p.read));
    }
    let rest = src.get(p.read..).unwrap_or_default();
    // `p.read` is a character boundary after valid UTF-8, so the input's
    // first error is the rest's, moved by `p.read`.
    validate_by(Kernel::Avx512, rest).map_err(|e| e.offset_by(p.read))?;
    Ok(p.written + count_non_continuation_by(Engine::Avx512, rest))
}

/// The UTF-32 → UTF-8 kernel. With `LOSSY` each value that is not a scalar
/// value becomes U+FFFD, otherwise the first one is the error.
#[inline(always)]
fn utf32_to_utf8_scalar<const LOSSY: bool>(
    src: &[u32],
    dst: &mut [u8],
) -> Result<usize, Utf32Error> {
    let mut o = 0;
    for (i, &v) in src.iter().enumerate() {
        if v < 0x80 {
            // Lossless: v < 0x80.
            put(dst, o, v as u8);
            o += 1;
        } else if char::from_u32(v).is_some() {
            o += put_utf8(dst, o, v);
        } else if LOSSY {
            o += put_replacement(dst, o);
        } else {
            return Err(Utf32Error::new(i, v));
        }
    }
    Ok(o)
}

/// UTF-32 inputs shorter than this (in values) go to the scalar kernel
/// alone: one (masked) register is the SIMD kernel's smallest step.
const SIMD_MIN_32: usize = 16;

/// UTF-32 → UTF-8 by `engine`: the SIMD kernel as far as it goes, then the
/// scalar kernel (which reports the first invalid value, or replaces it
/// with `LOSSY`). Returns the bytes needed.
#[inline(always)]
fn utf32_to_utf8_run<const LOSSY: bool>(
    engine: Engine,
    src: &[u32],
    dst: &mut [u8],
) -> Result<usize, Utf32Error> {
    let p = match engine {
        #[cfg(target_arch = "x86_64")]
        Engine::Avx512 if src.len() >= SIMD_MIN_32 => {
            let (ptr, cap) = (dst.as_mut_ptr(), dst.len());
            // SAFETY: `Engine::Avx512` is only chosen when the CPU has the
            // kernel's features; `dst` is `cap` writable bytes.
            unsafe { utf32_avx512::utf32_to_utf8::<LOSSY>(src, ptr, cap) }
        }
        #[cfg(target_arch = "x86_64")]
        Engine::Avx2 => {
            let (ptr, cap) = (dst.as_mut_ptr(), dst.len());
            // SAFETY: `Engine::Avx2` is only chosen when the CPU has the
            // kernel's features; `dst` is `cap` writable bytes.
            unsafe { super::simd::utf32_avx2::utf32_to_utf8::<LOSSY>(src, ptr, cap) }
        }
        #[cfg(target_arch = "x86_64")]
        Engine::Sse41 => {
            let (ptr, cap) = (dst.as_mut_ptr(), dst.len());
            // SAFETY: `Engine::Sse41` is only chosen when the CPU has the
            // kernel's features; `dst` is `cap` writable bytes.
            unsafe { super::simd::utf32_sse41::utf32_to_utf8::<LOSSY>(src, ptr, cap) }
        }
        _ => Progress::default(),
    };
    let rest = src.get(p.read..).unwrap_or_default();
    let out = dst.get_mut(p.written..).unwrap_or_default();
    match utf32_to_utf8_scalar::<LOSSY>(rest, out) {
        Ok(n) => Ok(p.written + n),
        Err(e) => Err(Utf32Error::new(p.read + e.index(), e.value())),
    }
}

/// Converts UTF-8 to UTF-32 (one `u32` per character), validating it.
///
/// # Errors
///
/// If `bytes` is not UTF-8, exactly the error [`validate`](crate::validate())
/// returns.
///
/// # Example
///
/// ```
/// use utf8kit::transcode::utf8_to_utf32;
///
/// assert_eq!(utf8_to_utf32("a€😀".as_bytes()).unwrap(), [0x61, 0x20AC, 0x1F600]);
/// assert_eq!(utf8_to_utf32(b"a\xC0\x80").unwrap_err().valid_up_to(), 1);
/// ```
#[cfg(feature = "alloc")]
pub fn utf8_to_utf32(bytes: &[u8]) -> Result<Vec<u32>, Utf8Error> {
    run_to_vec(
        count_non_continuation_by(Engine::detected(), bytes),
        |dst| utf8_to_utf32_run(None, bytes, dst),
    )
}

/// Converts UTF-8 to UTF-32 in `out`, returning the number of values written
/// (the number of characters, [`count_chars`](super::count_chars)).
///
/// # Errors
///
/// [`TranscodeError::Invalid`] with the error of [`validate`](crate::validate())
/// if `bytes` is not UTF-8 (checked over the whole input first), otherwise
/// [`TranscodeError::BufferTooSmall`].
///
/// # Example
///
/// ```
/// let mut out = [0u32; 2];
/// assert_eq!(utf8kit::transcode::utf8_to_utf32_into("é😀".as_bytes(), &mut out), Ok(2));
/// assert_eq!(out, [0xE9, 0x1F600]);
/// ```
#[inline]
pub fn utf8_to_utf32_into(bytes: &[u8], out: &mut [u32]) -> Result<usize, TranscodeError> {
    let capacity = out.len();
    fit(utf8_to_utf32_run(None, bytes, out), capacity)
}

/// [`utf8_to_utf32_into`] with a forced validation `kernel` (and the
/// transcoder that goes with it); `None` if the CPU lacks the kernel. For
/// tests and benchmarks.
///
/// # Errors
///
/// Inside the `Some`: as [`utf8_to_utf32_into`].
#[doc(hidden)]
pub fn utf8_to_utf32_with(
    kernel: Kernel,
    bytes: &[u8],
    out: &mut [u32],
) -> Option<Result<usize, TranscodeError>> {
    let capacity = out.len();
    kernel
        .is_available()
        .then(|| fit(utf8_to_utf32_run(Some(kernel), bytes, out), capacity))
}

/// Converts a string to UTF-32 (one `u32` per character). The input is
/// known to be valid, so, unlike [`utf8_to_utf32`], nothing is validated.
///
/// # Example
///
/// ```
/// assert_eq!(utf8kit::transcode::valid_utf8_to_utf32("a€😀"), [0x61, 0x20AC, 0x1F600]);
/// ```
#[cfg(feature = "alloc")]
pub fn valid_utf8_to_utf32(text: &str) -> Vec<u32> {
    let engine = Engine::detected();
    let bytes = text.as_bytes();
    run_to_vec(count_non_continuation_by(engine, bytes), |dst| {
        Ok::<_, Infallible>(valid_utf8_to_utf32_run(engine, bytes, dst))
    })
    .unwrap_or_default()
}

/// Converts a string to UTF-32 in `out`, returning the number of values
/// written (the number of characters). The input is known to be valid, so,
/// unlike [`utf8_to_utf32_into`], nothing is validated.
///
/// # Errors
///
/// [`TranscodeError::BufferTooSmall`] if `out` has fewer values than `text`
/// has characters.
///
/// # Example
///
/// ```
/// let mut out = [0u32; 2];
/// assert_eq!(utf8kit::transcode::valid_utf8_to_utf32_into("é😀", &mut out), Ok(2));
/// assert_eq!(out, [0xE9, 0x1F600]);
/// ```
pub fn valid_utf8_to_utf32_into(
    text: &str,
    out: &mut [u32],
) -> Result<usize, TranscodeError<Infallible>> {
    let capacity = out.len();
    let needed = valid_utf8_to_utf32_run(Engine::detected(), text.as_bytes(), out);
    fit(Ok(needed), capacity)
}

/// [`valid_utf8_to_utf32_into`] with the transcoder of a forced `kernel`;
/// `None` if the CPU lacks the kernel. For tests and benchmarks.
///
/// # Errors
///
/// Inside the `Some`: as [`valid_utf8_to_utf32_into`].
#[doc(hidden)]
pub fn valid_utf8_to_utf32_with(
    kernel: Kernel,
    text: &str,
    out: &mut [u32],
) -> Option<Result<usize, TranscodeError<Infallible>>> {
    let capacity = out.len();
    kernel.is_available().then(|| {
        let needed = valid_utf8_to_utf32_run(Engine::for_kernel(kernel), text.as_bytes(), out);
        fit(Ok(needed), capacity)
    })
}

/// Converts UTF-32 to UTF-8.
///
/// # Errors
///
/// [`Utf32Error`] with the index of the first value that is a surrogate
/// (`D800..=DFFF`) or above `10FFFF`.
///
/// # Example
///
/// ```
/// use utf8kit::transcode::utf32_to_utf8;
///
/// assert_eq!(utf32_to_utf8(&[0x61, 0x20AC, 0x1F600]).unwrap(), "a€😀");
/// assert_eq!(utf32_to_utf8(&[0x61, 0xD800]).unwrap_err().index(), 1);
/// ```
#[cfg(feature = "alloc")]
pub fn utf32_to_utf8(units: &[u32]) -> Result<String, Utf32Error> {
    let kernel = Kernel::detected();
    let engine = Engine::for_kernel(kernel);
    let bytes = run_to_vec(utf8_len_from_utf32_by(kernel, units), |dst| {
        utf32_to_utf8_run::<false>(engine, units, dst)
    })?;
    // SAFETY: `bytes` is the output of `utf32_to_utf8_scalar`, which writes
    // only ASCII bytes and `put_utf8` of values `char::from_u32` accepted,
    // and of the SIMD kernel, which writes the UTF-8 of blocks it checked
    // to hold scalar values only.
    Ok(unsafe { string_from_kernel(bytes) })
}

/// Converts UTF-32 to UTF-8, replacing each value that is not a scalar value
/// with U+FFFD.
///
/// # Example
///
/// ```
/// use utf8kit::transcode::utf32_to_utf8_lossy;
///
/// assert_eq!(utf32_to_utf8_lossy(&[0x61, 0xDC00, 0x11_0000, 0x62]), "a\u{FFFD}\u{FFFD}b");
/// ```
#[cfg(feature = "alloc")]
pub fn utf32_to_utf8_lossy(units: &[u32]) -> String {
    let kernel = Kernel::detected();
    let engine = Engine::for_kernel(kernel);
    let bytes = run_to_vec(utf8_len_from_utf32_by(kernel, units), |dst| {
        utf32_to_utf8_run::<true>(engine, units, dst)
    })
    .unwrap_or_default();
    // SAFETY: as in `utf32_to_utf8`, plus `put_replacement` and the SIMD
    // kernel's U+FFFD for the values it replaced before encoding.
    unsafe { string_from_kernel(bytes) }
}

/// Converts UTF-32 to UTF-8 in `out`, returning the number of bytes written.
///
/// [`utf8_len_from_utf32`](super::utf8_len_from_utf32) gives the length `out`
/// needs.
///
/// # Errors
///
/// [`TranscodeError::Invalid`] with the first invalid value, otherwise
/// [`TranscodeError::BufferTooSmall`].
///
/// # Example
///
/// ```
/// let mut out = [0u8; 4];
/// assert_eq!(utf8kit::transcode::utf32_to_utf8_into(&[0x1F600], &mut out), Ok(4));
/// assert_eq!(&out, "😀".as_bytes());
/// ```
#[inline]
pub fn utf32_to_utf8_into(
    units: &[u32],
    out: &mut [u8],
) -> Result<usize, TranscodeError<Utf32Error>> {
    #[cfg(target_arch = "x86_64")]
    if Engine::detected() == Engine::Avx512 && units.len() >= SIMD_MIN_32 {
        // The common case (the AVX-512 kernel converts all of the input,
        // which means it fit and was valid) inline in the caller; every
        // other case from the start out of line.
        let (ptr, cap) = (out.as_mut_ptr(), out.len());
        // SAFETY: `Engine::Avx512` is only chosen when the CPU has the
        // kernel's features; `out` is `cap` writable bytes.
        let p = unsafe { utf32_avx512::utf32_to_utf8::<false>(units, ptr, cap) };
        if p.read == units.len() {
            return Ok(p.written);
        }
    }
    utf32_to_utf8_into_slow(units, out)
}

/// [`utf32_to_utf8_into`] in full (every engine, every end), from the
/// start.
#[inline(never)]
fn utf32_to_utf8_into_slow(
    units: &[u32],
    out: &mut [u8],
) -> Result<usize, TranscodeError<Utf32Error>> {
    let capacity = out.len();
    fit(
        utf32_to_utf8_run::<false>(Engine::detected(), units, out),
        capacity,
    )
}

/// Converts UTF-32 to UTF-8 in `out`, replacing invalid values with U+FFFD,
/// and returns the number of bytes written.
///
/// # Errors
///
/// [`TranscodeError::BufferTooSmall`] if `out` is shorter than
/// [`utf8_len_from_utf32`](super::utf8_len_from_utf32).
///
/// # Example
///
/// ```
/// let mut out = [0u8; 3];
/// assert_eq!(utf8kit::transcode::utf32_to_utf8_lossy_into(&[0xFFFF_FFFF], &mut out), Ok(3));
/// assert_eq!(&out, "\u{FFFD}".as_bytes());
/// ```
pub fn utf32_to_utf8_lossy_into(
    units: &[u32],
    out: &mut [u8],
) -> Result<usize, TranscodeError<Infallible>> {
    let capacity = out.len();
    match utf32_to_utf8_run::<true>(Engine::detected(), units, out) {
        Ok(n) => fit(Ok(n), capacity),
        // Unreachable: the lossy kernel reports no errors.
        Err(_) => {
            debug_assert!(false, "lossy UTF-32 kernel returned an error");
            Ok(0)
        }
    }
}

/// [`utf32_to_utf8_into`] with the transcoder of a forced `kernel`; `None`
/// if the CPU lacks the kernel. For tests and benchmarks.
///
/// # Errors
///
/// Inside the `Some`: as [`utf32_to_utf8_into`].
///
/// # Example
///
/// ```
/// use utf8kit::{Kernel, transcode::utf32_to_utf8_with};
///
/// for kernel in Kernel::available() {
///     let mut out = [0u8; 5];
///     assert_eq!(utf32_to_utf8_with(kernel, &[0x61, 0x1F600], &mut out), Some(Ok(5)));
///     assert_eq!(&out, "a😀".as_bytes());
/// }
/// ```
#[doc(hidden)]
pub fn utf32_to_utf8_with(
    kernel: Kernel,
    units: &[u32],
    out: &mut [u8],
) -> Option<Result<usize, TranscodeError<Utf32Error>>> {
    let capacity = out.len();
    kernel.is_available().then(|| {
        let engine = Engine::for_kernel(kernel);
        fit(utf32_to_utf8_run::<false>(engine, units, out), capacity)
    })
}

/// [`utf32_to_utf8_lossy_into`] with the transcoder of a forced `kernel`;
/// `None` if the CPU lacks the kernel. Returns the bytes needed, which may
/// exceed `out.len()` (then `out` holds a prefix).
///
/// ```
/// use utf8kit::{Kernel, transcode::utf32_to_utf8_lossy_with};
///
/// for kernel in Kernel::available() {
///     let mut out = [0u8; 4];
///     assert_eq!(utf32_to_utf8_lossy_with(kernel, &[0x61, 0xDC00], &mut out), Some(4));
///     assert_eq!(&out, "a\u{FFFD}".as_bytes());
/// }
/// ```
#[doc(hidden)]
pub fn utf32_to_utf8_lossy_with(kernel: Kernel, units: &[u32], out: &mut [u8]) -> Option<usize> {
    kernel.is_available().then(|| {
        let engine = Engine::for_kernel(kernel);
        utf32_to_utf8_run::<true>(engine, units, out).unwrap_or(0)
    })
}
