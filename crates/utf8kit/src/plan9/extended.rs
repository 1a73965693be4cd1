//! The extended 7- and 8-byte forms: a variable-length integer codec for
//! non-character data up to 42 bits, **not Unicode**.
//!
//! With the 31-bit table full, the leads `FE` (`11111110`) and `FF`
//! (`11111111`) have no payload bits left. Taking the lead to carry no data,
//! the continuation bytes alone hold 6 × 6 = 36 bits (7 bytes) or
//! 7 × 6 = 42 bits (8 bytes):
//!
//! | bytes | bits | `lval`..=`lmask` | byte sequence |
//! |---|---|---|---|
//! | 1–6 | up to 31 | as in [`plan9::TAB`](super::TAB) | as in [`plan9`](super) |
//! | 7 | 36 | `8000_0000`..=`F_FFFF_FFFF` | `FE` + 6 × `10vvvvvv` |
//! | 8 | 42 | `10_0000_0000`..=`3FF_FFFF_FFFF` | `FF` + 7 × `10vvvvvv` |
//!
//! The same table-walking algorithm as the 6-row codec works unchanged with
//! two more rows, so values up to 31 bits encode exactly as in
//! [`plan9::encode`](super::encode) and the overlong rule still holds (a
//! 7-byte form below 2³¹ is overlong). No Unicode decoder accepts `FE` or
//! `FF`; keep these bytes away from anything that expects text.
//!
//! ```
//! use utf8kit::plan9::extended;
//!
//! let mut buf = [0; 8];
//! let n = extended::encode(1 << 40, &mut buf);
//! assert_eq!(&buf[..n], b"\xFF\x90\x80\x80\x80\x80\x80\x80");
//! assert_eq!(extended::decode(&buf[..n]), Ok((1 << 40, 8)));
//! ```

use super::{Plan9Error, codec};

/// One row of the extended table: [`plan9::Tab`](super::Tab) with 64-bit
/// limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tab {
    /// Mask selecting the length marker of a lead byte.
    pub cmask: u8,
    /// The lead byte with its payload bits cleared.
    pub cval: u8,
    /// Payload bits carried by the continuation bytes (6 per byte).
    pub shift: u32,
    /// The largest value of the row.
    pub lmask: u64,
    /// The smallest value of the row; anything lower is overlong.
    pub lval: u64,
}

impl Tab {
    /// The sequence length of the row, in bytes.
    ///
    /// ```
    /// assert_eq!(utf8kit::plan9::extended::TAB[7].len(), 8);
    /// ```
    #[inline]
    #[allow(clippy::len_without_is_empty)] // a row is never empty
    pub const fn len(&self) -> usize {
        self.shift as usize / 6 + 1
    }
}

/// The six rows of [`plan9::TAB`](super::TAB) followed by the 7-byte (`FE`)
/// and 8-byte (`FF`) rows.
// `n * 6` as in the seed: the shift is 6 bits per continuation byte.
#[allow(clippy::erasing_op, clippy::identity_op)]
#[rustfmt::skip]
pub static TAB: [Tab; 8] = [
    Tab { cmask: 0x80, cval: 0x00, shift: 0 * 6, lmask: 0x7F,              lval: 0 },
    Tab { cmask: 0xE0, cval: 0xC0, shift: 1 * 6, lmask: 0x7FF,             lval: 0x80 },
    Tab { cmask: 0xF0, cval: 0xE0, shift: 2 * 6, lmask: 0xFFFF,            lval: 0x800 },
    Tab { cmask: 0xF8, cval: 0xF0, shift: 3 * 6, lmask: 0x1F_FFFF,         lval: 0x1_0000 },
    Tab { cmask: 0xFC, cval: 0xF8, shift: 4 * 6, lmask: 0x3FF_FFFF,        lval: 0x20_0000 },
    Tab { cmask: 0xFE, cval: 0xFC, shift: 5 * 6, lmask: 0x7FFF_FFFF,       lval: 0x400_0000 },
    Tab { cmask: 0xFF, cval: 0xFE, shift: 6 * 6, lmask: 0xF_FFFF_FFFF,     lval: 0x8000_0000 },
    Tab { cmask: 0xFF, cval: 0xFF, shift: 7 * 6, lmask: 0x3FF_FFFF_FFFF,   lval: 0x10_0000_0000 },
];

/// The largest value the extended codec encodes, 2⁴² − 1.
pub const MAX: u64 = 0x3FF_FFFF_FFFF;

/// The row that encodes `value` (the shortest form), or `None` above
/// [`MAX`].
///
/// ```
/// use utf8kit::plan9::extended::{row_for, MAX};
///
/// assert_eq!(row_for(0x7FFF_FFFF).unwrap().len(), 6);
/// assert_eq!(row_for(0x8000_0000).unwrap().len(), 7);
/// assert_eq!(row_for(MAX).unwrap().len(), 8);
/// assert!(row_for(MAX + 1).is_none());
/// ```
#[inline]
pub fn row_for(value: u64) -> Option<&'static Tab> {
    codec::row_for(&TAB, value).map(|(_, t)| t)
}

/// Encodes `value` into `out` and returns the number of bytes written,
/// 1 to 8.
///
/// Returns 0, and writes nothing, if `value` is above [`MAX`]. Eight bytes
/// are always enough.
///
/// ```
/// use utf8kit::plan9::extended;
///
/// let mut buf = [0; 8];
/// assert_eq!(extended::encode(0x8000_0000, &mut buf), 7);
/// assert_eq!(&buf[..7], b"\xFE\x82\x80\x80\x80\x80\x80");
/// assert_eq!(extended::encode(extended::MAX + 1, &mut buf), 0);
/// ```
#[inline]
pub fn encode(value: u64, out: &mut [u8; 8]) -> usize {
    codec::encode(&TAB, value, out)
}

/// Decodes the sequence at the start of `bytes` and returns its value and
/// length. Bytes after the sequence are ignored.
///
/// # Errors
///
/// As [`plan9::decode`](super::decode), except that `FE` and `FF` are
/// leads of 7- and 8-byte sequences, so only continuation bytes are
/// [`Plan9Error::InvalidLead`].
///
/// ```
/// use utf8kit::plan9::{extended, Plan9Error};
///
/// assert_eq!(extended::decode(b"\xFE\x82\x80\x80\x80\x80\x80"), Ok((0x8000_0000, 7)));
/// // 2^31 - 1 fits in 6 bytes: the 7-byte form is overlong.
/// assert_eq!(extended::decode(b"\xFE\x81\xBF\xBF\xBF\xBF\xBF"), Err(Plan9Error::Overlong));
/// assert_eq!(extended::decode(b"\xFF\x80"), Err(Plan9Error::Truncated));
/// ```
#[inline]
pub fn decode(bytes: &[u8]) -> Result<(u64, usize), Plan9Error> {
    codec::decode(&TAB, bytes)
}
