//! The original UTF-8 of Plan 9 (1992): Ken Thompson's `Tab` codec for
//! values up to 31 bits, in 1 to 6 bytes.
//!
//! This is the encoding as first designed, not RFC 3629 UTF-8. It encodes
//! any value in `0..=0x7FFF_FFFF` ([`MAX`]), so its [`decode`] accepts
//! surrogates (`ED A0 80` is 0xD800), values above U+10FFFF (`F4 90 80 80`
//! is 0x110000) and the 5- and 6-byte forms (`F8..FD` leads). It still
//! rejects overlong forms. On every Unicode scalar value it agrees with
//! standard UTF-8 byte for byte ([`char::encode_utf8`]); use
//! [`char::from_u32`] on a decoded value to get back to Unicode.
//!
//! The codec is driven by one table, [`TAB`], with one row per length:
//!
//! | bytes | bits | `lval`..=`lmask` | byte sequence |
//! |---|---|---|---|
//! | 1 | 7 | `0`..=`7F` | `0vvvvvvv` |
//! | 2 | 11 | `80`..=`7FF` | `110vvvvv 10vvvvvv` |
//! | 3 | 16 | `800`..=`FFFF` | `1110vvvv 10vvvvvv 10vvvvvv` |
//! | 4 | 21 | `10000`..=`1FFFFF` | `11110vvv` + 3 × `10vvvvvv` |
//! | 5 | 26 | `200000`..=`3FFFFFF` | `111110vv` + 4 × `10vvvvvv` |
//! | 6 | 31 | `4000000`..=`7FFFFFFF` | `1111110v` + 5 × `10vvvvvv` |
//!
//! The [`extended`] submodule adds the 7- and 8-byte forms (leads `FE` and
//! `FF`) for 36- and 42-bit non-character data.
//!
//! ```
//! use utf8kit::plan9;
//!
//! // 吕 U+5415 is E5 90 95, as in standard UTF-8.
//! let mut buf = [0; 6];
//! let n = plan9::encode(0x5415, &mut buf);
//! assert_eq!(&buf[..n], b"\xE5\x90\x95");
//! assert_eq!(plan9::decode(&buf[..n]), Ok((0x5415, 3)));
//!
//! // The largest 31-bit value takes 6 bytes.
//! let n = plan9::encode(plan9::MAX, &mut buf);
//! assert_eq!(&buf[..n], b"\xFD\xBF\xBF\xBF\xBF\xBF");
//! ```

mod codec;
pub mod extended;

use core::fmt;

/// One row of the codec table: how to recognise, encode and check a
/// sequence of one length (the row's index plus one).
///
/// The fields keep the names of the Plan 9 source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tab {
    /// Mask selecting the length marker of a lead byte: the marker bits
    /// plus the 0 that ends them.
    pub cmask: u8,
    /// The lead byte with its payload bits cleared: `lead & cmask == cval`
    /// identifies the row.
    pub cval: u8,
    /// Payload bits carried by the continuation bytes (6 per byte): the
    /// lead byte holds `value >> shift`.
    pub shift: u32,
    /// The largest value of the row (and the mask that removes the lead's
    /// marker bits while decoding).
    pub lmask: u32,
    /// The smallest value of the row; anything lower is overlong.
    pub lval: u32,
}

impl Tab {
    /// The sequence length of the row, in bytes.
    ///
    /// ```
    /// assert_eq!(utf8kit::plan9::TAB[2].len(), 3);
    /// ```
    #[inline]
    #[allow(clippy::len_without_is_empty)] // a row is never empty
    pub const fn len(&self) -> usize {
        self.shift as usize / 6 + 1
    }
}

/// The six rows of Ken Thompson's table, in order of length, with the
/// seed's exact values.
// `n * 6` as in the seed: the shift is 6 bits per continuation byte.
#[allow(clippy::erasing_op, clippy::identity_op)]
#[rustfmt::skip]
pub static TAB: [Tab; 6] = [
    Tab { cmask: 0x80, cval: 0x00, shift: 0 * 6, lmask: 0x7F,        lval: 0 },         // 1 byte
    Tab { cmask: 0xE0, cval: 0xC0, shift: 1 * 6, lmask: 0x7FF,       lval: 0x80 },      // 2 bytes
    Tab { cmask: 0xF0, cval: 0xE0, shift: 2 * 6, lmask: 0xFFFF,      lval: 0x800 },     // 3 bytes
    Tab { cmask: 0xF8, cval: 0xF0, shift: 3 * 6, lmask: 0x1F_FFFF,   lval: 0x1_0000 },  // 4 bytes
    Tab { cmask: 0xFC, cval: 0xF8, shift: 4 * 6, lmask: 0x3FF_FFFF,  lval: 0x20_0000 }, // 5 bytes
    Tab { cmask: 0xFE, cval: 0xFC, shift: 5 * 6, lmask: 0x7FFF_FFFF, lval: 0x400_0000 },// 6 bytes
];

/// The largest value the codec encodes, 2³¹ − 1.
pub const MAX: u32 = 0x7FFF_FFFF;

