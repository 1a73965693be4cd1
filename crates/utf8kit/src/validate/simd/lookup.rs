//! The Keiser–Lemire "lookup" validation algorithm (seed 002), written once
//! for any [`Vector`].
//!
//! Every byte is checked together with the one, two and three bytes before
//! it. Most errors show in the first twelve bits of the pair
//! (previous byte, current byte): the previous byte's two nibbles and the
//! current byte's high nibble. Each nibble indexes a 16-entry table whose
//! entries are sets of error classes, one bit per class (the constants
//! below); a pair is in a class when all three tables list it, so the three
//! lookups are ANDed. Bit 7 is not an error but "a continuation byte after a
//! byte that is not a lead", which must happen exactly where the byte two
//! back is a 3- or 4-byte lead or the byte three back is a 4-byte lead: XOR
//! with that requirement (`must23`) and every remaining bit is an error.
//!
//! ```text
//! error = 0; prev_input = 0; prev_lead34 = 0
//! for each 64-byte block (the last one zero-padded):
//!     if the OR of its bytes has no high bit:             # ASCII fast path
//!         error |= prev_input > [.., FF, FF, EF, DF, BF]  # a lead cut off by ASCII
//!         prev_input = 0; prev_lead34 = 0
//!         continue
//!     for each register `input` of the block:
//!         prev1   = input one byte back, the gap filled from prev_input
//!         classes = PREV_HIGH[prev1 >> 4] & PREV_LOW[prev1 & 15] & CUR_HIGH[input >> 4]
//!         lead34  = (input >= 0xE0 || prev1 >= 0xF0) ? 0x80 : 0
//!         must23  = lead34 two bytes back, the gap filled from prev_lead34
//!         error  |= classes ^ must23
//!         prev_input = input; prev_lead34 = lead34
//! # the last bytes must not start a sequence they cannot finish
//! error |= prev_input > [.., FF, FF, EF, DF, BF]          # lane-wise, unsigned
//! valid = error == 0
//! ```
//!
//! The comparisons are saturating subtractions: `byte -sat 0x60` has bit 7
//! set exactly when `byte >= 0xE0` (`-sat 0x70`: `>= 0xF0`), and
//! `input -sat max` is non-zero exactly where a byte exceeds `max`.
//!
//! Differences from the seed's pseudo-code, each for speed:
//!
//! * `must23` is `(prev2 >= 0xE0 || prev3 >= 0xF0)`; computing it as
//!   `lead34` two bytes back needs one byte shift instead of two.
//! * The seed flags "continuation after ASCII" as its own class. Here a
//!   continuation after ASCII gets the same bit 7 as one after another
//!   continuation; it is still caught, because `must23` can only be set
//!   after an ASCII byte when that ASCII byte itself cut a 3- or 4-byte
//!   sequence short, which is flagged one byte earlier. With that, every
//!   byte below `C0` has the same previous-byte classes, and AVX-512
//!   replaces the two previous-byte lookups with one 64-entry lookup of the
//!   lead bytes ([`PREV_LEAD`]).
//! * The "unfinished sequence" check runs only where it matters (before an
//!   ASCII block and at the end), on the previous register.
//! * With SSE and AVX2 ([`Vector::LOAD_PREV`]), every block but the first
//!   reads `prev1`, `prev2` and `prev3` with three more unaligned loads
//!   from one, two and three bytes back, instead of shifting them in from
//!   the previous register (`palignr`, and for AVX2 a lane-crossing
//!   `vperm2i128` per shift): `must23` is then `prev2 >= 0xE0 || prev3 >=
//!   0xF0` directly. The loads cost less than the shifts, which compete
//!   with the table lookups for the two shuffle ports: on Zen 3 (AVX2)
//!   `is_valid` went from 15.1 to 19.5 GB/s on 1 MiB of Arabic, Chinese,
//!   Emoji, Russian and Korean text (simdutf8 14.8; fastest 5 % of 1,500
//!   calls each, interleaved). AVX-512 keeps the shifts (`valignr` and one
//!   `vpermb` lookup of the previous byte; not measured the other way).
//!
//! * Before any of that, both entry points skip the all-ASCII blocks at the
//!   start four at a time (`ascii_prefix`) and only then build their
//!   constant registers, which ASCII text never needs; an input of at most
//!   one block is checked in one straight line (`one_block`).
//!
//! The entry points differ in how often they test the error bits:
//! `is_valid` ORs errors over the whole input and tests once at the end;
//! `first_failure` tests once per 1 KiB chunk and returns the start of the
//! first bad chunk, from which the scalar validator finds the exact error
//! (see [`locate`](crate::validate::locate)); `validate_fine` and `lossy`,
//! for input expected to hold errors, test after every block that is not
//! ASCII (`check_blocks`, which can also copy what it checks) and rescan
//! only a few bytes.
//!
//! The tables are built from [`RULES`], one line per error class, and a unit
//! test checks them against the UTF-8 grammar for every pair of bytes.
//! (Seed 002's printed low-nibble table puts the surrogate class at nibble
//! 11; the surrogate lead `ED` has low nibble 13, which is what is used
//! here.)

use super::Vector;
use crate::error::Utf8Error;
use crate::validate::{VALID, scalar};

/// A lead byte followed by a byte that is not a continuation byte.
const TOO_SHORT: u8 = 1 << 0;
/// `C0`/`C1` then a continuation byte.
const OVERLONG_2: u8 = 1 << 1;
/// `E0 80..=9F`.
const OVERLONG_3: u8 = 1 << 2;
/// `ED A0..=BF`.
const SURROGATE: u8 = 1 << 3;
/// `F4 90..=BF` and `F5..=FF 90..=BF`.
const TOO_LARGE: u8 = 1 << 4;
/// `F0 80..=8F` (overlong) and `F5..=FF 80..=8F` (too large): one class,
/// since the two share the second byte's nibble.
const F_THEN_8X: u8 = 1 << 5;
/// A continuation byte after a byte that is not a lead (ASCII or another
/// continuation byte): right exactly where a 3- or 4-byte character needs
/// it (`must23`), an error anywhere else.
const CONT_NO_LEAD: u8 = 1 << 7;

/// The set of nibbles `lo..=hi`, as a 16-bit mask.
const fn nibbles(lo: u8, hi: u8) -> u16 {
    (u16::MAX >> (15 - hi)) & (u16::MAX << lo)
}

