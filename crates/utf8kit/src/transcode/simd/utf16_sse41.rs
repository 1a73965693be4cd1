//! SSE4.1 UTF-8 ⇄ UTF-16, and the output lengths of both, for the CPUs
//! before Haswell (SSSE3, SSE4.1, SSE4.2 and POPCNT; no AVX2, no BMI).
//!
//! The algorithms are those of the first AVX2 kernels on 128-bit
//! registers (most of their work was already done in 16-byte halves), and
//! share the `pshufb` tables and surrogate code of `super::utf16_shared`; the
//! AVX2 kernels have since been rewritten (`utf8_to_utf16_avx2`,
//! `utf16_to_utf8_avx2`).
//!
//! # UTF-8 → UTF-16 (input known to be valid)
//!
//! A step looks at 32 bytes. When they are all ASCII they widen to 32
//! units (`pmovzxbw` and `punpckhbw`), when the first 16 are, to 16.
//! Otherwise the step converts the characters that start in the first 16
//! bytes, each decoded *at its lead byte's 16-bit lane*: the 16 bytes from
//! the block start, from one byte on and from two bytes on are widened to
//! 16-bit lanes (two registers of eight each), and each lane computes its
//! 1-, 2- and 3-byte values and keeps (`pblendvb`) the one its lead byte
//! asks for. The lead lanes of each register are then packed to its start
//! by a `pshufb` from a table indexed by their 8-bit mask, and stored. A
//! character that starts at byte 15 may end at byte 17: the step then reads
//! those continuation bytes too, so it ends at a character boundary.
//!
//! Six 3-byte characters (18 bytes) take a shorter step: one `pshufb`
//! index picks their leads from the block and their continuation bytes
//! from the 16 bytes one and two bytes on, into 16-bit lanes.
//!
//! 4-byte characters are not decoded in lanes: a step stops before the
//! first one. A step that starts at one converts 16 bytes that are four
//! 4-byte characters at once (`pmaddubsw` and `pmaddwd` gather the payload
//! bits of each 32-bit lane into its scalar value, which shifts and masks
//! turn into a surrogate pair), and 16 more if they are four too; a
//! shorter run of them it converts to surrogate pairs with scalar code.
//!
//! The kernel runs while 32 bytes are readable and 32 units of room are
//! left, and leaves the rest to the scalar kernel. The packed stores leave
//! up to 8 don't-care units past a step's output, which the output that
//! follows overwrites: steps that make them run only while enough input is
//! left (`TAIL8`), so a conversion that succeeds leaves nothing written past
//! its output.
//!
//! # UTF-16 → UTF-8
//!
//! 16 units (two registers) per step. An all-ASCII block narrows with
//! `packuswb`, and so do the 32-unit blocks after it while they are
//! ASCII. Eight units that are four surrogate pairs become their four
//! 4-byte characters in 32-bit lanes (and the next eight too if they are
//! pairs). Any other block with a surrogate (and the unit after it if it
//! ends with the high half of a pair) is encoded with scalar code if its
//! surrogates are paired, else left to the scalar kernel, which reports or
//! replaces the unpaired one. Otherwise each register of eight units takes
//! one of three paths:
//!
//! * no unit from `800` on (Latin, Greek, Cyrillic, Hebrew, Arabic…):
//!   each 16-bit lane gets its 1- or 2-byte encoding in memory order, and
//!   one `pshufb` from a table indexed by the 8-bit mask of the 2-byte lanes
//!   drops the second byte of the 1-byte lanes;
//! * no unit below `800` (CJK, Indic scripts…): each lane computes its
//!   lead and first continuation byte in one 16-bit lane and its last byte
//!   in another register, and two `pshufb`s from each spread them over the
//!   24 bytes;
//! * else each lane computes its 1-, 2- or 3-byte encoding as for the
//!   paths above, its first two bytes in one register and its third in
//!   another, and each four lanes are spread by a `pshufb` of each register
//!   from a table indexed by which lanes have 2 and which 3 bytes (the
//!   first AVX2 kernel widened to 32-bit lanes instead).
//!
//! # Lengths
//!
//! The UTF-16 length of UTF-8 counts, in byte counters flushed by `psadbw`,
//! the bytes that are not continuation bytes plus the `F0..=FF` ones. The
//! UTF-8 length of UTF-16 counts in 16-bit counters (the first AVX2 one
//! used `popcnt`), 3 per unit less one per unit below `80` and below `800`
//! and two per surrogate pair.

use super::utf16_avx512::Stop;
use super::utf16_shared::{PACK, ROOM8, SWAP16, pairs, surrogate_block};
use super::{Progress, WIDEN};
use core::arch::x86_64::*;

/// Bytes a UTF-8 → UTF-16 step reads and units of room it needs.
const STEP: usize = 32;

/// Input bytes left below which a UTF-8 → UTF-16 step that decodes in
/// lanes is left to the scalar kernel: after it (at most 18 bytes), 30 or
/// more remain, which make at least 10 units, covering the 8 past the
/// step's output its stores may touch.
const TAIL8: usize = 48;

/// Units left below which a UTF-16 → UTF-8 step that encodes in lanes is
/// left to the scalar kernel: after it, 16 or more units remain, which make
/// at least 16 bytes, covering the 12 past the step's output its stores may
/// touch (the steps of surrogate pairs store exactly their output).
const TAIL16: usize = 32;

/// Swaps the bytes of every 16-bit lane if `BE`.
#[target_feature(enable = "sse4.1,sse4.2,ssse3,popcnt")]
#[inline]
fn order<const BE: bool>(v: __m128i) -> __m128i {
    if BE {
        // SAFETY: `SWAP16` is 16 readable bytes.
        let swap = unsafe { _mm_loadu_si128(SWAP16.as_ptr().cast()) };
        _mm_shuffle_epi8(v, swap)
    } else {
        v
    }
}

