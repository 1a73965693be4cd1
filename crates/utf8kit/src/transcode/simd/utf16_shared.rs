//! Tables and scalar helpers the UTF-8 ⇄ UTF-16 kernels share, none of
//! them tied to one instruction set:
//!
//! * [`PACK`] and [`SWAP16`], `pshufb` tables (16-byte rows, usable by the
//!   SSE4.1 and AVX2 kernels alike);
//! * [`pairs`], the scalar surrogate pairs of a run of 4-byte characters
//!   (UTF-8 → UTF-16, SSE4.1);
//! * [`pair_end`], where a window of UTF-16 units may end without splitting
//!   a surrogate pair (UTF-16 → UTF-8, SSE4.1 and AVX2);
//! * [`surrogate_block`] and [`ROOM8`], a 16-unit block with surrogates
//!   encoded with scalar code (UTF-16 → UTF-8, SSE4.1).

/// The `pshufb` indices that pack the 16-bit lanes of an 8-lane register
/// whose bit is set in the mask (the index into the table) to its start.
/// The lanes after them get zeros.
pub(crate) static PACK: [[u8; 16]; 256] = super::lane_table(2, &[], &[0, 1]);

/// `pshufb` indices swapping the bytes of each 16-bit lane (UTF-16BE).
pub(crate) static SWAP16: [u8; 16] = [1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14];

/// Converts the run of 4-byte characters at `src` (at most `limit` bytes
/// of leads) to surrogate pairs at `out`; returns bytes read and units
/// written (at least one character: `src` starts with a 4-byte lead).
///
/// # Safety
///
/// `src` is readable for `limit + 3` bytes and `out` writable for
/// `limit / 2` units (rounded up, plus 2).
#[inline(always)]
pub(crate) unsafe fn pairs<const BE: bool>(
    src: *const u8,
    limit: usize,
    out: *mut u8,
) -> (usize, usize) {
    let mut read = 0;
    let mut written = 0;
    // SAFETY: `read < limit` before each character, so its 4 bytes are
    // within `limit + 3`; 2 units per 4 bytes stay within the room.
    unsafe {
        while read < limit && *src.add(read) >= 0xF0 {
            let b = |k: usize| u32::from(*src.add(read + k));
            let cp = ((b(0) & 0x07) << 18)
                | ((b(1) & 0x3F) << 12)
                | ((b(2) & 0x3F) << 6)
                | (b(3) & 0x3F);
            let c = cp.wrapping_sub(0x10000);
            let hi = (0xD800 | ((c >> 10) & 0x3FF)) as u16;
            let lo = (0xDC00 | (c & 0x3FF)) as u16;
            let (hi, lo) = if BE {
                (hi.to_be_bytes(), lo.to_be_bytes())
            } else {
                (hi.to_le_bytes(), lo.to_le_bytes())
            };
            out.add(2 * written).cast::<[u8; 2]>().write_unaligned(hi);
            out.add(2 * written + 2)
                .cast::<[u8; 2]>()
                .write_unaligned(lo);
            read += 4;
            written += 2;
        }
    }
    (read, written)
}

/// Output room a UTF-16 → UTF-8 step needs: 16 units make at most 48
/// bytes, written by four 16-byte stores, the last at most 36 bytes in.
pub(crate) const ROOM8: usize = 64;

/// Unit `k` of the UTF-16 at `src` (little-endian bytes, or big-endian if
/// `BE`).
///
/// # Safety
///
/// * Bytes `2 * k..2 * k + 2` from `src` are readable.
#[inline(always)]
pub(crate) unsafe fn unit_at<const BE: bool>(src: *const u8, k: usize) -> u16 {
    // SAFETY: the caller makes the two bytes readable.
    let b = unsafe { src.add(2 * k).cast::<[u8; 2]>().read_unaligned() };
    if BE {
        u16::from_be_bytes(b)
    } else {
        u16::from_le_bytes(b)
    }
}

/// `end`, or one unit further if a surrogate pair straddles it (a high
/// half just before `end`, a low one at it): where a window of units that
/// ends at `end` can end without splitting a pair.
///
/// # Safety
///
/// * `1 <= end <= len`, and the `len` units at `src` (little-endian bytes,
///   or big-endian if `BE`) are readable.
#[inline(always)]
pub(crate) unsafe fn pair_end<const BE: bool>(src: *const u8, len: usize, end: usize) -> usize {
    // SAFETY: `k` is `end - 1` or `end < len` below, both below `len`.
    let unit = |k: usize| unsafe { unit_at::<BE>(src, k) };
    let paired = end < len
        && (0xD800..0xDC00).contains(&unit(end - 1))
        && (0xDC00..0xE000).contains(&unit(end));
    end + usize::from(paired)
}

/// Encodes the block of 16 units at unit `i` (of `len` at `src`), which
/// holds a surrogate, with scalar code, and the unit after it if the block
/// ends with the high half of a pair: returns the end of what it read and
/// the bytes written (at most 49: 15 3-byte units and a pair). At an
/// unpaired surrogate it writes nothing that counts and returns `Err` with
/// that end, the window the scalar kernel should convert instead.
///
/// # Safety
///
/// Units `i..i + 16` of the `len` at `src` are readable and 64 bytes at
/// `out` are writable.
#[inline(always)]
pub(crate) unsafe fn surrogate_block<const BE: bool>(
    src: *const u8,
    len: usize,
    i: usize,
    out: *mut u8,
) -> Result<(usize, usize), usize> {
    // SAFETY: the callers below keep `k < len`.
    let unit = |k: usize| unsafe { unit_at::<BE>(src, k) };
    // SAFETY: units `i..i + 16` are readable, so `i + 16 <= len`.
    let end = unsafe { pair_end::<BE>(src, len, i + 16) };
    // SAFETY: 64 bytes at `out` are writable (the caller's promise), and
    // nothing else refers to them while `room` lives.
    let room = unsafe { core::slice::from_raw_parts_mut(out, ROOM8) };
    let mut k = i;
    let mut w = 0;
    while k < end {
        let u = unit(k);
        let cp = match u {
            0xD800..=0xDBFF if k + 1 < end => {
                let low = unit(k + 1);
                if !(0xDC00..0xE000).contains(&low) {
                    return Err(end);
                }
                k += 1;
                0x10000 + ((u32::from(u) - 0xD800) << 10) + (u32::from(low) - 0xDC00)
            }
            0xD800..=0xDFFF => return Err(end),
            _ => u32::from(u),
        };
        w += crate::transcode::step::put_utf8(room, w, cp);
        k += 1;
    }
    Ok((end, w))
}
