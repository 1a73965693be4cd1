//! Hoehrmann's table-driven UTF-8 automaton (the 2010 table), a streaming
//! decoder built on it, and a byte-by-byte trace.
//!
//! # The automaton
//!
//! Every byte is first mapped to one of twelve *classes* ([`CLASSES`]); the
//! pair (state, class) then selects the next state ([`TRANSITIONS`]). States
//! are pre-multiplied by 12, the number of classes, so the transition index is
//! a plain addition. The code point is accumulated at the same time:
//!
//! ```text
//! for each byte b:
//!     class = CLASSES[b]
//!     codep = if state == ACCEPT { (0xFF >> class) & b }      // lead: keep the payload bits
//!             else               { (codep << 6) | (b & 0x3F) } // continuation: append 6 bits
//!     state = TRANSITIONS[state + class]
//!     ACCEPT  -> codep is a complete scalar value
//!     REJECT  -> the bytes since the last ACCEPT are ill-formed
//!     other   -> more continuation bytes are needed
//! ```
//!
//! `0xFF >> class` doubles as the payload mask of a lead byte because the
//! classes were numbered for it: class 2 (`C2..DF`) keeps 5 bits, class 3
//! (`E1..EC`, `EE..EF`) keeps 4, class 6 (`F1..F3`) keeps 2, and the leads
//! whose payload is zero or whose second byte is restricted get larger
//! numbers (`E0` = 10, `F0` = 11, `ED` = 4, `F4` = 5).
//!
//! # Classes
//!
//! | class | bytes | role |
//! |---|---|---|
//! | 0 | `00..7F` | ASCII |
//! | 1 | `80..8F` | continuation |
//! | 9 | `90..9F` | continuation |
//! | 7 | `A0..BF` | continuation |
//! | 8 | `C0 C1 F5..FF` | never valid |
//! | 2 | `C2..DF` | lead of 2 |
//! | 10 | `E0` | lead of 3, second byte `A0..BF` (no overlong) |
//! | 3 | `E1..EC EE EF` | lead of 3 |
//! | 4 | `ED` | lead of 3, second byte `80..9F` (no surrogates) |
//! | 11 | `F0` | lead of 4, second byte `90..BF` (no overlong) |
//! | 6 | `F1..F3` | lead of 4 |
//! | 5 | `F4` | lead of 4, second byte `80..8F` (nothing above U+10FFFF) |
//!
//! # States (the RFC 3629 grammar, one state per position)
//!
//! | state | name | next byte accepted → next state (anything else → `REJECT`) |
//! |---|---|---|
//! | 0 | `ACCEPT` | `00..7F` → 0, `C2..DF` → 24, `E0` → 48, `E1..EC EE EF` → 36, `ED` → 60, `F0` → 72, `F1..F3` → 84, `F4` → 96 |
//! | 12 | `REJECT` | nothing (the state is sticky) |
//! | 24 | one more | `80..BF` → 0 |
//! | 36 | two more | `80..BF` → 24 |
//! | 48 | after `E0` | `A0..BF` → 24 |
//! | 60 | after `ED` | `80..9F` → 24 |
//! | 72 | after `F0` | `90..BF` → 36 |
//! | 84 | three more | `80..BF` → 36 |
//! | 96 | after `F4` | `80..8F` → 36 |
//!
//! # Error recovery
//!
//! The seed's sample loop resets to `ACCEPT` after `REJECT` and moves on,
//! swallowing the byte that caused the rejection. [`Decoder`], [`decode`] and
//! [`trace`] instead follow the *maximal subpart* rule of Unicode §3.9 (the
//! rule of `String::from_utf8_lossy`
//! and [`core::str::Utf8Error::error_len`]): the bytes from the start of the
//! sequence up to (not including) the rejecting byte are one invalid
//! sequence, and the rejecting byte is examined again from `ACCEPT`, because
//! it may well start the next character. A byte rejected straight from
//! `ACCEPT` is an invalid sequence of length 1 on its own.
//!
//! ```
//! use utf8kit::dfa::{self, Decoded};
//!
//! // E4 B8 is the start of "世" but 'A' cannot continue it: one invalid
//! // sequence of 2 bytes, then 'A' is decoded as the start of what follows.
//! let items: Vec<Decoded> = dfa::decode(b"\xE4\xB8A").collect();
//! assert!(matches!(items[0], Decoded::Invalid(e) if e.offset == 0 && e.len == 2));
//! assert_eq!(items[1], Decoded::Char('A'));
//! assert_eq!(items.len(), 2);
//! ```

