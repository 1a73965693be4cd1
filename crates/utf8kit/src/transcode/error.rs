//! The error types of the transcoding functions.
//!
//! Each source encoding has its own error, because each has its own way to be
//! ill-formed: UTF-8 has [`Utf8Error`], UTF-16 has unpaired surrogates and odd
//! byte counts ([`Utf16Error`]), UTF-32 has values that are not scalar values
//! ([`Utf32Error`]), and a conversion *to* Latin-1 can meet characters Latin-1
//! cannot represent ([`Latin1Error`]). The `_into` functions, which write into
//! a caller's buffer, wrap these in [`TranscodeError`] to add the one error they
//! share: the buffer is too small.

use core::fmt;

use crate::Utf8Error;

/// The error of a conversion that writes into a caller-provided buffer.
///
/// `E` is the error of the source encoding: [`Utf8Error`] (the default),
/// [`Utf16Error`], [`Utf32Error`], [`Latin1Error`], or
/// [`Infallible`](core::convert::Infallible) when every input is valid.
///
/// The whole input is always checked: when the input is invalid the result is
/// [`Invalid`](Self::Invalid), even if the buffer is also too small. Only a
/// valid input that does not fit gives [`BufferTooSmall`](Self::BufferTooSmall),
/// whose `needed` is the exact length of the whole conversion, so that a
/// caller can allocate once and call again. After an error the contents of
/// the buffer are unspecified (a prefix of the output may have been written),
/// but nothing is ever written past its end.
///
/// # Example
///
/// ```
/// use utf8kit::transcode::{utf8_to_utf16_into, TranscodeError};
///
/// let mut small = [0u16; 2];
/// assert_eq!(
///     utf8_to_utf16_into("a😀".as_bytes(), &mut small),
///     Err(TranscodeError::BufferTooSmall { needed: 3 })
/// );
/// let mut buf = [0u16; 3];
/// assert_eq!(utf8_to_utf16_into("a😀".as_bytes(), &mut buf), Ok(3));
/// assert!(matches!(
///     utf8_to_utf16_into(b"a\xFF", &mut small),
///     Err(TranscodeError::Invalid(e)) if e.valid_up_to() == 1
/// ));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TranscodeError<E = Utf8Error> {
    /// The input is not valid in its encoding.
    Invalid(E),
    /// The input is valid but its conversion needs `needed` elements of
    /// output (code units for UTF-16 and UTF-32, bytes for UTF-8 and Latin-1)
    /// and the buffer is shorter.
    BufferTooSmall {
        /// The exact length of the complete output.
        needed: usize,
    },
}

impl<E: fmt::Display> fmt::Display for TranscodeError<E> {
    /// ```
    /// use utf8kit::transcode::TranscodeError;
    ///
    /// let err: TranscodeError = TranscodeError::BufferTooSmall { needed: 7 };
    /// assert_eq!(err.to_string(), "output buffer too small: 7 elements needed");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TranscodeError::Invalid(e) => e.fmt(f),
            TranscodeError::BufferTooSmall { needed } => {
                write!(f, "output buffer too small: {needed} elements needed")
            }
        }
    }
}

impl<E: fmt::Debug + fmt::Display> core::error::Error for TranscodeError<E> {}

/// An error returned when UTF-16 is ill-formed.
///
/// # Example
///
/// ```
/// use utf8kit::transcode::{utf16_to_utf8, utf16le_to_utf8, Utf16Error};
///
/// let err = utf16_to_utf8(&[0x61, 0xDC00, 0x62]).unwrap_err();
/// assert_eq!(err, Utf16Error::UnpairedSurrogate { index: 1, unit: 0xDC00 });
/// assert_eq!(err.index(), 1);
///
/// let err = utf16le_to_utf8(b"a\x00b").unwrap_err();
/// assert_eq!(err, Utf16Error::OddLength { len: 3 });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Utf16Error {
    /// A high surrogate (`D800..=DBFF`) not followed by a low surrogate, or a
    /// low surrogate (`DC00..=DFFF`) not preceded by a high one.
    UnpairedSurrogate {
        /// The index, in code units, of the first unpaired surrogate.
        index: usize,
        /// The unpaired surrogate.
        unit: u16,
    },
    /// A byte-oriented UTF-16 input (`utf16le_*`, `utf16be_*`) has an odd
    /// number of bytes. This is checked before the content.
    OddLength {
        /// The length of the input in bytes.
        len: usize,
    },
}

