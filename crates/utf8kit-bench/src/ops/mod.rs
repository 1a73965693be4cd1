//! What is measured: operations, their contenders, and the ratios and summaries reported.
//!
//! # Adding an operation
//!
//! Write a module `ops/<name>.rs` with `pub fn operation() -> Operation` and list it in
//! [`all`]. An operation names the encoding it reads, its contenders (each a closure over
//! `&[u8]` or `&[u16]` returning a `usize` result), the oracle contender that `--check`
//! trusts, the ratio columns, and the summaries. Everything else (inputs, sizes,
//! calibration, interleaving, tables, `--check`, `--filter`) is shared. For example, a
//! UTF-8 → UTF-16 operation:
//!
//! ```ignore
//! pub fn operation() -> Operation {
//!     let mut out = Vec::new();
//!     Operation::new("utf8→utf16", Encoding::Utf8, "std encode_utf16")
//!         .contender(Contender::utf8("std encode_utf16", "std", Role::Peer, move |b| {
//!             out.clear();
//!             out.extend(core::str::from_utf8(b).unwrap_or("").encode_utf16());
//!             out.len()
//!         }))
//!         .ratio(Ratio::best_peer("utf8kit ÷ best", "utf8kit::utf8_to_utf16le"))
//! }
//! ```

pub mod count;
pub mod latin1;
pub mod length;
pub mod lossy;
pub mod utf16;
pub mod utf16be;
pub mod utf32;
pub mod validate;

use crate::inputs::{Encoding, Kind, Size};

/// Every operation the harness knows, in report order.
pub fn all() -> Vec<Operation> {
    vec![
        validate::operation(),
        utf16::utf8_to_utf16(),
        utf16::utf16_to_utf8(),
        utf16be::utf8_to_utf16be(),
        utf16be::utf16be_to_utf8(),
        length::utf16_len_from_utf8(),
        length::utf8_len_from_utf16(),
        latin1::latin1_to_utf8(),
        latin1::utf8_to_latin1(),
        latin1::utf8_len_from_latin1(),
        utf32::utf8_to_utf32(),
        utf32::utf32_to_utf8(),
        length::utf8_len_from_utf32(),
        count::operation(),
        lossy::utf8_to_utf8(Encoding::Utf8Damaged),
        lossy::utf8_to_utf8(Encoding::Utf8),
        lossy::utf8_to_utf16(Encoding::Utf8Damaged),
        lossy::utf8_to_utf16(Encoding::Utf8),
    ]
}

/// Grows `buf` to at least `len` elements (only on the first call per size) and returns
/// its first `len`: the output buffer a contender owns.
pub fn room<T: Copy + Default>(buf: &mut Vec<T>, len: usize) -> &mut [T] {
    if buf.len() < len {
        buf.resize(len, T::default());
    }
    &mut buf[..len]
}

/// The contender `name` for a `valid_utf8_to_*_into` flavour of utf8kit: the input viewed
/// as `&str` ([`count::text`]), converted by `convert` into a buffer from `room` (one
/// element per byte), checked on the valid inputs only ([`Agreement::ExactOnValid`]).
pub fn valid_flavour<T: Copy + Default + 'static, E: 'static>(
    name: &'static str,
    room: fn(&mut Vec<T>, usize) -> &mut [T],
    convert: fn(&str, &mut [T]) -> Result<usize, E>,
) -> Contender {
    let mut buf = Vec::new();
    Contender::utf8(name, "valid", Role::Ours, move |s| {
        let out = room(&mut buf, s.len());
        convert(count::text(s), out).unwrap_or(INVALID)
    })
    .agreement(Agreement::ExactOnValid)
}

/// Identity of one table row: which text, at which size.
#[derive(Clone, Debug)]
pub struct RowKey {
    /// Family name (`Arabic`, `ASCII`, `random`…).
    pub input: String,
    /// Family kind.
    pub kind: Kind,
    /// Requested size in bytes (the input is at most this long).
    pub size: Size,
}

impl RowKey {
    /// Whether this row is one of the corpus files other than Latin (the "non-ASCII" set).
    pub fn is_non_latin_lipsum(&self) -> bool {
        self.kind == Kind::Lipsum && self.input != "Latin"
    }

