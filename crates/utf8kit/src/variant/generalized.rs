//! Generalized UTF-8: the RFC 3629 grammar with the surrogate range
//! U+D800..=U+DFFF allowed. CESU-8, Modified UTF-8 and WTF-8 are all
//! restrictions of it.

use crate::Utf8ErrorKind;

/// One sequence read from generalized UTF-8.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Sequence {
    /// The value: a scalar value or a surrogate.
    pub value: u32,
    /// Its length in bytes (1..=4).
    pub len: usize,
}

impl Sequence {
    pub(crate) fn is_high_surrogate(self) -> bool {
        (0xD800..0xDC00).contains(&self.value)
    }

    pub(crate) fn is_low_surrogate(self) -> bool {
        (0xDC00..0xE000).contains(&self.value)
    }
}

/// Reads the sequence at the start of `bytes` (which must not be empty).
/// On error returns the class of the error, classified like
/// [`validate`](crate::validate()) would (surrogates aside).
pub(crate) fn decode(bytes: &[u8]) -> Result<Sequence, Utf8ErrorKind> {
    let Some(&lead) = bytes.first() else {
        return Err(Utf8ErrorKind::Incomplete);
    };
    let (len, min_second, max_second) = match lead {
        0x00..=0x7F => {
            return Ok(Sequence {
                value: u32::from(lead),
                len: 1,
            });
        }
        0x80..=0xBF => return Err(Utf8ErrorKind::UnexpectedContinuation),
        0xC0 | 0xC1 => return Err(Utf8ErrorKind::Overlong),
        0xC2..=0xDF => (2, 0x80, 0xBF),
        0xE0 => (3, 0xA0, 0xBF),
        0xE1..=0xEF => (3, 0x80, 0xBF),
        0xF0 => (4, 0x90, 0xBF),
        0xF1..=0xF3 => (4, 0x80, 0xBF),
        0xF4 => (4, 0x80, 0x8F),
        0xF5..=0xF7 => return Err(Utf8ErrorKind::OutOfRange),
        0xF8..=0xFF => return Err(Utf8ErrorKind::InvalidByte),
    };
    let Some(&second) = bytes.get(1) else {
        return Err(Utf8ErrorKind::Incomplete);
    };
    if !(min_second..=max_second).contains(&second) {
        return Err(match (lead, second) {
            (0xE0, 0x80..=0x9F) | (0xF0, 0x80..=0x8F) => Utf8ErrorKind::Overlong,
            (0xF4, 0x90..=0xBF) => Utf8ErrorKind::OutOfRange,
            _ => Utf8ErrorKind::Incomplete,
        });
    }
    let mut value = u32::from(lead) & (0x7F >> len);
    for i in 1..len {
        match bytes.get(i) {
            Some(&b) if b & 0xC0 == 0x80 => value = (value << 6) | u32::from(b & 0x3F),
            _ => return Err(Utf8ErrorKind::Incomplete),
        }
    }
    Ok(Sequence { value, len })
}

/// Writes a value below U+10000 (surrogates included) in 1 to 3 bytes.
pub(crate) fn encode_bmp(value: u32, out: &mut [u8]) -> usize {
    // The casts keep the low 8 bits on purpose: each byte takes 6 bits.
    match value {
        0..=0x7F => {
            out[0] = value as u8;
            1
        }
        0x80..=0x7FF => {
            out[0] = 0xC0 | (value >> 6) as u8;
            out[1] = 0x80 | (value & 0x3F) as u8;
            2
        }
        _ => {
            out[0] = 0xE0 | (value >> 12) as u8;
            out[1] = 0x80 | ((value >> 6) & 0x3F) as u8;
            out[2] = 0x80 | (value & 0x3F) as u8;
            3
        }
    }
}

/// Writes `c` as in CESU-8: itself below U+10000, else its surrogate pair,
/// each half in 3 bytes.
pub(crate) fn encode_as_pair(c: char, out: &mut [u8; 6]) -> usize {
    let mut units = [0u16; 2];
    let units = c.encode_utf16(&mut units);
    let mut n = 0;
    for &unit in units.iter() {
        n += encode_bmp(u32::from(unit), &mut out[n..]);
    }
    n
}

/// Combines a surrogate pair.
#[cfg(feature = "alloc")]
pub(crate) fn combine(high: u32, low: u32) -> u32 {
    0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_core_outside_surrogates() {
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                for c in [0x00, 0x80, 0xBF, 0xC0] {
                    let input = [a, b, c, 0x80];
                    let ours = decode(&input);
                    let is_surrogate = a == 0xED && (0xA0..=0xBF).contains(&b) && c & 0xC0 == 0x80;
                    match core::str::from_utf8(&input)
                        .or_else(|e| core::str::from_utf8(&input[..e.valid_up_to()]))
                    {
                        Ok(s) if !s.is_empty() => {
                            let ch = s.chars().next().unwrap();
                            assert_eq!(
                                ours,
                                Ok(Sequence {
                                    value: ch as u32,
                                    len: ch.len_utf8()
                                })
                            );
                        }
                        _ if is_surrogate => {
                            let seq = ours.unwrap();
                            assert_eq!(seq.len, 3);
                            assert!((0xD800..0xE000).contains(&seq.value));
                        }
                        _ => assert!(ours.is_err(), "{input:02X?}"),
                    }
                }
            }
        }
    }
}
