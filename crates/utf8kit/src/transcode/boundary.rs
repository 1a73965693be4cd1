//! Character boundaries, truncation and iteration from an arbitrary byte
//! offset.
//!
//! These rely on UTF-8 being self-synchronising: a character starts at every
//! byte that is not a continuation byte (`80..=BF`), and no character has
//! more than three continuation bytes, so a boundary is never more than
//! three bytes away from any offset.

use core::iter::FusedIterator;
use core::str::CharIndices;

use super::step::{decode_utf8, is_continuation};

/// The largest character boundary of `text` at or before `index`; `index`
/// past the end gives `text.len()`.
///
/// Same as the (unstable) `str::floor_char_boundary`.
///
/// # Example
///
/// ```
/// use utf8kit::transcode::floor_char_boundary;
///
/// let s = "a€b"; // '€' is bytes 1..4
/// assert_eq!(floor_char_boundary(s, 2), 1);
/// assert_eq!(floor_char_boundary(s, 4), 4);
/// assert_eq!(floor_char_boundary(s, 99), 5);
/// ```
#[inline]
pub fn floor_char_boundary(text: &str, index: usize) -> usize {
    if index >= text.len() {
        return text.len();
    }
    let mut i = index;
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The smallest character boundary of `text` at or after `index`; `index`
/// past the end gives `text.len()`.
///
/// Same as the (unstable) `str::ceil_char_boundary`.
///
/// # Example
///
/// ```
/// use utf8kit::transcode::ceil_char_boundary;
///
/// let s = "a€b";
/// assert_eq!(ceil_char_boundary(s, 2), 4);
/// assert_eq!(ceil_char_boundary(s, 1), 1);
/// assert_eq!(ceil_char_boundary(s, 99), 5);
/// ```
#[inline]
pub fn ceil_char_boundary(text: &str, index: usize) -> usize {
    if index >= text.len() {
        return text.len();
    }
    let mut i = index;
    while !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// The longest prefix of `text` of at most `max_bytes` bytes that does not
/// cut a character.
///
/// # Example
///
/// ```
/// use utf8kit::transcode::truncate_str;
///
/// assert_eq!(truncate_str("日本語", 7), "日本");
/// assert_eq!(truncate_str("日本語", 2), "");
/// assert_eq!(truncate_str("abc", 10), "abc");
/// ```
#[inline]
pub fn truncate_str(text: &str, max_bytes: usize) -> &str {
    let end = floor_char_boundary(text, max_bytes);
    text.get(..end).unwrap_or_default()
}

/// The longest prefix of `bytes` of at most `max` bytes that does not cut a
/// valid UTF-8 character, for bytes that may not be UTF-8.
///
/// The cut is moved back only when position `max` falls strictly inside a
/// *valid* character (one that [`validate`](crate::validate()) would accept at
/// that place, found within the three bytes before `max`). Invalid bytes are
/// not characters and are cut anywhere, so the result never ends with a
/// fragment of a character that was valid in the input, and valid input
/// gives the same result as [`truncate_str`]. Only the few bytes around
/// `max` are read.
///
/// # Example
///
/// ```
/// use utf8kit::transcode::truncate_bytes;
///
/// // "é" is C3 A9: cutting after C3 would split it.
/// assert_eq!(truncate_bytes(b"caf\xC3\xA9", 4), b"caf");
/// // A lone C3 followed by ASCII is no character: cut anywhere.
/// assert_eq!(truncate_bytes(b"caf\xC3!", 4), b"caf\xC3");
/// assert_eq!(truncate_bytes(b"\x80\x80\x80\x80", 2), b"\x80\x80");
/// ```
pub fn truncate_bytes(bytes: &[u8], max: usize) -> &[u8] {
    let Some((head, &[next, ..])) = bytes.split_at_checked(max) else {
        return bytes; // max >= len: nothing to cut
    };
    if !is_continuation(next) {
        return head; // a character (or an invalid byte) starts at `max`
    }
    // The only character that can contain `max` starts at the nearest
    // non-continuation byte before it, at most three bytes back: an
    // earlier lead would have that byte inside its sequence, and a sequence
    // holds only continuation bytes after its lead.
    for back in 1..=3 {
        let Some(start) = max.checked_sub(back) else {
            break;
        };
        let Some(&b) = bytes.get(start) else { break };
        if is_continuation(b) {
            continue;
        }
        if let Some(rest) = bytes.get(start..)
            && let Ok((_, len)) = decode_utf8(rest)
            && start + len > max
        {
            return bytes.get(..start).unwrap_or_default();
        }
        break;
    }
    head
}

/// The start of the character after the one at `offset`: the next byte
/// after `offset` that is not a continuation byte, skipping at most three
/// continuation bytes (the most a character has), or `bytes.len()`.
///
/// On valid UTF-8 it is the first character boundary after `offset`. On
/// invalid bytes it still moves forward by 1 to 4 bytes, so a loop over it
/// always ends. An `offset` at or past the end gives `bytes.len()`.
///
/// # Example
///
/// ```
/// use utf8kit::transcode::next_char_start;
///
/// let s = "a€b".as_bytes();
/// assert_eq!(next_char_start(s, 0), 1);
/// assert_eq!(next_char_start(s, 1), 4);
/// assert_eq!(next_char_start(s, 2), 4);
/// assert_eq!(next_char_start(s, 4), 5);
/// assert_eq!(next_char_start(b"\xE4\x80\x80\x80\x80", 0), 4);
/// ```
#[inline]
pub fn next_char_start(bytes: &[u8], offset: usize) -> usize {
    if offset >= bytes.len() {
        return bytes.len();
    }
    let mut i = offset + 1;
    while i - offset < 4
        && let Some(&b) = bytes.get(i)
        && is_continuation(b)
    {
        i += 1;
    }
    i
}

/// The start of the character before `offset`: the nearest byte before
/// `offset` that is not a continuation byte, looking back over at most three
/// continuation bytes, or 0.
///
/// On valid UTF-8 it is the last character boundary before `offset` (for an
/// `offset` inside a character, that character's start). On invalid bytes it
/// moves back by 1 to 4 bytes. An `offset` past the end is taken as
/// `bytes.len()`; offset 0 gives 0.
///
/// # Example
///
/// ```
/// use utf8kit::transcode::prev_char_start;
///
/// let s = "a€b".as_bytes();
/// assert_eq!(prev_char_start(s, 5), 4);
/// assert_eq!(prev_char_start(s, 4), 1);
/// assert_eq!(prev_char_start(s, 3), 1);
/// assert_eq!(prev_char_start(s, 1), 0);
/// assert_eq!(prev_char_start(s, 0), 0);
/// ```
#[inline]
pub fn prev_char_start(bytes: &[u8], offset: usize) -> usize {
    let offset = offset.min(bytes.len());
    let Some(mut i) = offset.checked_sub(1) else {
        return 0;
    };
    while i > 0
        && offset - i < 4
        && let Some(&b) = bytes.get(i)
        && is_continuation(b)
    {
        i -= 1;
    }
    i
}

/// Iterates over `(byte index, char)` of `text` from the character that
/// contains byte `offset` to the end, like `char_indices` with indices into
/// the whole of `text`. An `offset` at or past the end gives nothing.
///
/// # Example
///
/// ```
/// use utf8kit::transcode::chars_from;
///
/// let v: Vec<_> = chars_from("a€b", 2).collect();
/// assert_eq!(v, [(1, '€'), (4, 'b')]);
/// ```
#[inline]
pub fn chars_from(text: &str, offset: usize) -> CharsFrom<'_> {
    let start = floor_char_boundary(text, offset);
    CharsFrom {
        inner: text.get(start..).unwrap_or_default().char_indices(),
        base: start,
    }
}

/// Iterates backwards over `(byte index, char)` of `text`, from the character
/// that contains byte `offset` to the first one. An `offset` at or past the
/// end starts from the last character.
///
/// # Example
///
/// ```
/// use utf8kit::transcode::chars_rev_from;
///
/// let v: Vec<_> = chars_rev_from("a€b", 2).collect();
/// assert_eq!(v, [(1, '€'), (0, 'a')]);
/// assert_eq!(chars_rev_from("ab", 9).next(), Some((1, 'b')));
/// ```
#[inline]
pub fn chars_rev_from(text: &str, offset: usize) -> CharsRevFrom<'_> {
    // The end of the character containing `offset` is the first boundary
    // after it.
    let end = ceil_char_boundary(text, offset.saturating_add(1));
    CharsRevFrom {
        inner: text.get(..end).unwrap_or_default().char_indices(),
    }
}