    /// Whether this row's text is representable in Latin-1: the generated Latin-1 and
    /// ASCII families and the (ASCII) Latin lipsum file. The Latin-1 operations run on
    /// these rows only.
    pub fn is_latin1(&self) -> bool {
        matches!(self.kind, Kind::Latin1 | Kind::Ascii)
            || (self.kind == Kind::Lipsum && self.input == "Latin")
    }

    /// Every row but the generated Latin-1 families: the rows of the Unicode operations.
    pub fn is_not_latin1_family(&self) -> bool {
        self.kind != Kind::Latin1
    }
}

/// A timed function over UTF-8 input.
pub type Utf8Fn = Box<dyn FnMut(&[u8]) -> usize>;
/// A timed function over UTF-16 input.
pub type Utf16Fn = Box<dyn FnMut(&[u16]) -> usize>;
/// A timed function over UTF-32 input.
pub type Utf32Fn = Box<dyn FnMut(&[u32]) -> usize>;

/// The function a contender times, typed by the encoding it reads. Closures are `FnMut`
/// so a contender can own its output buffer (allocated on the first, untimed, call).
pub enum Run {
    /// Reads UTF-8 bytes.
    Utf8(Utf8Fn),
    /// Reads UTF-16 code units (native byte order).
    #[allow(dead_code, reason = "for the transcoding operations (UTF-16 inputs)")]
    Utf16(Utf16Fn),
    /// Reads UTF-16 code units as big-endian bytes.
    Utf16Be(Utf8Fn),
    /// Reads Latin-1 bytes.
    Latin1(Utf8Fn),
    /// Reads UTF-32 values (native byte order).
    Utf32(Utf32Fn),
}

impl Run {
    /// The encoding this function reads.
    pub fn encoding(&self) -> Encoding {
        match self {
            Run::Utf8(_) => Encoding::Utf8,
            Run::Utf16(_) => Encoding::Utf16,
            Run::Utf16Be(_) => Encoding::Utf16Be,
            Run::Latin1(_) => Encoding::Latin1,
            Run::Utf32(_) => Encoding::Utf32,
        }
    }
}

/// How a contender takes part in the comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// utf8kit itself: the subject of the ratios.
    Ours,
    /// Another library doing the same job; the fastest one is the "best peer".
    Peer,
    /// A speed reference doing less work (memcpy, memchr); never a peer.
    Baseline,
}

/// What `--check` requires of a contender's result, compared with the oracle's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Agreement {
    /// Exactly the oracle's number (e.g. `valid_up_to`, units written).
    Exact,
    /// Only the verdict: the result equals the input length exactly when the oracle's does.
    /// For flavours that report a bool (they return [`INVALID`] on failure).
    Verdict,
    /// A baseline that always consumes the whole input: the result is the input length.
    FullLength,
    /// Exactly the oracle's number, on valid UTF-8 only: a contender taking `&str` (the
    /// `valid_utf8_to_*` flavours), never called on the corrupted variants.
    ExactOnValid,
}

/// Result of a bool-only flavour on invalid input ("invalid, position unknown").
pub const INVALID: usize = usize::MAX;

/// One implementation measured on an operation.
pub struct Contender {
    /// Full name, as in the legend and `--filter` (`simdutf8::basic::from_utf8`).
    pub name: String,
    /// Short column header (`s8 basic`).
    pub label: String,
    /// Part in the comparison.
    pub role: Role,
    /// What `--check` requires of its results.
    pub agreement: Agreement,
    /// Rows it runs on (e.g. memchr only on ASCII).
    pub applies: fn(&RowKey) -> bool,
    /// The timed function.
    pub run: Run,
}

impl Contender {
    /// A contender reading UTF-8, agreeing exactly with the oracle, on every row.
    pub fn utf8(
        name: impl Into<String>,
        label: impl Into<String>,
        role: Role,
        f: impl FnMut(&[u8]) -> usize + 'static,
    ) -> Contender {
        Contender::new(name, label, role, Run::Utf8(Box::new(f)))
    }

