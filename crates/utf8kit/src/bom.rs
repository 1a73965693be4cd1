//! Byte-order marks: U+FEFF at the start of a text, which tells the
//! encoding of what follows.
//!
//! ```
//! use utf8kit::bom::{self, Bom};
//!
//! let (found, text) = bom::strip(b"\xEF\xBB\xBFhello");
//! assert_eq!(found, Some(Bom::Utf8));
//! assert_eq!(text, b"hello");
//! ```
//!
//! # The `FF FE 00 00` ambiguity
//!
//! `FF FE 00 00` is the UTF-32LE BOM, but it is also the UTF-16LE BOM
//! followed by U+0000. [`sniff`] checks the UTF-32 marks first and so reports
//! UTF-32LE: a UTF-16 text that starts with a NUL character is far rarer
//! than a UTF-32LE text. (The WHATWG Encoding Standard, which knows no
//! UTF-32, reads the same bytes as UTF-16LE.) Callers who know the text is
//! UTF-16 should test for [`Bom::Utf16Le`] themselves.

#[cfg(feature = "alloc")]
use alloc::vec::Vec;

/// A byte-order mark.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bom {
    /// `EF BB BF`
    Utf8,
    /// `FF FE`
    Utf16Le,
    /// `FE FF`
    Utf16Be,
    /// `FF FE 00 00`
    Utf32Le,
    /// `00 00 FE FF`
    Utf32Be,
}

impl Bom {
    /// Every BOM, in the order [`sniff`] tries them (longest first).
    pub const ALL: [Bom; 5] = [
        Bom::Utf32Le,
        Bom::Utf32Be,
        Bom::Utf8,
        Bom::Utf16Le,
        Bom::Utf16Be,
    ];

    /// The mark's bytes.
    ///
    /// ```
    /// assert_eq!(utf8kit::bom::Bom::Utf16Be.bytes(), b"\xFE\xFF");
    /// ```
    pub const fn bytes(self) -> &'static [u8] {
        match self {
            Bom::Utf8 => b"\xEF\xBB\xBF",
            Bom::Utf16Le => b"\xFF\xFE",
            Bom::Utf16Be => b"\xFE\xFF",
            Bom::Utf32Le => b"\xFF\xFE\x00\x00",
            Bom::Utf32Be => b"\x00\x00\xFE\xFF",
        }
    }

    /// The mark's length in bytes.
    ///
    /// ```
    /// assert_eq!(utf8kit::bom::Bom::Utf8.len(), 3);
    /// ```
    #[allow(clippy::len_without_is_empty)] // a mark is never empty
    pub const fn len(self) -> usize {
        self.bytes().len()
    }

    /// The encoding's name: `UTF-8`, `UTF-16LE`, `UTF-16BE`, `UTF-32LE`, `UTF-32BE`.
    ///
    /// ```
    /// assert_eq!(utf8kit::bom::Bom::Utf32Le.name(), "UTF-32LE");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Bom::Utf8 => "UTF-8",
            Bom::Utf16Le => "UTF-16LE",
            Bom::Utf16Be => "UTF-16BE",
            Bom::Utf32Le => "UTF-32LE",
            Bom::Utf32Be => "UTF-32BE",
        }
    }
}

/// The BOM at the start of `bytes`, if any. UTF-32 marks are tried before
/// UTF-16 ones (see [the ambiguity](self#the-ff-fe-00-00-ambiguity)).
///
/// ```
/// use utf8kit::bom::{sniff, Bom};
/// assert_eq!(sniff(b"\xFF\xFEa\x00"), Some(Bom::Utf16Le));
/// assert_eq!(sniff(b"\xFF\xFE\x00\x00"), Some(Bom::Utf32Le));
/// assert_eq!(sniff(b"plain"), None);
/// ```
pub fn sniff(bytes: &[u8]) -> Option<Bom> {
    Bom::ALL
        .into_iter()
        .find(|bom| bytes.starts_with(bom.bytes()))
}

/// Splits a leading BOM off `bytes`.
///
/// ```
/// use utf8kit::bom::{strip, Bom};
/// assert_eq!(strip(b"\xFE\xFF\x00a"), (Some(Bom::Utf16Be), &b"\x00a"[..]));
/// assert_eq!(strip(b"abc"), (None, &b"abc"[..]));
/// ```
pub fn strip(bytes: &[u8]) -> (Option<Bom>, &[u8]) {
    match sniff(bytes) {
        Some(bom) => (Some(bom), &bytes[bom.len()..]),
        None => (None, bytes),
    }
}

/// Removes a leading UTF-8 BOM, and only that.
///
/// ```
/// assert_eq!(utf8kit::bom::strip_utf8(b"\xEF\xBB\xBFhi"), b"hi");
/// assert_eq!(utf8kit::bom::strip_utf8(b"\xFF\xFEhi"), b"\xFF\xFEhi");
/// ```
pub fn strip_utf8(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(Bom::Utf8.bytes()).unwrap_or(bytes)
}

/// `bytes` with `bom` in front; unchanged if they already start with it
/// (never a doubled mark).
///
/// ```
/// use utf8kit::bom::{add, Bom};
/// assert_eq!(add(Bom::Utf8, b"hi"), b"\xEF\xBB\xBFhi");
/// assert_eq!(add(Bom::Utf8, b"\xEF\xBB\xBFhi"), b"\xEF\xBB\xBFhi");
/// ```
#[cfg(feature = "alloc")]
pub fn add(bom: Bom, bytes: &[u8]) -> Vec<u8> {
    if bytes.starts_with(bom.bytes()) {
        return bytes.to_vec();
    }
    let mut out = Vec::with_capacity(bom.len() + bytes.len());
    out.extend_from_slice(bom.bytes());
    out.extend_from_slice(bytes);
    out
}