/// Every nibble.
const ANY: u16 = u16::MAX;
/// High nibbles of ASCII bytes.
const ASCII: u16 = nibbles(0x0, 0x7);
/// High nibbles of continuation bytes.
const CONT: u16 = nibbles(0x8, 0xB);
/// High nibbles of lead bytes (`C0..=FF`, valid or not).
const LEAD: u16 = nibbles(0xC, 0xF);

/// One error class as the nibble sets on which it holds: the pair
/// (previous byte, current byte) is in the class when the previous byte's
/// high nibble is in `prev_high`, its low nibble in `prev_low` and the
/// current byte's high nibble in `cur_high`.
struct Rule {
    bit: u8,
    prev_high: u16,
    prev_low: u16,
    cur_high: u16,
}

/// The error classes (seed 002's table, regrouped so that each is one
/// product of nibble sets).
#[rustfmt::skip]
const RULES: [Rule; 7] = [
    Rule { bit: TOO_SHORT, prev_high: LEAD, prev_low: ANY, cur_high: ASCII | LEAD },
    Rule { bit: OVERLONG_2, prev_high: nibbles(0xC, 0xC), prev_low: nibbles(0x0, 0x1), cur_high: CONT },
    Rule { bit: OVERLONG_3, prev_high: nibbles(0xE, 0xE), prev_low: nibbles(0x0, 0x0), cur_high: nibbles(0x8, 0x9) },
    Rule { bit: SURROGATE, prev_high: nibbles(0xE, 0xE), prev_low: nibbles(0xD, 0xD), cur_high: nibbles(0xA, 0xB) },
    Rule { bit: TOO_LARGE, prev_high: nibbles(0xF, 0xF), prev_low: nibbles(0x4, 0xF), cur_high: nibbles(0x9, 0xB) },
    Rule { bit: F_THEN_8X, prev_high: nibbles(0xF, 0xF), prev_low: nibbles(0x0, 0x0) | nibbles(0x5, 0xF), cur_high: nibbles(0x8, 0x8) },
    Rule { bit: CONT_NO_LEAD, prev_high: ASCII | CONT, prev_low: ANY, cur_high: CONT },
];

/// Which nibble a table is indexed by.
#[derive(Clone, Copy)]
enum Nibble {
    PrevHigh,
    PrevLow,
    CurHigh,
}

/// Builds one of the three tables from [`RULES`]: entry `n` is the set of
/// classes whose nibble set contains `n`.
const fn build(which: Nibble) -> [u8; 16] {
    let mut table = [0u8; 16];
    let mut r = 0;
    while r < RULES.len() {
        let rule = &RULES[r];
        let set = match which {
            Nibble::PrevHigh => rule.prev_high,
            Nibble::PrevLow => rule.prev_low,
            Nibble::CurHigh => rule.cur_high,
        };
        let mut n = 0;
        while n < 16 {
            if set & (1 << n) != 0 {
                table[n] |= rule.bit;
            }
            n += 1;
        }
        r += 1;
    }
    table
}

/// Indexed by the previous byte's high nibble.
const PREV_HIGH: [u8; 16] = build(Nibble::PrevHigh);
/// Indexed by the previous byte's low nibble.
const PREV_LOW: [u8; 16] = build(Nibble::PrevLow);
/// Indexed by the current byte's high nibble.
const CUR_HIGH: [u8; 16] = build(Nibble::CurHigh);

/// Both previous-byte tables in one, for lead bytes: entry `i` is
/// `PREV_HIGH[0xC | i >> 4] & PREV_LOW[i & 15]`, the classes of the lead
/// `0xC0 | i`. Every other byte has the classes [`CONT_NO_LEAD`], so one
/// 64-entry lookup (`vpermb`) with a default covers all previous bytes.
pub(super) const PREV_LEAD: [u8; 64] = {
    let mut table = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        table[i] = PREV_HIGH[0xC | i >> 4] & PREV_LOW[i & 15];
        i += 1;
    }
    table
};

/// The classes of every previous byte that is not a lead.
pub(super) const NON_LEAD: u8 = CONT_NO_LEAD;

/// The largest byte allowed in each of the last 64 lanes of an input: a
/// 2-, 3- or 4-byte lead cannot be among the last 1, 2 or 3 bytes. A
/// register of `LANES` bytes uses the last `LANES` entries.
const MAX_AT_END: [u8; 64] = {
    let mut max = [0xFF; 64];
    max[61] = 0xEF;
    max[62] = 0xDF;
    max[63] = 0xBF;
    max
};

/// Bytes per block: the unit of the ASCII fast path.
const BLOCK: usize = 64;

/// Bytes per chunk: `validate` tests the error bits once per chunk (and
/// rescans at most one chunk with the scalar validator on failure).
const CHUNK: usize = 16 * BLOCK;

/// The constant registers, built once per call.
pub(crate) struct Consts<V> {
    pub(crate) prev_high: V,
    pub(crate) prev_low: V,
    pub(crate) cur_high: V,
    /// `0xE0 - 0x80`: `byte -sat` this has bit 7 set iff `byte >= 0xE0`.
    pub(crate) third: V,
    /// `0xF0 - 0x80`: the same for `byte >= 0xF0`.
    pub(crate) fourth: V,
    pub(crate) high_bit: V,
    pub(crate) max_at_end: V,
}

impl<V: Vector> Consts<V> {
    /// # Safety
    ///
    /// * The CPU has `V`'s features.
    #[inline(always)]
    pub(crate) unsafe fn new() -> Self {
        // SAFETY: the caller guarantees `V`'s features; `MAX_AT_END` has
        // 64 >= LANES bytes, so the load at `64 - LANES` stays inside it.
        unsafe {
            Consts {
                prev_high: V::table(&PREV_HIGH),
                prev_low: V::table(&PREV_LOW),
                cur_high: V::table(&CUR_HIGH),
                third: V::splat(0xE0 - 0x80),
                fourth: V::splat(0xF0 - 0x80),
                high_bit: V::splat(0x80),
                max_at_end: V::load(MAX_AT_END.as_ptr().add(64 - V::LANES)),
            }
        }
    }
}

