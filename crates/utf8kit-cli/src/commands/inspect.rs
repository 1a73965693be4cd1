//! `utf8kit inspect`: everything about one character's encodings.

use std::fmt::Write as _;
use std::io::{self, Write};

use utf8kit::{plan9, variant};

use crate::Status;
use crate::args::InspectArgs;
use crate::hex;

/// Inspects every item in turn; see [`InspectArgs`].
pub fn run(args: &InspectArgs, out: &mut impl Write) -> io::Result<Status> {
    let mut status = Status::Ok;
    let mut first = true;
    for item in &args.items {
        let values = match parse_item(item) {
            Ok(values) => values,
            Err(message) => {
                eprintln!("utf8kit inspect: {message}");
                status = status.worst(Status::Trouble);
                continue;
            }
        };
        for value in values {
            if !first {
                writeln!(out)?;
            }
            first = false;
            write_report(out, value)?;
        }
    }
    Ok(status)
}

/// `U+1F600`, `u+1f600` and `0x1F600` name code points; anything else is
/// taken as literal characters.
fn parse_item(item: &str) -> Result<Vec<u32>, String> {
    let digits = item
        .strip_prefix("U+")
        .or_else(|| item.strip_prefix("u+"))
        .or_else(|| item.strip_prefix("0x"))
        .or_else(|| item.strip_prefix("0X"));
    match digits {
        Some(d) if !d.is_empty() && d.chars().all(|c| c.is_ascii_hexdigit()) => {
            match u32::from_str_radix(d, 16) {
                Ok(v) if v <= plan9::MAX => Ok(vec![v]),
                _ => Err(format!(
                    "{item} is beyond 0x7FFFFFFF, the largest value even 6-byte UTF-8 can hold"
                )),
            }
        }
        _ if item.is_empty() => Err("an empty argument has no character to inspect".to_owned()),
        _ => Ok(item.chars().map(u32::from).collect()),
    }
}

fn write_report(out: &mut impl Write, value: u32) -> io::Result<()> {
    let Some(c) = char::from_u32(value) else {
        return write_non_scalar(out, value);
    };
    let mut utf8 = [0; 4];
    let utf8 = c.encode_utf8(&mut utf8).as_bytes();
    writeln!(out, "U+{value:04X} {}", shown(c))?;
    writeln!(
        out,
        "  code point       {value} (0x{value:X}), plane {}",
        value >> 16
    )?;
    writeln!(out, "  UTF-8            {}", hex::spaced(utf8))?;
    writeln!(
        out,
        "  UTF-8 bits       {}   ([payload] bits)",
        marked_bits(utf8)
    )?;
    let mut units = [0; 2];
    let units = c.encode_utf16(&mut units);
    let units_hex: Vec<String> = units.iter().map(|u| format!("{u:04X}")).collect();
    let pair = if units.len() == 2 {
        "  (surrogate pair)"
    } else {
        ""
    };
    writeln!(out, "  UTF-16           {}{pair}", units_hex.join(" "))?;
    writeln!(out, "  UTF-32           {value:08X}")?;
    let mut buf = [0; 6];
    let n = variant::encode_cesu8_char(c, &mut buf);
    writeln!(out, "  CESU-8           {}", hex::spaced(&buf[..n]))?;
    let n = variant::encode_mutf8_char(c, &mut buf);
    writeln!(out, "  Modified UTF-8   {}", hex::spaced(&buf[..n]))?;
    write_plan9_row(out, value)
}

/// Surrogates and values above U+10FFFF: not characters, but the 1992
/// Plan 9 UTF-8 still has a form for them.
fn write_non_scalar(out: &mut impl Write, value: u32) -> io::Result<()> {
    writeln!(out, "U+{value:04X}")?;
    let why = if (0xD800..=0xDFFF).contains(&value) {
        "a UTF-16 surrogate, not a Unicode scalar value: UTF-8 has no form for it \
         (WTF-8 and CESU-8 use the 3-byte form below)"
    } else {
        "above U+10FFFF, not a Unicode code point: only the original 1992 UTF-8 \
         (Plan 9, up to 6 bytes) can hold it"
    };
    writeln!(out, "  note             {why}")?;
    let mut buf = [0; 6];
    let n = plan9::encode(value, &mut buf);
    let bytes = &buf[..n];
    writeln!(out, "  Plan 9 UTF-8     {}", hex::spaced(bytes))?;
    writeln!(
        out,
        "  Plan 9 bits      {}   ([payload] bits)",
        marked_bits(bytes)
    )?;
    write_plan9_row(out, value)
}

fn write_plan9_row(out: &mut impl Write, value: u32) -> io::Result<()> {
    let Some((index, row)) = plan9::TAB
        .iter()
        .enumerate()
        .find(|(_, row)| u64::from(value) <= row.lmask as u64)
    else {
        return Ok(());
    };
    writeln!(
        out,
        "  Plan 9 Tab row   {} of {}: cmask 0x{:02X}  cval 0x{:02X}  shift {}  lmask 0x{:X}  lval 0x{:X}",
        index + 1,
        plan9::TAB.len(),
        row.cmask,
        row.cval,
        row.shift,
        row.lmask,
        row.lval
    )
}

/// `11110[000] 10[011111] ...`: each byte's marker bits, then its payload bits
/// in brackets.
fn marked_bits(bytes: &[u8]) -> String {
    let mut out = String::new();
    for (i, &b) in bytes.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        // Marker length: the leading ones plus the zero that ends them
        // (a 1-byte form has just the zero).
        let marker = (b.leading_ones() as usize + 1).min(8);
        let bits = format!("{b:08b}");
        let _ = write!(out, "{}[{}]", &bits[..marker], &bits[marker..]);
    }
    out
}

fn shown(c: char) -> String {
    if c.is_control() || c.is_whitespace() {
        format!("({})", c.escape_unicode())
    } else {
        c.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payload_bits_are_bracketed_after_the_marker() {
        assert_eq!(marked_bits(&[0x41]), "0[1000001]");
        assert_eq!(
            marked_bits("😀".as_bytes()),
            "11110[000] 10[011111] 10[011000] 10[000000]"
        );
    }

    #[test]
    fn items_name_code_points_or_characters() {
        assert_eq!(parse_item("U+1F600"), Ok(vec![0x1F600]));
        assert_eq!(parse_item("0x41"), Ok(vec![0x41]));
        assert_eq!(parse_item("世界"), Ok(vec![0x4E16, 0x754C]));
        assert_eq!(parse_item("U+"), Ok(vec![u32::from('U'), u32::from('+')]));
        assert!(parse_item("U+80000000").is_err());
    }
}