/// Packs the 16-bit lanes of `v` set in the 8-bit `mask` and stores them
/// (and zeros after them, 16 bytes in all) at `out`; returns how many.
///
/// # Safety
///
/// `out` is valid for writes of 16 bytes.
#[target_feature(enable = "sse4.1,sse4.2,ssse3,popcnt")]
#[inline]
unsafe fn pack_store<const BE: bool>(v: __m128i, mask: u32, out: *mut u8) -> usize {
    let mask = mask & 0xFF;
    // SAFETY: the table entry is 16 readable bytes.
    let index = unsafe { _mm_loadu_si128(PACK[mask as usize].as_ptr().cast()) };
    let packed = order::<BE>(_mm_shuffle_epi8(v, index));
    // SAFETY: the caller's promise.
    unsafe { _mm_storeu_si128(out.cast(), packed) };
    mask.count_ones() as usize
}

/// Stores the 16 bytes of `v` widened to 16 units at `out`.
///
/// # Safety
///
/// `out` is valid for writes of 32 bytes.
#[target_feature(enable = "sse4.1,sse4.2,ssse3,popcnt")]
#[inline]
unsafe fn widen_store<const BE: bool>(v: __m128i, out: *mut u8) {
    let lo = _mm_cvtepu8_epi16(v);
    let hi = _mm_unpackhi_epi8(v, _mm_setzero_si128());
    // SAFETY: the caller's promise.
    unsafe {
        _mm_storeu_si128(out.cast(), order::<BE>(lo));
        _mm_storeu_si128(out.add(16).cast(), order::<BE>(hi));
    }
}

/// Converts valid UTF-8 to UTF-16 (little-endian bytes, or big-endian if
/// `BE`) at `dst` while a whole step's input and room remain.
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `dst` is valid for writes of `2 * cap` bytes (`cap` units).
///
/// `src` should be valid UTF-8 that ends at a character boundary (else the
/// output is meaningless, but every access stays in bounds).
#[target_feature(enable = "sse4.1,sse4.2,ssse3,popcnt")]
pub(crate) unsafe fn utf8_to_utf16<const BE: bool>(
    src: &[u8],
    dst: *mut u8,
    cap: usize,
) -> Progress {
    let mut i = 0;
    let mut o = 0;
    let p = src.as_ptr();
    // Invariants: `i <= src.len()`, `o <= cap`, `i` at a character boundary.
    while src.len() - i >= STEP && cap - o >= STEP {
        // SAFETY: `i + 32 <= src.len()`: both halves are readable.
        let (a, b) = unsafe {
            (
                _mm_loadu_si128(p.add(i).cast()),
                _mm_loadu_si128(p.add(i + 16).cast()),
            )
        };
        // SAFETY: `o + 32 <= cap`: 64 bytes at `out` are writable, which
        // covers every store of the step.
        let out = unsafe { dst.add(2 * o) };
        if _mm_movemask_epi8(a) == 0 {
            let both = _mm_movemask_epi8(b) == 0;
            // SAFETY: 32 or 64 of the 64 writable bytes at `out`.
            unsafe {
                widen_store::<BE>(a, out);
                if both {
                    widen_store::<BE>(b, out.add(32));
                }
            }
            let n = if both { 32 } else { 16 };
            i += n;
            o += n;
            continue;
        }
        if is_four_chars(a) {
            // Four 4-byte characters (and four more if the next 16 bytes
            // are four too): 8 or 16 units.
            let both = is_four_chars(b);
            // SAFETY: 16 or 32 of the 64 writable bytes at `out`.
            unsafe {
                _mm_storeu_si128(out.cast(), order::<BE>(four_pairs(a)));
                if both {
                    _mm_storeu_si128(out.add(16).cast(), order::<BE>(four_pairs(b)));
                }
            }
            let (read, written) = if both { (32, 16) } else { (16, 8) };
            i += read;
            o += written;
            continue;
        }
        // Six 3-byte characters (18 bytes, 6 units; its store leaves 2
        // don't-care units after them: see `TAIL8`).
        if is_six_threes(a) && src.len() - i >= TAIL8 {
            // SAFETY: `i + 32 <= src.len()`: the loads at `i + 1` and
            // `i + 2` are readable.
            let (n1, n2) = unsafe {
                (
                    _mm_loadu_si128(p.add(i + 1).cast()),
                    _mm_loadu_si128(p.add(i + 2).cast()),
                )
            };
            // SAFETY: 16 of the 64 writable bytes at `out`.
            unsafe { _mm_storeu_si128(out.cast(), order::<BE>(six_threes(a, n1, n2))) };
            i += 18;
            o += 6;
            continue;
        }
        // SAFETY: `i + 32 <= src.len()`.
        let Some((lo, hi, mask, read)) = (unsafe { decode16(p.add(i), a) }) else {
            // SAFETY: `i + 32 <= src.len()` and `o + 32 <= cap`; the run
            // of 4-byte characters decoded stays in the first 16 bytes
            // plus 3, and writes 2 units for each 4 bytes.
            let (read, written) = unsafe { pairs::<BE>(p.add(i), 16, out) };
            i += read;
            o += written;
            continue;
        };
        // (See `TAIL8`.)
        if src.len() - i < TAIL8 {
            break;
        }
        // SAFETY: at most 16 units at `out` (two stores of 16 bytes, the
        // second at most 8 units on), inside the 64 writable bytes.
        let written = unsafe {
            let n = pack_store::<BE>(lo, mask, out);
            n + pack_store::<BE>(hi, mask >> 8, out.add(2 * n))
        };
        i += read;
        o += written;
    }
    Progress {
        read: i,
        written: o,
    }
}

/// Whether the 16 bytes `v` (valid UTF-8 from a character boundary) are
/// four 4-byte characters: bytes 0, 4, 8 and 12 are `F0..=FF` (the bytes
/// between them are then their continuation bytes).
#[target_feature(enable = "sse4.1,sse4.2,ssse3,popcnt")]
#[inline]
fn is_four_chars(v: __m128i) -> bool {
    let fours = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8(-16)), v));
    fours & 0x1111 == 0x1111
}