/// What carries from one register to the next.
struct State<V> {
    /// The previous register of input (zero after an ASCII block, which
    /// checks the same way).
    prev_input: V,
    /// The previous register's `lead34` (see [`State::block`]).
    prev_lead34: V,
    /// Accumulated error bits.
    error: V,
}

/// The registers of a 64-byte block of input. A trait with
/// `#[inline(always)]` methods rather than closures, because closures are
/// not reliably inlined into `#[target_feature]` functions.
trait Block<V: Vector> {
    /// Register `k < BLOCK / LANES`.
    ///
    /// # Safety
    ///
    /// * The CPU has `V`'s features.
    unsafe fn reg(&self, k: usize) -> V;

    /// The block's start, if the three bytes before it are readable and
    /// part of the input being checked: then (with [`Vector::LOAD_PREV`])
    /// the bytes one, two and three lanes back are loaded from memory.
    #[inline(always)]
    fn inner_ptr(&self) -> Option<*const u8> {
        None
    }

    /// Whether the block is all ASCII.
    ///
    /// # Safety
    ///
    /// * The CPU has `V`'s features.
    #[inline(always)]
    unsafe fn is_ascii(&self) -> bool {
        // SAFETY: the caller guarantees `V`'s features.
        unsafe {
            let mut any = self.reg(0);
            for k in 1..BLOCK / V::LANES {
                any = any.or(self.reg(k));
            }
            any.is_ascii()
        }
    }
}

/// A block read straight from memory.
struct Whole {
    /// Invariant: `ptr..ptr + BLOCK` is readable.
    ptr: *const u8,
}

impl<V: Vector> Block<V> for Whole {
    #[inline(always)]
    unsafe fn reg(&self, k: usize) -> V {
        // SAFETY: `k * LANES + LANES <= BLOCK` bytes from `ptr` are readable
        // (the invariant); the caller guarantees `V`'s features.
        unsafe { V::load(self.ptr.add(k * V::LANES)) }
    }
}

/// A block read straight from memory, with the three bytes before it
/// readable and part of the input being checked (any block but the first).
struct Inner {
    /// Invariant: `ptr - 3..ptr + BLOCK` is readable.
    ptr: *const u8,
}

impl<V: Vector> Block<V> for Inner {
    #[inline(always)]
    unsafe fn reg(&self, k: usize) -> V {
        // SAFETY: `k * LANES + LANES <= BLOCK` bytes from `ptr` are readable
        // (the invariant); the caller guarantees `V`'s features.
        unsafe { V::load(self.ptr.add(k * V::LANES)) }
    }

    #[inline(always)]
    fn inner_ptr(&self) -> Option<*const u8> {
        Some(self.ptr)
    }
}

/// Checks the whole block at `ptr`, offset `at` into the input, with
/// `check`: as an [`Inner`] block if `V` loads the previous bytes and
/// `at` is 3 or more, else as a [`Whole`] one. A macro, so that each call
/// site keeps its own monomorphic (and inlined) code.
macro_rules! with_block {
    ($v:ty, $ptr:expr, $at:expr, |$block:ident| $check:expr) => {
        if <$v as Vector>::LOAD_PREV && $at >= 3 {
            let $block = Inner { ptr: $ptr };
            $check
        } else {
            let $block = Whole { ptr: $ptr };
            $check
        }
    };
}

/// `N` consecutive blocks ORed together, to test them all for ASCII at
/// once.
struct Run<const N: usize> {
    /// Invariant: `ptr..ptr + N * BLOCK` is readable.
    ptr: *const u8,
}

impl<V: Vector, const N: usize> Block<V> for Run<N> {
    #[inline(always)]
    unsafe fn reg(&self, k: usize) -> V {
        // SAFETY: every register read is inside `ptr..ptr + N * BLOCK` (the
        // invariant); the caller guarantees `V`'s features.
        unsafe {
            let at = self.ptr.add(k * V::LANES);
            let mut any = V::load(at);
            for j in 1..N {
                any = any.or(V::load(at.add(j * BLOCK)));
            }
            any
        }
    }
}

/// The last `bytes.len() - from <= BLOCK` bytes, zero-padded to a block.
struct Tail<'a> {
    bytes: &'a [u8],
    from: usize,
}

impl<V: Vector> Block<V> for Tail<'_> {
    #[inline(always)]
    unsafe fn reg(&self, k: usize) -> V {
        let rest = self.bytes.len() - self.from;
        let at = k * V::LANES;
        // SAFETY: only the `rest - at` bytes from `from + at`, which are
        // inside `bytes`, are read, or with `load_end` the `LANES` bytes
        // ending at the end of `bytes`, which has at least `LANES` bytes;
        // the caller guarantees `V`'s features.
        unsafe {
            let ptr = self.bytes.as_ptr().add(self.from.min(self.bytes.len()));
            if at >= rest {
                V::zero()
            } else if rest - at >= V::LANES {
                V::load(ptr.add(at))
            } else if self.bytes.len() >= V::LANES {
                V::load_end(ptr.add(at), rest - at)
            } else {
                V::load_partial(ptr.add(at), rest - at)
            }
        }
    }
}

/// The register at `ptr`, its `classes` and its `must23` (whose XOR is its
/// error bits), with the bytes one, two and three lanes back loaded from
/// memory (`prev1`, `prev2`, `prev3`): `must23` is then `prev2 >= 0xE0 ||
/// prev3 >= 0xF0` directly, with no register shifts at all. Leaves
/// `prev_lead34` of [`State`] stale: only other loaded registers, and
/// [`State::tail`] (which reloads it), may follow.
///
/// # Safety
///
/// * The CPU has `V`'s features.
/// * `ptr - 3..ptr + LANES` is readable.
#[inline(always)]
unsafe fn loaded_register<V: Vector>(c: &Consts<V>, ptr: *const u8) -> (V, V, V) {
    // SAFETY: the caller's contract covers the four loads and `V`'s
    // features.
    unsafe {
        let input = V::load(ptr);
        let prev1 = V::load(ptr.sub(1));
        let prev2 = V::load(ptr.sub(2));
        let prev3 = V::load(ptr.sub(3));
        let classes = prev1
            .lookup_prev(c.prev_high, c.prev_low)
            .and(input.lookup_high_nibble(c.cur_high));
        let must23 = prev2
            .saturating_sub(c.third)
            .or_and(prev3.saturating_sub(c.fourth), c.high_bit);
        (input, classes, must23)
    }
}

