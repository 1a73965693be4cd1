//! Latin-1 (ISO-8859-1: bytes are the code points U+0000..=U+00FF) ⇄ UTF-8.
//!
//! This is the true ISO-8859-1, not windows-1252 (which the WHATWG Encoding
//! Standard calls "latin1"): bytes `80..=9F` are the C1 controls
//! U+0080..=U+009F. Legacy code pages live in `utf8kit-legacy`.
//!
//! With AVX-512, AVX2 or SSE4.1 the SIMD kernels (`simd/latin1_avx512.rs`,
//! 64 bytes per step; `simd/latin1_avx2.rs`, 32 (ASCII 128);
//! `simd/latin1_sse41.rs`, 16) convert and the scalar kernels
//! below finish from where they stop (the end of the room in the output, or,
//! for UTF-8 input, a block that is not plain ASCII and `C2`/`C3` pairs,
//! which the scalar kernel then reports as the error it is).

use core::convert::Infallible;

use super::count::{count_non_continuation_by, utf8_len_from_latin1_scalar};
#[cfg(target_arch = "x86_64")]
use super::simd::latin1_avx512;
use super::simd::{Engine, Progress};
use super::step::{HIGH_BITS, copy_ascii_word, decode_utf8, put, put_utf8};
use super::{Latin1Error, TranscodeError, fit};
use crate::{Kernel, Utf8Error};

#[cfg(feature = "alloc")]
use super::{run_to_vec, string_from_kernel};
#[cfg(feature = "alloc")]
use alloc::{string::String, vec::Vec};

/// The Latin-1 → UTF-8 kernel: writes what fits, returns the full length.
#[inline(always)]
fn latin1_to_utf8_scalar(src: &[u8], dst: &mut [u8]) -> usize {
    let mut i = 0;
    let mut o = 0;
    while let Some(&b) = src.get(i) {
        if let (Some(word), Some(out)) = (
            src.get(i..).and_then(|s| s.first_chunk::<8>()),
            dst.get_mut(o..).and_then(|d| d.first_chunk_mut::<8>()),
        ) && u64::from_le_bytes(*word) & HIGH_BITS == 0
        {
            *out = *word;
            i += 8;
            o += 8;
            continue;
        }
        o += put_utf8(dst, o, u32::from(b));
        i += 1;
    }
    o
}

/// The UTF-8 → Latin-1 kernel: validates, writes what fits, returns the
/// full length or the first problem.
#[inline(always)]
fn utf8_to_latin1_scalar(src: &[u8], dst: &mut [u8]) -> Result<usize, Latin1Error> {
    let mut i = 0;
    let mut o = 0;
    while let Some(rest) = src.get(i..).filter(|r| !r.is_empty()) {
        // ASCII, eight bytes per step while input and output both have room.
        let ascii = copy_ascii_word(rest, dst.get_mut(o..).unwrap_or_default(), |b| b);
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
                match u8::try_from(cp) {
                    Ok(b) => put(dst, o, b),
                    Err(_) => {
                        let ch = char::from_u32(cp).unwrap_or(char::REPLACEMENT_CHARACTER);
                        return Err(Latin1Error::Unrepresentable { offset: i, ch });
                    }
                }
                o += 1;
                i += n;
            }
            Err((len, kind)) => {
                return Err(Latin1Error::InvalidUtf8(Utf8Error::new(i, len, kind)));
            }
        }
    }
    Ok(o)
}

/// Latin-1 → UTF-8 by `engine`: the SIMD kernel, then the scalar kernel
/// from where it stopped. Returns the bytes the whole output needs.
#[inline]
fn latin1_to_utf8_run(engine: Engine, src: &[u8], dst: &mut [u8]) -> usize {
    let p = match engine {
        #[cfg(target_arch = "x86_64")]
        Engine::Avx512 => {
            let (ptr, cap) = (dst.as_mut_ptr(), dst.len());
            // SAFETY: `Engine::Avx512` is only chosen when the CPU has the
            // kernel's features; `dst` is `cap` writable bytes.
            unsafe { latin1_avx512::latin1_to_utf8(src, ptr, cap) }
        }
        #[cfg(target_arch = "x86_64")]
        Engine::Avx2 => {
            let (ptr, cap) = (dst.as_mut_ptr(), dst.len());
            // SAFETY: `Engine::Avx2` is only chosen when the CPU has the
            // kernel's features; `dst` is `cap` writable bytes.
            unsafe { super::simd::latin1_avx2::latin1_to_utf8(src, ptr, cap) }
        }
        #[cfg(target_arch = "x86_64")]
        Engine::Sse41 => {
            let (ptr, cap) = (dst.as_mut_ptr(), dst.len());
            // SAFETY: `Engine::Sse41` is only chosen when the CPU has the
            // kernel's features; `dst` is `cap` writable bytes.
            unsafe { super::simd::latin1_sse41::latin1_to_utf8(src, ptr, cap) }
        }
        _ => Progress::default(),
    };
    if p.read == src.len() {
        return p.written;
    }
    latin1_to_utf8_finish(src, dst, p)
}

