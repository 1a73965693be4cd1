//! Every UTF-8 error of an input, with its line and column, found in one
//! buffer or across the chunks of a stream.

use utf8kit::Utf8ErrorKind;
use utf8kit::stream::{Piece, StreamScanner};

/// One invalid sequence, located.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    /// Byte offset of the sequence's first byte.
    pub offset: u64,
    /// Its length in bytes; `None` when the input ends inside it.
    pub len: Option<usize>,
    /// Its class.
    pub kind: Utf8ErrorKind,
    /// 1-based line (lines end with `\n`).
    pub line: u64,
    /// 1-based column in characters; an invalid sequence counts as one
    /// character, as it becomes one U+FFFD in lossy decoding.
    pub column: u64,
    /// The bytes of the sequence (at most 3).
    pub bytes: Vec<u8>,
}

/// Finds the errors of `input` in order, keeping at most `keep` of them
/// (`None`: all).
///
/// After each error the search resumes after the invalid sequence
/// (`error_len` bytes), exactly where `String::from_utf8_lossy` resumes.
pub fn find(input: &[u8], keep: Option<usize>) -> Vec<Located> {
    let mut finder = Finder::new(keep);
    finder.feed(input);
    finder.finish();
    finder.into_parts().0
}

/// Finds errors in input that arrives in chunks of any size; the result does
/// not depend on where the chunks are cut. The engine's
/// [`StreamScanner`] finds the errors; this
/// only keeps them and counts lines and columns.
#[derive(Debug)]
pub struct Finder {
    scanner: StreamScanner,
    tally: Tally,
}

/// The part of a [`Finder`] its scanner callback updates.
#[derive(Debug)]
struct Tally {
    keep: Option<usize>,
    /// The errors kept so far, in input order.
    kept: Vec<Located>,
    /// Errors of each kind ([`Utf8ErrorKind::ALL`] order), kept or not.
    counts: [u64; 6],
    cursor: Cursor,
}

impl Tally {
    fn on_piece(&mut self, piece: Piece<'_>) {
        match piece {
            Piece::Valid(text) => self.cursor.advance_valid(text.as_bytes()),
            Piece::Invalid(error, bytes) => {
                let index = Utf8ErrorKind::ALL
                    .iter()
                    .position(|&k| k == error.kind())
                    .unwrap_or(0);
                self.counts[index] += 1;
                if self.keep.is_none_or(|max| self.kept.len() < max) {
                    self.kept.push(Located {
                        offset: error.valid_up_to() as u64,
                        len: error.error_len(),
                        kind: error.kind(),
                        line: self.cursor.line,
                        column: self.cursor.column,
                        bytes: bytes.to_vec(),
                    });
                }
                // An invalid sequence never holds a newline (its bytes are
                // all >= 0x80) and counts as one column.
                self.cursor.column += 1;
            }
        }
    }
}

impl Finder {
    /// A finder that keeps at most `keep` errors (`None`: all) but counts all.
    pub fn new(keep: Option<usize>) -> Finder {
        Finder {
            scanner: StreamScanner::new(),
            tally: Tally {
                keep,
                kept: Vec::new(),
                counts: [0; 6],
                cursor: Cursor::default(),
            },
        }
    }

    /// Total errors seen.
    pub fn total(&self) -> u64 {
        self.tally.counts.iter().sum()
    }

    /// Scans the next chunk.
    pub fn feed(&mut self, chunk: &[u8]) {
        let tally = &mut self.tally;
        self.scanner.feed(chunk, |piece| tally.on_piece(piece));
    }

    /// Reports a character left incomplete at the end of the input.
    pub fn finish(&mut self) {
        let tally = &mut self.tally;
        self.scanner.finish(|piece| tally.on_piece(piece));
    }

    /// The errors kept, in input order, and the count of each kind
    /// ([`Utf8ErrorKind::ALL`] order), kept or not.
    pub fn into_parts(self) -> (Vec<Located>, [u64; 6]) {
        (self.tally.kept, self.tally.counts)
    }
}