/// The row that encodes `value` (the shortest form), or `None` above
/// [`MAX`].
///
/// ```
/// use utf8kit::plan9::{row_for, MAX};
///
/// assert_eq!(row_for(0x7F).unwrap().len(), 1);
/// assert_eq!(row_for(0x80).unwrap().len(), 2);
/// assert_eq!(row_for(MAX).unwrap().len(), 6);
/// assert!(row_for(MAX + 1).is_none());
/// ```
#[inline]
pub fn row_for(value: u32) -> Option<&'static Tab> {
    TAB.iter().find(|t| value <= t.lmask)
}

/// Encodes `value` into `out` (the `wctomb` of Plan 9) and returns the
/// number of bytes written, 1 to 6.
///
/// Returns 0, and writes nothing, if `value` is above [`MAX`]: no row can
/// hold it. Six bytes are always enough, so the buffer never is too short.
///
/// ```
/// use utf8kit::plan9;
///
/// let mut buf = [0; 6];
/// assert_eq!(plan9::encode('😀' as u32, &mut buf), 4);
/// assert_eq!(&buf[..4], "😀".as_bytes());
/// // A surrogate encodes like any 16-bit value.
/// assert_eq!(plan9::encode(0xD800, &mut buf), 3);
/// assert_eq!(&buf[..3], b"\xED\xA0\x80");
/// // 2^31 does not fit.
/// assert_eq!(plan9::encode(0x8000_0000, &mut buf), 0);
/// ```
#[inline]
pub fn encode(value: u32, out: &mut [u8; 6]) -> usize {
    codec::encode(&extended::TAB[..6], u64::from(value), out)
}

/// Decodes the sequence at the start of `bytes` (the `mbtowc` of Plan 9)
/// and returns its value and length. Bytes after the sequence are ignored.
///
/// Values need not be Unicode scalar values: surrogates and values above
/// U+10FFFF decode like any other, up to [`MAX`].
///
/// # Errors
///
/// * [`Plan9Error::Empty`]: `bytes` is empty.
/// * [`Plan9Error::InvalidLead`]: the first byte is a continuation byte
///   (`80..BF`) or `FE`/`FF`.
/// * [`Plan9Error::Truncated`]: `bytes` ends before the sequence does.
/// * [`Plan9Error::BadContinuation`]: a byte after the lead is not
///   `10xxxxxx`.
/// * [`Plan9Error::Overlong`]: the value is below the row's `lval`, so a
///   shorter sequence encodes it.
///
/// The first failing check in that order (bytes in order) is reported.
///
/// ```
/// use utf8kit::plan9::{self, Plan9Error};
///
/// assert_eq!(plan9::decode(b"\xE4\xB8\x96rest"), Ok((0x4E16, 3)));
/// assert_eq!(plan9::decode(b"\xED\xA0\x80"), Ok((0xD800, 3))); // a surrogate
/// assert_eq!(plan9::decode(b"\xFD\xBF\xBF\xBF\xBF\xBF"), Ok((0x7FFF_FFFF, 6)));
/// assert_eq!(plan9::decode(b"\xC0\xAF"), Err(Plan9Error::Overlong));
/// assert_eq!(plan9::decode(b"\xE4\xB8"), Err(Plan9Error::Truncated));
/// assert_eq!(plan9::decode(b"\xE4A"), Err(Plan9Error::BadContinuation { at: 1 }));
/// assert_eq!(plan9::decode(b"\xFE"), Err(Plan9Error::InvalidLead));
/// ```
#[inline]
pub fn decode(bytes: &[u8]) -> Result<(u32, usize), Plan9Error> {
    let (value, len) = codec::decode(&extended::TAB[..6], bytes)?;
    // Six rows hold at most 31 bits.
    match u32::try_from(value) {
        Ok(value) => Ok((value, len)),
        Err(_) => Err(Plan9Error::InvalidLead),
    }
}

/// Why a byte sequence is not a Plan 9 (or extended) UTF-8 sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Plan9Error {
    /// There were no bytes.
    Empty,
    /// The input ended before the sequence announced by the lead byte.
    Truncated,
    /// The byte at index `at` of the input should be a continuation byte
    /// (`10xxxxxx`) but is not.
    BadContinuation {
        /// Index of the offending byte, counted from the lead byte (≥ 1).
        at: usize,
    },
    /// The value is encoded with more bytes than it needs.
    Overlong,
    /// The first byte cannot start a sequence: a continuation byte, or a
    /// byte with more leading ones than the table has rows.
    InvalidLead,
}

impl fmt::Display for Plan9Error {
    /// ```
    /// use utf8kit::plan9::Plan9Error;
    /// assert_eq!(
    ///     Plan9Error::BadContinuation { at: 2 }.to_string(),
    ///     "byte 2 of the sequence is not a continuation byte"
    /// );
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Plan9Error::Empty => f.write_str("empty input"),
            Plan9Error::Truncated => f.write_str("input ends inside a sequence"),
            Plan9Error::BadContinuation { at } => {
                write!(f, "byte {at} of the sequence is not a continuation byte")
            }
            Plan9Error::Overlong => f.write_str("overlong encoding"),
            Plan9Error::InvalidLead => f.write_str("invalid lead byte"),
        }
    }
}

impl core::error::Error for Plan9Error {}
