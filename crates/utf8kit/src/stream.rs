//! Streaming: validate or decode input that arrives in chunks of any size.
//!
//! Whatever the chunking (one byte at a time, or one chunk that holds it
//! all), the result is the one-shot result: the same errors with offsets
//! counted from the start of the stream, the same text. Between chunks at
//! most 3 bytes are kept (the start of a character cut by the chunk's end);
//! everything else is validated in place by the fast validator.
//!
//! ```
//! use utf8kit::stream::StreamValidator;
//!
//! let mut v = StreamValidator::new();
//! v.feed(b"caf\xC3").unwrap(); // 'é' is cut in two...
//! v.feed(b"\xA9 ok").unwrap(); // ...and completed here
//! assert_eq!(v.finish(), Ok(8));
//! ```

#[cfg(feature = "alloc")]
use alloc::string::String;

use crate::validate::Splitter;
use crate::{Utf8Error, Utf8ErrorKind};

/// What the chunk engine reports as it goes.
trait Sink {
    /// A run of valid text.
    fn valid(&mut self, text: &str);
    /// An invalid sequence, with its absolute error and its bytes (lossy
    /// mode only).
    fn invalid(&mut self, error: Utf8Error, bytes: &[u8]);

    /// Validates `bytes` up to its first error (`fine` as in
    /// [`Splitter::split`]) and reports the valid prefix; returns its length
    /// and the error. Sinks that collect text override it to copy while
    /// validating.
    #[inline]
    fn run(&mut self, splitter: Splitter, bytes: &[u8], fine: bool) -> (usize, Option<Utf8Error>) {
        let (valid, error) = splitter.split(bytes, fine);
        self.valid(valid);
        (valid.len(), error)
    }
}

/// Ignores everything: validation only.
struct Discard;

impl Sink for Discard {
    fn valid(&mut self, _: &str) {}
    fn invalid(&mut self, _: Utf8Error, _: &[u8]) {}
}

/// The shared chunk engine: carries a cut character between chunks.
#[derive(Clone, Debug, Default)]
struct Engine {
    /// The start of a character cut by the last chunk's end.
    carry: [u8; 4],
    carry_len: usize,
    /// Absolute offset of `carry[0]`, or of the next chunk when there is no
    /// carry.
    base: usize,
}

impl Engine {
    /// Runs one chunk. Strict mode (`lossy == false`) stops at the first
    /// error and returns it; lossy mode reports it to the sink and goes on.
    fn feed(&mut self, chunk: &[u8], lossy: bool, sink: &mut impl Sink) -> Result<(), Utf8Error> {
        let Some(mut chunk) = self.settle_carry(chunk, lossy, sink)? else {
            return Ok(());
        };
        let splitter = Splitter::detected();
        // After an error more are likely: check every block from then on.
        let mut fine = false;
        loop {
            let (valid_len, error) = sink.run(splitter, chunk, fine);
            let Some(err) = error else {
                self.base += chunk.len();
                return Ok(());
            };
            let rest = chunk.get(valid_len..).unwrap_or_default();
            match err.error_len() {
                None => {
                    // The chunk ends inside a character: keep its start.
                    self.base += valid_len;
                    self.keep(rest);
                    return Ok(());
                }
                Some(n) if lossy => {
                    sink.invalid(err.offset_by(self.base), rest.get(..n).unwrap_or_default());
                    self.base += valid_len + n;
                    chunk = rest.get(n..).unwrap_or_default();
                    fine = true;
                }
                Some(_) => return Err(err.offset_by(self.base)),
            }
        }
    }

    /// Keeps `cut`, the start of a character cut by the end of a chunk
    /// (at most 3 bytes), for the next chunk.
    fn keep(&mut self, cut: &[u8]) {
        self.carry[..cut.len()].copy_from_slice(cut);
        self.carry_len = cut.len();
    }