use core::fmt;
use core::iter::FusedIterator;

use crate::error::Utf8ErrorKind;

/// The state between characters: the automaton has accepted a complete
/// character, or has not started.
pub const ACCEPT: u8 = 0;

/// The state after an ill-formed sequence. The automaton never leaves it on
/// its own; decoders reset to [`ACCEPT`].
pub const REJECT: u8 = 12;

/// The number of byte classes, and the factor by which states are
/// pre-multiplied.
pub const NUM_CLASSES: usize = 12;

// The states other than ACCEPT and REJECT, named for the code below.
const ONE_MORE: u8 = 24;
const TWO_MORE: u8 = 36;
const AFTER_E0: u8 = 48;
const AFTER_ED: u8 = 60;
const AFTER_F0: u8 = 72;
const THREE_MORE: u8 = 84;
const AFTER_F4: u8 = 96;

/// Every state of the automaton, in increasing order.
///
/// ```
/// assert_eq!(utf8kit::dfa::STATES.len(), 9);
/// assert!(utf8kit::dfa::STATES.iter().all(|s| s % 12 == 0));
/// ```
pub const STATES: [u8; 9] = [
    ACCEPT, REJECT, ONE_MORE, TWO_MORE, AFTER_E0, AFTER_ED, AFTER_F0, THREE_MORE, AFTER_F4,
];

/// The seed's `utf8d` table, verbatim: 256 byte classes followed by the 108
/// entries of the transition table (9 states × 12 classes).
///
/// Copyright (c) 2008-2009 Bjoern Hoehrmann, see
/// <https://bjoern.hoehrmann.de/utf-8/decoder/dfa/>. The tests check it
/// against the class ranges of the seed's text and, through [`decode`],
/// against `core::str::from_utf8` on every input of up to 3 bytes and every
/// 4-byte input with a 4-byte lead.
#[rustfmt::skip]
const UTF8D_TABLE: [u8; 256 + 108] = [
    // The first part of the table maps bytes to character classes that
    // to reduce the size of the transition table and create bitmasks.
    0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0, 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
    0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0, 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
    0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0, 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
    0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0, 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
    1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1, 9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,
    7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7, 7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,
    8,8,2,2,2,2,2,2,2,2,2,2,2,2,2,2, 2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,
    10,3,3,3,3,3,3,3,3,3,3,3,3,4,3,3, 11,6,6,6,5,8,8,8,8,8,8,8,8,8,8,8,
    // The second part is a transition table that maps a combination
    // of a state of the automaton and a character class to a state.
    0,12,24,36,60,96,84,12,12,12,48,72, 12,12,12,12,12,12,12,12,12,12,12,12,
    12, 0,12,12,12,12,12, 0,12, 0,12,12, 12,24,12,12,12,12,12,24,12,24,12,12,
    12,12,12,12,12,12,12,24,12,12,12,12, 12,24,12,12,12,12,12,12,12,24,12,12,
    12,12,12,12,12,12,12,36,12,36,12,12, 12,36,12,12,12,12,12,36,12,36,12,12,
    12,36,12,12,12,12,12,12,12,12,12,12,
];

/// The seed's combined table: [`CLASSES`] followed by [`TRANSITIONS`], so
/// that `UTF8D[256 + state + class]` is the next state, as in the C code.
pub static UTF8D: [u8; 256 + 108] = UTF8D_TABLE;

const CLASSES_TABLE: [u8; 256] = {
    let mut out = [0; 256];
    let mut i = 0;
    while i < 256 {
        out[i] = UTF8D_TABLE[i];
        i += 1;
    }
    out
};

const TRANSITIONS_TABLE: [u8; 108] = {
    let mut out = [0; 108];
    let mut i = 0;
    while i < 108 {
        out[i] = UTF8D_TABLE[256 + i];
        i += 1;
    }
    out
};

/// The class of every byte (the first 256 entries of [`UTF8D`]); see the
/// module docs for what each class means.
pub static CLASSES: [u8; 256] = CLASSES_TABLE;