impl<V: Vector> State<V> {
    /// Reloads the state from the `LANES + 1` bytes before `end` (the end
    /// of the last block checked), as the register-by-register check would
    /// have left it: loaded blocks do not keep `prev_lead34`.
    ///
    /// # Safety
    ///
    /// * The CPU has `V`'s features.
    /// * `end - LANES - 1..end` is readable.
    #[inline(always)]
    unsafe fn reload(&mut self, c: &Consts<V>, end: *const u8) {
        // SAFETY: the caller's contract.
        unsafe {
            let input = V::load(end.sub(V::LANES));
            let prev1 = V::load(end.sub(V::LANES + 1));
            self.prev_lead34 = input
                .saturating_sub(c.third)
                .or_and(prev1.saturating_sub(c.fourth), c.high_bit);
            self.prev_input = input;
        }
    }

    /// # Safety
    ///
    /// * The CPU has `V`'s features.
    #[inline(always)]
    unsafe fn new() -> Self {
        // SAFETY: the caller guarantees `V`'s features.
        unsafe {
            State {
                prev_input: V::zero(),
                prev_lead34: V::zero(),
                error: V::zero(),
            }
        }
    }

    /// Flags a sequence that the previous register left unfinished: call
    /// before an ASCII block and at the end of input.
    ///
    /// # Safety
    ///
    /// * The CPU has `V`'s features.
    #[inline(always)]
    unsafe fn unfinished(&mut self, c: &Consts<V>) {
        // SAFETY: the caller guarantees `V`'s features.
        unsafe {
            self.error = self.error.or(self.prev_input.saturating_sub(c.max_at_end));
        }
    }

    /// Accounts for an all-ASCII block.
    ///
    /// # Safety
    ///
    /// * The CPU has `V`'s features.
    #[inline(always)]
    unsafe fn ascii_block(&mut self, c: &Consts<V>) {
        // SAFETY: the caller guarantees `V`'s features.
        unsafe {
            self.unfinished(c);
            // The next block sees ASCII before it, and zero checks the same
            // way; no lead before it can need its bytes (that was just
            // flagged).
            self.prev_input = V::zero();
            self.prev_lead34 = V::zero();
        }
    }

    /// Register `k` of `block` checked: its `classes` and `must23`, whose
    /// XOR is its error bits; the state moves on to it.
    ///
    /// `must23` (bit 7 where the byte two back is `>= 0xE0` or the byte
    /// three back is `>= 0xF0`) is computed with one shift instead of two:
    /// `lead34` has bit 7 where the byte itself is `>= 0xE0` or the byte
    /// before it is `>= 0xF0`, and `must23` is `lead34` two bytes back. An
    /// [`Inner`] block with [`Vector::LOAD_PREV`] loads the bytes back
    /// instead ([`loaded_register`]).
    ///
    /// # Safety
    ///
    /// * The CPU has `V`'s features.
    /// * `k < BLOCK / LANES`.
    #[inline(always)]
    unsafe fn register(&mut self, c: &Consts<V>, block: &impl Block<V>, k: usize) -> (V, V) {
        if V::LOAD_PREV
            && let Some(ptr) = block.inner_ptr()
        {
            // SAFETY: `Inner`'s invariant (the three bytes before the block
            // are readable) and `k`'s range; the caller guarantees `V`'s
            // features.
            let (input, classes, must23) = unsafe { loaded_register(c, ptr.add(k * V::LANES)) };
            self.prev_input = input;
            return (classes, must23);
        }
        // SAFETY: the caller guarantees `V`'s features and `k`'s range.
        unsafe {
            let input = block.reg(k);
            let prev1 = input.prev1(self.prev_input);
            let classes = prev1
                .lookup_prev(c.prev_high, c.prev_low)
                .and(input.lookup_high_nibble(c.cur_high));
            let lead34 = input
                .saturating_sub(c.third)
                .or_and(prev1.saturating_sub(c.fourth), c.high_bit);
            let must23 = lead34.prev2(self.prev_lead34);
            self.prev_lead34 = lead34;
            self.prev_input = input;
            (classes, must23)
        }
    }

    /// Checks a 64-byte block, accumulating its error bits.
    ///
    /// # Safety
    ///
    /// * The CPU has `V`'s features.
    #[inline(always)]
    unsafe fn block(&mut self, c: &Consts<V>, block: &impl Block<V>) {
        for k in 0..BLOCK / V::LANES {
            // SAFETY: the caller guarantees `V`'s features; `k` is in range.
            unsafe {
                let (classes, must23) = self.register(c, block, k);
                self.error = self.error.or_xor(classes, must23);
            }
        }
    }

    /// Checks a 64-byte block like [`block`](Self::block), but returns
    /// the block's error bits register by register (the registers past
    /// `BLOCK / LANES` zero) instead of accumulating them: for callers that
    /// test after every block and want the exact lane of a failure. It
    /// costs no more than `block` (one `xor` per register, one `or` less).
    ///
    /// # Safety
    ///
    /// * The CPU has `V`'s features.
    #[inline(always)]
    unsafe fn block_errors(&mut self, c: &Consts<V>, block: &impl Block<V>) -> [V; 4] {
        // SAFETY: the caller guarantees `V`'s features.
        let mut errors = unsafe { [V::zero(); 4] };
        for (k, error) in errors.iter_mut().enumerate().take(BLOCK / V::LANES) {
            // SAFETY: the caller guarantees `V`'s features; `k` is in range.
            unsafe {
                let (classes, must23) = self.register(c, block, k);
                *error = classes.xor(must23);
            }
        }
        errors
    }

