//! Benchmark inputs: the lipsum corpus and generated texts, each producible at any size in
//! UTF-8, UTF-16 or (for the texts it can represent) Latin-1.
//!
//! A *family* is one text (a corpus file pair, generated ASCII, a random mix of 1- to
//! 4-byte characters, or one of two Latin-1 texts). [`Family::utf8`] and [`Family::utf16`] build it at a requested
//! size by repeating the content and cutting at a character boundary, so every input is
//! valid and at most the requested size; [`Data`] stores it from a 64-byte boundary.
//! Inputs are built when a row is measured and dropped afterwards, so a 64 MiB sweep
//! never holds more than one input in memory.

use std::fmt;
use std::path::{Path, PathBuf};

/// Environment variable that overrides the corpus location.
pub const CORPUS_ENV: &str = "UTF8KIT_CORPUS";

/// Seeds of the generated families; fixed so every run measures the same bytes.
const ASCII_SEED: u64 = 0x0A5C_11A5_C11A_5C11;
const RANDOM_SEED: u64 = 0x5EED_0F12_34AB_CDEF;
const SPARSE_SEED: u64 = 0x5BA2_5E00_2019_201C;
const LATIN1_TEXT_SEED: u64 = 0x1A71_11E5_7E87_0001;
const LATIN1_RANDOM_SEED: u64 = 0x1A71_11E5_7A4D_0002;

/// Where a family comes from; summaries select their rows by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A file pair of the lipsum corpus (`NAME-Lipsum.utf8.txt` and `.utf16.txt`).
    Lipsum,
    /// Generated printable ASCII with spaces and newlines (never a NUL byte).
    Ascii,
    /// Generated random characters, uniformly 1, 2, 3 or 4 bytes long in UTF-8.
    Random,
    /// Generated ASCII text with a typographic character (’ “ ” – — …) or an accented
    /// letter about once in 80 characters: English as it is often written.
    Sparse,
    /// Generated text of U+0000..=U+00FF only: French/German-like words with accented
    /// letters, or random characters U+0020..=U+00FF. Only the Latin-1 operations use it.
    Latin1,
}

/// One benchmark text, producible at any size.
pub struct Family {
    /// Display name: the corpus file's language (`Arabic`, `Latin`…), `ASCII` or `random`.
    pub name: String,
    /// Where the text comes from.
    pub kind: Kind,
    /// Whether each call gets a text of its own ([`Family::texts`]): many texts of the
    /// family's kind, taken in turn, so that no branch predictor learns the input.
    pub fresh: bool,
    source: Source,
}

enum Source {
    /// Corpus content, repeated to size. Both forms hold the same text (`--check` verifies).
    Corpus { utf8: Vec<u8>, utf16: Vec<u16> },
    /// A deterministic character generator restarted from `seed` for every input.
    Generated {
        seed: u64,
        next: fn(&mut Rng) -> char,
    },
}

/// The code units of one input, in the encoding an operation consumes.
pub enum Data {
    /// UTF-8 bytes.
    Utf8(Aligned<u8>),
    /// UTF-16 code units in native byte order (BOM removed).
    Utf16(Aligned<u16>),
    /// UTF-16 code units stored big-endian, two bytes each (BOM removed).
    Utf16Be(Aligned<u8>),
    /// Latin-1 bytes (each byte is the character U+0000..=U+00FF of its value).
    Latin1(Aligned<u8>),
    /// UTF-32 values (scalar values, native byte order).
    Utf32(Aligned<u32>),
}

impl Data {
    /// Size in bytes, the numerator of every GB/s figure.
    pub fn byte_len(&self) -> usize {
        match self {
            Data::Utf8(b) | Data::Latin1(b) => b.len(),
            Data::Utf16(u) => u.len() * 2,
            Data::Utf16Be(b) => b.len(),
            Data::Utf32(u) => u.len() * 4,
        }
    }

    /// The bytes of UTF-8, Latin-1 or UTF-16BE data; `None` for the others.
    pub fn bytes(&self) -> Option<&[u8]> {
        match self {
            Data::Utf8(b) | Data::Latin1(b) | Data::Utf16Be(b) => Some(b),
            _ => None,
        }
    }