/// The transition table (the last 108 entries of [`UTF8D`]): the next state
/// is `TRANSITIONS[state + class]`, for a state in [`STATES`] and a class
/// below [`NUM_CLASSES`].
pub static TRANSITIONS: [u8; 108] = TRANSITIONS_TABLE;

/// The class of `byte`, `CLASSES[byte]`.
///
/// ```
/// use utf8kit::dfa::class;
///
/// // "世" is E4 B8 96.
/// assert_eq!([class(0xE4), class(0xB8), class(0x96)], [3, 7, 9]);
/// assert_eq!(class(b'a'), 0);
/// assert_eq!(class(0xC0), 8); // never valid
/// ```
#[inline]
pub const fn class(byte: u8) -> u8 {
    CLASSES_TABLE[byte as usize]
}

/// One step of the automaton: the seed's `decode(&state, &codep, byte)`.
///
/// Returns the next state and the updated code point accumulator. When the
/// returned state is [`ACCEPT`], the accumulator holds a complete scalar
/// value; when it is [`REJECT`], the accumulator is meaningless.
///
/// `state` should be one of [`STATES`]. Any other value (not a multiple of
/// 12, or above 96) is treated as [`REJECT`], so the function never panics.
///
/// ```
/// use utf8kit::dfa::{step, ACCEPT, REJECT};
///
/// // "世" is E4 B8 96 = U+4E16.
/// let (s, c) = step(ACCEPT, 0, 0xE4);
/// assert_eq!((s, c), (36, 0x04));
/// let (s, c) = step(s, c, 0xB8);
/// assert_eq!((s, c), (24, 0x138));
/// let (s, c) = step(s, c, 0x96);
/// assert_eq!((s, c), (ACCEPT, 0x4E16));
///
/// // ED A0 would be a surrogate.
/// let (s, c) = step(ACCEPT, 0, 0xED);
/// assert_eq!(step(s, c, 0xA0).0, REJECT);
/// ```
#[inline]
pub const fn step(state: u8, codep: u32, byte: u8) -> (u8, u32) {
    let class = class(byte);
    let codep = if state != ACCEPT {
        (byte as u32 & 0x3F) | (codep << 6)
    } else {
        (0xFF >> class) & byte as u32
    };
    let index = state as usize + class as usize;
    let next = if state.is_multiple_of(NUM_CLASSES as u8) && index < TRANSITIONS_TABLE.len() {
        TRANSITIONS_TABLE[index]
    } else {
        REJECT
    };
    (next, codep)
}

/// A short name for a state, for traces and messages.
///
/// ```
/// use utf8kit::dfa::{state_name, ACCEPT, REJECT};
///
/// assert_eq!(state_name(ACCEPT), "accept");
/// assert_eq!(state_name(REJECT), "reject");
/// assert_eq!(state_name(48), "after E0: A0..BF");
/// assert_eq!(state_name(5), "not a state");
/// ```
pub const fn state_name(state: u8) -> &'static str {
    match state {
        ACCEPT => "accept",
        REJECT => "reject",
        ONE_MORE => "1 more: 80..BF",
        TWO_MORE => "2 more: 80..BF",
        AFTER_E0 => "after E0: A0..BF",
        AFTER_ED => "after ED: 80..9F",
        AFTER_F0 => "after F0: 90..BF",
        THREE_MORE => "3 more: 80..BF",
        AFTER_F4 => "after F4: 80..8F",
        _ => "not a state",
    }
}

/// An ill-formed sequence found by the decoder.
///
/// `offset` and `len` are the numbers that repeated calls to
/// [`core::str::from_utf8`] report (`valid_up_to` shifted to an absolute
/// position, and `error_len`, with a truncated tail counting as the rest of
/// the input); `kind` is the class [`validate`](crate::validate()) reports for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct InvalidSequence {
    /// Absolute offset of the first byte, counted over all input fed.
    pub offset: usize,
    /// Length in bytes (1 to 3). Each invalid sequence stands for one U+FFFD.
    pub len: usize,
    /// The class of the error.
    pub kind: Utf8ErrorKind,
}

impl fmt::Display for InvalidSequence {
    /// ```
    /// let e = utf8kit::dfa::decode(b"ab\xC0").find_map(|d| d.invalid()).unwrap();
    /// assert_eq!(e.to_string(), "overlong encoding: 1 byte at offset 2");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let unit = if self.len == 1 { "byte" } else { "bytes" };
        write!(
            f,
            "{}: {} {} at offset {}",
            self.kind, self.len, unit, self.offset
        )
    }
}