/// The scalar end of [`latin1_to_utf8_run`] (out of line, so the call for
/// a short input that the SIMD kernel converts whole stays small).
#[inline(never)]
fn latin1_to_utf8_finish(src: &[u8], dst: &mut [u8], p: Progress) -> usize {
    let rest = src.get(p.read..).unwrap_or_default();
    let out = dst.get_mut(p.written..).unwrap_or_default();
    p.written + latin1_to_utf8_scalar(rest, out)
}

/// UTF-8 → Latin-1 by `engine`: the SIMD kernel while its blocks are plain,
/// then the scalar kernel from that character boundary, which converts the
/// rest or reports the first problem (so every error is the scalar one).
///
/// With `VALID` the input is known to be UTF-8 (it came from a `&str`),
/// which makes the AVX-512 kernel's test cheaper; the AVX2 and SSE4.1
/// kernels' test proves what their stores rely on either way.
#[inline]
fn utf8_to_latin1_run<const VALID: bool>(
    engine: Engine,
    src: &[u8],
    dst: &mut [u8],
) -> Result<usize, Latin1Error> {
    let p = match engine {
        #[cfg(target_arch = "x86_64")]
        Engine::Avx512 => {
            let (ptr, cap) = (dst.as_mut_ptr(), dst.len());
            // SAFETY: as in `latin1_to_utf8_run`; `VALID` only when `src`
            // is UTF-8 (and only the output, never memory safety, depends
            // on it).
            unsafe { latin1_avx512::utf8_to_latin1::<VALID>(src, ptr, cap) }
        }
        #[cfg(target_arch = "x86_64")]
        Engine::Avx2 => {
            let (ptr, cap) = (dst.as_mut_ptr(), dst.len());
            // SAFETY: as for `Engine::Avx512` above.
            unsafe { super::simd::latin1_avx2::utf8_to_latin1(src, ptr, cap) }
        }
        #[cfg(target_arch = "x86_64")]
        Engine::Sse41 => {
            let (ptr, cap) = (dst.as_mut_ptr(), dst.len());
            // SAFETY: as for `Engine::Avx512` above.
            unsafe { super::simd::latin1_sse41::utf8_to_latin1(src, ptr, cap) }
        }
        _ => Progress::default(),
    };
    if p.read == src.len() {
        return Ok(p.written);
    }
    utf8_to_latin1_finish(src, dst, p)
}

/// The scalar end of [`utf8_to_latin1_run`], with error offsets in `src`.
#[inline(never)]
fn utf8_to_latin1_finish(src: &[u8], dst: &mut [u8], p: Progress) -> Result<usize, Latin1Error> {
    let rest = src.get(p.read..).unwrap_or_default();
    let out = dst.get_mut(p.written..).unwrap_or_default();
    match utf8_to_latin1_scalar(rest, out) {
        Ok(n) => Ok(p.written + n),
        Err(Latin1Error::InvalidUtf8(e)) => Err(Latin1Error::InvalidUtf8(e.offset_by(p.read))),
        Err(Latin1Error::Unrepresentable { offset, ch }) => Err(Latin1Error::Unrepresentable {
            offset: offset + p.read,
            ch,
        }),
    }
}