/// The surrogate pairs (native order, the high unit first in memory) of
/// the four 4-byte characters `v` (see [`is_four_chars`]), one a 32-bit lane.
///
/// `pmaddubsw` joins the lead's 3 bits and the first continuation's 6
/// (`a << 6 | b`), and the last two continuations' 6 (`c << 6 | d`), in
/// 16-bit lanes; `pmaddwd` joins the two halves (`<< 12`) into the scalar
/// value, which becomes `D800 | c >> 10` and `DC00 | c & 3FF` with
/// `c = cp - 10000`.
#[target_feature(enable = "sse4.1,sse4.2,ssse3,popcnt")]
#[inline]
fn four_pairs(v: __m128i) -> __m128i {
    // Payload bits (LE lanes: lead, then the continuation bytes).
    let bits = _mm_and_si128(v, _mm_set1_epi32(0x3F3F_3F07));
    // Bytes [x, y] of each 16-bit lane -> x * 64 + y.
    let halves = _mm_maddubs_epi16(bits, _mm_set1_epi16(0x0140));
    // 16-bit lanes [h, l] of each 32-bit lane -> h * 4096 + l.
    let cp = _mm_madd_epi16(halves, _mm_set1_epi32(0x0001_1000));
    let c = _mm_sub_epi32(cp, _mm_set1_epi32(0x1_0000));
    let high = _mm_add_epi32(_mm_srli_epi32::<10>(c), _mm_set1_epi32(0xD800));
    let low = _mm_or_si128(
        _mm_and_si128(c, _mm_set1_epi32(0x3FF)),
        _mm_set1_epi32(0xDC00),
    );
    _mm_or_si128(high, _mm_slli_epi32::<16>(low))
}

/// Whether the 16 bytes `v` (valid UTF-8 from a character boundary) start
/// six 3-byte characters: bytes 0, 3, 6, 9, 12 and 15 are `E0..=EF` (the
/// bytes between them, and the two after the last, are then their
/// continuation bytes).
#[target_feature(enable = "sse4.1,sse4.2,ssse3,popcnt")]
#[inline]
fn is_six_threes(v: __m128i) -> bool {
    let leads = _mm_cmpeq_epi8(
        _mm_and_si128(v, _mm_set1_epi8(0xF0u8 as i8)),
        _mm_set1_epi8(0xE0u8 as i8),
    );
    _mm_movemask_epi8(leads) & 0x9249 == 0x9249
}

/// `pshufb` indices that zero-extend bytes 0, 3, 6, 9, 12 and 15 to the
/// first six 16-bit lanes.
static EVERY_THIRD: [u8; 16] = [
    0, 0x80, 3, 0x80, 6, 0x80, 9, 0x80, 12, 0x80, 15, 0x80, 0x80, 0x80, 0x80, 0x80,
];

/// The six units (then two zeros) of the six 3-byte characters that start
/// `v` (see [`is_six_threes`]), given the bytes one (`n1`) and two (`n2`)
/// on: the same `pshufb` picks every character's lead from `v`, its first
/// continuation byte from `n1` and its last from `n2`, each into the
/// character's 16-bit lane, where `lead << 12 | (b1 & 3F) << 6 | b2 & 3F`
/// is the unit (the shift drops the lead's marker bits).
#[target_feature(enable = "sse4.1,sse4.2,ssse3,popcnt")]
#[inline]
fn six_threes(v: __m128i, n1: __m128i, n2: __m128i) -> __m128i {
    // SAFETY: `EVERY_THIRD` is 16 readable bytes.
    let index = unsafe { _mm_loadu_si128(EVERY_THIRD.as_ptr().cast()) };
    let low6 = _mm_set1_epi16(0x3F);
    let b0 = _mm_shuffle_epi8(v, index);
    let b1 = _mm_and_si128(_mm_shuffle_epi8(n1, index), low6);
    let b2 = _mm_and_si128(_mm_shuffle_epi8(n2, index), low6);
    _mm_or_si128(
        _mm_or_si128(_mm_slli_epi16::<12>(b0), _mm_slli_epi16::<6>(b1)),
        b2,
    )
}

/// The 16-bit values of the characters whose lead bytes are in `w0`, each
/// at its lead's lane, given the bytes one (`w1`) and two (`w2`) on, all
/// zero-extended to 16 bits: the lead itself (ASCII; continuation lanes
/// get don't-care values), or the 2- or 3-byte decoding.
#[target_feature(enable = "sse4.1,sse4.2,ssse3,popcnt")]
#[inline]
fn lanes(w0: __m128i, w1: __m128i, w2: __m128i) -> __m128i {
    let low6 = _mm_set1_epi16(0x3F);
    let t1 = _mm_and_si128(w1, low6);
    let t2 = _mm_and_si128(w2, low6);
    // 2 bytes: 110aaaaa 10bbbbbb -> aaaaabbbbbb.
    let two = _mm_or_si128(
        _mm_slli_epi16::<6>(_mm_and_si128(w0, _mm_set1_epi16(0x1F))),
        t1,
    );
    // 3 bytes: 1110aaaa 10bbbbbb 10cccccc -> aaaabbbbbbcccccc.
    let three = _mm_or_si128(
        _mm_or_si128(_mm_slli_epi16::<12>(w0), _mm_slli_epi16::<6>(t1)),
        t2,
    );
    let is2 = _mm_cmpgt_epi16(w0, _mm_set1_epi16(0xBF));
    let is3 = _mm_cmpgt_epi16(w0, _mm_set1_epi16(0xDF));
    _mm_blendv_epi8(_mm_blendv_epi8(w0, two, is2), three, is3)
}