/// One item of decoded input: a character or an ill-formed sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Decoded {
    /// A well-formed character.
    Char(char),
    /// An ill-formed sequence (one U+FFFD in lossy output).
    Invalid(InvalidSequence),
}

impl Decoded {
    /// The character, or U+FFFD for an invalid sequence: the character
    /// `String::from_utf8_lossy`
    /// writes for this item.
    ///
    /// ```
    /// let s: String = utf8kit::dfa::decode(b"a\xFFb").map(|d| d.lossy()).collect();
    /// assert_eq!(s, "a\u{FFFD}b");
    /// ```
    #[inline]
    pub const fn lossy(self) -> char {
        match self {
            Decoded::Char(c) => c,
            Decoded::Invalid(_) => char::REPLACEMENT_CHARACTER,
        }
    }

    /// The invalid sequence, if this item is one.
    #[inline]
    pub const fn invalid(self) -> Option<InvalidSequence> {
        match self {
            Decoded::Char(_) => None,
            Decoded::Invalid(e) => Some(e),
        }
    }
}

/// The class of an error found at a lead position (the automaton rejected
/// `byte` straight from `ACCEPT`). Only classes 1, 7, 8 and 9 get here.
const fn lead_kind(byte: u8) -> Utf8ErrorKind {
    match byte {
        0x80..=0xBF => Utf8ErrorKind::UnexpectedContinuation,
        0xC0 | 0xC1 => Utf8ErrorKind::Overlong,
        0xF5..=0xF7 => Utf8ErrorKind::OutOfRange,
        _ => Utf8ErrorKind::InvalidByte,
    }
}

/// The class of an error found after a lead: `byte` made the automaton
/// reject from `before`. A continuation byte can only be refused right after
/// one of the four restricted leads, which decides the class; any other
/// refused byte cuts the sequence short.
const fn continuation_kind(before: u8, byte: u8) -> Utf8ErrorKind {
    if byte & 0xC0 != 0x80 {
        return Utf8ErrorKind::Incomplete;
    }
    match before {
        AFTER_E0 | AFTER_F0 => Utf8ErrorKind::Overlong,
        AFTER_ED => Utf8ErrorKind::Surrogate,
        AFTER_F4 => Utf8ErrorKind::OutOfRange,
        _ => Utf8ErrorKind::Incomplete,
    }
}

/// The code point of an accepted sequence. The automaton only accepts
/// scalar values, so the fallback is never taken.
#[inline]
fn accepted_char(codep: u32) -> char {
    match char::from_u32(codep) {
        Some(c) => c,
        None => {
            debug_assert!(false, "the DFA accepted a non-scalar value");
            char::REPLACEMENT_CHARACTER
        }
    }
}

/// What one step of [`Machine::advance`] produced.
#[derive(Clone, Copy, Debug)]
enum Outcome {
    /// In the middle of a sequence.
    Pending,
    /// A complete character.
    Char(char),
    /// An ill-formed sequence. When `retry` is set the byte was not consumed:
    /// it rejected a sequence in progress and must be examined again from
    /// `ACCEPT` (the machine has already been reset).
    Invalid { seq: InvalidSequence, retry: bool },
}

/// One step's raw transition, kept for the trace.
#[derive(Clone, Copy, Debug)]
struct Transition {
    state_after: u8,
    codep: u32,
    outcome: Outcome,
}

/// The automaton plus the start of the pending sequence: the recovery logic
/// shared by [`Decoder`], [`Decode`] and [`Trace`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Machine {
    state: u8,
    codep: u32,
    /// Absolute offset of the first byte of the pending sequence.
    start: usize,
}

impl Machine {
    const fn new() -> Self {
        Machine {
            state: ACCEPT,
            codep: 0,
            start: 0,
        }
    }

