//! Errors of the UTF-8 variants.

use core::fmt;

use crate::Utf8ErrorKind;

/// Why bytes are not valid in a UTF-8 variant, and where.
///
/// ```
/// use utf8kit::variant::{self, VariantErrorKind};
///
/// // CESU-8 writes U+1F600 as a surrogate pair, never as 4 bytes.
/// let err = variant::from_cesu8("a😀".as_bytes()).unwrap_err();
/// assert_eq!(err.offset, 1);
/// assert_eq!(err.kind, VariantErrorKind::FourByteForm);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VariantError {
    /// Byte offset of the offending sequence.
    pub offset: usize,
    /// What is wrong there.
    pub kind: VariantErrorKind,
}

/// The kinds of [`VariantError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum VariantErrorKind {
    /// Not even generalized UTF-8 (surrogates allowed): the same classes as
    /// [`Utf8Error`](crate::Utf8Error), except that surrogates are not an error here.
    Malformed(Utf8ErrorKind),
    /// A raw `00` byte in Modified UTF-8, which writes U+0000 as `C0 80`.
    NulByte,
    /// A 4-byte sequence in CESU-8 or Modified UTF-8, which write
    /// supplementary characters as surrogate pairs.
    FourByteForm,
    /// A surrogate without its partner, where a character is required.
    UnpairedSurrogate,
    /// In WTF-8, a high surrogate directly followed by a low one: the pair
    /// must be written as one 4-byte sequence.
    SurrogatePairAsHalves,
}

impl fmt::Display for VariantErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VariantErrorKind::Malformed(kind) => write!(f, "{kind}"),
            VariantErrorKind::NulByte => f.write_str("raw NUL byte (Modified UTF-8 writes C0 80)"),
            VariantErrorKind::FourByteForm => {
                f.write_str("4-byte sequence (supplementary characters must be surrogate pairs)")
            }
            VariantErrorKind::UnpairedSurrogate => f.write_str("unpaired surrogate"),
            VariantErrorKind::SurrogatePairAsHalves => {
                f.write_str("surrogate pair written as two 3-byte halves")
            }
        }
    }
}

impl fmt::Display for VariantError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.kind, self.offset)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for VariantError {}