    /// The units of native-order UTF-16 data; `None` for the others.
    pub fn utf16_units(&self) -> Option<&[u16]> {
        match self {
            Data::Utf16(u) => Some(u),
            _ => None,
        }
    }

    /// The values of UTF-32 data; `None` for the others.
    pub fn utf32_values(&self) -> Option<&[u32]> {
        match self {
            Data::Utf32(u) => Some(u),
            _ => None,
        }
    }

    /// Number of code units (bytes, UTF-16 units or UTF-32 values).
    pub fn units(&self) -> usize {
        match self {
            Data::Utf8(b) | Data::Latin1(b) => b.len(),
            Data::Utf16(u) => u.len(),
            Data::Utf16Be(b) => b.len() / 2,
            Data::Utf32(u) => u.len(),
        }
    }
}

/// Alignment of every input's first unit: a cache line. Every contender reads the same
/// buffer either way, but a 64-byte-vector kernel on a misaligned buffer splits every load
/// across two lines; fixing the alignment keeps that from varying with where the
/// allocator put the input (malloc gives 16 bytes).
pub const ALIGN: usize = 64;

/// Units stored from a [`ALIGN`]-byte boundary (the buffer is over-allocated and the
/// content shifted). Dereferences to the slice.
pub struct Aligned<T> {
    buf: Vec<T>,
    start: usize,
    len: usize,
}

impl<T: Copy + Default> From<&[T]> for Aligned<T> {
    fn from(src: &[T]) -> Aligned<T> {
        let pad = ALIGN / size_of::<T>();
        let mut buf = vec![T::default(); src.len() + pad];
        let start = buf.as_ptr().align_offset(ALIGN).min(pad);
        buf[start..start + src.len()].copy_from_slice(src);
        Aligned {
            buf,
            start,
            len: src.len(),
        }
    }
}

impl<T: Copy + Default> From<Vec<T>> for Aligned<T> {
    fn from(src: Vec<T>) -> Aligned<T> {
        Aligned::from(src.as_slice())
    }
}

impl<T> std::ops::Deref for Aligned<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        &self.buf[self.start..self.start + self.len]
    }
}

/// The encoding an operation reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// UTF-8 bytes.
    Utf8,
    /// UTF-16 code units, native byte order.
    Utf16,
    /// UTF-16 code units as big-endian bytes (the same text as [`Encoding::Utf16`]).
    Utf16Be,
    /// Latin-1 bytes.
    Latin1,
    /// UTF-32 values, native byte order.
    Utf32,
    /// UTF-8 with an invalid sequence about every KiB ([`damage`]); read as UTF-8.
    Utf8Damaged,
}

impl Encoding {
    /// The code units contenders read: [`Encoding::Utf8Damaged`] is UTF-8.
    pub fn units(self) -> Encoding {
        match self {
            Encoding::Utf8Damaged => Encoding::Utf8,
            other => other,
        }
    }
}

/// Bytes between two errors injected by [`damage`].
pub const ERROR_SPACING: usize = 1024;

/// The invalid sequences [`damage`] injects, in turn: an invalid byte (one U+FFFD), a
/// 3-byte sequence cut after two bytes (one U+FFFD), an encoded surrogate (three).
const DAMAGE: [&[u8]; 3] = [b"\xFF", b"\xE2\x82", b"\xED\xA0\x80"];

/// `valid` UTF-8 with one character replaced by an invalid sequence every
/// [`ERROR_SPACING`] bytes (the first at half that), cycling through [`DAMAGE`].
/// Deterministic; inputs shorter than `ERROR_SPACING / 2` stay valid.
pub fn damage(valid: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(valid.len() + valid.len() / ERROR_SPACING + 4);
    let (mut copied, mut at, mut turn) = (0, ERROR_SPACING / 2, 0);
    while let Some(start) = (at..valid.len()).find(|&j| valid[j] & 0xC0 != 0x80) {
        let end = (start + utf8kit::sequence_len(valid[start]).max(1)).min(valid.len());
        out.extend_from_slice(&valid[copied..start]);
        out.extend_from_slice(DAMAGE[turn % DAMAGE.len()]);
        (copied, at, turn) = (end, start + ERROR_SPACING, turn + 1);
    }
    out.extend_from_slice(&valid[copied..]);
    out
}