/// Line and column of the position reached so far.
#[derive(Debug)]
struct Cursor {
    line: u64,
    column: u64,
}

impl Default for Cursor {
    fn default() -> Self {
        Cursor { line: 1, column: 1 }
    }
}

impl Cursor {
    /// Moves over `valid`, which is valid UTF-8.
    fn advance_valid(&mut self, valid: &[u8]) {
        let after_last_newline = match valid.iter().rposition(|&b| b == b'\n') {
            Some(nl) => {
                self.line += valid.iter().filter(|&&b| b == b'\n').count() as u64;
                self.column = 1;
                &valid[nl + 1..]
            }
            None => valid,
        };
        self.column += count_chars(after_last_newline) as u64;
    }
}

/// Characters in valid UTF-8: every byte that is not a continuation byte.
fn count_chars(valid: &[u8]) -> usize {
    valid.iter().filter(|&&b| (b as i8) >= -0x40).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_count_characters() {
        let input = "ab\nпривет\n世界".as_bytes();
        let mut bad = input.to_vec();
        bad.insert(input.len() - 3, 0xC0); // before 界
        let errs = find(&bad, None);
        assert_eq!(errs.len(), 1);
        assert_eq!((errs[0].line, errs[0].column), (3, 2));
        assert_eq!(errs[0].offset as usize, input.len() - 3);
    }

    #[test]
    fn each_invalid_sequence_counts_as_one_column() {
        let errs = find(b"\xF0\x9F\x98x\xFF\xE4\xB8", None);
        let summary: Vec<_> = errs.iter().map(|e| (e.offset, e.len, e.column)).collect();
        assert_eq!(summary, [(0, Some(3), 1), (4, Some(1), 3), (5, None, 4)]);
        assert_eq!(errs[2].kind, Utf8ErrorKind::Incomplete);
        assert_eq!(errs[2].bytes, [0xE4, 0xB8]);
    }

    #[test]
    fn keeps_some_counts_all() {
        let input = b"ok\xC0\xAF\xED\xA0\x80\n\xF4\x90\x80\x80z\x80";
        let mut finder = Finder::new(Some(2));
        finder.feed(input);
        finder.finish();
        let total = finder.total();
        assert_eq!(finder.into_parts().0.len(), 2);
        // Every error becomes one U+FFFD in lossy decoding.
        let lossy = String::from_utf8_lossy(input);
        assert_eq!(total as usize, lossy.matches('\u{FFFD}').count());
    }

    /// Chunked scanning finds exactly what one-shot scanning finds, for every
    /// way of cutting inputs full of errors and multi-byte characters.
    #[test]
    fn any_chunking_gives_the_one_shot_result() {
        let inputs: [&[u8]; 4] = [
            "a\nπ世😀\n".as_bytes(),
            b"\xF0\x9F\x98x\xFF\xE4\xB8\n\xE4\xB8\x96\xC3",
            b"\xE0\x80\xF0\x9F\x98\x80\xED\xA0\x80\n\xC2\xA9\xF4\x90",
            b"\xF0\x9F\xF0\x9F\x98\x80\x80\x80\xE4",
        ];
        for input in inputs {
            let whole = find(input, None);
            for size in 1..=input.len() {
                let mut finder = Finder::new(None);
                for chunk in input.chunks(size) {
                    finder.feed(chunk);
                }
                finder.finish();
                assert_eq!(
                    finder.into_parts().0,
                    whole,
                    "chunks of {size} over {input:02X?}"
                );
            }
            // Two cuts anywhere.
            for a in 0..=input.len() {
                for b in a..=input.len() {
                    let mut finder = Finder::new(None);
                    finder.feed(&input[..a]);
                    finder.feed(&input[a..b]);
                    finder.feed(&input[b..]);
                    finder.finish();
                    assert_eq!(
                        finder.into_parts().0,
                        whole,
                        "cuts {a},{b} over {input:02X?}"
                    );
                }
            }
        }
    }
}