    /// Finishes the character cut by the previous chunk, if any, with the
    /// first bytes of `chunk` and passes it (or its maximal subpart, when
    /// `lossy`) to `sink`. Returns the rest of `chunk`, or `None` if the
    /// character is still cut (the chunk held only a byte or two).
    fn settle_carry<'c>(
        &mut self,
        mut chunk: &'c [u8],
        lossy: bool,
        sink: &mut impl Sink,
    ) -> Result<Option<&'c [u8]>, Utf8Error> {
        if self.carry_len > 0 {
            // Settle the cut character with the few bytes that can finish it.
            let take = chunk.len().min(3);
            let mut joined = [0u8; 7];
            joined[..self.carry_len].copy_from_slice(&self.carry[..self.carry_len]);
            joined[self.carry_len..self.carry_len + take].copy_from_slice(&chunk[..take]);
            let joined = &joined[..self.carry_len + take];
            let (valid, error) = Splitter::detected().split(joined, false);
            let unit = match error {
                Some(e) if valid.is_empty() => match e.error_len() {
                    // Still cut: the chunk held only a byte or two.
                    None => {
                        self.carry[self.carry_len..self.carry_len + take]
                            .copy_from_slice(&chunk[..take]);
                        self.carry_len += take;
                        return Ok(None);
                    }
                    Some(n) if lossy => {
                        sink.invalid(e.offset_by(self.base), joined.get(..n).unwrap_or_default());
                        n
                    }
                    Some(_) => return Err(e.offset_by(self.base)),
                },
                _ => {
                    let n = crate::sequence_len(joined[0]);
                    sink.valid(valid.get(..n).unwrap_or_default());
                    n
                }
            };
            // A maximal subpart covers the whole carry, so `unit` ends in
            // the chunk.
            chunk = chunk.get(unit - self.carry_len..).unwrap_or_default();
            self.base += unit;
            self.carry_len = 0;
        }
        Ok(Some(chunk))
    }

    /// The error for a character still cut when the input ends.
    fn finish(&mut self) -> Option<Utf8Error> {
        self.finish_with(&mut Discard)
    }

    /// As [`finish`](Self::finish), also telling `sink` about the cut
    /// character.
    fn finish_with(&mut self, sink: &mut impl Sink) -> Option<Utf8Error> {
        if self.carry_len == 0 {
            return None;
        }
        let error = Utf8Error::new(self.base, None, Utf8ErrorKind::Incomplete);
        sink.invalid(error, &self.carry[..self.carry_len]);
        self.base += self.carry_len;
        self.carry_len = 0;
        Some(error)
    }
}

/// Validates a stream: feed chunks, then [`finish`](Self::finish).
///
/// Errors carry absolute offsets and are sticky: after the first, every
/// call returns it again.
///
/// ```
/// use utf8kit::stream::StreamValidator;
///
/// let mut v = StreamValidator::new();
/// v.feed(b"0123456789").unwrap();
/// let err = v.feed(b"ab\xC0\xAF").unwrap_err();
/// assert_eq!(err.valid_up_to(), 12);
/// assert_eq!(v.feed(b"more"), Err(err));
/// ```
#[derive(Clone, Debug, Default)]
pub struct StreamValidator {
    engine: Engine,
    seen: usize,
    error: Option<Utf8Error>,
}

impl StreamValidator {
    /// A validator at the start of a stream.
    pub fn new() -> StreamValidator {
        StreamValidator::default()
    }

    /// Validates the next chunk.
    ///
    /// # Errors
    ///
    /// The first error of the stream, as [`validate`](crate::validate()) would report it
    /// on the whole stream at once. A character cut by the end of a chunk is
    /// not an error until [`finish`](Self::finish).
    pub fn feed(&mut self, chunk: &[u8]) -> Result<(), Utf8Error> {
        if let Some(err) = self.error {
            return Err(err);
        }
        self.seen += chunk.len();
        self.engine
            .feed(chunk, false, &mut Discard)
            .inspect_err(|&e| self.error = Some(e))
    }

    /// Ends the stream and returns its length in bytes.
    ///
    /// # Errors
    ///
    /// The stream's first error, or an [`Incomplete`](Utf8ErrorKind::Incomplete)
    /// error (with `error_len() == None`) if it ends inside a character.
    ///
    /// ```
    /// let mut v = utf8kit::stream::StreamValidator::new();
    /// v.feed(b"ok\xF0\x9F").unwrap();
    /// let err = v.finish().unwrap_err();
    /// assert_eq!((err.valid_up_to(), err.error_len()), (2, None));
    /// ```
    pub fn finish(&mut self) -> Result<usize, Utf8Error> {
        if let Some(err) = self.error {
            return Err(err);
        }
        if let Some(err) = self.engine.finish() {
            self.error = Some(err);
            return Err(err);
        }
        Ok(self.seen)
    }

    /// Bytes fed so far.
    pub fn bytes_seen(&self) -> usize {
        self.seen
    }

    /// Bytes known to be valid so far: everything fed, less a cut
    /// character kept for the next chunk, or up to the first error.
    pub fn valid_up_to(&self) -> usize {
        match self.error {
            Some(e) => e.valid_up_to(),
            None => self.engine.base,
        }
    }
}

