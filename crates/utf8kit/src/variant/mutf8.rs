//! Java's Modified UTF-8: CESU-8 with U+0000 written as `C0 80`.

#[cfg(feature = "alloc")]
use alloc::{borrow::Cow, vec::Vec};

use super::generalized;
#[cfg(feature = "alloc")]
use super::{VariantError, VariantErrorKind, cesu8};

/// Writes `c` in Modified UTF-8 and returns the length (1 to 6 bytes).
///
/// ```
/// let mut buf = [0; 6];
/// let n = utf8kit::variant::encode_mutf8_char('\0', &mut buf);
/// assert_eq!(&buf[..n], b"\xC0\x80");
/// let n = utf8kit::variant::encode_mutf8_char('😀', &mut buf);
/// assert_eq!(&buf[..n], b"\xED\xA0\xBD\xED\xB8\x80");
/// ```
pub fn encode_mutf8_char(c: char, out: &mut [u8; 6]) -> usize {
    if c == '\0' {
        out[0] = 0xC0;
        out[1] = 0x80;
        return 2;
    }
    generalized::encode_as_pair(c, out)
}

/// Encodes text as Modified UTF-8 (without Java's 2-byte length prefix);
/// borrowed when the text has no U+0000 and nothing above U+FFFF.
///
/// ```
/// assert_eq!(&*utf8kit::variant::to_mutf8("a\0b"), b"a\xC0\x80b");
/// ```
#[cfg(feature = "alloc")]
pub fn to_mutf8(text: &str) -> Cow<'_, [u8]> {
    cesu8::encode_with(text, true)
}

/// Decodes Modified UTF-8 into text.
///
/// # Errors
///
/// Malformed sequences, raw `00` bytes, 4-byte forms and unpaired
/// surrogates. Java's `DataInput.readUTF` accepts unpaired surrogates
/// (a Java `String` may hold them) but a Rust string cannot: use
/// [`mutf8_to_utf16`] to keep them.
///
/// ```
/// assert_eq!(utf8kit::variant::from_mutf8(b"a\xC0\x80b").unwrap(), "a\0b");
/// assert!(utf8kit::variant::from_mutf8(b"a\0b").is_err());
/// ```
#[cfg(feature = "alloc")]
pub fn from_mutf8(bytes: &[u8]) -> Result<Cow<'_, str>, VariantError> {
    cesu8::decode_with(bytes, true)
}

/// Decodes Modified UTF-8 into UTF-16 code units, keeping unpaired
/// surrogates as Java does.
///
/// # Errors
///
/// Malformed sequences, raw `00` bytes and 4-byte forms. Unlike Java's
/// decoder, overlong forms other than `C0 80` are refused.
///
/// ```
/// let units = utf8kit::variant::mutf8_to_utf16(b"\xED\xA0\xBDx").unwrap();
/// assert_eq!(units, [0xD83D, u16::from(b'x')]);
/// ```
#[cfg(feature = "alloc")]
pub fn mutf8_to_utf16(bytes: &[u8]) -> Result<Vec<u16>, VariantError> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let err = move |kind| Err(VariantError { offset: i, kind });
        if bytes[i] == 0 {
            return err(VariantErrorKind::NulByte);
        }
        if bytes[i..].starts_with(&[0xC0, 0x80]) {
            out.push(0);
            i += 2;
            continue;
        }
        match generalized::decode(&bytes[i..]) {
            Ok(seq) if seq.len == 4 => return err(VariantErrorKind::FourByteForm),
            Ok(seq) => {
                // Values from 1-3 byte sequences fit in 16 bits.
                out.push(seq.value as u16);
                i += seq.len;
            }
            Err(kind) => return err(VariantErrorKind::Malformed(kind)),
        }
    }
    Ok(out)
}

/// Encodes any UTF-16 code units (lone surrogates included) as Modified
/// UTF-8, like Java's `DataOutput.writeUTF` without the length prefix.
///
/// ```
/// assert_eq!(utf8kit::variant::utf16_to_mutf8(&[0, 0xD800, 0x41]), b"\xC0\x80\xED\xA0\x80A");
/// ```
#[cfg(feature = "alloc")]
pub fn utf16_to_mutf8(units: &[u16]) -> Vec<u8> {
    let mut out = Vec::with_capacity(units.len() * 3);
    let mut buf = [0; 3];
    for &unit in units {
        if unit == 0 {
            out.extend_from_slice(&[0xC0, 0x80]);
        } else {
            let n = generalized::encode_bmp(u32::from(unit), &mut buf);
            out.extend_from_slice(&buf[..n]);
        }
    }
    out
}
