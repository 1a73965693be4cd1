//! Hexadecimal and binary rendering and parsing of bytes.

use std::fmt::Write;

/// `E4 B8 96`: bytes as upper-case hex pairs separated by spaces.
pub fn spaced(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 3);
    for (i, b) in bytes.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let _ = write!(out, "{b:02X}");
    }
    out
}

/// Parses hex bytes written as `E4 B8 96`, `e4b896`, `0xE4,0xB8`, `\xE4\xB8`
/// or `%E4%B8`: separators (whitespace, commas, `0x`, `\x`, `%`) are ignored,
/// the remaining digits must pair up.
pub fn parse(text: &str) -> Result<Vec<u8>, String> {
    let cleaned = text
        .replace("0x", " ")
        .replace("0X", " ")
        .replace("\\x", " ")
        .replace("\\X", " ");
    let mut digits = Vec::new();
    for (i, c) in cleaned.char_indices() {
        match c {
            ' ' | '\t' | '\n' | '\r' | ',' | '%' | ':' | '-' => {}
            _ => match c.to_digit(16) {
                Some(d) => digits.push(d as u8),
                None => return Err(format!("'{c}' (at character {}) is not a hex digit", i + 1)),
            },
        }
    }
    if digits.len() % 2 != 0 {
        return Err(format!(
            "{} hex digits cannot form whole bytes; write two digits per byte, e.g. \"0A\"",
            digits.len()
        ));
    }
    Ok(digits.chunks_exact(2).map(|p| (p[0] << 4) | p[1]).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_common_spelling() {
        let want = vec![0xE4, 0xB8, 0x96];
        for text in [
            "E4 B8 96",
            "e4b896",
            "0xE4, 0xB8, 0x96",
            "\\xE4\\xB8\\x96",
            "%E4%B8%96",
        ] {
            assert_eq!(parse(text).as_ref(), Ok(&want), "{text}");
        }
    }

    #[test]
    fn rejects_odd_digits_and_non_hex() {
        assert!(parse("E4 B").unwrap_err().contains("3 hex digits"));
        assert!(parse("E4 G0").unwrap_err().contains("'G'"));
    }

    #[test]
    fn spaced_round_trips_through_parse() {
        let bytes: Vec<u8> = (0..=255).collect();
        assert_eq!(parse(&spaced(&bytes)).unwrap(), bytes);
    }
}
