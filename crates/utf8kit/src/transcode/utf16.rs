//! UTF-8 ⇄ UTF-16, in native code units and as little- or big-endian bytes.
//!
//! The two kernels are generic over how a code unit is stored: `u16` for
//! native units, `[u8; 2]` for byte-oriented UTF-16LE/BE (a byte slice is
//! viewed as `[[u8; 2]]` with `as_chunks`, so no copy and no alignment
//! requirement). Monomorphisation gives each a loop of its own.

use core::convert::Infallible;

#[cfg(feature = "alloc")]
use super::count::{utf8_len_from_utf16_by, utf16_len_from_utf8};
use super::step::{HIGH_BITS, ascii_prefix, decode_utf8, put, put_replacement, put_utf8};
use super::{TranscodeError, Utf16Error, fit};
use crate::Utf8Error;

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
        if let (Some(word), Some(out)) = (
            rest.first_chunk::<8>(),
            dst.get_mut(o..).and_then(|d| d.first_chunk_mut::<8>()),
        ) {
            let w = u64::from_le_bytes(*word);
            let ascii = if w & HIGH_BITS == 0 {
                8
            } else {
                ascii_prefix(w)
            };
            for (d, &s) in out.iter_mut().zip(word).take(ascii) {
                *d = unit(u16::from(s));
            }
            i += ascii;
            o += ascii;
            if ascii == 8 {
                continue;
            }
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
/// If `bytes` is not UTF-8, exactly the error [`validate`](crate::validate)
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
    run_to_vec(utf16_len_from_utf8(bytes), |dst| {
        utf8_to_utf16_scalar(bytes, dst, |u| u)
    })
}

/// Converts UTF-8 to UTF-16 in `out`, returning the number of code units
/// written.
///
/// [`utf16_len_from_utf8`] gives the length `out` needs.
///
/// # Errors
///
/// [`TranscodeError::Invalid`] with the error of [`validate`](crate::validate)
/// if `bytes` is not UTF-8 (checked over the whole input first), otherwise
/// [`TranscodeError::BufferTooSmall`] if `out` is too short.
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
pub fn utf8_to_utf16_into(bytes: &[u8], out: &mut [u16]) -> Result<usize, TranscodeError> {
    let capacity = out.len();
    fit(utf8_to_utf16_scalar(bytes, out, |u| u), capacity)
}

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
    let units = run_to_vec(utf16_len_from_utf8(text.as_bytes()), |dst| {
        utf8_to_utf16_scalar(text.as_bytes(), dst, u16::to_le_bytes)
    });
    // A `&str` is valid UTF-8, so the kernel cannot fail.
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
    let units = run_to_vec(utf16_len_from_utf8(text.as_bytes()), |dst| {
        utf8_to_utf16_scalar(text.as_bytes(), dst, u16::to_be_bytes)
    });
    // A `&str` is valid UTF-8, so the kernel cannot fail.
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
pub fn utf8_to_utf16le_into(bytes: &[u8], out: &mut [u8]) -> Result<usize, TranscodeError> {
    utf8_to_utf16_bytes_into(bytes, out, u16::to_le_bytes)
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
pub fn utf8_to_utf16be_into(bytes: &[u8], out: &mut [u8]) -> Result<usize, TranscodeError> {
    utf8_to_utf16_bytes_into(bytes, out, u16::to_be_bytes)
}

#[inline]
fn utf8_to_utf16_bytes_into(
    bytes: &[u8],
    out: &mut [u8],
    unit: impl Fn(u16) -> [u8; 2],
) -> Result<usize, TranscodeError> {
    let (units, _) = out.as_chunks_mut::<2>();
    let capacity = units.len();
    match fit(utf8_to_utf16_scalar(bytes, units, unit), capacity) {
        Ok(n) => Ok(2 * n),
        Err(TranscodeError::BufferTooSmall { needed }) => {
            Err(TranscodeError::BufferTooSmall { needed: 2 * needed })
        }
        Err(e) => Err(e),
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
    utf16_to_string::<u16, false>(units, |u| u)
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
    utf16_to_string::<u16, true>(units, |u| u).unwrap_or_default()
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
    utf16_to_string::<[u8; 2], false>(as_units(bytes)?, u16::from_le_bytes)
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
    utf16_to_string::<[u8; 2], false>(as_units(bytes)?, u16::from_be_bytes)
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
    utf16_bytes_lossy(bytes, u16::from_le_bytes)
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
    utf16_bytes_lossy(bytes, u16::from_be_bytes)
}

#[cfg(feature = "alloc")]
fn utf16_bytes_lossy(bytes: &[u8], unit: fn([u8; 2]) -> u16) -> String {
    let (units, odd) = bytes.as_chunks::<2>();
    let mut s = utf16_to_string::<[u8; 2], true>(units, unit).unwrap_or_default();
    if !odd.is_empty() {
        s.push(char::REPLACEMENT_CHARACTER);
    }
    s
}

#[cfg(feature = "alloc")]
#[inline]
fn utf16_to_string<S: Copy, const LOSSY: bool>(
    units: &[S],
    unit: impl Fn(S) -> u16 + Copy,
) -> Result<String, Utf16Error> {
    let bytes = run_to_vec(utf8_len_from_utf16_by(units, unit), |dst| {
        utf16_to_utf8_scalar::<S, LOSSY>(units, dst, unit)
    })?;
    // SAFETY: `bytes` is the output of `utf16_to_utf8_scalar`, which writes
    // only ASCII copies, `put_utf8` of scalar values (BMP non-surrogates and
    // decoded pairs) and `put_replacement`.
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
pub fn utf16_to_utf8_into(
    units: &[u16],
    out: &mut [u8],
) -> Result<usize, TranscodeError<Utf16Error>> {
    let capacity = out.len();
    fit(
        utf16_to_utf8_scalar::<u16, false>(units, out, |u| u),
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
    match utf16_to_utf8_scalar::<u16, true>(units, out, |u| u) {
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
pub fn utf16le_to_utf8_into(
    bytes: &[u8],
    out: &mut [u8],
) -> Result<usize, TranscodeError<Utf16Error>> {
    let units = as_units(bytes).map_err(TranscodeError::Invalid)?;
    let capacity = out.len();
    fit(
        utf16_to_utf8_scalar::<[u8; 2], false>(units, out, u16::from_le_bytes),
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
pub fn utf16be_to_utf8_into(
    bytes: &[u8],
    out: &mut [u8],
) -> Result<usize, TranscodeError<Utf16Error>> {
    let units = as_units(bytes).map_err(TranscodeError::Invalid)?;
    let capacity = out.len();
    fit(
        utf16_to_utf8_scalar::<[u8; 2], false>(units, out, u16::from_be_bytes),
        capacity,
    )
}
