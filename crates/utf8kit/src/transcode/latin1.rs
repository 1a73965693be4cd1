//! Latin-1 (ISO-8859-1: bytes are the code points U+0000..=U+00FF) ⇄ UTF-8.
//!
//! This is the true ISO-8859-1, not windows-1252 (which the WHATWG Encoding
//! Standard calls "latin1"): bytes `80..=9F` are the C1 controls
//! U+0080..=U+009F. Legacy code pages live in `utf8kit-legacy`.

use core::convert::Infallible;

#[cfg(feature = "alloc")]
use super::count::{count_non_continuation, utf8_len_from_latin1};
use super::step::{HIGH_BITS, ascii_prefix, decode_utf8, put, put_utf8};
use super::{Latin1Error, TranscodeError, fit};
use crate::Utf8Error;

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
                *d = s;
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
    let needed = utf8_len_from_latin1(bytes);
    buf.resize(start + needed, 0);
    let written = match buf.get_mut(start..) {
        Some(tail) => latin1_to_utf8_scalar(bytes, tail),
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
    // output of `latin1_to_utf8_scalar` (ASCII copies and `put_utf8` of
    // U+0000..=U+00FF) into a tail of exactly the length it needed.
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
pub fn latin1_to_utf8_into(
    bytes: &[u8],
    out: &mut [u8],
) -> Result<usize, TranscodeError<Infallible>> {
    let capacity = out.len();
    fit(Ok(latin1_to_utf8_scalar(bytes, out)), capacity)
}

/// Converts UTF-8 to Latin-1, validating it.
///
/// # Errors
///
/// The first problem in the input: [`Latin1Error::InvalidUtf8`] (with the
/// error [`validate`](crate::validate) reports) or
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
    run_to_vec(count_non_continuation(bytes), |dst| {
        utf8_to_latin1_scalar(bytes, dst)
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
pub fn utf8_to_latin1_into(
    bytes: &[u8],
    out: &mut [u8],
) -> Result<usize, TranscodeError<Latin1Error>> {
    let capacity = out.len();
    fit(utf8_to_latin1_scalar(bytes, out), capacity)
}
