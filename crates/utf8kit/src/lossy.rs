//! Lossy decoding: every invalid sequence becomes U+FFFD, exactly as
//! `String::from_utf8_lossy` does it (one replacement per maximal subpart,
//! the Unicode "best practice" also used by browsers), and the chunk
//! iterator that lossy decoding is built on.
//!
//! Valid runs are found with the crate's fastest validator and copied in
//! bulk; only the bytes around each error are looked at one by one.

#[cfg(feature = "alloc")]
use alloc::{borrow::Cow, string::String};

use crate::Utf8Error;

/// A piece of input: a valid run followed by an invalid sequence (empty at
/// the end of the input).
///
/// ```
/// let chunk = utf8kit::utf8_chunks(b"ab\xFFcd").next().unwrap();
/// assert_eq!(chunk.valid(), "ab");
/// assert_eq!(chunk.invalid(), b"\xFF");
/// assert_eq!(chunk.error().unwrap().valid_up_to(), 2);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Utf8Chunk<'a> {
    valid: &'a str,
    invalid: &'a [u8],
    error: Option<Utf8Error>,
}

impl<'a> Utf8Chunk<'a> {
    /// The valid text before the invalid sequence.
    pub fn valid(&self) -> &'a str {
        self.valid
    }

    /// The invalid sequence (1 to 3 bytes), or empty for the last chunk of
    /// valid input.
    pub fn invalid(&self) -> &'a [u8] {
        self.invalid
    }

    /// The error of the invalid sequence, with offsets counted from the start
    /// of the whole input, or `None` if `invalid` is empty.
    ///
    /// ```
    /// use utf8kit::Utf8ErrorKind;
    /// let chunks: Vec<_> = utf8kit::utf8_chunks(b"a\xC0b\xE4\xB8").collect();
    /// let err = chunks[1].error().unwrap();
    /// assert_eq!((err.valid_up_to(), err.error_len(), err.kind()), (3, None, Utf8ErrorKind::Incomplete));
    /// ```
    pub fn error(&self) -> Option<Utf8Error> {
        self.error
    }
}

/// Iterator over the [`Utf8Chunk`]s of a byte slice; see [`utf8_chunks`].
#[derive(Clone, Debug)]
pub struct Utf8Chunks<'a> {
    bytes: &'a [u8],
    pos: usize,
}

/// Splits `bytes` into valid runs and invalid sequences, exactly like
/// `<[u8]>::utf8_chunks` in std, without allocating.
///
/// ```
/// let pieces: Vec<(&str, &[u8])> = utf8kit::utf8_chunks(b"caf\xC3\xA9\xFF!")
///     .map(|c| (c.valid(), c.invalid()))
///     .collect();
/// assert_eq!(pieces, [("café", &b"\xFF"[..]), ("!", &b""[..])]);
/// ```
pub fn utf8_chunks(bytes: &[u8]) -> Utf8Chunks<'_> {
    Utf8Chunks { bytes, pos: 0 }
}

impl<'a> Iterator for Utf8Chunks<'a> {
    type Item = Utf8Chunk<'a>;

    fn next(&mut self) -> Option<Utf8Chunk<'a>> {
        let rest = self.bytes.get(self.pos..).filter(|r| !r.is_empty())?;
        let start = self.pos;
        let (valid, error) = crate::validate::split_valid(rest);
        let bad = error.map_or(0, |e| e.error_len().unwrap_or(rest.len() - valid.len()));
        self.pos += valid.len() + bad;
        Some(Utf8Chunk {
            valid,
            invalid: rest.get(valid.len()..valid.len() + bad).unwrap_or_default(),
            error: error.map(|e| e.offset_by(start)),
        })
    }
}

impl core::iter::FusedIterator for Utf8Chunks<'_> {}

/// Decodes `bytes`, replacing each invalid sequence with U+FFFD; the result
/// is identical to `String::from_utf8_lossy` and borrowed when the input is
/// valid.
///
/// ```
/// use std::borrow::Cow;
/// assert!(matches!(utf8kit::decode_lossy(b"fine"), Cow::Borrowed("fine")));
/// assert_eq!(utf8kit::decode_lossy(b"Hello \xF0\x90\x80World"), "Hello \u{FFFD}World");
/// ```
#[cfg(feature = "alloc")]
pub fn decode_lossy(bytes: &[u8]) -> Cow<'_, str> {
    if let Ok(text) = crate::from_utf8(bytes) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(bytes.len() + 16);
    decode_lossy_into(bytes, &mut out);
    Cow::Owned(out)
}

/// Appends the lossy decoding of `bytes` to `out` and returns how many
/// replacement characters were written.
///
/// ```
/// let mut out = String::from("> ");
/// assert_eq!(utf8kit::decode_lossy_into(b"a\xC0\xAFb", &mut out), 2);
/// assert_eq!(out, "> a\u{FFFD}\u{FFFD}b");
/// ```
#[cfg(feature = "alloc")]
pub fn decode_lossy_into(bytes: &[u8], out: &mut String) -> usize {
    let mut replacements = 0;
    for chunk in utf8_chunks(bytes) {
        out.push_str(chunk.valid());
        if !chunk.invalid().is_empty() {
            out.push(char::REPLACEMENT_CHARACTER);
            replacements += 1;
        }
    }
    replacements
}