impl Family {
    /// The text as UTF-8, at most `size` bytes, cut at a character boundary.
    pub fn utf8(&self, size: usize) -> Vec<u8> {
        match &self.source {
            Source::Corpus { utf8, .. } => {
                let mut out = repeat_to(utf8, size);
                // The repeated text is valid UTF-8, so only the last character can be cut.
                if let Some(lead) = out.iter().rposition(|&b| b & 0xC0 != 0x80)
                    && lead + utf8kit::sequence_len(out[lead]) > out.len()
                {
                    out.truncate(lead);
                }
                out
            }
            Source::Generated { seed, next } => {
                let mut rng = Rng::new(*seed);
                let mut out = Vec::with_capacity(size);
                let mut buf = [0u8; 4];
                loop {
                    let c = next(&mut rng).encode_utf8(&mut buf).as_bytes();
                    if out.len() + c.len() > size {
                        return out;
                    }
                    out.extend_from_slice(c);
                }
            }
        }
    }

    /// The text as UTF-16, at most `size` bytes (`size / 2` units), never ending in half
    /// of a surrogate pair.
    pub fn utf16(&self, size: usize) -> Vec<u16> {
        let units = size / 2;
        match &self.source {
            Source::Corpus { utf16, .. } => {
                let mut out = repeat_to(utf16, units);
                if out.last().is_some_and(|u| (0xD800..0xDC00).contains(u)) {
                    out.pop();
                }
                out
            }
            Source::Generated { seed, next } => {
                let mut rng = Rng::new(*seed);
                let mut out = Vec::with_capacity(units);
                let mut buf = [0u16; 2];
                loop {
                    let c = next(&mut rng).encode_utf16(&mut buf);
                    if out.len() + c.len() > units {
                        return out;
                    }
                    out.extend_from_slice(c);
                }
            }
        }
    }

    /// The text as Latin-1, `size` bytes (fewer only if the text is shorter). Characters
    /// above U+00FF are left out: a text with some is not representable, and the Latin-1
    /// operations do not run on it ([`is_latin1`](crate::ops::RowKey::is_latin1)).
    pub fn latin1(&self, size: usize) -> Vec<u8> {
        let latin1 = |c: char| u8::try_from(u32::from(c)).ok();
        match &self.source {
            Source::Corpus { utf8, .. } => {
                let text = String::from_utf8_lossy(utf8);
                let unit: Vec<u8> = text.chars().filter_map(latin1).collect();
                if unit.is_empty() {
                    return Vec::new();
                }
                repeat_to(&unit, size)
            }
            Source::Generated { seed, next } => {
                let mut rng = Rng::new(*seed);
                let mut out = Vec::with_capacity(size);
                // A generator of few Latin-1 characters still ends (random: 1 in 4).
                while out.len() < size {
                    out.extend(latin1(next(&mut rng)));
                }
                out
            }
        }
    }

    /// The text as UTF-32, `size / 4` values (the same characters as the other forms).
    pub fn utf32(&self, size: usize) -> Vec<u32> {
        let values = size / 4;
        let unit: Vec<u32> = match &self.source {
            Source::Corpus { utf8, .. } => std::str::from_utf8(utf8)
                .unwrap_or_default()
                .chars()
                .map(u32::from)
                .collect(),
            Source::Generated { seed, next } => {
                let mut rng = Rng::new(*seed);
                return (0..values).map(|_| u32::from(next(&mut rng))).collect();
            }
        };
        repeat_to(&unit, values)
    }

    /// The text in `encoding` at `size` bytes.
    pub fn data(&self, encoding: Encoding, size: usize) -> Data {
        match encoding {
            Encoding::Utf8 => Data::Utf8(self.utf8(size).into()),
            Encoding::Utf16 => Data::Utf16(self.utf16(size).into()),
            Encoding::Utf16Be => Data::Utf16Be(be_bytes(&self.utf16(size)).into()),
            Encoding::Latin1 => Data::Latin1(self.latin1(size).into()),
            Encoding::Utf32 => Data::Utf32(self.utf32(size).into()),
            Encoding::Utf8Damaged => Data::Utf8(damage(&self.utf8(size)).into()),
        }
    }