    /// A contender reading UTF-16, agreeing exactly with the oracle, on every row.
    #[allow(dead_code, reason = "for the transcoding operations (UTF-16 inputs)")]
    pub fn utf16(
        name: impl Into<String>,
        label: impl Into<String>,
        role: Role,
        f: impl FnMut(&[u16]) -> usize + 'static,
    ) -> Contender {
        Contender::new(name, label, role, Run::Utf16(Box::new(f)))
    }

    /// A contender reading UTF-16BE bytes, agreeing exactly with the oracle, on every row.
    pub fn utf16be(
        name: impl Into<String>,
        label: impl Into<String>,
        role: Role,
        f: impl FnMut(&[u8]) -> usize + 'static,
    ) -> Contender {
        Contender::new(name, label, role, Run::Utf16Be(Box::new(f)))
    }

    /// A contender reading Latin-1 bytes, agreeing exactly with the oracle, on every row.
    pub fn latin1(
        name: impl Into<String>,
        label: impl Into<String>,
        role: Role,
        f: impl FnMut(&[u8]) -> usize + 'static,
    ) -> Contender {
        Contender::new(name, label, role, Run::Latin1(Box::new(f)))
    }

    /// A contender reading UTF-32, agreeing exactly with the oracle, on every row.
    pub fn utf32(
        name: impl Into<String>,
        label: impl Into<String>,
        role: Role,
        f: impl FnMut(&[u32]) -> usize + 'static,
    ) -> Contender {
        Contender::new(name, label, role, Run::Utf32(Box::new(f)))
    }

    fn new(name: impl Into<String>, label: impl Into<String>, role: Role, run: Run) -> Contender {
        let agreement = if role == Role::Baseline {
            Agreement::FullLength
        } else {
            Agreement::Exact
        };
        Contender {
            name: name.into(),
            label: label.into(),
            role,
            agreement,
            applies: |_| true,
            run,
        }
    }

    /// Sets what `--check` requires of it.
    pub fn agreement(mut self, agreement: Agreement) -> Contender {
        self.agreement = agreement;
        self
    }

    /// Restricts it to the rows `pred` accepts.
    pub fn only(mut self, pred: fn(&RowKey) -> bool) -> Contender {
        self.applies = pred;
        self
    }
}

/// What a ratio column divides by.
#[derive(Clone, Debug)]
pub enum Denominator {
    /// The fastest [`Role::Peer`] on that row (by median throughput).
    BestPeer,
    /// A named contender.
    Contender(&'static str),
}

/// A ratio column: throughput of `numerator` ÷ throughput of the denominator, as the
/// median of per-repetition ratios (both were measured in the same round, so noise that
/// hits the round hits both). Above 1 means the numerator is faster.
#[derive(Clone, Debug)]
pub struct Ratio {
    /// Column header.
    pub label: &'static str,
    /// Contender name.
    pub numerator: &'static str,
    /// What it is divided by.
    pub denominator: Denominator,
}

impl Ratio {
    /// `numerator ÷ fastest peer`.
    pub fn best_peer(label: &'static str, numerator: &'static str) -> Ratio {
        Ratio {
            label,
            numerator,
            denominator: Denominator::BestPeer,
        }
    }

    /// `numerator ÷ denominator`.
    pub fn of(label: &'static str, numerator: &'static str, denominator: &'static str) -> Ratio {
        Ratio {
            label,
            numerator,
            denominator: Denominator::Contender(denominator),
        }
    }
}

/// How a summary lays out a ratio over a set of rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// One line per size: geometric mean, min and max over the selected rows.
    GeomeanBySize,
    /// Inputs down, sizes across, one ratio per cell.
    Matrix,
}

/// A small table printed after the operation's main table.
#[derive(Clone, Debug)]
pub struct Summary {
    /// Heading.
    pub title: &'static str,
    /// Label of one of the operation's [`Ratio`]s.
    pub ratio: &'static str,
    /// Rows taken into account.
    pub rows: fn(&RowKey) -> bool,
    /// Layout.
    pub shape: Shape,
}

impl Summary {
    /// A [`Shape::GeomeanBySize`] of `ratio` over the non-Latin lipsum files (the set the
    /// targets are stated on).
    pub fn non_latin_geomean(title: &'static str, ratio: &'static str) -> Summary {
        Summary {
            title,
            ratio,
            rows: RowKey::is_non_latin_lipsum,
            shape: Shape::GeomeanBySize,
        }
    }