    /// Feeds `byte`, found at absolute `offset`.
    #[inline]
    fn advance(&mut self, offset: usize, byte: u8) -> Transition {
        let before = self.state;
        if before == ACCEPT {
            self.start = offset;
        }
        let (state_after, codep) = step(before, self.codep, byte);
        let outcome = match state_after {
            ACCEPT => Outcome::Char(accepted_char(codep)),
            REJECT if before == ACCEPT => Outcome::Invalid {
                seq: InvalidSequence {
                    offset,
                    len: 1,
                    kind: lead_kind(byte),
                },
                retry: false,
            },
            REJECT => Outcome::Invalid {
                seq: InvalidSequence {
                    offset: self.start,
                    len: offset - self.start,
                    kind: continuation_kind(before, byte),
                },
                retry: true,
            },
            _ => Outcome::Pending,
        };
        if state_after == REJECT {
            self.state = ACCEPT;
            self.codep = 0;
        } else {
            self.state = state_after;
            self.codep = codep;
        }
        Transition {
            state_after,
            codep,
            outcome,
        }
    }

    /// The pending sequence as an error, if the input ends at `end`.
    #[inline]
    const fn tail(&self, end: usize) -> Option<InvalidSequence> {
        if self.state == ACCEPT {
            None
        } else {
            Some(InvalidSequence {
                offset: self.start,
                len: end - self.start,
                kind: Utf8ErrorKind::Incomplete,
            })
        }
    }
}

/// Runs the machine over `bytes[*pos..]` until it produces an item,
/// keeping `*pos` and the absolute `*offset` on the first byte not yet
/// consumed. Returns `None` when the bytes run out (the machine may then be
/// pending).
#[inline]
fn next_item(
    machine: &mut Machine,
    offset: &mut usize,
    bytes: &[u8],
    pos: &mut usize,
) -> Option<Decoded> {
    while let Some(&byte) = bytes.get(*pos) {
        match machine.advance(*offset, byte).outcome {
            Outcome::Pending => {}
            Outcome::Char(c) => {
                *pos += 1;
                *offset += 1;
                return Some(Decoded::Char(c));
            }
            Outcome::Invalid { seq, retry } => {
                if !retry {
                    *pos += 1;
                    *offset += 1;
                }
                return Some(Decoded::Invalid(seq));
            }
        }
        *pos += 1;
        *offset += 1;
    }
    None
}

/// A streaming decoder: feed it bytes from any number of chunks, one byte
/// or one slice at a time, and call [`finish`](Self::finish) at the end.
///
/// It carries only the automaton's state, the partial code point and the
/// start of the pending sequence, so a character split across chunks costs
/// nothing extra. Offsets in errors are absolute over everything fed.
///
/// ```
/// use utf8kit::dfa::{Decoded, Decoder};
///
/// let mut dec = Decoder::new();
/// // "世" (E4 B8 96) split across two chunks.
/// assert_eq!(dec.feed(0xE4).next(), None);
/// assert!(dec.is_pending());
/// assert_eq!(dec.codepoint(), 0x04);
/// let out: Vec<Decoded> = dec.feed_slice(&[0xB8, 0x96, b'!']).collect();
/// assert_eq!(out, [Decoded::Char('世'), Decoded::Char('!')]);
/// assert_eq!(dec.offset(), 4);
///
/// // An unfinished character is reported by `finish`.
/// let _ = dec.feed(0xF0);
/// let tail = dec.finish().unwrap();
/// assert_eq!((tail.offset, tail.len), (4, 1));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Decoder {
    machine: Machine,
    offset: usize,
}

impl Decoder {
    /// A decoder at offset 0, between characters.
    #[inline]
    pub const fn new() -> Self {
        Decoder {
            machine: Machine::new(),
            offset: 0,
        }
    }

    /// The automaton's state: [`ACCEPT`] between characters, otherwise the
    /// state of the pending sequence (never [`REJECT`]: the decoder resets
    /// after reporting an error).
    #[inline]
    pub const fn state(&self) -> u8 {
        self.machine.state
    }

    /// The partial code point accumulated from the pending sequence (0 or
    /// the last character's value between characters).
    #[inline]
    pub const fn codepoint(&self) -> u32 {
        self.machine.codep
    }

    /// Whether the decoder is in the middle of a sequence.
    #[inline]
    pub const fn is_pending(&self) -> bool {
        self.machine.state != ACCEPT
    }

    /// How many bytes the decoder has consumed in total.
    #[inline]
    pub const fn offset(&self) -> usize {
        self.offset
    }