/// Appends valid text to a `String`, counting replacements.
#[cfg(feature = "alloc")]
struct Collect<'a> {
    out: &'a mut String,
    replacements: u64,
}

#[cfg(feature = "alloc")]
impl Sink for Collect<'_> {
    fn valid(&mut self, text: &str) {
        self.out.push_str(text);
    }
    fn invalid(&mut self, _: Utf8Error, _: &[u8]) {
        self.out.push(char::REPLACEMENT_CHARACTER);
        self.replacements += 1;
    }
    fn run(&mut self, splitter: Splitter, bytes: &[u8], fine: bool) -> (usize, Option<Utf8Error>) {
        if fine {
            // After an error: check and copy in one pass.
            splitter.split_append(bytes, self.out)
        } else {
            let (valid, error) = splitter.split(bytes, false);
            self.out.push_str(valid);
            (valid.len(), error)
        }
    }
}

/// Decodes a stream strictly: valid text is appended to a `String` as it
/// completes; the first error stops decoding.
///
/// ```
/// use utf8kit::stream::StreamDecoder;
///
/// let mut d = StreamDecoder::new();
/// let mut text = String::new();
/// d.feed(b"\xE4\xB8", &mut text).unwrap();
/// assert_eq!(text, "");            // 世 is not complete yet
/// d.feed(b"\x96!", &mut text).unwrap();
/// d.finish(&mut text).unwrap();
/// assert_eq!(text, "世!");
/// ```
#[cfg(feature = "alloc")]
#[derive(Clone, Debug, Default)]
pub struct StreamDecoder {
    validator: StreamValidator,
}

#[cfg(feature = "alloc")]
impl StreamDecoder {
    /// A decoder at the start of a stream.
    pub fn new() -> StreamDecoder {
        StreamDecoder::default()
    }

    /// Decodes the next chunk, appending the text it completes to `out`.
    ///
    /// # Errors
    ///
    /// As [`StreamValidator::feed`]; the text before the error has been
    /// appended.
    pub fn feed(&mut self, chunk: &[u8], out: &mut String) -> Result<(), Utf8Error> {
        let v = &mut self.validator;
        if let Some(err) = v.error {
            return Err(err);
        }
        v.seen += chunk.len();
        let mut sink = Collect {
            out,
            replacements: 0,
        };
        v.engine
            .feed(chunk, false, &mut sink)
            .inspect_err(|&e| v.error = Some(e))
    }

    /// Ends the stream. Nothing is left to append: complete characters were
    /// appended by [`feed`](Self::feed).
    ///
    /// # Errors
    ///
    /// As [`StreamValidator::finish`].
    pub fn finish(&mut self, _out: &mut String) -> Result<usize, Utf8Error> {
        self.validator.finish()
    }
}

/// Decodes a stream lossily: the output over any chunking equals
/// `String::from_utf8_lossy` of the whole stream.
///
/// Each chunk, but for a character cut by its end (kept for the next
/// chunk), is decoded by the one-pass kernel of
/// [`decode_lossy_into`](crate::decode_lossy_into): valid runs checked and
/// copied together by the SIMD validator, invalid sequences replaced in
/// place.
///
/// ```
/// use utf8kit::stream::LossyStreamDecoder;
///
/// let mut d = LossyStreamDecoder::new();
/// let mut text = String::new();
/// for chunk in [&b"\xF0\x9F"[..], b"\x98", b"A"] {
///     d.feed(chunk, &mut text);
/// }
/// d.finish(&mut text);
/// assert_eq!(text, "\u{FFFD}A");
/// assert_eq!(d.replacements(), 1);
/// ```
#[cfg(feature = "alloc")]
#[derive(Clone, Debug, Default)]
pub struct LossyStreamDecoder {
    engine: Engine,
    replacements: u64,
}

#[cfg(feature = "alloc")]
impl LossyStreamDecoder {
    /// A decoder at the start of a stream.
    pub fn new() -> LossyStreamDecoder {
        LossyStreamDecoder::default()
    }

