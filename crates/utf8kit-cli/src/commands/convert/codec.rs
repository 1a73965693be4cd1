//! Streaming decoders and encoders between the CLI's encodings, pivoting
//! through UTF-8 text. The byte work is done by the engine's one-shot
//! functions; this module only cuts the stream where characters end.

use std::fmt;

use utf8kit::transcode::{self, Latin1Error, TranscodeError, Utf16Error};
use utf8kit::variant;

use crate::encodings::Encoding;

/// Why a strict conversion stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConvertError {
    /// Byte offset in the input (for decoding) or character index in the
    /// text (for encoding).
    pub at: u64,
    /// True when `at` is a byte offset of the input.
    pub in_input: bool,
    /// What is wrong.
    pub what: String,
}

impl fmt::Display for ConvertError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.in_input {
            write!(f, "{} at byte {}", self.what, self.at)
        } else {
            write!(f, "{} (character {} of the text)", self.what, self.at)
        }
    }
}

/// Turns input bytes, chunk by chunk, into UTF-8 text.
#[derive(Debug)]
pub struct Decoder {
    encoding: Encoding,
    lossy: bool,
    /// Bytes of a character cut by the previous chunk's end.
    carry: Vec<u8>,
    /// Absolute input offset of `carry[0]` (or of the next chunk).
    offset: u64,
    /// U+FFFD written in place of invalid input.
    pub replacements: u64,
}

impl Decoder {
    /// A decoder from `encoding`; `lossy` replaces errors with U+FFFD.
    pub fn new(encoding: Encoding, lossy: bool) -> Decoder {
        Decoder {
            encoding,
            lossy,
            carry: Vec::new(),
            offset: 0,
            replacements: 0,
        }
    }

    /// Decodes the next chunk (`last`: no more input follows), appending text
    /// to `out`.
    pub fn decode(
        &mut self,
        chunk: &[u8],
        last: bool,
        out: &mut String,
    ) -> Result<(), ConvertError> {
        let mut buf = std::mem::take(&mut self.carry);
        buf.extend_from_slice(chunk);
        let cut = if last {
            buf.len()
        } else {
            self.encoding.complete_prefix(&buf)
        };
        let result = self.decode_complete(&buf[..cut], out);
        self.offset += cut as u64;
        buf.drain(..cut);
        self.carry = buf;
        result
    }

    fn error(&self, at: usize, what: impl Into<String>) -> ConvertError {
        ConvertError {
            at: self.offset + at as u64,
            in_input: true,
            what: what.into(),
        }
    }