    /// Feeds one byte. Returns the items it completes: none, one, or two.
    /// Two happen when the byte cuts a pending sequence short (an error for
    /// the bytes before it) and is then decoded on its own, as in
    /// `E4 B8 41` → invalid `E4 B8`, then `'A'`.
    ///
    /// ```
    /// use utf8kit::dfa::{Decoded, Decoder};
    ///
    /// let mut dec = Decoder::new();
    /// assert_eq!(dec.feed(0xE4).len(), 0);
    /// let out: Vec<Decoded> = dec.feed(b'A').collect();
    /// assert!(matches!(out[0], Decoded::Invalid(e) if (e.offset, e.len) == (0, 1)));
    /// assert_eq!(out[1], Decoded::Char('A'));
    /// ```
    #[inline]
    pub fn feed(&mut self, byte: u8) -> Emitted {
        let mut out = Emitted::EMPTY;
        match self.machine.advance(self.offset, byte).outcome {
            Outcome::Pending => {}
            Outcome::Char(c) => out.first = Some(Decoded::Char(c)),
            Outcome::Invalid { seq, retry } => {
                out.first = Some(Decoded::Invalid(seq));
                if retry {
                    // From ACCEPT the byte cannot need another retry.
                    out.second = match self.machine.advance(self.offset, byte).outcome {
                        Outcome::Pending => None,
                        Outcome::Char(c) => Some(Decoded::Char(c)),
                        Outcome::Invalid { seq, .. } => Some(Decoded::Invalid(seq)),
                    };
                }
            }
        }
        self.offset += 1;
        out
    }

    /// Feeds a chunk, yielding items as they complete.
    ///
    /// Bytes are consumed lazily, as the iterator advances: if it is dropped
    /// early, exactly [`offset`](Self::offset) bytes have been fed in total,
    /// and feeding the rest of the chunk later gives the same items.
    ///
    /// ```
    /// use utf8kit::dfa::{Decoded, Decoder};
    ///
    /// let mut dec = Decoder::new();
    /// let mut chars = String::new();
    /// for chunk in [&b"\xF0\x9F"[..], b"\x98\x80 ok"] {
    ///     chars.extend(dec.feed_slice(chunk).map(Decoded::lossy));
    /// }
    /// assert!(dec.finish().is_none());
    /// assert_eq!(chars, "😀 ok");
    /// ```
    #[inline]
    pub fn feed_slice<'a>(&'a mut self, chunk: &'a [u8]) -> FeedSlice<'a> {
        FeedSlice {
            decoder: self,
            chunk,
            pos: 0,
        }
    }

    /// Ends the input: reports the pending sequence, if any, as an
    /// [`Utf8ErrorKind::Incomplete`] invalid sequence, and resets the
    /// decoder to [`ACCEPT`] (the offset keeps counting).
    #[inline]
    pub fn finish(&mut self) -> Option<InvalidSequence> {
        let tail = self.machine.tail(self.offset);
        self.machine = Machine::new();
        tail
    }
}

/// The items completed by one [`Decoder::feed`]: at most two.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use = "the decoded items are lost if not read"]
pub struct Emitted {
    first: Option<Decoded>,
    second: Option<Decoded>,
}

impl Emitted {
    const EMPTY: Emitted = Emitted {
        first: None,
        second: None,
    };
}

impl Iterator for Emitted {
    type Item = Decoded;

    #[inline]
    fn next(&mut self) -> Option<Decoded> {
        match self.first.take() {
            Some(item) => Some(item),
            None => self.second.take(),
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = usize::from(self.first.is_some()) + usize::from(self.second.is_some());
        (n, Some(n))
    }
}

impl ExactSizeIterator for Emitted {}
impl FusedIterator for Emitted {}

/// The iterator of [`Decoder::feed_slice`].
#[derive(Debug)]
#[must_use = "bytes are only fed as the iterator advances"]
pub struct FeedSlice<'a> {
    decoder: &'a mut Decoder,
    chunk: &'a [u8],
    pos: usize,
}

impl Iterator for FeedSlice<'_> {
    type Item = Decoded;

    #[inline]
    fn next(&mut self) -> Option<Decoded> {
        let decoder = &mut *self.decoder;
        next_item(
            &mut decoder.machine,
            &mut decoder.offset,
            self.chunk,
            &mut self.pos,
        )
    }
}

impl FusedIterator for FeedSlice<'_> {}