    /// Decodes the next chunk, appending text (with U+FFFD for each invalid
    /// sequence) to `out`.
    pub fn feed(&mut self, chunk: &[u8], out: &mut String) {
        let mut sink = Collect {
            out,
            replacements: 0,
        };
        // Lossy mode never returns an error.
        let rest = self
            .engine
            .settle_carry(chunk, true, &mut sink)
            .unwrap_or_default();
        self.replacements += sink.replacements;
        let Some(rest) = rest else {
            return;
        };
        // Everything but a character cut by the end decodes as it would in
        // one piece (no maximal subpart reaches into the cut character,
        // which starts with a lead byte), by the one-pass lossy kernel.
        let whole = rest.len() - cut_len(rest);
        let (body, cut) = rest.split_at(whole);
        self.replacements += crate::decode_lossy_into(body, out) as u64;
        self.engine.base += body.len();
        self.engine.keep(cut);
    }

    /// Ends the stream: a character still cut becomes one U+FFFD.
    pub fn finish(&mut self, out: &mut String) {
        if self.engine.finish().is_some() {
            out.push(char::REPLACEMENT_CHARACTER);
            self.replacements += 1;
        }
    }

    /// Replacement characters written so far.
    pub fn replacements(&self) -> u64 {
        self.replacements
    }
}

/// The length of the start of a character that `bytes` ends with, cut by
/// the end (a lead byte and the continuation bytes it may take so far, at
/// most 3 bytes), or 0.
#[cfg(feature = "alloc")]
fn cut_len(bytes: &[u8]) -> usize {
    let from = bytes.len().saturating_sub(3);
    let Some(lead) = bytes[from..].iter().rposition(|&b| (b as i8) >= -64) else {
        return 0;
    };
    let tail = &bytes[from + lead..];
    match crate::validate::scalar::decode_first(tail) {
        crate::validate::scalar::Sequence::Invalid(None, _) => tail.len(),
        _ => 0,
    }
}

/// One piece of a scanned stream: a run of valid text or one invalid
/// sequence (a maximal subpart, as `String::from_utf8_lossy` replaces it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Piece<'a> {
    /// Valid text.
    Valid(&'a str),
    /// An invalid sequence: its error (offsets from the start of the
    /// stream) and its bytes.
    Invalid(Utf8Error, &'a [u8]),
}

/// Finds every error of a stream, not just the first: reports valid runs
/// and invalid sequences in order, over chunks cut anywhere. The pieces are
/// exactly those of [`utf8_chunks`](crate::utf8_chunks) on the whole stream
/// (a valid run may arrive split in several pieces).
///
/// ```
/// use utf8kit::stream::{Piece, StreamScanner};
///
/// let mut scanner = StreamScanner::new();
/// let mut errors = Vec::new();
/// for chunk in [&b"ok\xF0\x9F"[..], b"!\xC0", b"\xE4\xB8"] {
///     scanner.feed(chunk, |piece| {
///         if let Piece::Invalid(e, bytes) = piece {
///             errors.push((e.valid_up_to(), bytes.to_vec()));
///         }
///     });
/// }
/// scanner.finish(|piece| {
///     if let Piece::Invalid(e, bytes) = piece {
///         errors.push((e.valid_up_to(), bytes.to_vec()));
///     }
/// });
/// assert_eq!(errors, [(2, vec![0xF0, 0x9F]), (5, vec![0xC0]), (6, vec![0xE4, 0xB8])]);
/// ```
#[derive(Clone, Debug, Default)]
pub struct StreamScanner {
    engine: Engine,
}

/// Adapts a `FnMut(Piece)` to the engine's sink.
struct Visit<F>(F);

impl<F: FnMut(Piece<'_>)> Sink for Visit<F> {
    fn valid(&mut self, text: &str) {
        if !text.is_empty() {
            (self.0)(Piece::Valid(text));
        }
    }
    fn invalid(&mut self, error: Utf8Error, bytes: &[u8]) {
        (self.0)(Piece::Invalid(error, bytes));
    }
}

impl StreamScanner {
    /// A scanner at the start of a stream.
    pub fn new() -> StreamScanner {
        StreamScanner::default()
    }

    /// Scans the next chunk, handing each piece to `visit` in order. A
    /// character cut by the chunk's end is held back for the next chunk.
    pub fn feed(&mut self, chunk: &[u8], visit: impl FnMut(Piece<'_>)) {
        // Lossy mode never returns an error.
        let _ = self.engine.feed(chunk, true, &mut Visit(visit));
    }

    /// Ends the stream: a character still cut is reported as an
    /// [`Incomplete`](Utf8ErrorKind::Incomplete) error with `error_len() == None`.
    pub fn finish(&mut self, visit: impl FnMut(Piece<'_>)) {
        self.engine.finish_with(&mut Visit(visit));
    }

    /// Bytes settled so far (everything fed except a held-back cut character).
    pub fn position(&self) -> usize {
        self.engine.base
    }
}