    /// Checks the whole blocks of `bytes[from..to]`, skipping ASCII blocks
    /// fast.
    ///
    /// # Safety
    ///
    /// * The CPU has `V`'s features.
    /// * `from <= to <= bytes.len()` and `to - from` is a multiple of
    ///   `BLOCK`.
    #[inline(always)]
    unsafe fn blocks(&mut self, c: &Consts<V>, bytes: &[u8], from: usize, to: usize) {
        debug_assert!(from <= to && to <= bytes.len() && (to - from).is_multiple_of(BLOCK));
        let ptr = bytes.as_ptr();
        let mut i = from;
        while i < to {
            // SAFETY: `i + BLOCK <= to <= bytes.len()`: in bounds, and the
            // block's bytes are readable.
            let at = unsafe { ptr.add(i) };
            let block = Whole { ptr: at };
            // SAFETY: the caller guarantees `V`'s features.
            if unsafe { Block::<V>::is_ascii(&block) } {
                // SAFETY: as above.
                unsafe { self.ascii_block(c) };
                i += BLOCK;
                // More ASCII, two blocks per step.
                while to - i >= 2 * BLOCK {
                    // SAFETY: `i + 2 * BLOCK <= to <= bytes.len()`: both
                    // blocks are readable.
                    let at = unsafe { ptr.add(i) };
                    let pair = Run::<2> { ptr: at };
                    // SAFETY: as above.
                    if !unsafe { Block::<V>::is_ascii(&pair) } {
                        break;
                    }
                    i += 2 * BLOCK;
                }
            } else {
                // SAFETY: as above; past the first block of `bytes`, the
                // three bytes before the block are readable.
                with_block!(V, at, i, |b| unsafe { self.block(c, &b) });
                i += BLOCK;
            }
        }
    }

    /// Checks the last `bytes.len() - from < BLOCK` bytes (if any) as a
    /// zero-padded block, and the end of input.
    ///
    /// # Safety
    ///
    /// * The CPU has `V`'s features.
    /// * `from <= bytes.len() < from + BLOCK`.
    #[inline(always)]
    unsafe fn tail(&mut self, c: &Consts<V>, bytes: &[u8], from: usize) {
        debug_assert!(from <= bytes.len() && bytes.len() - from < BLOCK);
        let tail = Tail { bytes, from };
        // SAFETY: the caller guarantees `V`'s features; the reload reads
        // `bytes[from - LANES - 1..from]`.
        unsafe {
            if V::LOAD_PREV && from > V::LANES {
                // Loaded blocks before it left `prev_lead34` stale (after
                // ASCII the reload gives the same zeros in effect).
                self.reload(c, bytes.as_ptr().add(from));
            }
            if from < bytes.len() {
                if Block::<V>::is_ascii(&tail) {
                    self.ascii_block(c);
                } else {
                    self.block(c, &tail);
                }
            }
            self.unfinished(c);
        }
    }

    /// Whether no error was found so far.
    ///
    /// # Safety
    ///
    /// * The CPU has `V`'s features.
    #[inline(always)]
    unsafe fn ok(&self) -> bool {
        // SAFETY: the caller guarantees `V`'s features.
        unsafe { self.error.is_zero() }
    }
}

/// The length of the run of all-ASCII whole blocks at the start of
/// `bytes[..whole]`, found four blocks per step.
///
/// Both entry points start with it, before they build their constant
/// registers: ASCII needs none of them, and for short or mostly-ASCII
/// inputs setting them up would cost more than the scan.
///
/// # Safety
///
/// * The CPU has `V`'s features.
/// * `whole <= bytes.len()` and `whole` is a multiple of `BLOCK`.
#[inline(always)]
unsafe fn ascii_prefix<V: Vector>(bytes: &[u8], whole: usize) -> usize {
    debug_assert!(whole <= bytes.len() && whole.is_multiple_of(BLOCK));
    let ptr = bytes.as_ptr();
    let mut i = 0;
    while whole - i >= 4 * BLOCK {
        // SAFETY: `i + 4 * BLOCK <= whole <= bytes.len()`: the four blocks
        // are readable; the caller guarantees `V`'s features.
        if !unsafe { Block::<V>::is_ascii(&Run::<4> { ptr: ptr.add(i) }) } {
            break;
        }
        i += 4 * BLOCK;
    }
    while i < whole {
        // SAFETY: `i + BLOCK <= whole <= bytes.len()`, as above.
        if !unsafe { Block::<V>::is_ascii(&Whole { ptr: ptr.add(i) }) } {
            break;
        }
        i += BLOCK;
    }
    i
}

/// Whether `bytes` is all ASCII, given that its whole blocks up to `whole`
/// are: tests the tail.
///
/// # Safety
///
/// * The CPU has `V`'s features.
/// * `whole <= bytes.len() < whole + BLOCK`.
#[inline(always)]
unsafe fn ascii_tail<V: Vector>(bytes: &[u8], whole: usize) -> bool {
    // SAFETY: the caller guarantees `V`'s features and `Tail`'s range.
    whole == bytes.len() || unsafe { Block::<V>::is_ascii(&Tail { bytes, from: whole }) }
}

/// Whether `bytes`, at most one block long, is valid UTF-8: the whole check
/// in one straight line, for short inputs (which the detected path has
/// already tested for ASCII, see `validate::short`; forced kernels have not).
///
/// # Safety
///
/// * The CPU has `V`'s features.
/// * `bytes.len() <= BLOCK`.
#[inline(always)]
unsafe fn one_block<V: Vector>(bytes: &[u8]) -> bool {
    debug_assert!(bytes.len() <= BLOCK);
    // SAFETY: the caller guarantees `V`'s features; `Tail` from 0 covers
    // `bytes.len() < BLOCK`, and exactly one block loads whole registers.
    unsafe {
        let c = Consts::<V>::new();
        let mut st = State::<V>::new();
        st.block(&c, &Tail { bytes, from: 0 });
        st.unfinished(&c);
        st.ok()
    }
}

/// Where the check of `bytes` first fails: the start of the chunk in which
/// it did, or [`VALID`] when all of `bytes` is valid UTF-8. The check runs
/// chunk by chunk so that the scalar rescan that finds the exact error
/// ([`locate`](crate::validate::locate)) starts
/// near the error instead of at the beginning.
///
/// # Safety
///
/// * The CPU has `V`'s features.
#[inline(always)]
pub(super) unsafe fn first_failure<V: Vector>(bytes: &[u8]) -> usize {
    let len = bytes.len();
    let whole = len - len % BLOCK;
    // SAFETY: the caller guarantees `V`'s features, for this and every call
    // below; `whole` is as `ascii_prefix` and `ascii_tail` need, and the
    // ranges passed satisfy `blocks`' and `tail`'s contracts (chunks of
    // whole blocks from the end of the ASCII prefix up to `whole`, then the
    // rest). After ASCII the state is the initial one, as `ascii_block`
    // leaves it.
    unsafe {
        if len <= BLOCK {
            return if one_block::<V>(bytes) { VALID } else { 0 };
        }
        let mut from = ascii_prefix::<V>(bytes, whole);
        if from == whole && ascii_tail::<V>(bytes, whole) {
            return VALID;
        }
        let c = Consts::<V>::new();
        let mut st = State::<V>::new();
        while whole - from >= CHUNK {
            st.blocks(&c, bytes, from, from + CHUNK);
            if !st.ok() {
                return from;
            }
            from += CHUNK;
        }
        st.blocks(&c, bytes, from, whole);
        st.tail(&c, bytes, whole);
        if st.ok() { VALID } else { from }
    }
}

