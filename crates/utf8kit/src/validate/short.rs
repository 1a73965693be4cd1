//! Inputs of at most [`MAX`] bytes: keys, names, fields of a record, the
//! tail of a network read. Most of them are ASCII, and for those the fixed
//! cost of calling a SIMD kernel (loading its constant registers, the call
//! itself) is more than the work. So they are tested for ASCII inline, with
//! a few overlapping 8-byte words, and only the rest go to a kernel.

/// The longest input the short path takes.
pub(super) const MAX: usize = 64;

/// Below this, non-ASCII input goes to the scalar kernel rather than a SIMD
/// one: a few characters decode faster than vector registers are set up.
pub(super) const SCALAR_BELOW: usize = 24;

/// Bit 7 of every byte of a word.
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// Whether `bytes` (at most [`MAX`] long) is all ASCII.
///
/// From 16 bytes on it ORs the 16-byte words at 0, 16, 32, … and the last
/// 16 bytes (which overlap the last whole word), so every byte is covered
/// and no byte-by-byte tail loop is needed; shorter inputs do the same with
/// two overlapping 8-byte or 4-byte words, or three single bytes. A 16-byte
/// word is one SSE2 register, which every x86-64 CPU has.
#[inline(always)]
pub(super) fn is_ascii(bytes: &[u8]) -> bool {
    debug_assert!(bytes.len() <= MAX);
    if let Some(last) = bytes.last_chunk::<16>() {
        let (words, _) = bytes.as_chunks::<16>();
        let mut any = u128::from_ne_bytes(*last);
        for word in words {
            any |= u128::from_ne_bytes(*word);
        }
        return any & u128::from_ne_bytes([0x80; 16]) == 0;
    }
    if let (Some(first), Some(last)) = (bytes.first_chunk::<8>(), bytes.last_chunk::<8>()) {
        return (u64::from_ne_bytes(*first) | u64::from_ne_bytes(*last)) & HIGH_BITS == 0;
    }
    if let (Some(first), Some(last)) = (bytes.first_chunk::<4>(), bytes.last_chunk::<4>()) {
        return (u32::from_ne_bytes(*first) | u32::from_ne_bytes(*last)) & 0x8080_8080 == 0;
    }
    // 0 to 3 bytes: the first, middle and last byte cover them all.
    let n = bytes.len();
    let byte = |i: usize| bytes.get(i).copied().unwrap_or(0);
    (byte(0) | byte(n / 2) | byte(n.wrapping_sub(1))) < 0x80
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_ascii_sees_a_high_byte_at_every_position_of_every_length() {
        let mut buf = [b'a'; MAX];
        for len in 0..=MAX {
            assert!(is_ascii(&buf[..len]), "len {len}");
            for at in 0..len {
                buf[at] = 0x80;
                assert!(!is_ascii(&buf[..len]), "len {len}, high byte at {at}");
                buf[at] = 0x7F;
                assert!(is_ascii(&buf[..len]), "len {len}, 7F at {at}");
                buf[at] = b'a';
            }
        }
    }
}
