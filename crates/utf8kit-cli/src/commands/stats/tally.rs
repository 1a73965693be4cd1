//! Counting, chunk by chunk, what `stats` reports.

use utf8kit::bom::{self, Bom};
use utf8kit::stream::{Piece, StreamScanner};

use super::blocks;

/// Running totals for one input. Feed chunks cut anywhere; a character cut
/// by a chunk's end is carried to the next chunk.
#[derive(Debug)]
pub struct Tally {
    /// Bytes seen.
    pub bytes: u64,
    /// Valid characters by encoded length (1 to 4 bytes).
    pub by_len: [u64; 4],
    /// `\n` not preceded by `\r`.
    pub lf: u64,
    /// `\r\n` pairs.
    pub crlf: u64,
    /// `\r` not followed by `\n`.
    pub cr: u64,
    /// Invalid sequences by kind, in `Utf8ErrorKind::ALL` order.
    pub invalid: [u64; 6],
    /// The byte-order mark at the start, if any.
    pub bom: Option<Bom>,
    block_counts: Vec<u64>,
    /// The last byte seen was `\r` (its partner may start the next chunk).
    pending_cr: bool,
    /// Whether the last line lacks a line ending (for the line count).
    last_line_open: bool,
    started: bool,
    scanner: StreamScanner,
}

impl Default for Tally {
    fn default() -> Self {
        Tally {
            bytes: 0,
            by_len: [0; 4],
            lf: 0,
            crlf: 0,
            cr: 0,
            invalid: [0; 6],
            bom: None,
            block_counts: vec![0; blocks::COUNT],
            pending_cr: false,
            last_line_open: false,
            started: false,
            scanner: StreamScanner::new(),
        }
    }
}

impl Tally {
    /// Counts the next chunk.
    pub fn feed(&mut self, chunk: &[u8]) {
        if chunk.is_empty() {
            return;
        }
        if !self.started {
            self.started = true;
            self.bom = bom::sniff(chunk);
        }
        self.bytes += chunk.len() as u64;
        let mut scanner = std::mem::take(&mut self.scanner);
        scanner.feed(chunk, |piece| self.count(piece));
        self.scanner = scanner;
    }

    /// Ends the input: a character cut at the end is an invalid sequence.
    pub fn finish(&mut self) {
        let mut scanner = std::mem::take(&mut self.scanner);
        scanner.finish(|piece| self.count(piece));
        self.scanner = scanner;
        if self.pending_cr {
            self.cr += 1;
            self.pending_cr = false;
        }
    }

    fn count(&mut self, piece: Piece<'_>) {
        match piece {
            Piece::Valid(text) => self.count_valid(text),
            Piece::Invalid(error, _) => self.count_invalid(error.kind()),
        }
    }

    fn count_invalid(&mut self, kind: utf8kit::Utf8ErrorKind) {
        let index = utf8kit::Utf8ErrorKind::ALL
            .iter()
            .position(|&k| k == kind)
            .unwrap_or(0);
        self.invalid[index] += 1;
        self.settle_cr(false);
        self.last_line_open = true;
    }

    fn count_valid(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        for c in text.chars() {
            self.by_len[c.len_utf8() - 1] += 1;
            self.block_counts[blocks::index(c)] += 1;
            match c {
                '\n' => {
                    if self.pending_cr {
                        self.crlf += 1;
                        self.pending_cr = false;
                    } else {
                        self.lf += 1;
                    }
                    self.last_line_open = false;
                }
                '\r' => {
                    self.settle_cr(true);
                    self.last_line_open = false;
                }
                _ => {
                    self.settle_cr(false);
                    self.last_line_open = true;
                }
            }
        }
    }

    /// A pending `\r` not followed by `\n` is a lone CR line ending.
    fn settle_cr(&mut self, now_cr: bool) {
        if self.pending_cr {
            self.cr += 1;
        }
        self.pending_cr = now_cr;
    }

    /// Valid characters.
    pub fn chars(&self) -> u64 {
        self.by_len.iter().sum()
    }

    /// Invalid sequences.
    pub fn invalid_total(&self) -> u64 {
        self.invalid.iter().sum()
    }

    /// Lines: line endings, plus one for a last line without one.
    pub fn lines(&self) -> u64 {
        self.lf + self.crlf + self.cr + u64::from(self.last_line_open)
    }

    /// `LF`, `CRLF`, `CR`, `mixed (…)` or `none`.
    pub fn line_ending_style(&self) -> String {
        let kinds = [("LF", self.lf), ("CRLF", self.crlf), ("CR", self.cr)];
        let present: Vec<_> = kinds.iter().filter(|(_, n)| *n > 0).collect();
        match present.as_slice() {
            [] => "none".to_owned(),
            [(name, _)] => (*name).to_owned(),
            many => {
                let parts: Vec<String> = many.iter().map(|(k, n)| format!("{k} {n}")).collect();
                format!("mixed ({})", parts.join(", "))
            }
        }
    }

    /// The `n` most frequent blocks, most frequent first.
    pub fn top_blocks(&self, n: usize) -> Vec<(usize, u64)> {
        let mut all: Vec<(usize, u64)> = self
            .block_counts
            .iter()
            .copied()
            .enumerate()
            .filter(|&(_, c)| c > 0)
            .collect();
        all.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        all.truncate(n);
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally_chunks(input: &[u8], size: usize) -> Tally {
        let mut t = Tally::default();
        for chunk in input.chunks(size.max(1)) {
            t.feed(chunk);
        }
        t.finish();
        t
    }

    #[test]
    fn counts_characters_lines_and_endings() {
        let t = tally_chunks("a\r\nб\n世\r😀".as_bytes(), 1 << 20);
        assert_eq!(t.by_len, [5, 1, 1, 1]); // a \r \n \n \r; б; 世; 😀
        assert_eq!((t.lf, t.crlf, t.cr), (1, 1, 1));
        assert_eq!(t.lines(), 4);
        assert_eq!(t.line_ending_style(), "mixed (LF 1, CRLF 1, CR 1)");
        assert_eq!(t.invalid_total(), 0);
    }

    #[test]
    fn any_chunking_gives_the_same_totals() {
        let input = b"\xEF\xBB\xBFok\r\n\xF0\x9F\x98\x80\xC0\xAF\xE4\xB8\r\n\xED\xA0\x80\xF0\x9F";
        let whole = tally_chunks(input, 1 << 20);
        assert_eq!(whole.bom, Some(Bom::Utf8));
        // One invalid sequence per U+FFFD of std's lossy decoding.
        let replacements = String::from_utf8_lossy(input).matches('\u{FFFD}').count();
        assert_eq!(whole.invalid_total() as usize, replacements);
        for size in 1..input.len() {
            let t = tally_chunks(input, size);
            assert_eq!(
                (t.by_len, t.lf, t.crlf, t.cr, t.invalid, t.lines()),
                (
                    whole.by_len,
                    whole.lf,
                    whole.crlf,
                    whole.cr,
                    whole.invalid,
                    whole.lines()
                ),
                "chunks of {size}"
            );
        }
    }
}
