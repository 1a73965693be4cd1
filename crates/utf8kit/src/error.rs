//! The error type of every UTF-8 check in this crate.
//!
//! [`Utf8Error`] carries the same two numbers as [`core::str::Utf8Error`]
//! (`valid_up_to` and `error_len`, equal to std's for every input) and adds the
//! *class* of the error, [`Utf8ErrorKind`], following the six classes of the
//! Keiser–Lemire paper.

use core::fmt;

/// What is wrong with an ill-formed UTF-8 sequence.
///
/// The six classes partition every way a byte string can fail to be UTF-8.
/// They are decided by the first bytes of the offending sequence, so they are
/// the same whichever kernel found the error.
///
/// | kind | bytes |
/// |---|---|
/// | [`Incomplete`](Self::Incomplete) | a lead byte not followed by enough continuation bytes |
/// | [`UnexpectedContinuation`](Self::UnexpectedContinuation) | `80..=BF` where a character must start |
/// | [`Overlong`](Self::Overlong) | `C0`, `C1`; `E0 80..=9F`; `F0 80..=8F` |
/// | [`Surrogate`](Self::Surrogate) | `ED A0..=BF` (U+D800..U+DFFF) |
/// | [`OutOfRange`](Self::OutOfRange) | `F4 90..=BF`; `F5..=F7` (above U+10FFFF) |
/// | [`InvalidByte`](Self::InvalidByte) | `F8..=FF` (the old 5- and 6-byte leads) |
///
/// # Example
///
/// ```
/// use utf8kit::Utf8ErrorKind;
///
/// let err = utf8kit::validate(b"a\xC0\xAF").unwrap_err();
/// assert_eq!(err.kind(), Utf8ErrorKind::Overlong);
/// let err = utf8kit::validate(b"\xED\xA0\x80").unwrap_err();
/// assert_eq!(err.kind(), Utf8ErrorKind::Surrogate);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Utf8ErrorKind {
    /// A lead byte is not followed by enough continuation bytes: either a
    /// byte that cannot continue the sequence comes first, or the input ends.
    Incomplete,
    /// A continuation byte (`80..=BF`) stands where a character must start.
    UnexpectedContinuation,
    /// A value is encoded with more bytes than it needs: `C0`/`C1` leads,
    /// `E0` followed by `80..=9F`, `F0` followed by `80..=8F`.
    Overlong,
    /// The sequence would encode a UTF-16 surrogate (U+D800..=U+DFFF):
    /// `ED` followed by `A0..=BF`.
    Surrogate,
    /// The sequence would encode a value above U+10FFFF: `F4` followed by
    /// `90..=BF`, or a lead byte `F5..=F7`.
    OutOfRange,
    /// A byte that never occurs in UTF-8: `F8..=FF`, the leads of the
    /// obsolete 5- and 6-byte forms and the unused `FE`/`FF`.
    InvalidByte,
}

impl Utf8ErrorKind {
    /// Every kind, in declaration order.
    ///
    /// ```
    /// assert_eq!(utf8kit::Utf8ErrorKind::ALL.len(), 6);
    /// ```
    pub const ALL: [Utf8ErrorKind; 6] = [
        Utf8ErrorKind::Incomplete,
        Utf8ErrorKind::UnexpectedContinuation,
        Utf8ErrorKind::Overlong,
        Utf8ErrorKind::Surrogate,
        Utf8ErrorKind::OutOfRange,
        Utf8ErrorKind::InvalidByte,
    ];

    /// The kind's name in `snake_case`, as used in JSON output.
    ///
    /// ```
    /// use utf8kit::Utf8ErrorKind;
    /// assert_eq!(Utf8ErrorKind::UnexpectedContinuation.snake_name(), "unexpected_continuation");
    /// ```
    pub const fn snake_name(self) -> &'static str {
        match self {
            Utf8ErrorKind::Incomplete => "incomplete",
            Utf8ErrorKind::UnexpectedContinuation => "unexpected_continuation",
            Utf8ErrorKind::Overlong => "overlong",
            Utf8ErrorKind::Surrogate => "surrogate",
            Utf8ErrorKind::OutOfRange => "out_of_range",
            Utf8ErrorKind::InvalidByte => "invalid_byte",
        }
    }

    /// A short human description, as used in messages.
    ///
    /// ```
    /// use utf8kit::Utf8ErrorKind;
    /// assert_eq!(Utf8ErrorKind::Surrogate.description(), "encoded surrogate");
    /// ```
    pub const fn description(self) -> &'static str {
        match self {
            Utf8ErrorKind::Incomplete => "incomplete sequence",
            Utf8ErrorKind::UnexpectedContinuation => "unexpected continuation byte",
            Utf8ErrorKind::Overlong => "overlong encoding",
            Utf8ErrorKind::Surrogate => "encoded surrogate",
            Utf8ErrorKind::OutOfRange => "code point above U+10FFFF",
            Utf8ErrorKind::InvalidByte => "invalid byte",
        }
    }
}

impl fmt::Display for Utf8ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.description())
    }
}

/// How many bytes the invalid sequence spans, stored in one byte so that
/// `Result<(), Utf8Error>` stays small.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
enum ErrorLen {
    /// The input ended inside a sequence that could still have been valid.
    Truncated = 0,
    One = 1,
    Two = 2,
    Three = 3,
}