/// Decodes the characters that start in the 16 bytes `v` at `p` (valid
/// UTF-8 from a character boundary, with at least 32 bytes readable), each
/// at its lead byte's 16-bit lane: returns the lanes of bytes 0–7 and 8–15,
/// the mask of the lanes that hold a character, and the bytes those
/// characters take (16 to 18, or fewer up to the first 4-byte lead). `None`
/// if the block starts with a 4-byte character, which the lanes cannot
/// hold.
///
/// # Safety
///
/// 32 bytes at `p` are readable.
#[target_feature(enable = "sse4.1,sse4.2,ssse3,popcnt")]
#[inline]
unsafe fn decode16(p: *const u8, v: __m128i) -> Option<(__m128i, __m128i, u32, usize)> {
    // 4-byte leads: F0..=FF (`max(b, F0) == b`).
    let fours = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8(-16)), v)) as u32;
    let first4 = fours.trailing_zeros() as usize; // 32 if none
    if first4 == 0 {
        return None;
    }
    // SAFETY: 18 bytes at `p` are readable: so are the 16-byte loads at
    // `p + 1` and `p + 2`.
    let (n1, n2) = unsafe {
        (
            _mm_loadu_si128(p.add(1).cast()),
            _mm_loadu_si128(p.add(2).cast()),
        )
    };
    // Leads: bytes other than 80..=BF (as `i8`, greater than -65).
    let is_lead = |x: __m128i| _mm_movemask_epi8(_mm_cmpgt_epi8(x, _mm_set1_epi8(-65))) as u32;
    let leads = is_lead(v);
    // Lanes converted: the leads before the first 4-byte lead, or all 16
    // (and then the bytes 16 and 17, bytes 14 and 15 of `n2`, that
    // continue the last one).
    let (mask, read) = if first4 < 16 {
        (leads & ((1 << first4) - 1), first4)
    } else {
        let c = !is_lead(n2) >> 14;
        (leads, 16 + (c & 1) as usize + (c & (c >> 1) & 1) as usize)
    };
    let zero = _mm_setzero_si128();
    let lo = lanes(
        _mm_cvtepu8_epi16(v),
        _mm_cvtepu8_epi16(n1),
        _mm_cvtepu8_epi16(n2),
    );
    let hi = lanes(
        _mm_unpackhi_epi8(v, zero),
        _mm_unpackhi_epi8(n1, zero),
        _mm_unpackhi_epi8(n2, zero),
    );
    Some((lo, hi, mask, read))
}

/// Loads 8 units at `src` in native order (swapping bytes if `BE`).
///
/// # Safety
///
/// 16 bytes at `src` are readable.
#[target_feature(enable = "sse4.1,sse4.2,ssse3,popcnt")]
#[inline]
unsafe fn load8<const BE: bool>(src: *const u8) -> __m128i {
    // SAFETY: the caller's promise.
    order::<BE>(unsafe { _mm_loadu_si128(src.cast()) })
}

/// `pshufb` indices that spread the UTF-8 bytes of four units, each held
/// as its first two bytes in a 16-bit lane of one register (`first`) and
/// its third, if any, in the low byte of the lane of another (`last`), to
/// the start: entry `[index][0]` picks from `first`, `[index][1]` from
/// `last` (`0x80` where the other register gives the byte). Index bit `k`
/// is set if unit `k` has 2 or more bytes, bit `k + 4` if it has 3. Adding
/// 8 to the indices
/// picks from the upper four lanes instead (`0x80 + 8` still zeroes).
const fn utf8_spread_table() -> [[[u8; 16]; 2]; 256] {
    let mut table = [[[0x80u8; 16]; 2]; 256];
    let mut index = 0;
    while index < 256 {
        let mut out = 0;
        let mut lane = 0;
        while lane < 4 {
            let len = 1 + ((index >> lane) & 1) + ((index >> (lane + 4)) & 1);
            table[index][0][out] = 2 * lane as u8;
            out += 1;
            if len >= 2 {
                table[index][0][out] = 2 * lane as u8 + 1;
                out += 1;
            }
            if len == 3 {
                table[index][1][out] = 2 * lane as u8;
                out += 1;
            }
            lane += 1;
        }
        index += 1;
    }
    table
}

static UTF8_SPREAD: [[[u8; 16]; 2]; 256] = utf8_spread_table();

/// Spreads the bytes of four units of `first` and `last` (see
/// [`UTF8_SPREAD`]; the upper four lanes if `HIGH`) by `index` and stores
/// them (16 bytes) at `out`; returns how many are the units' (4 to 12).
///
/// # Safety
///
/// 16 bytes at `out` are writable.
#[target_feature(enable = "sse4.1,sse4.2,ssse3,popcnt")]
#[inline]
unsafe fn spread4<const HIGH: bool>(
    first: __m128i,
    last: __m128i,
    index: u32,
    out: *mut u8,
) -> usize {
    let t = &UTF8_SPREAD[(index & 0xFF) as usize];
    // SAFETY: the table entries are 16 readable bytes each; the store is
    // the caller's promise.
    unsafe {
        let mut from_first = _mm_loadu_si128(t[0].as_ptr().cast());
        let mut from_last = _mm_loadu_si128(t[1].as_ptr().cast());
        if HIGH {
            from_first = _mm_add_epi8(from_first, _mm_set1_epi8(8));
            from_last = _mm_add_epi8(from_last, _mm_set1_epi8(8));
        }
        let bytes = _mm_or_si128(
            _mm_shuffle_epi8(first, from_first),
            _mm_shuffle_epi8(last, from_last),
        );
        _mm_storeu_si128(out.cast(), bytes);
    }
    4 + (index & 0xFF).count_ones() as usize
}