    fn decode_complete(&mut self, bytes: &[u8], out: &mut String) -> Result<(), ConvertError> {
        match self.encoding {
            Encoding::Utf8 => {
                if self.lossy {
                    self.replacements += utf8kit::decode_lossy_into(bytes, out) as u64;
                } else {
                    let text = utf8kit::from_utf8(bytes).map_err(|e| {
                        self.error(e.valid_up_to(), format!("invalid UTF-8 ({})", e.kind()))
                    })?;
                    out.push_str(text);
                }
            }
            Encoding::Latin1 => {
                transcode::latin1_to_utf8_into_string(bytes, out);
            }
            Encoding::Utf16Le | Encoding::Utf16Be => {
                let le = self.encoding == Encoding::Utf16Le;
                if self.lossy {
                    let text = if le {
                        transcode::utf16le_to_utf8_lossy(bytes)
                    } else {
                        transcode::utf16be_to_utf8_lossy(bytes)
                    };
                    let genuine = bytes
                        .chunks_exact(2)
                        .filter(|p| matches!((le, p), (true, [0xFD, 0xFF]) | (false, [0xFF, 0xFD])))
                        .count();
                    let produced = text.matches('\u{FFFD}').count();
                    self.replacements += produced.saturating_sub(genuine) as u64;
                    out.push_str(&text);
                } else {
                    let decoded = if le {
                        transcode::utf16le_to_utf8(bytes)
                    } else {
                        transcode::utf16be_to_utf8(bytes)
                    };
                    match decoded {
                        Ok(text) => out.push_str(&text),
                        Err(Utf16Error::UnpairedSurrogate { index, unit }) => {
                            let what = format!("unpaired surrogate {unit:04X} in UTF-16");
                            return Err(self.error(index * 2, what));
                        }
                        Err(_) => {
                            return Err(self.error(bytes.len() - 1, "odd trailing byte in UTF-16"));
                        }
                    }
                }
            }
            Encoding::Utf32Le | Encoding::Utf32Be => {
                let be = self.encoding == Encoding::Utf32Be;
                let units = utf32_units(bytes, be);
                if self.lossy {
                    // Each unit that is not a scalar value becomes one U+FFFD.
                    let invalid = units.iter().filter(|&&u| char::from_u32(u).is_none());
                    self.replacements += invalid.count() as u64;
                    out.push_str(&transcode::utf32_to_utf8_lossy(&units));
                } else {
                    match transcode::utf32_to_utf8(&units) {
                        Ok(text) => out.push_str(&text),
                        Err(e) => {
                            let what = format!("U+{:X} is not a Unicode scalar value", e.value());
                            return Err(self.error(e.index() * 4, what));
                        }
                    }
                }
                if !bytes.len().is_multiple_of(4) {
                    // Only the last chunk can end inside a unit.
                    if self.lossy {
                        out.push('\u{FFFD}');
                        self.replacements += 1;
                    } else {
                        let at = bytes.len() - bytes.len() % 4;
                        return Err(self.error(at, "truncated UTF-32 code unit"));
                    }
                }
            }
            Encoding::Cesu8 | Encoding::Mutf8 => {
                let mut rest = bytes;
                let mut base = 0;
                loop {
                    let decoded = match self.encoding {
                        Encoding::Cesu8 => variant::from_cesu8(rest),
                        _ => variant::from_mutf8(rest),
                    };
                    match decoded {
                        Ok(text) => {
                            out.push_str(&text);
                            break;
                        }
                        Err(e) if self.lossy => {
                            let good = e.offset.min(rest.len());
                            if let Ok(text) = match self.encoding {
                                Encoding::Cesu8 => variant::from_cesu8(&rest[..good]),
                                _ => variant::from_mutf8(&rest[..good]),
                            } {
                                out.push_str(&text);
                            }
                            out.push('\u{FFFD}');
                            self.replacements += 1;
                            let skip = (good + 1).min(rest.len());
                            rest = &rest[skip..];
                            base += skip;
                            if rest.is_empty() {
                                break;
                            }
                        }
                        Err(e) => {
                            return Err(self.error(
                                base + e.offset,
                                format!("invalid {}: {}", self.encoding, e.kind),
                            ));
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// Turns UTF-8 text into output bytes.
#[derive(Debug)]
pub struct Encoder {
    encoding: Encoding,
    lossy: bool,
    /// Characters written as `?` because the encoding lacks them.
    pub replacements: u64,
    /// Characters encoded so far.
    chars: u64,
}

impl Encoder {
    /// An encoder to `encoding`; `lossy` writes `?` for characters Latin-1 lacks.
    pub fn new(encoding: Encoding, lossy: bool) -> Encoder {
        Encoder {
            encoding,
            lossy,
            replacements: 0,
            chars: 0,
        }
    }

    /// Encodes `text`, appending to `out`.
    pub fn encode(&mut self, text: &str, out: &mut Vec<u8>) -> Result<(), ConvertError> {
        match self.encoding {
            Encoding::Utf8 => out.extend_from_slice(text.as_bytes()),
            Encoding::Utf16Le => append_utf16(text, out, false),
            Encoding::Utf16Be => append_utf16(text, out, true),
            Encoding::Utf32Le => append_utf32(text, out, false),
            Encoding::Utf32Be => append_utf32(text, out, true),
            Encoding::Cesu8 => out.extend_from_slice(&variant::to_cesu8(text)),
            Encoding::Mutf8 => out.extend_from_slice(&variant::to_mutf8(text)),
            Encoding::Latin1 => self.append_latin1(text, out)?,
        }
        self.chars += transcode::count_chars(text) as u64;
        Ok(())
    }

    /// Appends `text` as Latin-1: the library's SIMD converter takes each
    /// run of characters up to U+00FF; a character above it is `?` when
    /// lossy, else the error (with its index among all characters encoded).
    fn append_latin1(&mut self, text: &str, out: &mut Vec<u8>) -> Result<(), ConvertError> {
        let base = out.len();
        // One byte per character is never more than its UTF-8 bytes, so
        // `out[o..]` always has room for the rest.
        out.resize(base + text.len(), 0);
        let mut o = base;
        let mut rest = text;
        while !rest.is_empty() {
            let error = match transcode::valid_utf8_to_latin1_into(rest, &mut out[o..]) {
                Ok(n) => {
                    o += n;
                    break;
                }
                Err(error) => error,
            };
            let (offset, ch) = match error {
                TranscodeError::Invalid(Latin1Error::Unrepresentable { offset, ch }) => {
                    (offset, ch)
                }
                // Not expected (the text is valid and has room), but find
                // the character by hand rather than fail.
                _ => match rest.char_indices().find(|&(_, c)| u32::from(c) > 0xFF) {
                    Some(found) => found,
                    None => {
                        for c in rest.chars() {
                            out[o] = c as u8;
                            o += 1;
                        }
                        break;
                    }
                },
            };
            let done = &rest[..offset];
            // What an error leaves in the buffer is unspecified: convert the
            // run before the character again (it cannot fail).
            o += transcode::valid_utf8_to_latin1_into(done, &mut out[o..]).unwrap_or(0);
            if !self.lossy {
                out.truncate(base);
                let index = transcode::count_chars(&text[..text.len() - rest.len() + offset]);
                return Err(ConvertError {
                    at: self.chars + index as u64,
                    in_input: false,
                    what: format!("U+{:04X} {ch:?} has no Latin-1 form", u32::from(ch)),
                });
            }
            out[o] = b'?';
            o += 1;
            self.replacements += 1;
            rest = &rest[offset + ch.len_utf8()..];
        }
        out.truncate(o);
        Ok(())
    }
}

/// Appends `text` as UTF-16 bytes (big-endian if `be`) to `out`, with the
/// library's SIMD transcoder writing straight into `out`'s new tail.
fn append_utf16(text: &str, out: &mut Vec<u8>, be: bool) {
    let start = out.len();
    out.resize(
        start + 2 * transcode::utf16_len_from_utf8(text.as_bytes()),
        0,
    );
    let written = out.get_mut(start..).map(|tail| {
        if be {
            transcode::utf8_to_utf16be_into(text.as_bytes(), tail)
        } else {
            transcode::utf8_to_utf16le_into(text.as_bytes(), tail)
        }
    });
    // `text` is valid and the tail has exactly the room it needs, so this
    // cannot fail; should it ever, fall back to std rather than write
    // wrong bytes.
    debug_assert!(matches!(written, Some(Ok(n)) if n == out.len() - start));
    if !matches!(written, Some(Ok(_))) {
        out.truncate(start);
        for u in text.encode_utf16() {
            out.extend_from_slice(&if be { u.to_be_bytes() } else { u.to_le_bytes() });
        }
    }
}

/// Appends `text` as UTF-32 bytes (big-endian if `be`), converted by the
/// library's SIMD transcoder.
fn append_utf32(text: &str, out: &mut Vec<u8>, be: bool) {
    let units = transcode::valid_utf8_to_utf32(text);
    out.reserve(4 * units.len());
    for u in units {
        out.extend_from_slice(&if be { u.to_be_bytes() } else { u.to_le_bytes() });
    }
}

/// The whole 32-bit units of `bytes` (big-endian if `be`); a partial last
/// unit is left out.
fn utf32_units(bytes: &[u8], be: bool) -> Vec<u32> {
    let (whole, _partial) = bytes.as_chunks::<4>();
    whole
        .iter()
        .map(|&p| {
            if be {
                u32::from_be_bytes(p)
            } else {
                u32::from_le_bytes(p)
            }
        })
        .collect()
}