/// An error returned when bytes are not valid UTF-8.
///
/// `valid_up_to()` and `error_len()` are exactly the values
/// [`core::str::from_utf8`] reports for the same input; `kind()` adds the class
/// of the error.
///
/// # Recovering from errors
///
/// `valid_up_to` bytes from the start are valid UTF-8. If `error_len()` is
/// `Some(n)`, the `n` bytes after them are an invalid sequence that no
/// continuation can make valid (the *maximal subpart* of Unicode §3.9): skip
/// them, emit U+FFFD, and continue. If it is `None`, the input ended in the
/// middle of a sequence that more input might complete, which is how streaming
/// decoders know to wait.
///
/// ```
/// fn lossy(mut input: &[u8]) -> String {
///     let mut out = String::new();
///     loop {
///         match utf8kit::from_utf8(input) {
///             Ok(valid) => {
///                 out.push_str(valid);
///                 return out;
///             }
///             Err(e) => {
///                 let (valid, rest) = input.split_at(e.valid_up_to());
///                 out.push_str(utf8kit::from_utf8(valid).unwrap());
///                 out.push('\u{FFFD}');
///                 match e.error_len() {
///                     Some(n) => input = &rest[n..],
///                     None => return out,
///                 }
///             }
///         }
///     }
/// }
/// assert_eq!(lossy(b"a\xF0\x9F\x98b\xFF"), "a\u{FFFD}b\u{FFFD}");
/// assert_eq!(lossy(b"a\xF0\x9F\x98b\xFF"), String::from_utf8_lossy(b"a\xF0\x9F\x98b\xFF"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Utf8Error {
    valid_up_to: usize,
    error_len: ErrorLen,
    kind: Utf8ErrorKind,
}

impl Utf8Error {
    /// Builds an error. `error_len` must be `None` or `Some(1..=3)`.
    #[inline]
    pub(crate) const fn new(
        valid_up_to: usize,
        error_len: Option<usize>,
        kind: Utf8ErrorKind,
    ) -> Self {
        let error_len = match error_len {
            None => ErrorLen::Truncated,
            Some(1) => ErrorLen::One,
            Some(2) => ErrorLen::Two,
            _ => ErrorLen::Three,
        };
        Utf8Error {
            valid_up_to,
            error_len,
            kind,
        }
    }

    /// The same error, moved `by` bytes further into a larger input.
    #[inline]
    pub(crate) const fn offset_by(self, by: usize) -> Self {
        Utf8Error {
            valid_up_to: self.valid_up_to + by,
            ..self
        }
    }

    /// The length of the longest prefix of the input that is valid UTF-8.
    ///
    /// It is the byte offset at which the invalid sequence starts, and it is
    /// always a character boundary of the input.
    ///
    /// ```
    /// let err = utf8kit::validate(b"ab\xE4\xB8").unwrap_err();
    /// assert_eq!(err.valid_up_to(), 2);
    /// ```
    #[inline]
    pub const fn valid_up_to(&self) -> usize {
        self.valid_up_to
    }

    /// The length of the invalid sequence, or `None` if the input ended before
    /// a sequence that could still be valid was complete.
    ///
    /// * `Some(1)`, `Some(2)`, `Some(3)`: that many bytes starting at
    ///   [`valid_up_to`](Self::valid_up_to) can never begin valid UTF-8,
    ///   whatever follows; a decoder replaces them with one U+FFFD and goes on.
    /// * `None`: the end of the input came too soon. With more input, decoding
    ///   might succeed.
    ///
    /// ```
    /// // "世" is E4 B8 96; cut after two bytes it is merely truncated...
    /// assert_eq!(utf8kit::validate(b"\xE4\xB8").unwrap_err().error_len(), None);
    /// // ...but followed by ASCII it is broken for good, and spans 2 bytes.
    /// assert_eq!(utf8kit::validate(b"\xE4\xB8a").unwrap_err().error_len(), Some(2));
    /// ```
    #[inline]
    pub const fn error_len(&self) -> Option<usize> {
        match self.error_len {
            ErrorLen::Truncated => None,
            ErrorLen::One => Some(1),
            ErrorLen::Two => Some(2),
            ErrorLen::Three => Some(3),
        }
    }

    /// The class of the error.
    ///
    /// ```
    /// use utf8kit::Utf8ErrorKind;
    /// assert_eq!(utf8kit::validate(b"\x80").unwrap_err().kind(), Utf8ErrorKind::UnexpectedContinuation);
    /// assert_eq!(utf8kit::validate(b"\xF5").unwrap_err().kind(), Utf8ErrorKind::OutOfRange);
    /// assert_eq!(utf8kit::validate(b"\xFF").unwrap_err().kind(), Utf8ErrorKind::InvalidByte);
    /// ```
    #[inline]
    pub const fn kind(&self) -> Utf8ErrorKind {
        self.kind
    }
}

impl fmt::Display for Utf8Error {
    /// Reads like std's message, with the class of the error in front.
    ///
    /// ```
    /// let err = utf8kit::validate(b"ok\xC0\xAF").unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "overlong encoding: invalid utf-8 sequence of 1 bytes from index 2"
    /// );
    /// let err = utf8kit::validate(b"ok\xE4\xB8").unwrap_err();
    /// assert_eq!(err.to_string(), "incomplete sequence: incomplete utf-8 byte sequence from index 2");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.error_len() {
            Some(n) => write!(
                f,
                "{}: invalid utf-8 sequence of {} bytes from index {}",
                self.kind, n, self.valid_up_to
            ),
            None => write!(
                f,
                "{}: incomplete utf-8 byte sequence from index {}",
                self.kind, self.valid_up_to
            ),
        }
    }
}

impl core::error::Error for Utf8Error {}