    /// The texts a row of this family takes in turn, in `encoding` at `size` bytes: one
    /// text, or for a fresh family [`fresh_variants`] texts of its kind, each generated from
    /// its own seed.
    pub fn texts(&self, encoding: Encoding, size: usize) -> Vec<Data> {
        let (true, Source::Generated { seed, next }) = (self.fresh, &self.source) else {
            return vec![self.data(encoding, size)];
        };
        (0..fresh_variants(size) as u64)
            .map(|k| {
                let variant = Family {
                    name: String::new(),
                    kind: self.kind,
                    fresh: false,
                    source: Source::Generated {
                        seed: seed ^ k.wrapping_mul(0x9E37_79B9_7F4A_7C15),
                        next: *next,
                    },
                };
                variant.data(encoding, size)
            })
            .collect()
    }

    /// For corpus families: whether the UTF-16 file holds the same text as the UTF-8 file.
    /// `None` for generated families (both forms come from one generator).
    pub fn corpus_forms_agree(&self) -> Option<bool> {
        match &self.source {
            Source::Corpus { utf8, utf16 } => {
                Some(utf8.as_slice() == String::from_utf16_lossy(utf16).as_bytes())
            }
            Source::Generated { .. } => None,
        }
    }
}

/// How many texts a fresh family takes in turn at `size` bytes: enough for 8 MiB in all
/// (far more branches than a predictor holds; this Zen 3 learns the whole pattern of a
/// text of up to about 1 MiB converted again and again), at most 4096.
pub fn fresh_variants(size: usize) -> usize {
    ((8 << 20) / size.max(1)).clamp(1, 4096)
}

/// Every family: the corpus files in name order, then the generated ones.
pub fn families(corpus: &Path) -> Result<Vec<Family>, String> {
    let mut out = load_corpus(corpus)?;
    out.extend(generated_families());
    Ok(out)
}

/// The generated families, `ASCII`, `random`, `sparse`, `Latin-1 text` and `Latin-1 random` (they
/// need no corpus).
pub fn generated_families() -> Vec<Family> {
    vec![
        Family {
            name: "ASCII".into(),
            kind: Kind::Ascii,
            fresh: false,
            source: Source::Generated {
                seed: ASCII_SEED,
                next: ascii_char,
            },
        },
        Family {
            name: "random".into(),
            kind: Kind::Random,
            fresh: false,
            source: Source::Generated {
                seed: RANDOM_SEED,
                next: random_char,
            },
        },
        Family {
            name: "sparse".into(),
            kind: Kind::Sparse,
            fresh: false,
            source: Source::Generated {
                seed: SPARSE_SEED,
                next: sparse_char,
            },
        },
        Family {
            name: "sparse fresh".into(),
            kind: Kind::Sparse,
            fresh: true,
            source: Source::Generated {
                seed: SPARSE_SEED,
                next: sparse_char,
            },
        },
        Family {
            name: "Latin-1 text".into(),
            kind: Kind::Latin1,
            fresh: false,
            source: Source::Generated {
                seed: LATIN1_TEXT_SEED,
                next: latin1_text_char,
            },
        },
        Family {
            name: "Latin-1 random".into(),
            kind: Kind::Latin1,
            fresh: false,
            source: Source::Generated {
                seed: LATIN1_RANDOM_SEED,
                next: latin1_random_char,
            },
        },
    ]
}

/// The corpus directory: `$UTF8KIT_CORPUS`, else the nearest `shared/corpus/lipsum` beside
/// the workspace root or one of its ancestors (the main checkout has `shared/` beside it;
/// worktrees sit one level deeper).
pub fn corpus_dir() -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os(CORPUS_ENV) {
        return Ok(PathBuf::from(dir));
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.ancestors()
        .skip(1)
        .map(|dir| dir.join("shared/corpus/lipsum"))
        .find(|dir| dir.is_dir())
        .ok_or_else(|| {
            format!(
                "no shared/corpus/lipsum found beside {} or its ancestors; set {CORPUS_ENV}",
                root.display()
            )
        })
}