/// Encodes 8 units (the 16-bit lanes of `u`, none a surrogate) as UTF-8 at
/// `out`; returns the bytes written (8 to 24).
///
/// # Safety
///
/// 32 bytes at `out` are writable (one or two 16-byte stores, the second
/// at most 16 bytes on).
#[target_feature(enable = "sse4.1,sse4.2,ssse3,popcnt")]
#[inline]
unsafe fn encode8(u: __m128i, out: *mut u8) -> usize {
    if _mm_testz_si128(u, _mm_set1_epi16(0xF800u16 as i16)) != 0 {
        // Every unit below 800: 1 or 2 bytes, in memory order in its lane
        // (the second byte of a 1-byte lane is dropped by the table).
        let ascii = _mm_cmpeq_epi16(
            _mm_and_si128(u, _mm_set1_epi16(0xFF80u16 as i16)),
            _mm_setzero_si128(),
        );
        let lead = _mm_or_si128(_mm_srli_epi16::<6>(u), _mm_set1_epi16(0xC0));
        let last = _mm_or_si128(_mm_and_si128(u, _mm_set1_epi16(0x3F)), _mm_set1_epi16(0x80));
        let two = _mm_or_si128(lead, _mm_slli_epi16::<8>(last));
        let v = _mm_blendv_epi8(two, u, ascii);
        let index = !(_mm_movemask_epi8(_mm_packs_epi16(ascii, ascii)) as u32) & 0xFF;
        // SAFETY: the table entry is 16 readable bytes; the store is 16
        // bytes at `out`, inside the 28 writable.
        unsafe {
            let t = _mm_loadu_si128(WIDEN.0[index as usize].as_ptr().cast());
            _mm_storeu_si128(out.cast(), _mm_shuffle_epi8(v, t));
        }
        return 8 + index.count_ones() as usize;
    }
    // No unit below 800: 3 bytes each.
    let below = _mm_cmpeq_epi16(
        _mm_and_si128(u, _mm_set1_epi16(0xF800u16 as i16)),
        _mm_setzero_si128(),
    );
    if _mm_testz_si128(below, below) != 0 {
        // SAFETY: the 32 writable bytes at `out`.
        unsafe { encode8_three(u, out) };
        return 24;
    }
    // 1, 2 or 3 bytes: each lane's first two bytes in `first` (the lane
    // itself if ASCII), the third in `last` (`80 | u & 3F`, which is also
    // the second byte of a 2-byte lane).
    let ascii = _mm_cmpeq_epi16(
        _mm_and_si128(u, _mm_set1_epi16(0xFF80u16 as i16)),
        _mm_setzero_si128(),
    );
    let low6 = _mm_set1_epi16(0x3F);
    let last = _mm_or_si128(_mm_and_si128(u, low6), _mm_set1_epi16(0x80));
    let two = _mm_or_si128(
        _mm_or_si128(_mm_srli_epi16::<6>(u), _mm_set1_epi16(0xC0)),
        _mm_slli_epi16::<8>(last),
    );
    let three = _mm_or_si128(
        _mm_or_si128(
            _mm_srli_epi16::<12>(u),
            _mm_slli_epi16::<8>(_mm_and_si128(_mm_srli_epi16::<6>(u), low6)),
        ),
        _mm_set1_epi16(0x80E0u16 as i16),
    );
    let first = _mm_blendv_epi8(three, _mm_blendv_epi8(two, u, ascii), below);
    let ge2 = !(_mm_movemask_epi8(_mm_packs_epi16(ascii, ascii)) as u32) & 0xFF;
    let ge3 = !(_mm_movemask_epi8(_mm_packs_epi16(below, below)) as u32) & 0xFF;
    // SAFETY: the first call stores 16 bytes at `out`, the second 16 at
    // most 12 bytes on: inside the 32 writable bytes.
    unsafe {
        let n = spread4::<false>(first, last, (ge2 & 0xF) | (ge3 & 0xF) << 4, out);
        n + spread4::<true>(first, last, ge2 >> 4 | (ge3 & 0xF0), out.add(n))
    }
}

/// Whether the 8 units `u` are four surrogate pairs: a high half in every
/// even lane, a low half in every odd one.
#[target_feature(enable = "sse4.1,sse4.2,ssse3,popcnt")]
#[inline]
fn is_four_pairs(u: __m128i) -> bool {
    let tags = _mm_and_si128(u, _mm_set1_epi16(0xFC00u16 as i16));
    let pairs = _mm_set1_epi32(0xDC00_D800u32 as i32);
    _mm_movemask_epi8(_mm_cmpeq_epi16(tags, pairs)) == 0xFFFF
}

/// The UTF-8 of the four surrogate pairs `u` (see [`is_four_pairs`]), 4
/// bytes each: in each 32-bit lane (high unit `h` low, low unit `l` high)
/// the scalar value `(h & 3FF) << 10 | (l & 3FF)` plus `10000`, spread into
/// `F0 | cp >> 18`, `80 | cp >> 12 & 3F`, `80 | cp >> 6 & 3F`,
/// `80 | cp & 3F`, in memory order.
#[target_feature(enable = "sse4.1,sse4.2,ssse3,popcnt")]
#[inline]
fn encode_pairs(u: __m128i) -> __m128i {
    let ten = _mm_set1_epi32(0x3FF);
    let cp = _mm_add_epi32(
        _mm_or_si128(
            _mm_slli_epi32::<10>(_mm_and_si128(u, ten)),
            _mm_and_si128(_mm_srli_epi32::<16>(u), ten),
        ),
        _mm_set1_epi32(0x1_0000),
    );
    let b0 = _mm_srli_epi32::<18>(cp);
    let b1 = _mm_and_si128(_mm_srli_epi32::<4>(cp), _mm_set1_epi32(0x3F00));
    let b2 = _mm_and_si128(_mm_slli_epi32::<10>(cp), _mm_set1_epi32(0x3F_0000));
    let b3 = _mm_slli_epi32::<24>(cp);
    let b3 = _mm_and_si128(b3, _mm_set1_epi32(0x3F00_0000));
    _mm_or_si128(
        _mm_or_si128(_mm_or_si128(b0, b1), _mm_or_si128(b2, b3)),
        _mm_set1_epi32(0x8080_80F0u32 as i32),
    )
}

