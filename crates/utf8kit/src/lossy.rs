//! Lossy decoding: every invalid sequence becomes U+FFFD, exactly as
//! `String::from_utf8_lossy` does it (one replacement per maximal subpart,
//! the Unicode "best practice" also used by browsers), and the chunk
//! iterator that lossy decoding is built on.
//!
//! Valid runs are found with the crate's fastest validator and copied in
//! bulk; only the bytes around each error are looked at one by one.
//!
//! # How lossy decoding stays at SIMD speed
//!
//! * `decode_lossy`, which borrows valid input, validates its first run a
//!   KiB at a time, like [`validate`](crate::validate()). After an error
//!   more are likely, so from then on the SIMD kernels test their error
//!   bits after every 64-byte block: past an error at most one block is
//!   checked in vain. (`decode_lossy_into` copies as it checks, and tests
//!   every block from the start.)
//! * The exact error is found by a scalar rescan of a few bytes only: the
//!   kernels know the first flagged lane, and the bytes before it are valid
//!   but for at most one unfinished sequence at their end, so the rescan
//!   starts at that sequence's lead, if any, among the three bytes before
//!   the lane, else at the lane: at the error, or one character before it.
//! * The SIMD kernels store each block to the output as they check it, so
//!   valid text is read once; the output is reserved once, with room for
//!   the replacements of a few errors.
//! * A continuation byte right after an invalid sequence (the tail of an
//!   encoded surrogate, say) is one more U+FFFD without asking the
//!   validator.

#[cfg(feature = "alloc")]
use alloc::{borrow::Cow, string::String};

use crate::validate::Splitter;
use crate::{Kernel, Utf8Error};

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
    splitter: Splitter,
    /// Whether an error was seen: from then on the validator checks every
    /// block, as more errors are likely.
    fine: bool,
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
    Utf8Chunks::new(Splitter::detected(), bytes)
}

/// [`utf8_chunks`] with a forced validation `kernel`; `None` if the CPU
/// lacks it. For tests and benchmarks.
#[doc(hidden)]
pub fn utf8_chunks_with(kernel: Kernel, bytes: &[u8]) -> Option<Utf8Chunks<'_>> {
    Splitter::forced(kernel).map(|s| Utf8Chunks::new(s, bytes))
}

impl<'a> Utf8Chunks<'a> {
    fn new(splitter: Splitter, bytes: &'a [u8]) -> Utf8Chunks<'a> {
        Utf8Chunks {
            bytes,
            pos: 0,
            splitter,
            fine: false,
        }
    }
}

impl<'a> Iterator for Utf8Chunks<'a> {
    type Item = Utf8Chunk<'a>;