/// Validates `bytes` with exact errors, testing the error bits after every
/// block ([`check_blocks`]) and on failure rescanning from near the error
/// ([`locate_near`]).
///
/// This is the flavour for input that is expected to hold errors (chunk
/// iteration restarts here after each one; [`lossy`] runs the same loop
/// and resolves errors itself): past an error at most one block is checked
/// in vain, and the rescan starts at the error or one character before it.
/// On valid input it does a few more tests than
/// [`first_failure`], which is why that one tests per chunk.
///
/// With `COPY`, every byte checked is also stored at the same offset from
/// `dst` (see [`check_blocks`]).
///
/// # Safety
///
/// * The CPU has `V`'s features.
/// * With `COPY`: `dst..dst + bytes.len()` is writable and does not overlap
///   `bytes`.
#[inline(always)]
pub(super) unsafe fn validate_fine<V: Vector, const COPY: bool>(
    bytes: &[u8],
    dst: *mut u8,
) -> Result<(), Utf8Error> {
    // SAFETY: the caller guarantees `V`'s features and, with `COPY`, that
    // `dst` is writable as `check_blocks` needs.
    match unsafe { check_blocks::<V, COPY, false>(&Consts::new(), bytes, dst) } {
        None => Ok(()),
        Some(from) => locate_near(bytes, from),
    }
}

/// The offset in its block of the first lane flagged in `errors` (a
/// block's error bits by register, from [`State::block_errors`]), or `None`
/// if no lane is.
///
/// # Safety
///
/// * The CPU has `V`'s features.
#[inline(always)]
unsafe fn first_flagged<V: Vector>(errors: &[V; 4]) -> Option<usize> {
    let regs = BLOCK / V::LANES;
    // SAFETY: the caller guarantees `V`'s features, for this and the
    // tests below.
    let any = unsafe { errors[1..regs].iter().fold(errors[0], |a, &e| a.or(e)) };
    // SAFETY: as above.
    if unsafe { any.is_zero() } {
        return None;
    }
    errors[..regs]
        .iter()
        .enumerate()
        // SAFETY: as above.
        .find(|(_, e)| !unsafe { e.is_zero() })
        // SAFETY: as above; `e` has a lane that is not zero.
        .map(|(k, e)| k * V::LANES + unsafe { e.first_nonzero_lane() })
}

/// The check of [`validate_fine`] and [`lossy`]: tests the error bits after
/// every block that is not ASCII and after the first ASCII block of a run
/// (which flags a sequence cut short before it); runs of ASCII blocks are
/// skipped two at a time without tests, since they cannot hold an error.
/// Returns `None` when all of `bytes` is valid, else `Some(from)`, with the
/// first error at or after [`rescan_start`](crate::validate::rescan_start)`(bytes, from)`.
///
/// With `COPY`, every byte checked is also stored at the same offset from
/// `dst` (the blocks from the registers just checked, so that valid text
/// is copied in the same pass): on return `dst[..valid_up_to]` (all of
/// `bytes.len()` when valid) holds the valid prefix, and bytes after it
/// may have been written too, up to `bytes.len()`. Where each register
/// loads the bytes before it (`LOAD_PREV`), so that a block may start
/// anywhere, the block after the first one starts up to `LANES - 1` bytes
/// early ([`realign`]), checking them twice, so that the stores from then
/// on are aligned in `dst`: text with errors restarts the check at any
/// offset, and on Zen 3 decoding it went 10–14 % faster (mostly-ASCII
/// text 5–32 %) than with stores split across cache lines.
///
/// With `PAIRS` and one register per block (AVX-512), two blocks that are
/// not ASCII are checked with one test of the error bits for both (the
/// flavour of [`lossy`], where it was measured).
///
/// # Safety
///
/// * The CPU has `V`'s features.
/// * With `COPY`: `dst..dst + bytes.len()` is writable and does not overlap
///   `bytes`.
#[inline(always)]
unsafe fn check_blocks<V: Vector, const COPY: bool, const PAIRS: bool>(
    c: &Consts<V>,
    bytes: &[u8],
    dst: *mut u8,
) -> Option<usize> {
    let len = bytes.len();
    let ptr = bytes.as_ptr();
    // SAFETY: the caller guarantees `V`'s features, for this and every call
    // below; a block is read only while `BLOCK` bytes remain from `i` (a
    // pair while `2 * BLOCK` do), an `Inner` one only from `i >= 3` (the
    // first block is at 0, the next at `BLOCK - (LANES - 1)` or later),
    // and `tail` gets the `len - i < BLOCK` bytes left; with `COPY`, stores
    // go to the same offsets from `dst`, writable by the caller's contract.
    unsafe {
        let mut st = State::<V>::new();
        let mut i = 0;
        // After a block that was not ASCII, the next is checked the full
        // way without testing it for ASCII first (the full check is right
        // for ASCII too): text that is not ASCII rarely has ASCII blocks,
        // and this saves half the tests.
        let mut test_ascii = true;
        while len - i >= BLOCK {
            let block = Whole { ptr: ptr.add(i) };
            if test_ascii && Block::<V>::is_ascii(&block) {
                st.ascii_block(c);
                copy_blocks::<V, COPY>(ptr, dst, i, 1);
                if !st.ok() {
                    return Some(i);
                }
                i += BLOCK - realign::<V, COPY>(dst, i);
                while len - i >= 2 * BLOCK && Block::<V>::is_ascii(&Run::<2> { ptr: ptr.add(i) }) {
                    copy_blocks::<V, COPY>(ptr, dst, i, 2);
                    i += 2 * BLOCK;
                }
            } else if PAIRS && test_ascii && V::LANES == BLOCK && len - i >= 2 * BLOCK {
                // This block and the next (checked the full way, as text
                // that is not ASCII rarely has ASCII blocks), with one test
                // of the error bits for both; the first block's bits are
                // kept apart to tell which one failed. The next pair tests
                // for ASCII again.
                st.block(c, &block);
                let first = st.error;
                copy_blocks::<V, COPY>(ptr, dst, i, 1);
                st.block(
                    c,
                    &Whole {
                        ptr: ptr.add(i + BLOCK),
                    },
                );
                copy_blocks::<V, COPY>(ptr, dst, i + BLOCK, 1);
                if !st.ok() {
                    // As below, in whichever block failed first.
                    let at = if first.is_zero() {
                        i + BLOCK + st.error.first_nonzero_lane()
                    } else {
                        i + first.first_nonzero_lane()
                    };
                    return Some(at);
                }
                i += 2 * BLOCK;
            } else {
                test_ascii = !test_ascii;
                let at = ptr.add(i);
                let errors = with_block!(V, at, i, |b| st.block_errors(c, &b));
                copy_blocks::<V, COPY>(ptr, dst, i, 1);
                if let Some(lane) = first_flagged(&errors) {
                    // No lane before this one is flagged, so the bytes
                    // before it are valid but for at most an unfinished
                    // sequence at their end, and the rescan starts at that
                    // sequence's lead or here (see `locate`): at the error
                    // itself, or one character before it.
                    return Some(i + lane);
                }
                i += BLOCK - realign::<V, COPY>(dst, i);
            }
        }
        st.tail(c, bytes, i);
        if COPY {
            core::ptr::copy_nonoverlapping(ptr.add(i), dst.add(i), len - i);
        }
        if st.ok() { None } else { Some(i) }
    }
}