/// `pshufb` indices that spread the lead and first continuation bytes of
/// eight 3-byte characters (bytes `2k`, `2k + 1`: 16-bit lane `k` of the
/// first register) and their last bytes (byte `2k` of the second) over 24
/// bytes, as four tables: the first 16 bytes from each register, then the
/// last 8 (zeros, `0x80`, where the other register gives the byte).
const fn three_spread_table() -> [[u8; 16]; 4] {
    let mut t = [[0x80u8; 16]; 4];
    let mut k = 0;
    while k < 8 {
        let mut j = 0;
        while j < 3 {
            let at = 3 * k + j;
            let (table, from) = if j < 2 { (0, 2 * k + j) } else { (1, 2 * k) };
            t[table + 2 * (at / 16)][at % 16] = from as u8;
            j += 1;
        }
        k += 1;
    }
    t
}

static THREE_SPREAD: [[u8; 16]; 4] = three_spread_table();

/// Encodes 8 units from `800` on (none a surrogate) as their 24 UTF-8
/// bytes at `out`.
///
/// # Safety
///
/// 32 bytes at `out` are writable (two 16-byte stores, 16 bytes apart).
#[target_feature(enable = "sse4.1,sse4.2,ssse3,popcnt")]
#[inline]
unsafe fn encode8_three(u: __m128i, out: *mut u8) {
    let low6 = _mm_set1_epi16(0x3F);
    // Lane: `E0 | u >> 12`, then `80 | u >> 6 & 3F`.
    let first = _mm_or_si128(
        _mm_or_si128(
            _mm_srli_epi16::<12>(u),
            _mm_slli_epi16::<8>(_mm_and_si128(_mm_srli_epi16::<6>(u), low6)),
        ),
        _mm_set1_epi16(0x80E0u16 as i16),
    );
    // Lane: `80 | u & 3F`.
    let last = _mm_or_si128(_mm_and_si128(u, low6), _mm_set1_epi16(0x80));
    let t = &THREE_SPREAD;
    // SAFETY: the table entries are 16 readable bytes each; the stores are
    // at `out` and `out + 16`, inside the 32 writable bytes.
    unsafe {
        let index = |k: usize| _mm_loadu_si128(t[k].as_ptr().cast());
        let head = _mm_or_si128(
            _mm_shuffle_epi8(first, index(0)),
            _mm_shuffle_epi8(last, index(1)),
        );
        let tail = _mm_or_si128(
            _mm_shuffle_epi8(first, index(2)),
            _mm_shuffle_epi8(last, index(3)),
        );
        _mm_storeu_si128(out.cast(), head);
        _mm_storeu_si128(out.add(16).cast(), tail);
    }
}

/// Converts UTF-16 (little-endian bytes, or big-endian if `BE`; `len` units
/// at `src`) to UTF-8 at `dst` while 16 units and the room for a step
/// remain, up to the first block of 16 units with an unpaired surrogate
/// (which the scalar kernel converts: `window_end`).
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `src` is valid for reads of `2 * len` bytes.
/// * `dst` is valid for writes of `cap` bytes.
#[target_feature(enable = "sse4.1,sse4.2,ssse3,popcnt")]
pub(crate) unsafe fn utf16_to_utf8<const BE: bool>(
    src: *const u8,
    len: usize,
    dst: *mut u8,
    cap: usize,
) -> Stop {
    let mut i = 0;
    let mut o = 0;
    let not_ascii = _mm_set1_epi16(0xFF80u16 as i16);
    let tag = _mm_set1_epi16(0xF800u16 as i16);
    let surrogate = _mm_set1_epi16(0xD800u16 as i16);
    // Invariants: `i <= len`, `o <= cap`.
    while len - i >= 16 && cap - o >= ROOM8 {
        // SAFETY: units `i..i + 16` are readable.
        let (a, b) = unsafe {
            (
                load8::<BE>(src.add(2 * i)),
                load8::<BE>(src.add(2 * i + 16)),
            )
        };
        // SAFETY: `o + ROOM8 <= cap`: 64 bytes at `out` are writable.
        let out = unsafe { dst.add(o) };
        if _mm_testz_si128(_mm_or_si128(a, b), not_ascii) != 0 {
            // SAFETY: 16 of the 64 writable bytes.
            unsafe { _mm_storeu_si128(out.cast(), _mm_packus_epi16(a, b)) };
            i += 16;
            o += 16;
            // More ASCII: 32 units a step while they last (each step
            // stores exactly its output).
            while len - i >= 32 && cap - o >= 32 {
                // SAFETY: units `i..i + 32` are readable.
                let (a, b, c, d) = unsafe {
                    let q = src.add(2 * i);
                    (
                        load8::<BE>(q),
                        load8::<BE>(q.add(16)),
                        load8::<BE>(q.add(32)),
                        load8::<BE>(q.add(48)),
                    )
                };
                let all = _mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d));
                if _mm_testz_si128(all, not_ascii) == 0 {
                    break;
                }
                // SAFETY: `o + 32 <= cap`: 32 writable bytes at `dst + o`.
                unsafe {
                    let out = dst.add(o);
                    _mm_storeu_si128(out.cast(), _mm_packus_epi16(a, b));
                    _mm_storeu_si128(out.add(16).cast(), _mm_packus_epi16(c, d));
                }
                i += 32;
                o += 32;
            }
            continue;
        }
        let surrogates = _mm_or_si128(
            _mm_cmpeq_epi16(_mm_and_si128(a, tag), surrogate),
            _mm_cmpeq_epi16(_mm_and_si128(b, tag), surrogate),
        );
        if _mm_testz_si128(surrogates, surrogates) == 0 {
            if is_four_pairs(a) {
                // Four surrogate pairs (and four more if the next 8 units
                // are too): 16 or 32 bytes.
                let both = is_four_pairs(b);
                // SAFETY: 16 or 32 of the 64 writable bytes at `out`.
                unsafe {
                    _mm_storeu_si128(out.cast(), encode_pairs(a));
                    if both {
                        _mm_storeu_si128(out.add(16).cast(), encode_pairs(b));
                    }
                }
                let (read, written) = if both { (16, 32) } else { (8, 16) };
                i += read;
                o += written;
                continue;
            }
            // SAFETY: units `i..i + 16` are readable and 64 bytes at `out`
            // are writable (above).
            match unsafe { surrogate_block::<BE>(src, len, i, out) } {
                Ok((end, w)) => {
                    i = end;
                    o += w;
                }
                Err(end) => return Stop::new(i, o, Some(end)),
            }
            continue;
        }
        // (See `TAIL16`.)
        if len - i < TAIL16 {
            break;
        }
        // SAFETY: the first call writes 32 bytes at `out`, the second 32
        // at most 24 bytes on: inside the 64 writable bytes.
        unsafe {
            let n = encode8(a, out);
            o += n + encode8(b, out.add(n));
        }
        i += 16;
    }
    Stop::new(i, o, None)
}