    #[inline]
    fn next(&mut self) -> Option<Utf8Chunk<'a>> {
        let rest = self.bytes.get(self.pos..).filter(|r| !r.is_empty())?;
        let start = self.pos;
        let (valid, error) = self.splitter.split(rest, self.fine);
        let bad = error.map_or(0, |e| e.error_len().unwrap_or(rest.len() - valid.len()));
        self.pos += valid.len() + bad;
        self.fine |= error.is_some();
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
/// Valid runs are checked by the SIMD validator and copied in bulk; each
/// maximal invalid subpart (1 to 3 bytes) becomes one U+FFFD. The output is
/// allocated once for inputs with a few errors.
///
/// ```
/// use std::borrow::Cow;
/// assert!(matches!(utf8kit::decode_lossy(b"fine"), Cow::Borrowed("fine")));
/// assert_eq!(utf8kit::decode_lossy(b"Hello \xF0\x90\x80World"), "Hello \u{FFFD}World");
/// // E0 80 is no prefix of any character: two maximal subparts, two U+FFFD.
/// assert_eq!(utf8kit::decode_lossy(b"\xE0\x80"), "\u{FFFD}\u{FFFD}");
/// ```
#[cfg(feature = "alloc")]
pub fn decode_lossy(bytes: &[u8]) -> Cow<'_, str> {
    let splitter = Splitter::detected();
    let (valid, error) = splitter.split(bytes, false);
    let Some(error) = error else {
        return Cow::Borrowed(valid);
    };
    let mut out = String::new();
    finish_lossy(splitter, bytes, valid, valid.len(), error, &mut out);
    Cow::Owned(out)
}

/// Appends the lossy decoding of `bytes` to `out` and returns how many
/// replacement characters were written.
///
/// The output is identical to `String::from_utf8_lossy(bytes)`. `out` grows
/// once for inputs with a few errors (by a little more than `bytes.len()`,
/// so that later errors fit too).
///
/// ```
/// let mut out = String::from("> ");
/// assert_eq!(utf8kit::decode_lossy_into(b"a\xC0\xAFb", &mut out), 2);
/// assert_eq!(out, "> a\u{FFFD}\u{FFFD}b");
/// ```
#[cfg(feature = "alloc")]
pub fn decode_lossy_into(bytes: &[u8], out: &mut String) -> usize {
    lossy_into(Splitter::detected(), bytes, out)
}

/// [`decode_lossy_into`] with a forced validation `kernel`; `None` if the
/// CPU lacks it. For tests and benchmarks.
#[doc(hidden)]
#[cfg(feature = "alloc")]
pub fn decode_lossy_with(kernel: Kernel, bytes: &[u8], out: &mut String) -> Option<usize> {
    Splitter::forced(kernel).map(|s| lossy_into(s, bytes, out))
}

#[cfg(feature = "alloc")]
#[inline]
fn lossy_into(splitter: Splitter, bytes: &[u8], out: &mut String) -> usize {
    // Short inputs: validated, then copied (setting up the copying kernel
    // costs more than it saves there).
    if bytes.len() < COPY_MIN {
        return match splitter.split(bytes, false) {
            (valid, None) => {
                out.push_str(valid);
                0
            }
            (valid, Some(error)) => finish_lossy(splitter, bytes, valid, valid.len(), error, out),
        };
    }
    // Checked and copied in one pass; for valid input this is all.
    out.reserve(bytes.len());
    match splitter.split_append(bytes, out) {
        (_, None) => 0,
        (n, Some(error)) => finish_lossy(splitter, bytes, "", n, error, out),
    }
}

/// Inputs from this long on are checked and copied in one pass by
/// [`decode_lossy_into`].
#[cfg(feature = "alloc")]
const COPY_MIN: usize = 256;

/// The lossy decoding of `bytes` from its first invalid sequence on: the
/// valid prefix is `valid_len` bytes long, and `valid` is what of it is
/// still to be appended (all of it, or nothing if already copied); `error`
/// is the error after it. Appends to `out` and returns the number of
/// replacements.
#[cfg(feature = "alloc")]
fn finish_lossy(
    splitter: Splitter,
    bytes: &[u8],
    valid: &str,
    valid_len: usize,
    error: Utf8Error,
    out: &mut String,
) -> usize {
    // One allocation for the rest of the input and an eighth more, enough
    // for the U+FFFD of an error every 24 bytes or so; denser errors make
    // it grow again (see below).
    let rest = bytes.len() - valid_len;
    out.reserve_exact(valid.len() + rest + rest / 8 + 16);
    out.push_str(valid);
    let mut pos = valid_len + error.error_len().unwrap_or(rest);
    let mut replacements = 0;
    // Whether an invalid sequence ends at `pos`, its U+FFFD still due.
    let mut pending = true;
    loop {
        if pending {
            out.push(char::REPLACEMENT_CHARACTER);
            replacements += 1;
            // Decoding restarts after the invalid sequence, where a
            // continuation byte is one more invalid sequence (the tail of
            // an encoded surrogate, say): no need to ask the validator.
            while bytes.get(pos).is_some_and(|&b| (b as i8) < -64) {
                out.push(char::REPLACEMENT_CHARACTER);
                replacements += 1;
                pos += 1;
            }
        }
        let rest = bytes.get(pos..).unwrap_or_default();
        if rest.is_empty() {
            return replacements;
        }
        if out.capacity() - out.len() < rest.len() + 3 {
            out.reserve_exact(rest.len() + rest.len() / 8 + 16);
        }
        // The SIMD kernels' own lossy loop; it stops at the end, or early
        // when the room runs short (then the buffer grows above).
        if let Some((read @ 1.., n)) = splitter.lossy_append(rest, out) {
            pos += read;
            replacements += n;
            pending = false;
            continue;
        }
        // The scalar kernel, and short rests: one piece at a time.
        match splitter.split_append(rest, out) {
            (_, None) => return replacements,
            (n, Some(e)) => pos += n + e.error_len().unwrap_or(rest.len() - n),
        }
        pending = true;
    }
}
