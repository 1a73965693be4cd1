//! The encodings the CLI converts between, in one place: names, aliases,
//! byte-order marks and how a chunk may be cut.

use std::fmt;

/// A character encoding `convert` reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// UTF-8 (RFC 3629).
    Utf8,
    /// UTF-16, little-endian code units.
    Utf16Le,
    /// UTF-16, big-endian code units.
    Utf16Be,
    /// UTF-32, little-endian.
    Utf32Le,
    /// UTF-32, big-endian.
    Utf32Be,
    /// ISO-8859-1: bytes are U+0000..U+00FF.
    Latin1,
    /// CESU-8: UTF-8 with supplementary characters as surrogate pairs.
    Cesu8,
    /// Java's Modified UTF-8: CESU-8 with U+0000 as `C0 80`.
    Mutf8,
}

/// Every encoding with its canonical name and accepted aliases.
pub const ALL: &[(Encoding, &str, &[&str])] = &[
    (Encoding::Utf8, "utf-8", &["utf8"]),
    (Encoding::Utf16Le, "utf-16le", &["utf16le", "utf-16-le"]),
    (Encoding::Utf16Be, "utf-16be", &["utf16be", "utf-16-be"]),
    (Encoding::Utf32Le, "utf-32le", &["utf32le", "utf-32-le"]),
    (Encoding::Utf32Be, "utf-32be", &["utf32be", "utf-32-be"]),
    (
        Encoding::Latin1,
        "latin1",
        &["latin-1", "iso-8859-1", "iso8859-1", "l1"],
    ),
    (Encoding::Cesu8, "cesu-8", &["cesu8"]),
    (
        Encoding::Mutf8,
        "mutf-8",
        &["mutf8", "modified-utf-8", "java"],
    ),
];

impl Encoding {
    /// Finds an encoding by name or alias, ignoring case.
    pub fn parse(name: &str) -> Result<Encoding, String> {
        let wanted = name.to_ascii_lowercase();
        ALL.iter()
            .find(|(_, canonical, aliases)| {
                *canonical == wanted || aliases.contains(&wanted.as_str())
            })
            .map(|(e, _, _)| *e)
            .ok_or_else(|| {
                let names: Vec<&str> = ALL.iter().map(|(_, n, _)| *n).collect();
                format!("unknown encoding {name:?}; known: {}", names.join(", "))
            })
    }

    /// The canonical name.
    pub fn name(self) -> &'static str {
        ALL.iter()
            .find(|(e, _, _)| *e == self)
            .map_or("?", |(_, n, _)| n)
    }

    /// The byte-order mark this encoding writes, if it has one.
    pub fn bom(self) -> Option<&'static [u8]> {
        match self {
            Encoding::Utf8 | Encoding::Cesu8 => Some(b"\xEF\xBB\xBF"),
            Encoding::Utf16Le => Some(b"\xFF\xFE"),
            Encoding::Utf16Be => Some(b"\xFE\xFF"),
            Encoding::Utf32Le => Some(b"\xFF\xFE\x00\x00"),
            Encoding::Utf32Be => Some(b"\x00\x00\xFE\xFF"),
            Encoding::Latin1 | Encoding::Mutf8 => None,
        }
    }

    /// The longest prefix of `buf` that can be decoded without cutting a
    /// character (or surrogate pair) that the next chunk may complete.
    pub fn complete_prefix(self, buf: &[u8]) -> usize {
        match self {
            Encoding::Latin1 => buf.len(),
            Encoding::Utf32Le | Encoding::Utf32Be => buf.len() & !3,
            Encoding::Utf16Le | Encoding::Utf16Be => {
                let even = buf.len() & !1;
                let last = match (self, buf.get(even.wrapping_sub(2)..even)) {
                    (Encoding::Utf16Le, Some(&[lo, hi])) => u16::from_le_bytes([lo, hi]),
                    (_, Some(&[hi, lo])) => u16::from_be_bytes([hi, lo]),
                    _ => return even,
                };
                // A high surrogate waits for its low half.
                if (0xD800..0xDC00).contains(&last) {
                    even - 2
                } else {
                    even
                }
            }
            Encoding::Utf8 => utf8_cut(buf),
            Encoding::Cesu8 | Encoding::Mutf8 => {
                let cut = utf8_cut(buf);
                // A complete high surrogate (ED A0..AF xx) waits for its pair.
                match cut.checked_sub(3).and_then(|s| buf.get(s..cut)) {
                    Some(&[0xED, 0xA0..=0xAF, _]) => cut - 3,
                    _ => cut,
                }
            }
        }
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// UTF-8-like: cut before a final sequence whose lead promises more bytes
/// than the buffer holds.
fn utf8_cut(buf: &[u8]) -> usize {
    let len = buf.len();
    let tail_start = len.saturating_sub(3);
    for start in (tail_start..len).rev() {
        let b = buf[start];
        if b & 0xC0 == 0x80 {
            continue; // a continuation byte: look further back
        }
        let width = match b {
            0xC2..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF4 => 4,
            _ => 1,
        };
        return if start + width > len { start } else { len };
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_aliases_parse() {
        for (e, name, aliases) in ALL {
            assert_eq!(Encoding::parse(name), Ok(*e));
            assert_eq!(Encoding::parse(&name.to_uppercase()), Ok(*e));
            for a in *aliases {
                assert_eq!(Encoding::parse(a), Ok(*e));
            }
        }
        assert!(Encoding::parse("ebcdic").unwrap_err().contains("utf-16le"));
    }

    #[test]
    fn cuts_keep_partial_characters_for_later() {
        let e = "a€".as_bytes(); // 61 E2 82 AC
        assert_eq!(Encoding::Utf8.complete_prefix(e), 4);
        assert_eq!(Encoding::Utf8.complete_prefix(&e[..3]), 1);
        assert_eq!(Encoding::Utf8.complete_prefix(&e[..2]), 1);
        assert_eq!(Encoding::Utf8.complete_prefix(b"a\x80"), 2);
        assert_eq!(Encoding::Utf16Le.complete_prefix(&[0x3D, 0xD8, 0x00]), 0);
        assert_eq!(
            Encoding::Utf16Le.complete_prefix(&[0x41, 0x00, 0x3D, 0xD8]),
            2
        );
        assert_eq!(
            Encoding::Utf16Be.complete_prefix(&[0xD8, 0x3D, 0xDE, 0x00]),
            4
        );
        assert_eq!(Encoding::Utf32Be.complete_prefix(&[0; 7]), 4);
        assert_eq!(Encoding::Cesu8.complete_prefix(b"\xED\xA0\xBD"), 0);
        assert_eq!(
            Encoding::Cesu8.complete_prefix(b"\xED\xA0\xBD\xED\xB8\x80"),
            6
        );
    }
}