/// The sum of the 16 bytes of `v`.
#[target_feature(enable = "sse4.1,sse4.2,ssse3,popcnt")]
#[inline]
fn sum_bytes(v: __m128i) -> usize {
    let s = _mm_sad_epu8(v, _mm_setzero_si128());
    (_mm_cvtsi128_si64(s) + _mm_extract_epi64::<1>(s)) as usize
}

/// Blocks of 16 bytes between two flushes of the UTF-16 length's byte
/// counters (each gains at most 2 a block).
const FLUSH8: usize = 127;

/// The number of UTF-16 units `bytes` converts to if valid, as the scalar
/// [`utf16_len_from_utf8`](crate::transcode::utf16_len_from_utf8) counts
/// it: one per byte that is not a continuation byte, one more per byte
/// `F0..=FF`.
///
/// # Safety
///
/// * The CPU supports the enabled features.
#[target_feature(enable = "sse4.1,sse4.2,ssse3,popcnt")]
pub(crate) unsafe fn utf16_len_from_utf8(bytes: &[u8]) -> usize {
    let (blocks, tail) = bytes.as_chunks::<16>();
    let mut n = 0;
    for group in blocks.chunks(FLUSH8) {
        let mut acc = _mm_setzero_si128();
        for block in group {
            // SAFETY: `block` is 16 readable bytes.
            let v = unsafe { _mm_loadu_si128(block.as_ptr().cast()) };
            let lead = _mm_cmpgt_epi8(v, _mm_set1_epi8(-65));
            let four = _mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8(0xF0u8 as i8)), v);
            // The compares are -1 where true.
            acc = _mm_sub_epi8(_mm_sub_epi8(acc, lead), four);
        }
        n += sum_bytes(acc);
    }
    n + crate::transcode::utf16_len_from_utf8(tail)
}

/// Steps of 8 units between two flushes of the UTF-8 length's 16-bit
/// counters (each loses at most 2 a step, and must stay above `-32768`).
const FLUSH16: usize = 8192;

/// The number of UTF-8 bytes the first `read` of `len` UTF-16 units at
/// `src` (little-endian, or big-endian if `BE`) convert to, unpaired
/// surrogates counting 3; returns `(read, bytes)`, and the caller counts
/// the rest with the scalar function. As in the first AVX2 count, every unit
/// counts `1 + (>= 80) + (>= 800)` and a high surrogate followed by a low
/// one 2 less (the pair's 4 bytes, with the low unit's 3), so a pair split
/// between two blocks or the block and the tail counts right. The pair is
/// found on the high bytes of the two units (one blend, mask and compare).
///
/// # Safety
///
/// * The CPU supports the enabled features.
/// * `src` is valid for reads of `2 * len` bytes.
#[target_feature(enable = "sse4.1,sse4.2,ssse3,popcnt")]
pub(crate) unsafe fn utf8_len_from_utf16<const BE: bool>(
    src: *const u8,
    len: usize,
) -> (usize, usize) {
    let zero = _mm_setzero_si128();
    // A pair is tested on the high bytes alone, as in the AVX2 count: the
    // high byte of unit `j` is byte `2j + 1` (LE) or `2j` (BE).
    let at = usize::from(!BE);
    let second_byte = _mm_set1_epi16(0xFF00u16 as i16);
    let tags = _mm_set1_epi16(0xFCFCu16 as i16);
    let pair_tags = _mm_set1_epi16(i16::from_le_bytes([0xD8, 0xDC]));
    let mut i = 0;
    // The deduction (negative) so far, flushed from `acc`.
    let mut less = 0i64;
    let mut acc = zero;
    let mut steps = 0;
    while len - i >= 9 {
        // SAFETY: units `i..i + 9` are readable: the loads read bytes
        // `2 * i..2 * i + 18` at most.
        let (v, this_high, next_high) = unsafe {
            (
                load8::<BE>(src.add(2 * i)),
                _mm_loadu_si128(src.add(2 * i + at).cast()),
                _mm_loadu_si128(src.add(2 * i + at + 1).cast()),
            )
        };
        // The compares are -1 where true.
        let ascii = _mm_cmpeq_epi16(_mm_and_si128(v, _mm_set1_epi16(0xFF80u16 as i16)), zero);
        let short = _mm_cmpeq_epi16(_mm_and_si128(v, _mm_set1_epi16(0xF800u16 as i16)), zero);
        // Lane `j`: `[high byte of unit j, high byte of unit j + 1]`.
        let highs = _mm_blendv_epi8(this_high, next_high, second_byte);
        let pair = _mm_cmpeq_epi16(_mm_and_si128(highs, tags), pair_tags);
        acc = _mm_add_epi16(
            acc,
            _mm_add_epi16(_mm_add_epi16(ascii, short), _mm_add_epi16(pair, pair)),
        );
        i += 8;
        steps += 1;
        if steps == FLUSH16 {
            less += sum_i16(acc);
            acc = zero;
            steps = 0;
        }
    }
    less += sum_i16(acc);
    // `less` is minus at most 2 per unit, so the sum is not negative.
    (i, (3 * i as i64 + less) as usize)
}

