//! Ken Thompson's table-walking `wctomb`/`mbtowc`, written once over the
//! widest row type so the 6-row (31-bit) and 8-row (42-bit) codecs share it.

use super::Plan9Error;
use super::extended::Tab;

/// The row for `value`: the first whose `lmask` covers it, with its index
/// (the sequence length is the index plus one).
#[inline]
pub(super) fn row_for(rows: &'static [Tab], value: u64) -> Option<(usize, &'static Tab)> {
    rows.iter().enumerate().find(|(_, t)| value <= t.lmask)
}

/// `wctomb`: writes the sequence for `value` to `out` and returns its
/// length, or 0 if no row covers `value` or `out` is too short.
#[inline]
pub(super) fn encode(rows: &'static [Tab], value: u64, out: &mut [u8]) -> usize {
    let Some((index, t)) = row_for(rows, value) else {
        return 0;
    };
    let len = index + 1;
    let Some(out) = out.get_mut(..len) else {
        return 0;
    };
    let Some((lead, rest)) = out.split_first_mut() else {
        return 0;
    };
    // The lead byte carries the bits above the continuation bytes; `lmask`
    // guarantees they fit under `cval`'s marker bits (for the 7- and 8-byte
    // forms there are none left, and `value >> shift` is 0).
    *lead = t.cval | (value >> t.shift) as u8;
    let mut shift = t.shift;
    for byte in rest {
        shift -= 6;
        *byte = 0x80 | ((value >> shift) & 0x3F) as u8;
    }
    len
}

/// `mbtowc`, with its checks in its order and each failure named: the lead
/// byte picks the row, each following byte must be `10xxxxxx`, and the
/// value must not be below the row's `lval` (an overlong form).
///
/// Unlike `mbtowc`, which walks the rows while it reads bytes and so only
/// notices a continuation or `FE`/`FF` lead after reading up to five more
/// bytes, the row is chosen from the lead byte first; the results agree on
/// every input that `mbtowc` accepts.
#[inline]
pub(super) fn decode(rows: &'static [Tab], bytes: &[u8]) -> Result<(u64, usize), Plan9Error> {
    let Some(&c0) = bytes.first() else {
        return Err(Plan9Error::Empty);
    };
    let Some((index, t)) = rows
        .iter()
        .enumerate()
        .find(|(_, t)| c0 & t.cmask == t.cval)
    else {
        return Err(Plan9Error::InvalidLead);
    };
    let len = index + 1;
    // At most 8 + 7 * 6 = 50 bits: no overflow in a u64.
    let mut l = u64::from(c0);
    for at in 1..len {
        let Some(&byte) = bytes.get(at) else {
            return Err(Plan9Error::Truncated);
        };
        let c = byte ^ 0x80;
        if c & 0xC0 != 0 {
            return Err(Plan9Error::BadContinuation { at });
        }
        l = (l << 6) | u64::from(c);
    }
    // Dropping the lead byte's marker bits leaves the value.
    l &= t.lmask;
    if l < t.lval {
        return Err(Plan9Error::Overlong);
    }
    Ok((l, len))
}