/// Loads every `*.utf8.txt` with its `*.utf16.txt` twin.
fn load_corpus(dir: &Path) -> Result<Vec<Family>, String> {
    let read = |path: &Path| {
        std::fs::read(path).map_err(|e| format!("{}: {e} (set {CORPUS_ENV})", path.display()))
    };
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("{}: {e} (set {CORPUS_ENV})", dir.display()))?;
    let mut out = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
        let Some(file) = path.file_name().and_then(|f| f.to_str()) else {
            continue;
        };
        let Some(stem) = file.strip_suffix(".utf8.txt") else {
            continue;
        };
        let utf8 = read(&path)?;
        if let Err(e) = core::str::from_utf8(&utf8) {
            return Err(format!("{}: not UTF-8 ({e})", path.display()));
        }
        let utf16 = decode_utf16_file(&read(&dir.join(format!("{stem}.utf16.txt")))?)
            .map_err(|e| format!("{stem}.utf16.txt: {e}"))?;
        if utf8.is_empty() || utf16.is_empty() {
            return Err(format!("{stem}: empty corpus file"));
        }
        let name = stem.strip_suffix("-Lipsum").unwrap_or(stem).to_string();
        out.push(Family {
            name,
            kind: Kind::Lipsum,
            fresh: false,
            source: Source::Corpus { utf8, utf16 },
        });
    }
    if out.is_empty() {
        return Err(format!(
            "{}: no *.utf8.txt files (set {CORPUS_ENV})",
            dir.display()
        ));
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// UTF-16 file bytes to native units: the BOM picks the byte order and is removed; without
/// a BOM the file is read as little-endian. Later U+FEFF characters are text and stay.
fn decode_utf16_file(bytes: &[u8]) -> Result<Vec<u16>, String> {
    if !bytes.len().is_multiple_of(2) {
        return Err(format!("odd length {}", bytes.len()));
    }
    let (big_endian, body) = match bytes {
        [0xFE, 0xFF, rest @ ..] => (true, rest),
        [0xFF, 0xFE, rest @ ..] => (false, rest),
        _ => (false, bytes),
    };
    Ok(body
        .chunks_exact(2)
        .map(|p| {
            if big_endian {
                u16::from_be_bytes([p[0], p[1]])
            } else {
                u16::from_le_bytes([p[0], p[1]])
            }
        })
        .collect())
}

/// UTF-16 `units` as big-endian bytes.
pub fn be_bytes(units: &[u16]) -> Vec<u8> {
    units.iter().flat_map(|u| u.to_be_bytes()).collect()
}

/// `unit` repeated and cut to exactly `len` elements (`unit` must not be empty).
fn repeat_to<T: Copy>(unit: &[T], len: usize) -> Vec<T> {
    let mut out = Vec::with_capacity(len);
    while out.len() < len {
        let take = (len - out.len()).min(unit.len());
        out.extend_from_slice(&unit[..take]);
    }
    out
}

/// Printable ASCII with a word-like distribution: mostly lowercase, some spaces, capitals,
/// digits, punctuation and newlines.
fn ascii_char(rng: &mut Rng) -> char {
    const ALPHABET: &[u8] =
        b"etaoinshrdlucmfwypvbgkjqxz etaoinshrdlu     ETAOINS0123,.;:!?'\"()-\n";
    char::from(ALPHABET[rng.below(ALPHABET.len() as u64) as usize])
}

/// [`ascii_char`] text with about one character in 80 (on average) replaced by one of
/// [`TYPOGRAPHIC`]: the text of [`Kind::Sparse`].
fn sparse_char(rng: &mut Rng) -> char {
    if rng.below(80) == 0 {
        TYPOGRAPHIC[rng.below(TYPOGRAPHIC.len() as u64) as usize]
    } else {
        ascii_char(rng)
    }
}

/// The non-ASCII characters of English text as typeset: quotes and apostrophes, dashes,
/// the ellipsis (3 bytes in UTF-8), and a few accented letters (2 bytes).
const TYPOGRAPHIC: [char; 10] = ['’', '’', '“', '”', '–', '—', '…', 'é', 'ï', 'ü'];

/// French/German-like Latin-1 text: the ASCII alphabet of [`ascii_char`] with about one
/// letter in eight replaced by an accented letter U+00C0..=U+00FF.
fn latin1_text_char(rng: &mut Rng) -> char {
    if rng.below(8) == 0 {
        // U+00D7 and U+00F7 (× and ÷) are not letters but keep the range simple.
        char::from(0xC0 + rng.below(0x40) as u8)
    } else {
        ascii_char(rng)
    }
}

/// A random character U+0020..=U+00FF (Latin-1 bytes 20..=FF, C1 controls included).
fn latin1_random_char(rng: &mut Rng) -> char {
    char::from(0x20 + rng.below(0xE0) as u8)
}

/// A random scalar value whose UTF-8 length is uniform over 1..=4 (surrogates redrawn).
fn random_char(rng: &mut Rng) -> char {
    let (lo, hi) = match rng.below(4) {
        0 => (0x20, 0x7E),
        1 => (0x80, 0x7FF),
        2 => (0x800, 0xFFFF),
        _ => (0x1_0000, 0x10_FFFF),
    };
    loop {
        if let Some(c) = char::from_u32(lo + rng.below(u64::from(hi - lo + 1)) as u32) {
            return c;
        }
    }
}

/// SplitMix64: tiny, fast, good enough to make text no branch predictor can memorise.
pub struct Rng(u64);

impl Rng {
    /// A generator starting at `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `0..n` (`n > 0`); the modulo bias is irrelevant here.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// A byte count as written on the command line and in tables: `64`, `1K`, `64M` (binary units).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Size(pub usize);

impl Size {
    /// Parses `64`, `1K`, `1k`, `64M`, `1G` (K = 1024).
    pub fn parse(s: &str) -> Result<Size, String> {
        let s = s.trim();
        let (digits, unit) = match s.as_bytes().last() {
            Some(b'k' | b'K') => (&s[..s.len() - 1], 1 << 10),
            Some(b'm' | b'M') => (&s[..s.len() - 1], 1 << 20),
            Some(b'g' | b'G') => (&s[..s.len() - 1], 1 << 30),
            _ => (s, 1),
        };
        digits
            .parse::<usize>()
            .ok()
            .and_then(|n| n.checked_mul(unit))
            .map(Size)
            .ok_or_else(|| format!("bad size {s:?} (expected e.g. 64, 1K, 64M)"))
    }
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0;
        match n {
            0 => write!(f, "0"),
            _ if n.is_multiple_of(1 << 30) => write!(f, "{}G", n >> 30),
            _ if n.is_multiple_of(1 << 20) => write!(f, "{}M", n >> 20),
            _ if n.is_multiple_of(1 << 10) => write!(f, "{}K", n >> 10),
            _ => write!(f, "{n}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generated(kind: Kind) -> Family {
        generated_families()
            .into_iter()
            .find(|f| f.kind == kind)
            .unwrap()
    }

    #[test]
    fn corpus_cut_is_valid_and_at_most_size() {
        let text = "aé€😀".repeat(3);
        let utf16: Vec<u16> = text.encode_utf16().collect();
        let fam = Family {
            name: "t".into(),
            kind: Kind::Lipsum,
            fresh: false,
            source: Source::Corpus {
                utf8: text.clone().into_bytes(),
                utf16,
            },
        };
        for size in 0..64 {
            let b = fam.utf8(size);
            assert!(b.len() <= size && size - b.len() < 4, "size {size}");
            assert!(text.repeat(8).as_bytes().starts_with(&b));
            let u = fam.utf16(size);
            assert!(u.len() <= size / 2 && size / 2 - u.len() < 2);
            assert!(String::from_utf16(&u).is_ok(), "size {size}");
        }
    }

    #[test]
    fn generated_text_is_valid_and_deterministic() {
        for kind in [Kind::Ascii, Kind::Random, Kind::Sparse] {
            let fam = generated(kind);
            let big = fam.utf8(1 << 16);
            let text = core::str::from_utf8(&big).unwrap();
            assert!(big.len() > (1 << 16) - 4);
            assert!(big.starts_with(&fam.utf8(1000)));
            assert_eq!(kind == Kind::Ascii, big.is_ascii());
            assert!(!big.contains(&0));
            let u = fam.utf16(1 << 16);
            assert!(text.encode_utf16().collect::<Vec<_>>().starts_with(&u));
        }
        let lens = generated(Kind::Random).utf8(1 << 16);
        let s = core::str::from_utf8(&lens).unwrap();
        for n in 1..=4 {
            let count = s.chars().filter(|c| c.len_utf8() == n).count();
            assert!(count > 2000, "{n}-byte chars: {count}");
        }
    }

    #[test]
    fn sparse_text_has_a_typographic_character_in_about_80() {
        let bytes = generated(Kind::Sparse).utf8(1 << 16);
        let text = core::str::from_utf8(&bytes).unwrap();
        let chars = text.chars().count();
        let rare = text.chars().filter(|c| !c.is_ascii()).count();
        assert!(
            (chars / 120..chars / 50).contains(&rare),
            "{rare} of {chars}"
        );
        assert!(
            text.chars()
                .all(|c| c.is_ascii() || TYPOGRAPHIC.contains(&c))
        );
        // Both lengths occur: 2-byte letters and 3-byte punctuation.
        assert!(text.chars().any(|c| c.len_utf8() == 2));
        assert!(text.chars().any(|c| c.len_utf8() == 3));
    }

    #[test]
    fn latin1_families_are_latin1_text() {
        for fam in generated_families()
            .iter()
            .filter(|f| f.kind == Kind::Latin1)
        {
            let bytes = fam.latin1(1 << 16);
            assert_eq!(bytes.len(), 1 << 16);
            assert!(bytes.iter().all(|&b| b >= 0x20 || b == b'\n'));
            let high = bytes.iter().filter(|&&b| b >= 0x80).count();
            assert!(high > (1 << 16) / 20, "{}: {high} bytes >= 0x80", fam.name);
            // The UTF-8 form is the same text.
            let utf8 = fam.utf8(1 << 16);
            let text = core::str::from_utf8(&utf8).unwrap();
            assert!(text.chars().all(|c| u32::from(c) <= 0xFF));
            let from_utf8: Vec<u8> = text.chars().map(|c| u32::from(c) as u8).collect();
            assert!(bytes.starts_with(&from_utf8[..from_utf8.len().min(1000)]));
        }
        // ASCII reads the same as Latin-1 and UTF-8.
        let ascii = generated(Kind::Ascii);
        assert_eq!(ascii.latin1(1000), ascii.utf8(1000));
    }

    #[test]
    fn damage_injects_one_error_per_spacing() {
        for fam in generated_families() {
            let valid = fam.utf8(64 << 10);
            let bad = damage(&valid);
            let chunks: Vec<_> = bad.utf8_chunks().collect();
            let errors = chunks.iter().filter(|c| !c.invalid().is_empty()).count();
            // 64 injections; each surrogate (one in three) is three errors.
            assert_eq!(errors, 64 + 2 * 21, "{}", fam.name);
            assert_eq!(damage(&valid), bad);
            let short = fam.utf8(500);
            assert_eq!(damage(&short), short);
        }
    }

    #[test]
    fn aligned_copies_start_on_a_cache_line() {
        for len in [0, 1, 63, 64, 1000] {
            let src: Vec<u8> = (0..len).map(|i| i as u8).collect();
            let a = Aligned::from(src.as_slice());
            assert_eq!(&a[..], &src[..]);
            assert_eq!(a.as_ptr() as usize % ALIGN, 0);
            let units: Vec<u16> = (0..len as u16).collect();
            let a = Aligned::from(units.as_slice());
            assert_eq!(&a[..], &units[..]);
            assert_eq!(a.as_ptr() as usize % ALIGN, 0);
        }
    }

    #[test]
    fn utf16_bom_is_decoded() {
        assert_eq!(
            decode_utf16_file(&[0xFF, 0xFE, 0x41, 0x00]).unwrap(),
            [0x41]
        );
        assert_eq!(
            decode_utf16_file(&[0xFE, 0xFF, 0x00, 0x41]).unwrap(),
            [0x41]
        );
        assert_eq!(decode_utf16_file(&[0x41, 0x00]).unwrap(), [0x41]);
        assert!(decode_utf16_file(&[0x41]).is_err());
    }

    #[test]
    fn sizes_round_trip() {
        for (s, n) in [
            ("64", 64),
            ("1K", 1024),
            ("64k", 65536),
            ("1M", 1 << 20),
            ("64M", 64 << 20),
        ] {
            assert_eq!(Size::parse(s), Ok(Size(n)));
        }
        assert_eq!(Size(1 << 20).to_string(), "1M");
        assert_eq!(Size(65543).to_string(), "65543");
        assert!(Size::parse("x").is_err());
        assert!(Size::parse("").is_err());
    }
}