/// The sum of the eight signed 16-bit lanes of `v`.
#[target_feature(enable = "sse4.1,sse4.2,ssse3,popcnt")]
#[inline]
fn sum_i16(v: __m128i) -> i64 {
    let s = _mm_madd_epi16(v, _mm_set1_epi16(1));
    let s = _mm_add_epi32(s, _mm_shuffle_epi32::<0b01_00_11_10>(s));
    let s = _mm_add_epi32(s, _mm_shuffle_epi32::<0b10_11_00_01>(s));
    i64::from(_mm_cvtsi128_si32(s))
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;
    use std::string::String;
    use std::vec::Vec;

    /// Texts of every UTF-8 length and mixes of them, long enough for
    /// several steps.
    fn texts() -> Vec<String> {
        [
            "a",
            "é",
            "中",
            "😀",
            "aé中😀",
            "ab\u{7FF}\u{800}\u{FFFF}\u{10000}x",
            "жжa中",
        ]
        .iter()
        .map(|t| t.repeat(200 / t.len() + 1))
        .collect()
    }

    /// The kernel alone, from every start offset: it stops at a character
    /// boundary, and what it wrote is std's UTF-16 of what it read, in
    /// either byte order; it never needs more room than it was given.
    #[test]
    fn utf8_to_utf16_converts_a_prefix_exactly() {
        if !super::super::sse41_transcode() {
            return;
        }
        for text in texts() {
            for start in 0..8 {
                let Some(s) = text.get(start..) else { continue };
                for cap in [0, 31, 32, 40, s.len()] {
                    let mut le = std::vec![0u8; 2 * cap];
                    let mut be = std::vec![0u8; 2 * cap];
                    // SAFETY: the CPU has the features (checked above);
                    // the buffers are `2 * cap` bytes.
                    let (p, q) = unsafe {
                        (
                            utf8_to_utf16::<false>(s.as_bytes(), le.as_mut_ptr(), cap),
                            utf8_to_utf16::<true>(s.as_bytes(), be.as_mut_ptr(), cap),
                        )
                    };
                    assert_eq!((p.read, p.written), (q.read, q.written));
                    assert!(p.written <= cap);
                    let done = &s[..p.read];
                    let want: Vec<u16> = done.encode_utf16().collect();
                    assert_eq!(p.written, want.len(), "{start} {cap}");
                    for (k, u) in want.iter().enumerate() {
                        assert_eq!(le[2 * k..2 * k + 2], u.to_le_bytes());
                        assert_eq!(be[2 * k..2 * k + 2], u.to_be_bytes());
                    }
                    if cap >= s.len() && s.len() >= TAIL8 + STEP {
                        assert!(p.read > 0, "no progress from {start}");
                    }
                }
            }
        }
    }

    /// The kernel alone: what it wrote is std's UTF-8 of what it read, and
    /// at an unpaired surrogate it stops before the block that has it.
    #[test]
    fn utf16_to_utf8_converts_a_prefix_exactly() {
        if !super::super::sse41_transcode() {
            return;
        }
        for text in texts() {
            let units: Vec<u16> = text.encode_utf16().collect();
            for lone in [None, Some(5), Some(40)] {
                let mut units = units.clone();
                if let Some(at) = lone {
                    // A low half after a unit that is not a high one.
                    units[at - 1] = 0x61;
                    units[at] = 0xDC00;
                }
                let le: Vec<u8> = units.iter().flat_map(|u| u.to_le_bytes()).collect();
                let mut out = std::vec![0u8; 3 * units.len()];
                // SAFETY: the CPU has the features (checked above); `le`
                // is `2 * units.len()` bytes, `out` `out.len()`.
                let stop = unsafe {
                    utf16_to_utf8::<false>(le.as_ptr(), units.len(), out.as_mut_ptr(), out.len())
                };
                let p = stop.progress;
                let want = String::from_utf16(&units[..p.read]).unwrap();
                assert_eq!(&out[..p.written], want.as_bytes());
                if let Some(at) = lone {
                    assert!(p.read <= at);
                    assert!(stop.window_end.is_some_and(|end| end > at));
                }
            }
        }
    }

    /// Both length functions agree with the scalar ones on every text, on
    /// invalid bytes and lone surrogates, and past their flush points.
    #[test]
    fn lengths_agree_with_the_scalar_ones() {
        if !super::super::sse41_transcode() {
            return;
        }
        let mut inputs: Vec<Vec<u8>> = texts().into_iter().map(String::into_bytes).collect();
        inputs.push(std::vec![0xFF; 16 * FLUSH8 + 17]);
        inputs.push((0..=255u8).cycle().take(5000).collect());
        for bytes in &inputs {
            // SAFETY: the CPU has the features (checked above).
            let got = unsafe { utf16_len_from_utf8(bytes) };
            assert_eq!(got, crate::transcode::utf16_len_from_utf8(bytes));
        }
        let mut runs: Vec<Vec<u16>> = texts().iter().map(|t| t.encode_utf16().collect()).collect();
        runs.push(std::vec![0x61; 8 * FLUSH16 + 9]);
        runs.push([0xD83D, 0xDE00].repeat(4 * FLUSH16 + 5));
        runs.push([0xDE00, 0xD83D, 0x61].repeat(100));
        for units in &runs {
            let le: Vec<u8> = units.iter().flat_map(|u| u.to_le_bytes()).collect();
            let be: Vec<u8> = units.iter().flat_map(|u| u.to_be_bytes()).collect();
            let want = String::from_utf16_lossy(units).len();
            for (bytes, big) in [(&le, false), (&be, true)] {
                // SAFETY: as above; the bytes are `2 * units.len()`.
                let (read, n) = unsafe {
                    if big {
                        utf8_len_from_utf16::<true>(bytes.as_ptr(), units.len())
                    } else {
                        utf8_len_from_utf16::<false>(bytes.as_ptr(), units.len())
                    }
                };
                // A pair split at `read` counts 1 before it (its high half
                // followed by a low one) and 3 after it (a lone low half
                // there), its 4 in all.
                let rest = String::from_utf16_lossy(&units[read..]).len();
                assert_eq!(n + rest, want, "{read} of {}", units.len());
            }
        }
    }
}