/// The iterator of [`chars_from`].
///
/// ```
/// let mut it = utf8kit::transcode::chars_from("xyz", 1);
/// assert_eq!(it.next_back(), Some((2, 'z')));
/// assert_eq!(it.as_str(), "y");
/// ```
#[derive(Clone, Debug)]
pub struct CharsFrom<'a> {
    inner: CharIndices<'a>,
    base: usize,
}

impl<'a> CharsFrom<'a> {
    /// The part of the text not yet iterated over.
    pub fn as_str(&self) -> &'a str {
        self.inner.as_str()
    }
}

impl Iterator for CharsFrom<'_> {
    type Item = (usize, char);

    #[inline]
    fn next(&mut self) -> Option<(usize, char)> {
        self.inner.next().map(|(i, c)| (self.base + i, c))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl DoubleEndedIterator for CharsFrom<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<(usize, char)> {
        self.inner.next_back().map(|(i, c)| (self.base + i, c))
    }
}

impl FusedIterator for CharsFrom<'_> {}

/// The iterator of [`chars_rev_from`].
///
/// ```
/// let mut it = utf8kit::transcode::chars_rev_from("xyz", 1);
/// assert_eq!(it.next(), Some((1, 'y')));
/// assert_eq!(it.as_str(), "x");
/// ```
#[derive(Clone, Debug)]
pub struct CharsRevFrom<'a> {
    inner: CharIndices<'a>,
}

impl<'a> CharsRevFrom<'a> {
    /// The part of the text not yet iterated over (it ends where the
    /// iteration is).
    pub fn as_str(&self) -> &'a str {
        self.inner.as_str()
    }
}

impl Iterator for CharsRevFrom<'_> {
    type Item = (usize, char);

    #[inline]
    fn next(&mut self) -> Option<(usize, char)> {
        self.inner.next_back()
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl DoubleEndedIterator for CharsRevFrom<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<(usize, char)> {
        self.inner.next()
    }
}

impl FusedIterator for CharsRevFrom<'_> {}