    /// A [`Shape::Matrix`] of `ratio` over every lipsum file.
    pub fn lipsum_matrix(title: &'static str, ratio: &'static str) -> Summary {
        Summary {
            title,
            ratio,
            rows: |k| k.kind == Kind::Lipsum,
            shape: Shape::Matrix,
        }
    }
}

/// One benchmarked operation: a table of its own in the report.
pub struct Operation {
    /// Name, as in headings and `--filter` (`validate`).
    pub name: &'static str,
    /// Encoding of its inputs.
    pub encoding: Encoding,
    /// Rows it runs on (default: every family but the generated Latin-1 ones).
    pub rows: fn(&RowKey) -> bool,
    /// Contender whose results `--check` compares the others with.
    pub oracle: &'static str,
    /// Contenders, in column order.
    pub contenders: Vec<Contender>,
    /// Ratio columns.
    pub ratios: Vec<Ratio>,
    /// Summaries after the table.
    pub summaries: Vec<Summary>,
    /// Footnotes printed under the table (what the contenders really run, caveats).
    pub notes: Vec<String>,
    /// Defined on valid input only: `--check` skips the corrupted variants.
    pub valid_only: bool,
}

impl Operation {
    /// An operation with no contenders yet.
    pub fn new(name: &'static str, encoding: Encoding, oracle: &'static str) -> Operation {
        Operation {
            name,
            encoding,
            rows: RowKey::is_not_latin1_family,
            oracle,
            contenders: Vec::new(),
            ratios: Vec::new(),
            summaries: Vec::new(),
            notes: Vec::new(),
            valid_only: false,
        }
    }

    /// Restricts it to the rows `pred` accepts.
    pub fn rows(mut self, pred: fn(&RowKey) -> bool) -> Operation {
        self.rows = pred;
        self
    }

    /// Marks the operation as defined on valid input only (`--check` runs no corrupted
    /// variants; the benchmark inputs are always valid).
    pub fn valid_only(mut self) -> Operation {
        self.valid_only = true;
        self
    }

    /// Adds a contender (a column).
    pub fn contender(mut self, c: Contender) -> Operation {
        self.contenders.push(c);
        self
    }

    /// Adds several contenders.
    pub fn contenders(mut self, cs: impl IntoIterator<Item = Contender>) -> Operation {
        self.contenders.extend(cs);
        self
    }

    /// Adds a ratio column.
    pub fn ratio(mut self, r: Ratio) -> Operation {
        self.ratios.push(r);
        self
    }

    /// Adds a summary.
    pub fn summary(mut self, s: Summary) -> Operation {
        self.summaries.push(s);
        self
    }

    /// Adds a footnote.
    pub fn note(mut self, n: impl Into<String>) -> Operation {
        self.notes.push(n.into());
        self
    }

    /// Index of the contender called `name`.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.contenders.iter().position(|c| c.name == name)
    }

    /// Panics if the definition is inconsistent: a programming error in an `ops` module,
    /// caught at start-up rather than as a silently empty column.
    pub fn assert_consistent(&self) {
        let known = |name: &str| {
            assert!(
                self.index_of(name).is_some(),
                "{}: no contender named {name:?}",
                self.name
            )
        };
        known(self.oracle);
        for c in &self.contenders {
            assert_eq!(
                c.run.encoding(),
                self.encoding.units(),
                "{}: {} reads the wrong encoding",
                self.name,
                c.name
            );
            let twins = self.contenders.iter().filter(|d| d.name == c.name).count();
            assert_eq!(twins, 1, "{}: two contenders named {:?}", self.name, c.name);
        }
        for r in &self.ratios {
            known(r.numerator);
            if let Denominator::Contender(d) = r.denominator {
                known(d);
            }
        }
        for s in &self.summaries {
            assert!(
                self.ratios.iter().any(|r| r.label == s.ratio),
                "{}: summary {:?} uses unknown ratio {:?}",
                self.name,
                s.title,
                s.ratio
            );
        }
    }
}