/// [`utf8_len_from_latin1`](super::utf8_len_from_latin1) by `engine`.
#[inline]
pub(super) fn utf8_len_by(engine: Engine, bytes: &[u8]) -> usize {
    match engine {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Engine::Avx512` is only chosen when the CPU has the
        // kernel's features.
        Engine::Avx512 => bytes.len() + unsafe { latin1_avx512::count_high(bytes) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Engine::Avx2` is only chosen when the CPU has the
        // kernel's features.
        Engine::Avx2 => bytes.len() + unsafe { super::simd::latin1_avx2::count_high(bytes) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Engine::Sse41` is only chosen when the CPU has the
        // kernel's features.
        Engine::Sse41 => bytes.len() + unsafe { super::simd::latin1_sse41::count_high(bytes) },
        _ => utf8_len_from_latin1_scalar(bytes),
    }
}

/// Converts Latin-1 to UTF-8. Every byte is a character, so this cannot fail.
///
/// # Example
///
/// ```
/// use utf8kit::transcode::latin1_to_utf8;
///
/// assert_eq!(latin1_to_utf8(b"caf\xE9 \xA3"), "café £");
/// ```
#[cfg(feature = "alloc")]
pub fn latin1_to_utf8(bytes: &[u8]) -> String {
    let mut out = String::new();
    latin1_to_utf8_into_string(bytes, &mut out);
    out
}

/// Appends the UTF-8 conversion of Latin-1 `bytes` to `out`.
///
/// # Example
///
/// ```
/// use utf8kit::transcode::latin1_to_utf8_into_string;
///
/// let mut s = String::from("name: ");
/// latin1_to_utf8_into_string(b"Jos\xE9", &mut s);
/// assert_eq!(s, "name: José");
/// ```
#[cfg(feature = "alloc")]
pub fn latin1_to_utf8_into_string(bytes: &[u8], out: &mut String) {
    let mut buf = core::mem::take(out).into_bytes();
    let start = buf.len();
    let engine = Engine::detected();
    let needed = utf8_len_by(engine, bytes);
    buf.resize(start + needed, 0);
    let written = match buf.get_mut(start..) {
        Some(tail) => latin1_to_utf8_run(engine, bytes, tail),
        None => 0,
    };
    if written != needed {
        // Unreachable (the length function and the kernel agree, which the
        // tests check); fall back to the obvious loop rather than trust a
        // buffer of the wrong length.
        debug_assert!(false, "latin1 kernel wrote {written}, expected {needed}");
        buf.truncate(start);
        // SAFETY: `buf` is now exactly the bytes of the original `String`.
        *out = unsafe { string_from_kernel(buf) };
        out.extend(bytes.iter().map(|&b| char::from(b)));
        return;
    }
    // SAFETY: `buf[..start]` came from a `String`; the rest is the complete
    // output of `latin1_to_utf8_run` (ASCII copies and two-byte encodings
    // of U+0080..=U+00FF, from the SIMD kernel or `put_utf8`) into a tail of
    // exactly the length it needed.
    *out = unsafe { string_from_kernel(buf) };
}

/// Converts Latin-1 to UTF-8 in `out`, returning the number of bytes written.
///
/// [`utf8_len_from_latin1`](super::utf8_len_from_latin1) gives the length
/// `out` needs.
///
/// # Errors
///
/// [`TranscodeError::BufferTooSmall`] if `out` is too short.
///
/// # Example
///
/// ```
/// let mut out = [0u8; 4];
/// assert_eq!(utf8kit::transcode::latin1_to_utf8_into(b"\xFCb", &mut out), Ok(3));
/// assert_eq!(&out[..3], "üb".as_bytes());
/// ```
#[inline]
pub fn latin1_to_utf8_into(
    bytes: &[u8],
    out: &mut [u8],
) -> Result<usize, TranscodeError<Infallible>> {
    #[cfg(target_arch = "x86_64")]
    if Engine::detected() == Engine::Avx512 {
        // The common case inline in the caller (see `utf8_to_latin1_into`).
        let (ptr, cap) = (out.as_mut_ptr(), out.len());
        // SAFETY: `Engine::Avx512` is only chosen when the CPU has the
        // kernel's features; `out` is `cap` writable bytes.
        let p = unsafe { latin1_avx512::latin1_to_utf8(bytes, ptr, cap) };
        if p.read == bytes.len() {
            return Ok(p.written);
        }
    }
    latin1_to_utf8_into_slow(bytes, out)
}

/// [`latin1_to_utf8_into`] in full (every engine, every end), from the
/// start.
#[inline(never)]
fn latin1_to_utf8_into_slow(
    bytes: &[u8],
    out: &mut [u8],
) -> Result<usize, TranscodeError<Infallible>> {
    let capacity = out.len();
    fit(
        Ok(latin1_to_utf8_run(Engine::detected(), bytes, out)),
        capacity,
    )
}

/// Converts UTF-8 to Latin-1, validating it.
///
/// # Errors
///
/// The first problem in the input: [`Latin1Error::InvalidUtf8`] (with the
/// error [`validate`](crate::validate()) reports) or
/// [`Latin1Error::Unrepresentable`] for a character above U+00FF.
///
/// # Example
///
/// ```
/// use utf8kit::transcode::{utf8_to_latin1, Latin1Error};
///
/// assert_eq!(utf8_to_latin1("café".as_bytes()).unwrap(), b"caf\xE9");
/// assert_eq!(
///     utf8_to_latin1("naïve ☃".as_bytes()),
///     Err(Latin1Error::Unrepresentable { offset: 7, ch: '☃' })
/// );
/// ```
#[cfg(feature = "alloc")]
pub fn utf8_to_latin1(bytes: &[u8]) -> Result<Vec<u8>, Latin1Error> {
    let engine = Engine::detected();
    run_to_vec(count_non_continuation_by(engine, bytes), |dst| {
        utf8_to_latin1_run::<false>(engine, bytes, dst)
    })
}

/// Converts UTF-8 to Latin-1 in `out`, returning the number of bytes written.
///
/// [`latin1_len_from_utf8`](super::latin1_len_from_utf8) gives the length
/// `out` needs.
///
/// # Errors
///
/// [`TranscodeError::Invalid`] with the first problem of the input (checked
/// over the whole input first), otherwise [`TranscodeError::BufferTooSmall`].
///
/// # Example
///
/// ```
/// let mut out = [0u8; 4];
/// assert_eq!(utf8kit::transcode::utf8_to_latin1_into("ÿes".as_bytes(), &mut out), Ok(3));
/// assert_eq!(&out[..3], b"\xFFes");
/// ```
#[inline]
pub fn utf8_to_latin1_into(
    bytes: &[u8],
    out: &mut [u8],
) -> Result<usize, TranscodeError<Latin1Error>> {
    #[cfg(target_arch = "x86_64")]
    if Engine::detected() == Engine::Avx512 {
        // The common case (the AVX-512 kernel converts all of the input,
        // which means it fit and was valid) inline in the caller; every
        // other case from the start out of line. Until 2026-11-28 every
        // call went through a function that saved five registers and
        // chose the kernel by a jump table.
        let (ptr, cap) = (out.as_mut_ptr(), out.len());
        // SAFETY: `Engine::Avx512` is only chosen when the CPU has the
        // kernel's features; `out` is `cap` writable bytes.
        let p = unsafe { latin1_avx512::utf8_to_latin1::<false>(bytes, ptr, cap) };
        if p.read == bytes.len() {
            return Ok(p.written);
        }
    }
    utf8_to_latin1_into_slow(bytes, out)
}

/// [`utf8_to_latin1_into`] in full (every engine, every end, every
/// error), from the start.
#[inline(never)]
fn utf8_to_latin1_into_slow(
    bytes: &[u8],
    out: &mut [u8],
) -> Result<usize, TranscodeError<Latin1Error>> {
    let capacity = out.len();
    fit(
        utf8_to_latin1_run::<false>(Engine::detected(), bytes, out),
        capacity,
    )
}

/// Converts a string to Latin-1. The `&str` is valid UTF-8 by its type, so
/// this skips validation: it fails only at a character above U+00FF.
///
/// # Errors
///
/// [`Latin1Error::Unrepresentable`] for the first character above U+00FF.
///
/// # Example
///
/// ```
/// use utf8kit::transcode::{valid_utf8_to_latin1, Latin1Error};
///
/// assert_eq!(valid_utf8_to_latin1("Grüße").unwrap(), b"Gr\xFC\xDFe");
/// assert_eq!(
///     valid_utf8_to_latin1("5 €"),
///     Err(Latin1Error::Unrepresentable { offset: 2, ch: '€' })
/// );
/// ```
#[cfg(feature = "alloc")]
pub fn valid_utf8_to_latin1(text: &str) -> Result<Vec<u8>, Latin1Error> {
    let engine = Engine::detected();
    let bytes = text.as_bytes();
    run_to_vec(count_non_continuation_by(engine, bytes), |dst| {
        utf8_to_latin1_run::<true>(engine, bytes, dst)
    })
}

/// Converts a string to Latin-1 in `out`, returning the number of bytes
/// written. It skips validation, as the `&str` is valid UTF-8.
///
/// [`latin1_len_from_utf8`](super::latin1_len_from_utf8) gives the length
/// `out` needs.
///
/// # Errors
///
/// [`TranscodeError::Invalid`] with [`Latin1Error::Unrepresentable`] for the
/// first character above U+00FF (checked over the whole input first),
/// otherwise [`TranscodeError::BufferTooSmall`].
///
/// # Example
///
/// ```
/// let mut out = [0u8; 4];
/// assert_eq!(utf8kit::transcode::valid_utf8_to_latin1_into("día", &mut out), Ok(3));
/// assert_eq!(&out[..3], b"d\xEDa");
/// ```
pub fn valid_utf8_to_latin1_into(
    text: &str,
    out: &mut [u8],
) -> Result<usize, TranscodeError<Latin1Error>> {
    let capacity = out.len();
    fit(
        utf8_to_latin1_run::<true>(Engine::detected(), text.as_bytes(), out),
        capacity,
    )
}

/// [`valid_utf8_to_latin1_into`] with the transcoder of a forced `kernel`;
/// see [`latin1_to_utf8_with`].
///
/// # Errors
///
/// Inside the `Some`: as [`valid_utf8_to_latin1_into`].
#[doc(hidden)]
pub fn valid_utf8_to_latin1_with(
    kernel: Kernel,
    text: &str,
    out: &mut [u8],
) -> Option<Result<usize, TranscodeError<Latin1Error>>> {
    let capacity = out.len();
    kernel.is_available().then(|| {
        let engine = Engine::for_kernel(kernel);
        fit(
            utf8_to_latin1_run::<true>(engine, text.as_bytes(), out),
            capacity,
        )
    })
}

/// [`latin1_to_utf8_into`] with the transcoder of a forced validation
/// `kernel` ([`Kernel::Avx512`] runs the AVX-512 kernels if the CPU has
/// them, [`Kernel::Avx2`] the AVX2 ones, [`Kernel::Sse42`] the SSE4.1 ones,
/// [`Kernel::Scalar`] the scalar ones); `None` if the CPU lacks the kernel.
/// For tests and benchmarks.
///
/// # Errors
///
/// Inside the `Some`: as [`latin1_to_utf8_into`].
#[doc(hidden)]
pub fn latin1_to_utf8_with(
    kernel: Kernel,
    bytes: &[u8],
    out: &mut [u8],
) -> Option<Result<usize, TranscodeError<Infallible>>> {
    let capacity = out.len();
    kernel.is_available().then(|| {
        let engine = Engine::for_kernel(kernel);
        fit(Ok(latin1_to_utf8_run(engine, bytes, out)), capacity)
    })
}

/// [`utf8_to_latin1_into`] with the transcoder of a forced `kernel`; see
/// [`latin1_to_utf8_with`].
///
/// # Errors
///
/// Inside the `Some`: as [`utf8_to_latin1_into`].
#[doc(hidden)]
pub fn utf8_to_latin1_with(
    kernel: Kernel,
    bytes: &[u8],
    out: &mut [u8],
) -> Option<Result<usize, TranscodeError<Latin1Error>>> {
    let capacity = out.len();
    kernel.is_available().then(|| {
        let engine = Engine::for_kernel(kernel);
        fit(utf8_to_latin1_run::<false>(engine, bytes, out), capacity)
    })
}

/// [`utf8_len_from_latin1`](super::utf8_len_from_latin1) by the transcoder
/// of a forced `kernel`; `None` if the CPU lacks the kernel.
#[doc(hidden)]
pub fn utf8_len_from_latin1_with(kernel: Kernel, bytes: &[u8]) -> Option<usize> {
    kernel
        .is_available()
        .then(|| utf8_len_by(Engine::for_kernel(kernel), bytes))
}

/// [`latin1_len_from_utf8`](super::latin1_len_from_utf8) by the transcoder
/// of a forced `kernel`; `None` if the CPU lacks the kernel.
#[doc(hidden)]
pub fn latin1_len_from_utf8_with(kernel: Kernel, text: &str) -> Option<usize> {
    kernel
        .is_available()
        .then(|| count_non_continuation_by(Engine::for_kernel(kernel), text.as_bytes()))
}