/// Decodes a complete input: characters and invalid sequences in order,
/// with a truncated tail reported as a last [`Utf8ErrorKind::Incomplete`]
/// sequence.
///
/// The invalid sequences are exactly those found by repeatedly calling
/// [`core::str::from_utf8`] (same offsets and lengths), and mapping each item
/// through [`Decoded::lossy`] gives
/// `String::from_utf8_lossy`'s
/// output.
///
/// ```
/// use utf8kit::dfa::{self, Decoded, InvalidSequence};
/// use utf8kit::Utf8ErrorKind;
///
/// // ' ', then the overlong C0 AF (two invalid bytes), then a truncated "世".
/// let items: Vec<Decoded> = dfa::decode(b" \xC0\xAF\xE4\xB8").collect();
/// let bad = |offset, len, kind| Decoded::Invalid(InvalidSequence { offset, len, kind });
/// assert_eq!(
///     items,
///     [
///         Decoded::Char(' '),
///         bad(1, 1, Utf8ErrorKind::Overlong),
///         bad(2, 1, Utf8ErrorKind::UnexpectedContinuation),
///         bad(3, 2, Utf8ErrorKind::Incomplete),
///     ]
/// );
/// ```
#[inline]
pub fn decode(bytes: &[u8]) -> Decode<'_> {
    Decode {
        bytes,
        pos: 0,
        machine: Machine::new(),
        done: false,
    }
}

/// The iterator of [`decode`].
#[derive(Clone, Debug)]
pub struct Decode<'a> {
    bytes: &'a [u8],
    pos: usize,
    machine: Machine,
    done: bool,
}

impl Decode<'_> {
    /// The offset of the first byte not yet consumed.
    #[inline]
    pub const fn offset(&self) -> usize {
        self.pos
    }
}

impl Iterator for Decode<'_> {
    type Item = Decoded;

    #[inline]
    fn next(&mut self) -> Option<Decoded> {
        if self.done {
            return None;
        }
        // `pos` doubles as the absolute offset: the slice is the whole input.
        let mut offset = self.pos;
        let item = next_item(&mut self.machine, &mut offset, self.bytes, &mut self.pos);
        if item.is_some() {
            return item;
        }
        self.done = true;
        self.machine.tail(self.pos).map(Decoded::Invalid)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        if self.done {
            return (0, Some(0));
        }
        // At most one item per remaining byte, plus the pending sequence;
        // at least one item per four bytes.
        let rest = self.bytes.len() - self.pos;
        let pending = usize::from(self.machine.state != ACCEPT);
        (rest.div_ceil(4), Some(rest + pending))
    }
}

impl FusedIterator for Decode<'_> {}

/// What a [`TraceStep`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TraceEvent {
    /// The automaton reached [`ACCEPT`]: a complete character.
    Accepted(char),
    /// The automaton is inside a sequence and needs more bytes.
    NeedMore,
    /// The automaton reached [`REJECT`]; the invalid sequence it ends. If it
    /// started before this byte, the byte is examined again in the next
    /// step (see [`TraceStep::reexamined`]).
    Rejected(InvalidSequence),
}

impl fmt::Display for TraceEvent {
    /// ```
    /// use utf8kit::dfa::TraceEvent;
    /// assert_eq!(TraceEvent::Accepted('世').to_string(), "accept U+4E16");
    /// assert_eq!(TraceEvent::NeedMore.to_string(), "need more");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceEvent::Accepted(c) => write!(f, "accept U+{:04X}", u32::from(*c)),
            TraceEvent::NeedMore => f.write_str("need more"),
            TraceEvent::Rejected(seq) => write!(f, "reject ({seq})"),
        }
    }
}

/// One step of the automaton, as recorded by [`trace`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TraceStep {
    /// Offset of the byte in the input.
    pub offset: usize,
    /// The byte.
    pub byte: u8,
    /// Its class, [`class(byte)`](class).
    pub class: u8,
    /// The state before the step.
    pub state_before: u8,
    /// The state the table gave (can be [`REJECT`]; the trace then restarts
    /// from [`ACCEPT`]).
    pub state_after: u8,
    /// The code point accumulator after the step, as the seed's `decode`
    /// computes it (meaningless when the step rejects).
    pub codep: u32,
    /// What the step did.
    pub event: TraceEvent,
    /// Whether this byte already had a step that rejected the sequence
    /// before it, and is now examined again from [`ACCEPT`] as a possible
    /// start: the second of the two steps of the same byte.
    pub reexamined: bool,
}