/// How many bytes early the block after the one at `i` starts (see
/// [`check_blocks`]): by as much as its stores at `dst + i + BLOCK` would
/// be out of alignment, with `COPY` and `LOAD_PREV`; else 0.
#[inline(always)]
fn realign<V: Vector, const COPY: bool>(dst: *mut u8, i: usize) -> usize {
    if COPY && V::LOAD_PREV {
        (dst as usize).wrapping_add(i + BLOCK) % V::LANES
    } else {
        0
    }
}

/// What [`lossy`] did: bytes read, bytes written, replacements made.
#[cfg(feature = "alloc")]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Lossy {
    /// Input bytes consumed (a boundary where decoding starts afresh).
    pub(crate) read: usize,
    /// Output bytes written.
    pub(crate) written: usize,
    /// U+FFFD written.
    pub(crate) replacements: usize,
}

/// Lossy decoding of `bytes` into `dst` (room for `cap` bytes): each valid
/// run is checked and copied a block at a time ([`check_blocks`] with
/// `COPY`, and `PAIRS`), and each maximal invalid subpart becomes U+FFFD
/// (`EF BF BD`), all in one loop with the constants in registers: an error
/// is resolved in place by a short scalar decode from the error, or the
/// character before it ([`resolve`]), without leaving the kernel. A
/// continuation byte right after an invalid sequence is one more invalid
/// sequence, replaced without running the check.
///
/// Stops at the end of `bytes`, or early when the room left is less than
/// the bytes left plus 3 (a run is copied whole before its end is known),
/// so that the caller can grow the buffer and go on from `read`.
///
/// # Safety
///
/// * The CPU has `V`'s features.
/// * `dst..dst + cap` is writable and does not overlap `bytes`.
#[cfg(feature = "alloc")]
#[inline(always)]
pub(super) unsafe fn lossy<V: Vector>(bytes: &[u8], dst: *mut u8, cap: usize) -> Lossy {
    let len = bytes.len();
    let mut done = Lossy::default();
    // SAFETY: the caller guarantees `V`'s features.
    let c = unsafe { Consts::<V>::new() };
    while done.read < len && cap - done.written >= len - done.read + 3 {
        let rest = bytes.get(done.read..).unwrap_or_default();
        // SAFETY: the caller guarantees `V`'s features; the loop condition
        // leaves at least `rest.len()` bytes of room at `dst + written`,
        // inside the caller's writable range, which does not overlap
        // `bytes`.
        let Some(from) =
            (unsafe { check_blocks::<V, true, true>(&c, rest, dst.add(done.written)) })
        else {
            done.read = len;
            done.written += rest.len();
            break;
        };
        let Some((valid, bad)) = resolve(rest, from) else {
            // Unreachable: the check flagged an error the rescan did not
            // find (see `locate_near`); the copy is whole either way.
            debug_assert!(false, "SIMD check failed at {from}, scalar found no error");
            done.read = len;
            done.written += rest.len();
            break;
        };
        done.written += valid;
        done.read += valid + bad;
        loop {
            // SAFETY: the loop condition left `rest.len() + 3` bytes of
            // room, and `valid` of them hold the copied run; later rounds
            // check for 3 bytes of room themselves.
            unsafe { replacement(dst.add(done.written)) };
            done.written += 3;
            done.replacements += 1;
            let next_is_continuation = bytes.get(done.read).is_some_and(|&b| (b as i8) < -64);
            if !next_is_continuation || cap - done.written < 3 {
                break;
            }
            done.read += 1;
        }
    }
    done
}

/// The first error of `bytes` at or after `rescan_start(bytes, from)`, as
/// `(valid_up_to, error_len)` with an error cut short by the end counting
/// the rest of `bytes`; `None` if there is none. Inline, one sequence at a
/// time: the error is within a few bytes.
#[cfg(feature = "alloc")]
#[inline(always)]
fn resolve(bytes: &[u8], from: usize) -> Option<(usize, usize)> {
    let start = crate::validate::rescan_start(bytes, from);
    scalar::first_invalid_near(bytes, start)
        .map(|(at, len, _)| (at, len.unwrap_or(bytes.len() - at)))
}

/// Writes U+FFFD (`EF BF BD`) at `dst`.
///
/// # Safety
///
/// * `dst..dst + 3` is writable.
#[cfg(feature = "alloc")]
#[inline(always)]
unsafe fn replacement(dst: *mut u8) {
    // SAFETY: the caller makes the 3 bytes writable.
    unsafe { core::ptr::copy_nonoverlapping("\u{FFFD}".as_ptr(), dst, 3) };
}

