//! CESU-8 (Unicode Technical Report 26) and the decoding core it shares
//! with Modified UTF-8.

#[cfg(feature = "alloc")]
use alloc::{borrow::Cow, string::String, vec::Vec};

use super::generalized::{self};
#[cfg(feature = "alloc")]
use super::{VariantError, VariantErrorKind};

/// Writes `c` in CESU-8 and returns the length (1 to 6 bytes): characters
/// below U+10000 as in UTF-8, others as a surrogate pair of two 3-byte
/// sequences.
///
/// ```
/// let mut buf = [0; 6];
/// let n = utf8kit::variant::encode_cesu8_char('😀', &mut buf);
/// assert_eq!(&buf[..n], b"\xED\xA0\xBD\xED\xB8\x80");
/// let n = utf8kit::variant::encode_cesu8_char('é', &mut buf);
/// assert_eq!(&buf[..n], "é".as_bytes());
/// ```
pub fn encode_cesu8_char(c: char, out: &mut [u8; 6]) -> usize {
    generalized::encode_as_pair(c, out)
}

/// Encodes text as CESU-8; borrowed when the text has no character above
/// U+FFFF (then CESU-8 and UTF-8 are the same bytes).
///
/// ```
/// use std::borrow::Cow;
/// assert!(matches!(utf8kit::variant::to_cesu8("plain"), Cow::Borrowed(_)));
/// assert_eq!(&*utf8kit::variant::to_cesu8("a😀"), b"a\xED\xA0\xBD\xED\xB8\x80");
/// ```
#[cfg(feature = "alloc")]
pub fn to_cesu8(text: &str) -> Cow<'_, [u8]> {
    encode_with(text, false)
}

/// Decodes CESU-8 into text; borrowed when the input is also plain UTF-8.
///
/// # Errors
///
/// A [`VariantError`] at the first sequence that is malformed, a 4-byte
/// form (CESU-8 has none), or an unpaired surrogate (text cannot hold one).
///
/// ```
/// use utf8kit::variant::{self, VariantErrorKind};
/// assert_eq!(variant::from_cesu8(b"\xED\xA0\xBD\xED\xB8\x80").unwrap(), "😀");
/// let err = variant::from_cesu8(b"ab\xED\xA0\xBD!").unwrap_err();
/// assert_eq!((err.offset, err.kind), (2, VariantErrorKind::UnpairedSurrogate));
/// ```
#[cfg(feature = "alloc")]
pub fn from_cesu8(bytes: &[u8]) -> Result<Cow<'_, str>, VariantError> {
    decode_with(bytes, false)
}

/// Shared by CESU-8 and Modified UTF-8 (`java`: U+0000 as `C0 80`).
#[cfg(feature = "alloc")]
pub(super) fn encode_with(text: &str, java: bool) -> Cow<'_, [u8]> {
    let needs_work = |b: &u8| *b >= 0xF0 || (java && *b == 0);
    if !text.as_bytes().iter().any(needs_work) {
        return Cow::Borrowed(text.as_bytes());
    }
    let mut out = Vec::with_capacity(text.len() + text.len() / 2);
    let mut buf = [0; 6];
    for c in text.chars() {
        if java && c == '\0' {
            out.extend_from_slice(&[0xC0, 0x80]);
        } else {
            let n = generalized::encode_as_pair(c, &mut buf);
            out.extend_from_slice(&buf[..n]);
        }
    }
    Cow::Owned(out)
}

/// Shared by CESU-8 and Modified UTF-8 (`java`: `C0 80` is U+0000, a raw
/// zero byte is an error).
#[cfg(feature = "alloc")]
pub(super) fn decode_with(bytes: &[u8], java: bool) -> Result<Cow<'_, str>, VariantError> {
    // Fast path: plain UTF-8 without the forms these variants forbid.
    if let Ok(text) = crate::from_utf8(bytes) {
        match bytes.iter().position(|&b| b >= 0xF0 || (java && b == 0)) {
            None => return Ok(Cow::Borrowed(text)),
            Some(at) if bytes[at] == 0 => {
                return Err(VariantError {
                    offset: at,
                    kind: VariantErrorKind::NulByte,
                });
            }
            Some(at) => {
                return Err(VariantError {
                    offset: at,
                    kind: VariantErrorKind::FourByteForm,
                });
            }
        }
    }
    let mut out = String::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let err = move |kind| Err(VariantError { offset: i, kind });
        if java && bytes[i] == 0 {
            return err(VariantErrorKind::NulByte);
        }
        if java && bytes[i..].starts_with(&[0xC0, 0x80]) {
            out.push('\0');
            i += 2;
            continue;
        }
        let seq = match generalized::decode(&bytes[i..]) {
            Ok(seq) => seq,
            Err(kind) => return err(VariantErrorKind::Malformed(kind)),
        };
        if seq.len == 4 {
            return err(VariantErrorKind::FourByteForm);
        }
        let value = if seq.is_high_surrogate() {
            match generalized::decode(&bytes[i + 3..]) {
                Ok(low) if low.is_low_surrogate() => {
                    i += 3;
                    generalized::combine(seq.value, low.value)
                }
                _ => return err(VariantErrorKind::UnpairedSurrogate),
            }
        } else if seq.is_low_surrogate() {
            return err(VariantErrorKind::UnpairedSurrogate);
        } else {
            seq.value
        };
        match char::from_u32(value) {
            Some(c) => out.push(c),
            None => return err(VariantErrorKind::UnpairedSurrogate),
        }
        i += seq.len;
    }
    Ok(Cow::Owned(out))
}