impl Utf16Error {
    /// The index in code units where the input stops being UTF-16: the
    /// unpaired surrogate, or for [`OddLength`](Self::OddLength) the
    /// incomplete unit at the end (`len / 2`).
    ///
    /// ```
    /// let err = utf8kit::transcode::utf16_to_utf8(&[0x41, 0x42, 0xD83D]).unwrap_err();
    /// assert_eq!(err.index(), 2);
    /// let err = utf8kit::transcode::utf16be_to_utf8(b"\x00A\x00").unwrap_err();
    /// assert_eq!(err.index(), 1);
    /// ```
    pub const fn index(&self) -> usize {
        match *self {
            Utf16Error::UnpairedSurrogate { index, .. } => index,
            Utf16Error::OddLength { len } => len / 2,
        }
    }
}

impl fmt::Display for Utf16Error {
    /// ```
    /// let err = utf8kit::transcode::utf16_to_utf8(&[0x41, 0xD800]).unwrap_err();
    /// assert_eq!(err.to_string(), "unpaired surrogate 0xD800 at index 1");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Utf16Error::UnpairedSurrogate { index, unit } => {
                write!(f, "unpaired surrogate {unit:#06X} at index {index}")
            }
            Utf16Error::OddLength { len } => {
                write!(f, "UTF-16 input has an odd number of bytes ({len})")
            }
        }
    }
}

impl core::error::Error for Utf16Error {}

/// An error returned when a UTF-32 value is not a Unicode scalar value: a
/// surrogate (`D800..=DFFF`) or a value above `10FFFF`.
///
/// # Example
///
/// ```
/// let err = utf8kit::transcode::utf32_to_utf8(&[0x41, 0x11_0000]).unwrap_err();
/// assert_eq!(err.index(), 1);
/// assert_eq!(err.value(), 0x11_0000);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Utf32Error {
    index: usize,
    value: u32,
}

impl Utf32Error {
    pub(crate) const fn new(index: usize, value: u32) -> Self {
        Utf32Error { index, value }
    }

    /// The index of the first invalid value.
    ///
    /// ```
    /// let err = utf8kit::transcode::utf32_to_utf8(&[0xDFFF]).unwrap_err();
    /// assert_eq!(err.index(), 0);
    /// ```
    pub const fn index(&self) -> usize {
        self.index
    }

    /// The invalid value itself.
    ///
    /// ```
    /// let err = utf8kit::transcode::utf32_to_utf8(&[0x61, 0xD800]).unwrap_err();
    /// assert_eq!(err.value(), 0xD800);
    /// ```
    pub const fn value(&self) -> u32 {
        self.value
    }
}

impl fmt::Display for Utf32Error {
    /// ```
    /// let err = utf8kit::transcode::utf32_to_utf8(&[0xD800]).unwrap_err();
    /// assert_eq!(err.to_string(), "invalid UTF-32 value 0xD800 (a surrogate) at index 0");
    /// let err = utf8kit::transcode::utf32_to_utf8(&[0x41, 0x110000]).unwrap_err();
    /// assert_eq!(err.to_string(), "invalid UTF-32 value 0x110000 (above U+10FFFF) at index 1");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let why = if (0xD800..=0xDFFF).contains(&self.value) {
            "a surrogate"
        } else {
            "above U+10FFFF"
        };
        write!(
            f,
            "invalid UTF-32 value {:#X} ({why}) at index {}",
            self.value, self.index
        )
    }
}

impl core::error::Error for Utf32Error {}

/// An error returned when UTF-8 cannot be converted to Latin-1
/// (ISO-8859-1, the first 256 code points).
///
/// The input is read from the start and the first problem is reported,
/// whichever kind it is.
///
/// # Example
///
/// ```
/// use utf8kit::transcode::{utf8_to_latin1, Latin1Error};
///
/// assert_eq!(
///     utf8_to_latin1("café €".as_bytes()),
///     Err(Latin1Error::Unrepresentable { offset: 6, ch: '€' })
/// );
/// assert!(matches!(utf8_to_latin1(b"caf\xE9"), Err(Latin1Error::InvalidUtf8(_))));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Latin1Error {
    /// The input is not valid UTF-8; the error is the one
    /// [`validate`](crate::validate()) reports.
    InvalidUtf8(Utf8Error),
    /// The character `ch`, starting at byte `offset` of the input, is above
    /// U+00FF.
    Unrepresentable {
        /// The byte offset of the character in the input.
        offset: usize,
        /// The character.
        ch: char,
    },
}

impl fmt::Display for Latin1Error {
    /// ```
    /// let err = utf8kit::transcode::utf8_to_latin1("a€".as_bytes()).unwrap_err();
    /// assert_eq!(err.to_string(), "character U+20AC '€' at byte 1 is not in Latin-1");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Latin1Error::InvalidUtf8(e) => e.fmt(f),
            Latin1Error::Unrepresentable { offset, ch } => write!(
                f,
                "character U+{:04X} {ch:?} at byte {offset} is not in Latin-1",
                u32::from(ch)
            ),
        }
    }
}

impl core::error::Error for Latin1Error {}