/// With `COPY`, copies the `n` blocks at offset `at` from `src` to `dst`,
/// a register at a time (the registers just checked, still in hand); else
/// nothing. A function, not a closure, so that it inlines into the
/// `#[target_feature]` callers.
///
/// # Safety
///
/// * The CPU has `V`'s features.
/// * With `COPY`: `src + at..src + at + n * BLOCK` is readable and the same
///   range from `dst` writable.
#[inline(always)]
unsafe fn copy_blocks<V: Vector, const COPY: bool>(
    src: *const u8,
    dst: *mut u8,
    at: usize,
    n: usize,
) {
    if COPY {
        for k in 0..n * BLOCK / V::LANES {
            let o = at + k * V::LANES;
            // SAFETY: `o + LANES <= at + n * BLOCK`: inside both ranges
            // of the caller's contract; the caller guarantees `V`'s
            // features.
            unsafe { V::load(src.add(o)).store(dst.add(o)) };
        }
    }
}

/// Whether `bytes` is valid UTF-8: the same check, with one test at the
/// end.
///
/// # Safety
///
/// * The CPU has `V`'s features.
#[inline(always)]
pub(super) unsafe fn is_valid<V: Vector>(bytes: &[u8]) -> bool {
    let len = bytes.len();
    let whole = len - len % BLOCK;
    // SAFETY: as in `first_failure`.
    unsafe {
        if len <= BLOCK {
            return one_block::<V>(bytes);
        }
        let from = ascii_prefix::<V>(bytes, whole);
        if from == whole && ascii_tail::<V>(bytes, whole) {
            return true;
        }
        let c = Consts::<V>::new();
        let mut st = State::<V>::new();
        st.blocks(&c, bytes, from, whole);
        st.tail(&c, bytes, whole);
        st.ok()
    }
}

/// [`locate`](crate::validate::locate) for [`validate_fine`], whose error is at most a block (and
/// with AVX-512 a few bytes) after `from`: the rescan steps one sequence at
/// a time rather than setting up the scalar validator's word loop.
#[inline(never)]
fn locate_near(bytes: &[u8], from: usize) -> Result<(), Utf8Error> {
    let result = scalar::validate_near(bytes, crate::validate::rescan_start(bytes, from));
    debug_assert!(
        result.is_err(),
        "SIMD check failed at {from}, scalar found no error"
    );
    result
}

#[cfg(all(test, feature = "alloc"))]
mod tests {
    use super::*;
    use alloc::vec;
    use alloc::vec::Vec;

    /// The classes the two previous-byte tables give `prev`.
    fn prev_classes(prev: u8) -> u8 {
        PREV_HIGH[usize::from(prev >> 4)] & PREV_LOW[usize::from(prev & 15)]
    }

    /// The classes the three tables give the pair (`prev`, `cur`).
    fn pair_classes(prev: u8, cur: u8) -> u8 {
        prev_classes(prev) & CUR_HIGH[usize::from(cur >> 4)]
    }

    /// Whether the pair `prev cur` occurs in some valid UTF-8 text, by the
    /// `core::str::from_utf8` oracle: `prev` is either a character start or
    /// follows a lead and up to two continuation bytes, and whatever `cur`
    /// starts is completed with continuation bytes. Representatives stand
    /// for the classes the grammar tells apart: leads `C2` (all of
    /// `C2..=DF`), `E0`, `E1` (`E1..=EC`, `EE`, `EF`), `ED`, `F0`, `F1`
    /// (`F1..=F3`), `F4`; continuation bytes `80`, `90`, `A0`, `BF`, which
    /// cover the ranges of allowed second bytes.
    fn pair_occurs(prev: u8, cur: u8) -> bool {
        const LEADS: [u8; 7] = [0xC2, 0xE0, 0xE1, 0xED, 0xF0, 0xF1, 0xF4];
        const CONTS: [u8; 4] = [0x80, 0x90, 0xA0, 0xBF];
        let mut befores: Vec<Vec<u8>> = vec![vec![]];
        for lead in LEADS {
            befores.push(vec![lead]);
            for a in CONTS {
                befores.push(vec![lead, a]);
                for b in CONTS {
                    befores.push(vec![lead, a, b]);
                }
            }
        }
        let mut afters: Vec<Vec<u8>> = vec![vec![]];
        for a in CONTS {
            for k in 0..3 {
                let mut v = vec![a];
                v.extend(core::iter::repeat_n(0x80, k));
                afters.push(v);
            }
        }
        befores.iter().any(|before| {
            afters.iter().any(|after| {
                let mut text = before.clone();
                text.extend([prev, cur]);
                text.extend(after);
                core::str::from_utf8(&text).is_ok()
            })
        })
    }

    #[test]
    fn tables_flag_exactly_the_pairs_that_never_occur_in_utf8() {
        for prev in 0..=255u8 {
            for cur in 0..=255u8 {
                let is_cont = |b: u8| b & 0xC0 == 0x80;
                // The pair check sees only `cur`'s high nibble: a lead that
                // can never be valid (`C0`, `C1`, `F5..=FF`) is caught with
                // the byte after it, so here it counts as a valid lead with
                // the same high nibble.
                let cur_lead = match cur {
                    0xC0 | 0xC1 => 0xC2,
                    0xF5..=0xFF => 0xF4,
                    _ => cur,
                };
                // A continuation byte after ASCII is left to `must23` (see
                // the module docs).
                let deferred = prev < 0x80 && is_cont(cur);
                let errors = pair_classes(prev, cur) & !CONT_NO_LEAD;
                assert_eq!(
                    errors == 0,
                    pair_occurs(prev, cur_lead) || deferred,
                    "pair {prev:02X} {cur:02X}"
                );
                let cont_no_lead = pair_classes(prev, cur) & CONT_NO_LEAD != 0;
                assert_eq!(
                    cont_no_lead,
                    prev < 0xC0 && is_cont(cur),
                    "pair {prev:02X} {cur:02X}"
                );
            }
        }
    }

    #[test]
    fn lead_table_agrees_with_the_nibble_tables() {
        for prev in 0..=255u8 {
            let expected = if prev >= 0xC0 {
                PREV_LEAD[usize::from(prev & 63)]
            } else {
                NON_LEAD
            };
            assert_eq!(prev_classes(prev), expected, "{prev:02X}");
        }
    }
}
