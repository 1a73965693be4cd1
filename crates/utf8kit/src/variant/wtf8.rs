//! WTF-8: UTF-8 extended to hold lone UTF-16 surrogates, for ill-formed
//! UTF-16 such as Windows file names and JavaScript strings.
//!
//! A surrogate *pair* is always written as the 4-byte form of its
//! character, so WTF-8 of well-formed UTF-16 is exactly UTF-8; only lone
//! surrogates take the 3-byte `ED A0..BF xx` forms.

#[cfg(feature = "alloc")]
use alloc::{borrow::Cow, string::String, vec::Vec};

use super::generalized;
#[cfg(feature = "alloc")]
use super::generalized::Sequence;
use super::{VariantError, VariantErrorKind};

/// Finds the first WTF-8 error, if any.
fn first_error(bytes: &[u8]) -> Option<VariantError> {
    let mut i = 0;
    let mut previous_was_high = false;
    while i < bytes.len() {
        match generalized::decode(&bytes[i..]) {
            Ok(seq) => {
                if previous_was_high && seq.is_low_surrogate() {
                    return Some(VariantError {
                        offset: i - 3,
                        kind: VariantErrorKind::SurrogatePairAsHalves,
                    });
                }
                previous_was_high = seq.is_high_surrogate();
                i += seq.len;
            }
            Err(kind) => {
                return Some(VariantError {
                    offset: i,
                    kind: VariantErrorKind::Malformed(kind),
                });
            }
        }
    }
    None
}

/// Returns `true` if `bytes` is well-formed WTF-8.
///
/// ```
/// use utf8kit::variant::is_valid_wtf8;
/// assert!(is_valid_wtf8("😀".as_bytes()));
/// assert!(is_valid_wtf8(b"\xED\xA0\x80"));                // a lone high surrogate
/// assert!(!is_valid_wtf8(b"\xED\xA0\xBD\xED\xB8\x80"));   // a pair must be 4 bytes
/// ```
pub fn is_valid_wtf8(bytes: &[u8]) -> bool {
    crate::is_valid(bytes) || first_error(bytes).is_none()
}

/// Encodes UTF-16 code units, well-formed or not, as WTF-8.
///
/// ```
/// use utf8kit::variant::wtf8_from_utf16;
/// assert_eq!(wtf8_from_utf16(&[0xD83D, 0xDE00]), "😀".as_bytes());
/// assert_eq!(wtf8_from_utf16(&[0x61, 0xD83D]), b"a\xED\xA0\xBD");
/// ```
#[cfg(feature = "alloc")]
pub fn wtf8_from_utf16(units: &[u16]) -> Vec<u8> {
    let mut out = Vec::with_capacity(units.len() * 3);
    let mut buf = [0; 4];
    for unit in char::decode_utf16(units.iter().copied()) {
        match unit {
            Ok(c) => out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes()),
            Err(lone) => {
                let n = generalized::encode_bmp(u32::from(lone.unpaired_surrogate()), &mut buf);
                out.extend_from_slice(&buf[..n]);
            }
        }
    }
    out
}

/// Decodes WTF-8 into UTF-16 code units (lone surrogates kept).
///
/// # Errors
///
/// Malformed input, or a surrogate pair written as two 3-byte halves.
///
/// ```
/// use utf8kit::variant::wtf8_to_utf16;
/// assert_eq!(wtf8_to_utf16(b"a\xED\xA0\xBD").unwrap(), [0x61, 0xD83D]);
/// ```
#[cfg(feature = "alloc")]
pub fn wtf8_to_utf16(bytes: &[u8]) -> Result<Vec<u16>, VariantError> {
    if let Some(err) = first_error(bytes) {
        return Err(err);
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Ok(Sequence { value, len }) = generalized::decode(&bytes[i..]) {
        match char::from_u32(value) {
            Some(c) => {
                let mut units = [0; 2];
                out.extend_from_slice(c.encode_utf16(&mut units));
            }
            // A lone surrogate, which fits in 16 bits.
            None => out.push(value as u16),
        }
        i += len;
    }
    Ok(out)
}

/// Converts WTF-8 to text, each lone surrogate becoming U+FFFD; other
/// invalid bytes are replaced as `String::from_utf8_lossy` replaces them.
/// Borrowed when the input is plain UTF-8.
///
/// ```
/// use utf8kit::variant::wtf8_to_utf8_lossy;
/// assert_eq!(wtf8_to_utf8_lossy(b"a\xED\xA0\xBDb"), "a\u{FFFD}b");
/// ```
#[cfg(feature = "alloc")]
pub fn wtf8_to_utf8_lossy(bytes: &[u8]) -> Cow<'_, str> {
    if let Ok(text) = crate::from_utf8(bytes) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(bytes.len());
    let mut rest = bytes;
    while !rest.is_empty() {
        match crate::from_utf8(rest) {
            Ok(text) => {
                out.push_str(text);
                break;
            }
            Err(err) => {
                let (good, bad) = rest.split_at(err.valid_up_to());
                // `good` is valid UTF-8: it is the part before `valid_up_to`.
                out.push_str(crate::from_utf8(good).unwrap_or_default());
                out.push('\u{FFFD}');
                let skip = match generalized::decode(bad) {
                    Ok(seq) if seq.len == 3 && (0xD800..0xE000).contains(&seq.value) => 3,
                    _ => err.error_len().unwrap_or(bad.len()),
                };
                rest = &bad[skip..];
            }
        }
    }
    Cow::Owned(out)
}