/// Traces the automaton over `bytes`, one [`TraceStep`] per step.
///
/// Every byte gets one step, except a byte that rejects a sequence already
/// in progress: it gets two consecutive steps with the same offset, the
/// first showing the rejection (from the pending state to [`REJECT`]) and
/// the second examining it again from [`ACCEPT`] (with
/// [`reexamined`](TraceStep::reexamined) set), because under the
/// maximal-subpart rule that byte may start the next character. A byte
/// rejected straight from [`ACCEPT`] has a single step. Offsets therefore
/// never decrease, and the `Rejected` and `Accepted` events, followed by
/// [`Trace::incomplete_tail`], list exactly the items of [`decode`].
///
/// ```
/// use utf8kit::dfa::{self, TraceEvent, ACCEPT, REJECT};
/// use utf8kit::Utf8ErrorKind;
///
/// // ED A0 80 would encode the surrogate U+D800.
/// let steps: Vec<_> = dfa::trace(b"\xED\xA0\x80").collect();
/// let rows: Vec<_> = steps
///     .iter()
///     .map(|s| (s.offset, s.byte, s.class, s.state_before, s.state_after, s.reexamined))
///     .collect();
/// assert_eq!(
///     rows,
///     [
///         (0, 0xED, 4, ACCEPT, 60, false),
///         (1, 0xA0, 7, 60, REJECT, false),    // ED A0: rejected...
///         (1, 0xA0, 7, ACCEPT, REJECT, true), // ...A0 again: not a lead either
///         (2, 0x80, 1, ACCEPT, REJECT, false),
///     ]
/// );
/// assert!(matches!(steps[1].event, TraceEvent::Rejected(e) if e.kind == Utf8ErrorKind::Surrogate));
/// ```
#[inline]
pub fn trace(bytes: &[u8]) -> Trace<'_> {
    Trace {
        bytes,
        pos: 0,
        machine: Machine::new(),
        reexamine: false,
    }
}

/// The iterator of [`trace`].
#[derive(Clone, Debug)]
pub struct Trace<'a> {
    bytes: &'a [u8],
    pos: usize,
    machine: Machine,
    /// The byte at `pos` rejected a sequence and is examined again next.
    reexamine: bool,
}

impl Trace<'_> {
    /// The offset of the byte the next step examines.
    #[inline]
    pub const fn offset(&self) -> usize {
        self.pos
    }

    /// Once the trace is exhausted: the sequence the input ended in the
    /// middle of, if any (an [`Utf8ErrorKind::Incomplete`] error spanning
    /// the rest of the input). Before the end it is `None`.
    ///
    /// ```
    /// let mut t = utf8kit::dfa::trace(b"a\xF0\x9F");
    /// assert_eq!(t.by_ref().count(), 3);
    /// let tail = t.incomplete_tail().unwrap();
    /// assert_eq!((tail.offset, tail.len), (1, 2));
    /// ```
    #[inline]
    pub const fn incomplete_tail(&self) -> Option<InvalidSequence> {
        if self.pos < self.bytes.len() {
            return None;
        }
        self.machine.tail(self.pos)
    }

    /// Whether the trace is exhausted and the input ended in the middle of
    /// a sequence.
    #[inline]
    pub const fn ends_incomplete(&self) -> bool {
        self.incomplete_tail().is_some()
    }
}

impl Iterator for Trace<'_> {
    type Item = TraceStep;

    #[inline]
    fn next(&mut self) -> Option<TraceStep> {
        let &byte = self.bytes.get(self.pos)?;
        let offset = self.pos;
        let state_before = self.machine.state;
        let reexamined = core::mem::take(&mut self.reexamine);
        let t = self.machine.advance(offset, byte);
        let event = match t.outcome {
            Outcome::Pending => TraceEvent::NeedMore,
            Outcome::Char(c) => TraceEvent::Accepted(c),
            Outcome::Invalid { seq, retry } => {
                self.reexamine = retry;
                TraceEvent::Rejected(seq)
            }
        };
        if !self.reexamine {
            self.pos += 1;
        }
        Some(TraceStep {
            offset,
            byte,
            class: class(byte),
            state_before,
            state_after: t.state_after,
            codep: t.codep,
            event,
            reexamined,
        })
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let rest = self.bytes.len() - self.pos;
        (rest, Some(rest.saturating_mul(2)))
    }
}

impl FusedIterator for Trace<'_> {}
